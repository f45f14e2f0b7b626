public import Synchronization

/// A linked recipe: how to build a `T` with every static dependency already resolved to its own plan.
///
/// A plan is computed once per binding, the first time the binding is resolved (see ``Linker``), and
/// captures the plans of its dependencies directly, so resolving a deep graph costs one closure call per
/// node: no key hashing, no table lookup, no dynamic cast, no lock.
///
/// Plans are immutable and `Sendable`; they are published through ``Node/plan`` with one atomic store
/// and read from any thread without a lock.
@usableFromInline
final class Plan<T>: Sendable {
    @usableFromInline typealias Make = @Sendable (ResolutionContext) throws(ProvisionError) -> T

    @usableFromInline let make: Make

    @inlinable
    init(_ make: @escaping Make) {
        self.make = make
    }
}

/// How a plan reaches one of its dependencies: through the dependency's published plan, or straight
/// from the dependency's node when the plan would only read the node — a singleton's published instance,
/// or a plain transient's initializer (``Node/isDirect``). Either is referenced without retaining it.
///
/// A published plan or node is owned by its injector's registry until the injector is freed, and a plan
/// only runs while its injector is alive, so the reference is always valid when used; not retaining it
/// keeps every resolution free of reference-count traffic on shared objects, which would otherwise
/// bounce their cache lines between threads resolving the same graph.
///
/// Reading the node directly skips two calls and the plan's and step's cache lines for the most common
/// dependencies, the leaves of a graph. What it reads, and what it checks, is decided when the dependent
/// is linked and kept in the reference's low bits (a node's address is 16-byte aligned), so that the
/// parameter-pack plan, whose code is not specialized for the dependency's type, decodes it with the
/// same few comparisons as the specialized fixed-arity plans:
/// the tags of ``ReferenceTag``.
@usableFromInline
struct PlanReference<T>: Sendable {
    /// The address with the tags of ``ReferenceTag`` in its low bits.
    @usableFromInline let bits: UInt

    /// A reference to a published plan.
    @inlinable
    init(_ plan: Plan<T>) {
        self.bits = UInt(bitPattern: Unmanaged.passUnretained(plan).toOpaque())
    }

    /// A reference to a published plan, given unretained.
    @inlinable
    init(_ plan: Unmanaged<Plan<T>>) {
        self.bits = UInt(bitPattern: plan.toOpaque())
    }

    /// A reference that reads `node` directly, with the given tags (see above); the node is linked.
    init(node: Node<T>, tags: UInt) {
        self.bits = UInt(bitPattern: Unmanaged.passUnretained(node).toOpaque()) | ReferenceTag.node | tags
    }

    /// In an instruction of a ``Program``: the value an earlier instruction built, taken from the program's
    /// value stack at `offset` bytes.
    init(stackedAt offset: Int) {
        self.bits = UInt(offset) << ReferenceTag.stackedOffsetShift | ReferenceTag.stacked
    }

    /// In an instruction of a ``Program``: a dependency that could have been an instruction but for the
    /// program's size (see ``ProgramBuilder/instructionLimit``), resolved like a top-level request for
    /// `node`, with the node's own program: a chain longer than one program's limit then runs as a few
    /// nested programs rather than as one nested plan per binding.
    init(programOf node: Node<T>) {
        self.bits =
            UInt(bitPattern: Unmanaged.passUnretained(node).toOpaque()) | ReferenceTag.node | ReferenceTag.stacked
    }

    /// Builds the value in an instruction of a ``Program`` whose value stack is `stack`: takes it from the
    /// stack when an earlier instruction built it there (moving it out: each is taken once), otherwise
    /// like ``make(_:)``.
    @inlinable @inline(__always)
    func make(_ context: ResolutionContext, stack: UnsafeMutableRawPointer) throws(ProvisionError) -> T {
        if bits & ReferenceTag.stacked != 0 {
            if bits & ReferenceTag.node != 0 {
                return try PlanReference.resolveThroughProgram(bits, context)
            }
            return (stack + Int(bits >> ReferenceTag.stackedOffsetShift)).assumingMemoryBound(to: T.self).move()
        }
        return try PlanReference.make(bits, context)
    }

    /// The dependency of a reference made with ``init(programOf:)``.
    @usableFromInline @inline(never)
    static func resolveThroughProgram(_ bits: UInt, _ context: ResolutionContext) throws(ProvisionError) -> T {
        let address = UnsafeRawPointer(bitPattern: bits & ~ReferenceTag.mask).unsafelyUnwrapped
        unowned(unsafe) let node = Unmanaged<Node<T>>.fromOpaque(address).takeUnretainedValue()
        try StackGuard.check(node.key)
        return try node.resolveUnpublished(context)
    }

    /// Builds the value.
    @inlinable @inline(__always)
    func make(_ context: ResolutionContext) throws(ProvisionError) -> T {
        try PlanReference.make(bits, context)
    }

    /// Builds a dependency of `dependent`: on failure, records `dependent` on the error's path.
    @inlinable @inline(__always)
    func make(_ context: ResolutionContext, for dependent: BindingKey) throws(ProvisionError) -> T {
        do {
            return try make(context)
        } catch {
            throw error.prepending(dependent)
        }
    }

    /// Builds the value of the reference whose bits are `bits` (see above).
    ///
    /// Names no generic type but `T` itself, `Node<T>` and `Plan<T>` (whose fields lie at fixed offsets
    /// whatever `T` is), and casts nothing at run time: the parameter-pack plan runs it for dependencies
    /// whose types its code doesn't know statically, where any other generic type would be
    /// instantiated at run time on every request.
    @inlinable @inline(__always)
    static func make(_ bits: UInt, _ context: ResolutionContext) throws(ProvisionError) -> T {
        let address = UnsafeRawPointer(bitPattern: bits & ~ReferenceTag.mask).unsafelyUnwrapped
        do {
            if bits & ReferenceTag.node == 0 {
                return try Unmanaged<Plan<T>>.fromOpaque(address)._withUnsafeGuaranteedRef { try $0.make(context) }
            }
            return try Unmanaged<Node<T>>.fromOpaque(address)._withUnsafeGuaranteedRef { node in
                if bits & ReferenceTag.instance != 0 {
                    // A built singleton's node holds a reference to its instance (see `Node.instance`);
                    // while it is empty, the plan builds it behind its gate.
                    if let instance = UnsafeRawPointer(bitPattern: node.instance.load(ordering: .acquiring)) {
                        return unsafeBitCast(instance, to: T.self)
                    }
                    return try node.resolveUnbuilt(context)
                }
                if bits & ReferenceTag.classCheck == 0 {
                    // The initializer's value is the result as it is: returned in place, with no copy
                    // (which code generic over `T`, in the parameter-pack plan, would make through `T`'s
                    // value witnesses).
                    do {
                        return try node.directFactory()
                    } catch {
                        throw ProvisionError.thrown(by: node.key, consume error)
                    }
                }
                let value: T
                do {
                    value = try node.directFactory()
                } catch {
                    throw ProvisionError.thrown(by: node.key, consume error)
                }
                if TypeShape.classWord(of: value) != node.directClass.load(ordering: .relaxed) {
                    try node.injectDirectlyBuilt(unsafeBitCast(value, to: AnyObject.self), context)
                }
                return value
            }
        } catch {
            // Everything above throws ProvisionError; the closures lose the type. Converted out of line,
            // so that the request's own frame keeps no slots for the cast.
            throw ProvisionError.recovered(error)
        }
    }
}

/// The tags in the low bits of a ``PlanReference`` (not nested in it: a generic type's static members
/// would need its metadata at run time).
@usableFromInline
enum ReferenceTag {
    /// The address is a `Node<T>`'s, not a `Plan<T>`'s.
    @inlinable static var node: UInt { 1 }
    /// With ``node``: a singleton or instance binding of a reference type, read from its cell's word.
    @inlinable static var instance: UInt { 2 }
    /// With ``node`` alone: a direct transient whose instances may be of a subclass that declares
    /// injected properties, checked like ``Node/makeDirectly(_:)`` checks them.
    @inlinable static var classCheck: UInt { 4 }
    /// Without ``node``: not an address but a value on a program's stack, at the offset in the bits above
    /// ``stackedOffsetShift`` (see ``PlanReference/init(stackedAt:)``). With ``node``: the node resolved
    /// through its own program (see ``PlanReference/init(programOf:)``). Only instructions of a
    /// ``Program`` have such references.
    @inlinable static var stacked: UInt { 8 }
    /// Where a stacked value's offset starts in a reference's bits.
    @inlinable static var stackedOffsetShift: UInt { 4 }
    /// Every tag bit (a node's address is 16-byte aligned).
    @inlinable static var mask: UInt { 15 }
}
