// What a constructor plan needs when it runs (the steps with dependencies are generated, in
// `ConstructorStep+Arity.swift`): the binding's key, the plans of its dependencies and the
// user's initializer, held by one object per plan.
//
// A closure that captures several values gets a context box plus a generated forwarder that unpacks
// every captured value into arguments (and onto the stack) before each call. A closure that captures
// exactly one object uses that object as its context: the forwarder shrinks to a trampoline and the
// closure body reads the fields it needs where they lie. On a chain of constructor bindings that runs
// once per node, so each node's stack frame is smaller too. Measured with di-bench (deep chains of
// 10, 100 and 1,000 services): 1.51×, 1.53× and 1.70× hand-wired with seven captured words per
// plan, 1.35×, 1.33× and 1.35× with one step object; callgrind: 4,463 → 4,372 instructions for the
// chain of 10. The time fell by far more than the instructions did, which points at the smaller frames.
//
// The classes are generic only over their dependency and value types, whose fields are all one or
// two words whatever the types: their layout is fixed, and the specialized plan reads them at
// constant offsets.
//
// `injection` is the check of ``ConstructionInjection/dynamic``: `nil` unless the binding's instances
// may declare injected properties its key's type doesn't.

/// The captured state of a constructor plan without dependencies.
@usableFromInline
final class ConstructorStep0<T>: KeyedStep {
    @usableFromInline let key: BindingKey
    @usableFromInline let f: @Sendable () throws -> T
    @usableFromInline let injection: PropertyInjection?

    @inlinable
    init(key: BindingKey, f: @escaping @Sendable () throws -> T, injection: PropertyInjection?) {
        self.key = key
        self.f = f
        self.injection = injection
    }
}

/// The captured state of a constructor plan with any number of dependencies: the parameter-pack path,
/// for initializers with more parameters than the fixed-arity steps take.
///
/// The dependencies' plans are kept in one buffer of unretained plan addresses, in parameter order, and
/// the plan reads them one by one while it expands the pack (see ``Recipe/dependency(_:_:_:)``). Keeping
/// them in a tuple of ``PlanReference``s instead, as a pack would naturally be stored, makes every
/// request instantiate the tuple's metadata and each element's generic types at run time (about 2,000
/// instructions per dependency, measured with callgrind on an initializer of 100 parameters); read from a
/// buffer of words, the expansion inside the plan's closure needs no metadata beyond the pack's own, and
/// the closure is specialized where the binding is declared, like the fixed-arity ones.
@usableFromInline
final class ConstructorStepPack<each D, T>: KeyedStep {
    @usableFromInline let key: BindingKey
    /// The dependencies' ``PlanReference``s (their bits), in parameter order. Unsafe only in name: written while the step is linked, before its plan is published (the
    /// publication's release orders the writes), and only read afterwards.
    @usableFromInline nonisolated(unsafe) let plans: UnsafeMutablePointer<UInt>
    /// The number of dependencies.
    @usableFromInline let count: Int
    @usableFromInline let f: @Sendable (repeat consuming each D) throws -> T
    @usableFromInline let injection: PropertyInjection?

    @inlinable
    init(key: BindingKey, f: @escaping @Sendable (repeat consuming each D) throws -> T, injection: PropertyInjection?) {
        var count = 0
        for _ in repeat (each D).self {
            count += 1
        }
        self.key = key
        self.count = count
        self.plans = .allocate(capacity: Swift.max(count, 1))
        self.f = f
        self.injection = injection
    }

    deinit {
        plans.deallocate()
    }
}

/// A plan's captured state that knows its binding's key: the failures of its plan are reported out of
/// line, so that the plan's own frame holds nothing for them and the key is read only when one happens.
@usableFromInline
protocol KeyedStep: AnyObject, Sendable {
    var key: BindingKey { get }
}

extension KeyedStep {
    /// A dependency's failure, with this step's key on its path.
    @usableFromInline @inline(never)
    func dependencyFailed(_ error: consuming ProvisionError) -> ProvisionError {
        error.prepending(key)
    }

    /// What the factory threw, as ``ProvisionError/Code/factoryFailed`` for this step's key (or a
    /// Provision error the factory passed on, with the key on its path).
    @usableFromInline @inline(never)
    func factoryFailed(_ error: consuming any Error) -> ProvisionError {
        ProvisionError.thrown(by: key, consume error)
    }
}
