internal import Synchronization

/// How a binding builds its value, before linking: the unlinked half of a ``Plan``.
///
/// A recipe knows the keys it depends on (for validation and diagrams) and how to turn itself into a
/// plan once the plans of those dependencies exist.
///
/// The recipe constructors are `@inlinable`: they run in the module that declares the binding, where
/// every type is concrete, so the closures they create — the code that runs on every resolution — are
/// compiled fully specialized, without generic metadata lookups.
@usableFromInline
struct Recipe<T> {
    /// What a binding depends on (see ``RecipeDependencies``).
    @usableFromInline typealias Dependencies = RecipeDependencies

    /// Turns the recipe into one of the node's plans, linking the dependencies and applying the node's
    /// scope: the synchronous plan in the ``LinkPass/sync(_:)`` pass (see ``Linker``), the async plan in
    /// the ``LinkPass/async(_:)`` pass (see ``AsyncLinker``), an instruction of a program in the
    /// ``LinkPass/program(_:)`` pass (see ``ProgramBuilder``). A recipe without a form for a pass answers
    /// it with ``LinkedPlan/noForm``. One closure for every pass, so that a binding allocates one
    /// context for what it captures (none at all for an initializer without parameters, which its node
    /// holds already: see ``constructor(_:)``).
    @usableFromInline typealias Link = @Sendable (LinkPass, Node<T>) throws(ProvisionError) -> LinkedPlan<T>

    @usableFromInline let dependencies: Dependencies
    @usableFromInline let link: Link
    /// For instance bindings: returns the value, already built. A closure rather than a `T?`, so that
    /// the recipe's layout doesn't depend on `T` (see ``AtomicReference`` for why that matters).
    @usableFromInline let instance: (@Sendable () -> T)?
    /// Whether the binding's own factory is `async` (its synchronous plan can't build it).
    @usableFromInline var isAsync = false
    /// For constructors without parameters: the initializer itself, which the node keeps, and which a
    /// request for a plain transient binding may call without going through the plan (see
    /// ``Node/isDirect``).
    @usableFromInline var directFactory: (@Sendable () throws -> T)?
    /// What only bindings with resolve-time arguments and delegations have (see ``RecipeOptions``).
    @usableFromInline var options: RecipeOptions?

    @inlinable
    init(dependencies: Dependencies, link: @escaping Link, instance: (@Sendable () -> T)?) {
        self.dependencies = dependencies
        self.link = link
        self.instance = instance
    }
}

/// Which plan a recipe's ``Recipe/Link`` makes. Not nested in ``Recipe``: a type nested in a generic
/// type is generic itself.
@usableFromInline
enum LinkPass {
    /// The synchronous plan, linked with `Linker`.
    case sync(Linker)
    /// The async plan, for a node whose subgraph awaits an async factory or builds a singleton.
    case async(AsyncLinker)
    /// An instruction of a program that builds a linked node's subgraph without recursing (see
    /// ``Program``); only the fixed-arity constructors of a node that ``Node/isProgrammable`` have one.
    case program(ProgramBuilder)
}

/// The plan a recipe's link made in one ``LinkPass``.
@usableFromInline
enum LinkedPlan<T> {
    /// The synchronous plan (the ``LinkPass/sync(_:)`` pass).
    case sync(Plan<T>)
    /// The async plan (the ``LinkPass/async(_:)`` pass).
    case async(AsyncPlan<T>)
    /// The instruction of a program (the ``LinkPass/program(_:)`` pass).
    case instruction(Instruction)
    /// The recipe has no form for the pass: its async plan runs its synchronous one (see
    /// ``AsyncLinker``); it has no instruction, and a program calls its plan instead.
    case noForm
}

/// What few recipes have, kept out of line so that every other binding's recipe and node stay small:
/// the argument factory of a binding with resolve-time arguments, the forwarding of a delegation, the
/// mark of a binding whose value each scope seeds.
@usableFromInline
final class RecipeOptions: Sendable {
    /// For bindings with resolve-time arguments: their factory and signature.
    @usableFromInline let arguments: ArgumentInfo?
    /// For delegating bindings: passes a request's arguments on to the target binding.
    let forwarding: (any ArgumentForwarding)?
    /// Whether the binding's value is a scope's seed (``BindingBuilder/toSeed()``).
    @usableFromInline let isSeed: Bool

    /// The path frame a top-level request with arguments pushes for this binding (see
    /// ``rootFrame(for:)``): made by the first such request and published once, retained here (released
    /// in `deinit`).
    private let publishedRootFrame = Atomic<UInt>(0)

    /// Whether this binding's values belong to another binding: a delegation (`to(binding:)`) whose
    /// target keeps its own instances (a singleton, an instance binding, a scoped binding, or a delegation
    /// to one). Its cell then records nothing for disposal and its node starts and stops nothing (unless
    /// it has hooks of its own): the target's binding does, once. Set when the delegation is linked,
    /// before its plan is published.
    let sharesTargetInstances = Atomic<Bool>(false)

    /// The address of ``arguments``' factory (kept alive by `arguments`), for a request that compares
    /// its class with the one its argument types name without retaining it (see
    /// `Injector.get(_:named:arguments:)`).
    @usableFromInline let argumentFactoryBits: UInt

    @usableFromInline
    init(arguments: ArgumentInfo? = nil, forwarding: (any ArgumentForwarding)? = nil, isSeed: Bool = false) {
        self.arguments = arguments
        self.argumentFactoryBits =
            arguments.map { UInt(bitPattern: Unmanaged.passUnretained($0.factory).toOpaque()) } ?? 0
        self.forwarding = forwarding
        self.isSeed = isSeed
    }

    deinit {
        AtomicReference.release(publishedRootFrame)
    }

    /// The frame of a top-level request for `key`, this binding's key: the root of the path its factory
    /// resolves in. A frame without a parent is the same for every such request, so it is made once
    /// instead of once per request (a request for another key, if a recipe is ever shared, gets its own).
    @usableFromInline
    func rootFrame(for key: BindingKey) -> PathFrame {
        if let frame = AtomicReference.load(publishedRootFrame, as: PathFrame.self)?.takeUnretainedValue(),
            frame.key.id == key.id, frame.key.name == key.name
        {
            return frame
        }
        return makeRootFrame(for: key)
    }

    /// Makes the root frame for `key` and publishes it, unless a frame was published already.
    private func makeRootFrame(for key: BindingKey) -> PathFrame {
        let made = PathFrame(key: key, parent: nil, isSingleton: false)
        let retained = Unmanaged.passRetained(made)
        if !AtomicReference.publishOnce(publishedRootFrame, retained).published {
            retained.release()
        }
        return made
    }
}

extension Recipe where T: Sendable {
    @inlinable
    static func instance(_ value: T) -> Recipe {
        Recipe(
            dependencies: .known([]),
            link: { pass, _ in
                guard case .sync = pass else { return .noForm }
                return .sync(Plan { _ in value })
            },
            instance: { value }
        )
    }
}

extension Recipe {
    /// Calls a user factory, reporting what it throws as `factoryFailed` for `key`.
    @inlinable
    static func invoke(_ key: BindingKey, _ body: () throws -> T) throws(ProvisionError) -> T {
        do {
            return try body()
        } catch {
            throw ProvisionError.thrown(by: key, consume error)
        }
    }

    /// A constructor binding without parameters: a leaf, which a request may build by calling `f`
    /// directly (see ``Node/isDirect``).
    ///
    /// The link captures nothing: `f` is the node's ``Node/directFactory``, so a leaf binding allocates
    /// nothing besides its node.
    @inlinable
    static func constructor(_ f: @escaping @Sendable () throws -> T) -> Recipe {
        var recipe = Recipe(
            dependencies: .known([]),
            link: { pass, node throws(ProvisionError) in
                guard case .sync(let linker) = pass else {
                    if case .program = pass { return .noForm }
                    return try constructingAsynchronously(node.directFactory, pass, node)
                }
                let injection = try node.constructionInjection(linker: linker)
                let step = ConstructorStep0(key: node.key, f: node.directFactory, injection: injection.dynamic)
                let construction = Plan { [step] context throws(ProvisionError) in
                    let value: T
                    do {
                        value = try step.f()
                    } catch {
                        throw step.factoryFailed(error)
                    }
                    return try PropertyInjection.finish(value, step.injection, key: step.key, context)
                }
                let plan = node.scopedConstruction(construction, injection)
                // Nothing wrapped the construction (a transient, without property injection or an
                // observer): a request may call the initializer directly.
                if plan === construction { node.enableDirectConstruction(injection.dynamic) }
                return .sync(plan)
            },
            instance: nil
        )
        recipe.directFactory = f
        return recipe
    }

    /// A constructor binding: `f`'s parameter types are the dependencies.
    ///
    /// The general form, for any number of parameters; the fixed-arity forms in `Recipe+Arity.swift`
    /// (generated by `Scripts/generate-arities.py`) take the common ones. The plan reads its dependencies' plans from a buffer while it expands the
    /// pack (see ``ConstructorStepPack``), so that it is specialized where the binding is declared.
    @inlinable
    static func constructor<each D>(_ f: @escaping @Sendable (repeat consuming each D) throws -> T) -> Recipe {
        var keys: [BindingKey] = []
        for type in repeat (each D).self {
            keys.append(BindingKey(type))
        }
        // No parameters: a leaf. The expansion below has no element, so it never runs `absent`.
        if keys.isEmpty {
            return constructor { () throws -> T in try f(repeat try absent((each D).self)) }
        }
        return Recipe(
            dependencies: .known(keys),
            link: { pass, node throws(ProvisionError) in
                guard case .sync(let linker) = pass else {
                    if case .program = pass { return .noForm }
                    return try constructingAsynchronously(f, pass, node)
                }
                let injection = try node.constructionInjection(linker: linker)
                let step = ConstructorStepPack<repeat each D, T>(key: node.key, f: f, injection: injection.dynamic)
                var index = 0
                for type in repeat (each D).self {
                    step.plans[index] = try linker.plan(for: type, below: node).bits
                    index += 1
                }
                let plan = node.scopedConstruction(
                    Plan { [step] context throws(ProvisionError) in
                        let plans = step.plans
                        var next = 0
                        let value: T
                        do {
                            value = try step.f(repeat try dependency(plans, &next, context) as each D)
                        } catch {
                            throw step.factoryFailed(error)
                        }
                        return try PropertyInjection.finish(value, step.injection, key: step.key, context)
                    },
                    injection
                )
                return .sync(plan)
            },
            instance: nil
        )
    }

    /// A value for an element of an empty pack's expansion, which has none: never called (see
    /// ``constructor(_:)-(()->T)``'s caller, the pack form with no parameters).
    @usableFromInline
    static func absent<D>(_ type: D.Type) throws(ProvisionError) -> D {
        throw ProvisionError.notBound(BindingKey(type), path: [])
    }

    /// Builds the dependency at `index` of a ``ConstructorStepPack``'s plans (a ``PlanReference`` to a
    /// `Plan<D>` or a `Node<D>`), and moves `index` to the next one. Generic only over the element's
    /// type, whose metadata the pack carries: it names no other generic type and casts nothing, so the
    /// pack's expansion instantiates nothing at run time.
    @inlinable @inline(__always)
    static func dependency<D>(
        _ plans: UnsafeMutablePointer<UInt>,
        _ index: inout Int,
        _ context: ResolutionContext
    ) throws(ProvisionError) -> D {
        let bits = plans[index]
        index += 1
        return try PlanReference<D>.make(bits, context)
    }

    /// A closure binding: the closure resolves what it needs through the ``Resolver`` it is given.
    /// `declared` lists the keys it says it resolves, when it says so.
    @inlinable
    static func closure(
        _ body: @escaping @Sendable (Resolver) throws -> T,
        declaring declared: [BindingKey]? = nil
    ) -> Recipe {
        Recipe(
            dependencies: declared.map(Dependencies.declared) ?? .dynamic,
            link: { pass, node throws(ProvisionError) in
                // No async form: a synchronous closure is built by this plan in async requests too, after
                // what it declared is prepared (see AsyncLinker and DeclaredPreparation).
                guard case .sync = pass else { return .noForm }
                let key = node.key
                let injector = node.injector
                // A singleton's or scoped instance's build already pushed its key (see
                // InstanceCell.build); pushing it again here would make the closure find itself on the path.
                let tracksPath = node.scope.kind == .transient
                #if DEBUG
                    // Debug builds check the closure's requests against its declaration, if any.
                    let declaration = node.dependencyDeclaration
                #endif
                // Unowned: the injector owns this plan (through its node); a strong capture would be a cycle.
                return .sync(
                    node.scoped(
                        Plan { [unowned injector] context throws(ProvisionError) in
                            let inner = try context.enteringClosure(key, tracksPath: tracksPath)
                            // The closure's requests recurse through the injector: a chain of closures
                            // deeper than the stack holds stops here, while some stack is left.
                            try StackGuard.check(key)
                            #if DEBUG
                                let resolver = Resolver(injector: injector, context: inner, declaration: declaration)
                            #else
                                let resolver = Resolver(injector: injector, context: inner)
                            #endif
                            do {
                                return try body(resolver)
                            } catch {
                                throw ProvisionError.thrown(by: key, consume error)
                            }
                        }
                    )
                )
            },
            instance: nil
        )
    }
}

/// What a binding depends on, as its recipe declares it. Not nested in ``Recipe`` on purpose: a type
/// nested in a generic type is generic itself, and would make the recipe's layout depend on `T`.
@usableFromInline
enum RecipeDependencies: Sendable {
    /// The binding's dependencies are known from its signature.
    case known([BindingKey])
    /// The binding is a closure that calls the resolver itself: its dependencies are only known
    /// when it runs.
    case dynamic
    /// The binding is a closure that declared the keys it resolves (`to(dependencies:_:)`): checked
    /// by validation and drawn in diagrams, but not linked (the closure resolves them itself).
    case declared([BindingKey])
    /// The binding hands out a handle (`Provider`, `Lazy`) that resolves these keys later, on demand:
    /// an edge that doesn't take part in construction, so it may close a cycle.
    case deferred([BindingKey])
    /// The just-in-time binding of an optional (`Dog?`): the wrapped type's binding (`Dog`, the one key)
    /// when one exists, a construction edge like a constructor's parameter; nothing when none does. An
    /// array, like every other case's payload, so that the enum stays one word: every recipe and node
    /// copies it, and a case of another shape made each copy an outlined call (measured: creating an
    /// injector of 1,000 bindings took half as long again).
    case optional([BindingKey])
}
