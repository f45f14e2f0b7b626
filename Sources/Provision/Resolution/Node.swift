public import Synchronization

/// A binding of a `T` inside one injector (see ``AnyNode``): its key, scope and recipe, the plan linked
/// from it, and for a singleton the published instance. Its other concerns are extensions in files named
/// after them (`Node+Program.swift`, `Node+Dependencies.swift`, `Node+Lifecycle.swift`, `Node+Async.swift`,
/// `Node+PerScope.swift`, `Node+Seed.swift`, `Node+Observation.swift`), beside the features they serve.
@usableFromInline
final class Node<T>: AnyNode {
    // The fields every request reads come first, so that they share the cache line of the object's
    // header (a class's stored properties are laid out in declaration order): the singleton's cell, the
    // linked plan and the direct initializer of a parameterless transient. A request for a binding in a
    // large graph then touches one line of its node.

    /// A built singleton's (or an instance binding's) published instance: the bits of its cell's word
    /// (see ``InstanceCell/box`` and ``PublishedValue``), copied here by the cell when it publishes, so
    /// that a request reads the instance from the node itself: one load fewer than through the cell, and
    /// no copy of the `cell` reference (a `var`, which the optimizer may retain around the read). 0 until
    /// the instance is built. The cell holds the retained reference; this word holds none.
    @usableFromInline let instance = Atomic<UInt>(0)

    /// The ``instance`` word, loaded with acquire ordering: for a debug build's request, which reads the
    /// instance without an optional of `T` (see ``Injector/resolve(_:as:context:)``).
    @inlinable var publishedWord: UInt { instance.load(ordering: .acquiring) }

    /// The singleton instance, published once. Shared with the singleton plan, which reads it without
    /// touching the node.
    ///
    /// Only singletons have one (instance bindings are singletons): a transient node allocates no cell,
    /// and its requests skip the cell's cache line.
    ///
    /// Set when the node is created (an instance binding) or attached to its scope (``attach(scope:hooks:)``,
    /// before the node is installed, which publishes it to other threads); never changed afterwards. The
    /// run-time exclusivity check of a class's `var`, a call per access, is off: every request reads it.
    @exclusivity(unchecked) @usableFromInline private(set) var cell: InstanceCell<T>?

    /// The linked plan, published once. The pointer is retained by this node (released in `deinit`).
    @usableFromInline let linkedPlan = Atomic<UInt>(0)

    /// Whether a request may call ``directFactory`` instead of the plan; set once, when linking found
    /// that the plan would only call it (see ``isDirect``).
    @usableFromInline let directEnabled = Atomic<Bool>(false)

    // Four one-byte fields beside `directEnabled`, in the bytes the alignment of `directFactory` would
    // otherwise leave empty (a node of 216 bytes instead of 224).

    /// The binding's scope, set by ``attach(scope:hooks:)`` (like ``cell``).
    @exclusivity(unchecked) @usableFromInline private(set) var scope: Scope = .transient
    /// Whether a request may call ``directFactory`` instead of the plan once linking allows it: a
    /// transient binding to an initializer without parameters.
    @exclusivity(unchecked) @usableFromInline private(set) var allowsDirect = false
    /// Whether ``directFactory`` is the binding's initializer rather than a stand-in.
    @usableFromInline let hasDirectFactory: Bool
    /// Whether the binding's own factory is async.
    @usableFromInline let isAsync: Bool

    /// The binding's initializer without parameters (see ``isDirect``), which its plan calls too; for
    /// other bindings a stand-in that is never called. Not optional, so that a request calls it in
    /// place and the value it returns moves out without a copy: unwrapping an optional result retained
    /// and released every new instance.
    @usableFromInline let directFactory: @Sendable () throws -> T

    /// For a direct binding of a class: the class's `ObjectIdentifier`, set with ``directEnabled``. An
    /// instance of another class (a subclass) gets the plan's property injection check
    /// (``propertyInjection``). Read on the same cache line as ``directFactory``, without naming `T.self`,
    /// which can cost a call to the type's metadata accessor.
    @usableFromInline let directClass = Atomic<UInt>(0)

    // The rest is read when the node is linked, when it builds a singleton, and for reports.

    @usableFromInline let key: BindingKey
    @usableFromInline let location: SourceLocation
    /// Turns the recipe into the node's plans (see ``Recipe/Link``).
    @usableFromInline let link: Recipe<T>.Link
    /// The keys the recipe declares.
    @usableFromInline let dependencies: RecipeDependencies
    /// What only bindings with arguments and delegations have (see ``RecipeOptions``).
    @usableFromInline let options: RecipeOptions?
    /// Start and stop hooks declared on the binding (a `LifecycleHooks<T>`), if any; set by
    /// ``attach(scope:hooks:)``. Type-erased, so that attaching a node without hooks (nearly every node)
    /// names no metadata of a type generic over `T`: that was a run-time metadata lookup per binding,
    /// a third of the time of creating an injector. Read as `LifecycleHooks<T>` only when the injector
    /// starts or stops the built singleton.
    @exclusivity(unchecked) @usableFromInline private(set) var hooks: AnyLifecycleHooks?
    /// When the node was created, relative to every other node: declaration order, for reports.
    @usableFromInline let declarationIndex = DeclarationOrder.next()

    /// The injector that owns this node. Unowned and unchecked: the injector owns its registry, which
    /// owns the node, and every path into a node (a request, a plan, a scope, a handle) holds a strong
    /// reference to the injector for the duration of the call (`Injector.get` runs on it, a
    /// ``Resolver`` and a ``ServiceScope`` hold it, a ``Provider`` loads it strongly from a weak
    /// reference first), so the reference is valid whenever it is read. A checked `unowned` would cost
    /// two atomic operations on the injector's reference count per binding, creating and freeing it.
    @usableFromInline unowned(unsafe) let injector: Injector

    /// The node's ``Program`` for top-level requests, in one word: 0 while the binding can't have one
    /// (or isn't linked yet), ``ProgramState/allowed`` once its link found it can, ``ProgramState/none``
    /// once its builder found it would gain nothing, else the program's address (retained by the node,
    /// released in `deinit`). Read on the same cache line as ``linkedPlan``.
    @usableFromInline let linkedProgram = Atomic<UInt>(0)

    /// The plan for async requests, published once when first needed; retained like ``linkedPlan``.
    @usableFromInline let linkedAsyncPlan = Atomic<UInt>(0)

    /// The property injection of the instances this binding constructs (see ``PropertyInjection``), when
    /// they may declare injected properties: published once, when a constructor binding is first linked
    /// (``constructionInjection(linker:)``), and shared by its sync and async plans and by a direct
    /// binding's subclass check; retained by the node (released in `deinit`). It remembers which
    /// declaring classes it injected, which is how ``injectedPropertyKeys`` knows the properties of a
    /// binding's transient instances.
    @usableFromInline let propertyInjection = Atomic<UInt>(0)

    /// The node's ``NodeTraits`` (low byte) and height (see ``Linker``, the bits above), stored before its
    /// plan is published (the plan's publication orders them).
    @usableFromInline let linkState = Atomic<UInt>(0)

    /// Creates a binding's node, which ``attach(scope:hooks:)`` completes before it is installed.
    ///
    /// Inlinable, so that a binding's node is created by code specialized where the binding is declared
    /// (see `Binder.setRecipe`): generic code would look up the metadata of `Recipe<T>` and its parts at
    /// run time, for every binding of every injector.
    @inlinable
    init(key: BindingKey, location: SourceLocation, recipe: Recipe<T>, injector: Injector) {
        self.key = key
        self.location = location
        self.link = recipe.link
        self.dependencies = recipe.dependencies
        self.options = recipe.options
        self.isAsync = recipe.isAsync
        if let factory = recipe.directFactory {
            self.directFactory = factory
            self.hasDirectFactory = true
        } else {
            self.directFactory = { throw NoDirectFactory() }
            self.hasDirectFactory = false
        }
        self.injector = injector
        if let instance = recipe.instance {
            // An instance binding: a singleton built already.
            let cell = InstanceCell<T>(
                key: key, injector: injector, recorder: injector.lifecycle.recorder, node: self)
            cell.prebuild(instance())
            self.cell = cell
        }
    }

    /// Creates a node with its scope and hooks at once (a multibinding collection, a just-in-time
    /// binding).
    @inlinable
    convenience init(
        key: BindingKey,
        scope: Scope,
        location: SourceLocation,
        recipe: Recipe<T>,
        injector: Injector,
        hooks: LifecycleHooks<T>? = nil
    ) {
        self.init(key: key, location: location, recipe: recipe, injector: injector)
        attach(scope: scope, hooks: hooks.map(AnyLifecycleHooks.init))
    }

    /// Completes a node with its binding's scope and hooks: called once, before the node is installed in
    /// its injector's registry (whose mutex publishes it to every other thread), by the injector that
    /// creates it. A singleton gets its cell here.
    @usableFromInline
    func attach(scope: Scope, hooks: AnyLifecycleHooks?) {
        self.scope = scope
        self.allowsDirect = hasDirectFactory && scope.kind == .transient
        self.hooks = hooks
        if scope.isSingleton, cell == nil {
            cell = InstanceCell<T>(
                key: key, injector: injector, recorder: injector.lifecycle.recorder, node: self)
        }
    }

    deinit {
        // Released as plain objects: naming `Plan<T>` here would cost a metadata lookup per node.
        AtomicReference.release(linkedPlan)
        AtomicReference.release(linkedAsyncPlan)
        if linkedProgram.load(ordering: .relaxed) > ProgramState.none {
            AtomicReference.release(linkedProgram)
        }
        AtomicReference.release(propertyInjection)
    }

    /// Whether a request calls ``directFactory`` directly, skipping the plan: true for a linked
    /// transient binding to an initializer without parameters, whose plan would do nothing else (no
    /// property injection, no observer). Such a binding is most leaves of a graph, and a request for
    /// one then reads nothing beyond the node's first cache line before calling the initializer; the
    /// plan object and its captured step, two more dependent loads, are only used by the plans that
    /// depend on the binding.
    var isDirect: Bool {
        directEnabled.load(ordering: .acquiring) && allowsDirect
    }

    /// Builds the value with ``directFactory``, for a request that found ``directEnabled`` set. The
    /// initializer is called in place, from the node's field, so its context is not retained around the
    /// call (a shared reference count written by every request would bounce between threads).
    ///
    /// An instance of exactly `T` (a class) or of a type that can't declare injected properties is
    /// returned as it is, as the plan would return it; an instance of a subclass gets the plan's
    /// property injection check (see ``PropertyInjection``).
    ///
    /// It returns `T`, not `T?` with `nil` for "not direct": in a debug build, where nothing is
    /// specialized, an optional of a generic value is a buffer on the stack of every request's frame.
    @inlinable @inline(__always)
    func makeDirectly(_ context: ResolutionContext) throws(ProvisionError) -> T {
        let value: T
        do {
            value = try directFactory()
        } catch {
            throw ProvisionError.thrown(by: key, consume error)
        }
        // The class word is set only for a `T` that is a reference (see `enableDirectConstruction`): a
        // non-zero word says so without `T`'s metadata, which `TypeShape.isReference(T.self)` asked for
        // with a call on every request.
        let expected = directClass.load(ordering: .relaxed)
        if expected != 0, TypeShape.classWord(of: value) != expected {
            try injectDirectlyBuilt(unsafeBitCast(value, to: AnyObject.self), context)
        }
        return value
    }

    /// A request for this node while it has no published instance (see ``Injector/resolve(_:as:context:)``):
    /// a plain transient leaf's initializer called directly (see ``isDirect``), otherwise the linked
    /// plan, linking it first on the binding's first request. Inlinable, so that it is specialized for
    /// `T`, but not inlined into the callers, which only read the published instance inline.
    @inlinable @inline(never)
    func resolveUnpublished(_ context: ResolutionContext) throws(ProvisionError) -> T {
        if directEnabled.load(ordering: .acquiring) {
            return try makeDirectly(context)
        }
        guard let plan = AtomicReference.load(linkedPlan, as: Plan<T>.self) else {
            return try linkAndResolve(context)
        }
        // A node without a program (0, or ``ProgramState/none`` once its builder found it would gain
        // nothing: every subgraph less than 32 deep) runs its plan here, specialized; only a node with a
        // program, or one that may still get one, takes the out-of-line path.
        let program = linkedProgram.load(ordering: .acquiring)
        guard program == 0 || program == ProgramState.none else {
            return try resolveProgrammed(context)
        }
        return try PlanReference(plan).make(context)
    }

    @usableFromInline var isProgrammable: Bool {
        linkedProgram.load(ordering: .acquiring) != 0 && isLinked
    }

    /// The property injection check of an instance of a subclass of `T` that ``makeDirectly(_:)`` built.
    @usableFromInline
    func injectDirectlyBuilt(_ object: AnyObject, _ context: ResolutionContext) throws(ProvisionError) {
        guard let injection = AtomicReference.load(propertyInjection, as: PropertyInjection.self) else { return }
        try injection.takeUnretainedValue().injectIfDeclared(object, context)
    }

    /// Lets requests call ``directFactory``; called by the linker of a plan that only calls it (and, for
    /// a class whose subclasses may declare injected properties, checks its instances with `injection`,
    /// the node's published ``propertyInjection``). An instance of a key that is not a class (a protocol,
    /// `Any`) needs that check after every build: such a binding keeps going through its plan.
    @usableFromInline
    func enableDirectConstruction(_ injection: PropertyInjection?) {
        guard allowsDirect else { return }
        if injection != nil, !TypeShape.isReference(T.self) { return }
        if TypeShape.isReference(T.self) {
            directClass.store(UInt(bitPattern: ObjectIdentifier(T.self)), ordering: .relaxed)
        }
        directEnabled.store(true, ordering: .releasing)
    }

    @usableFromInline var traits: NodeTraits {
        NodeTraits(rawValue: UInt8(truncatingIfNeeded: linkState.load(ordering: .acquiring)))
    }

    /// Records the traits and height linking found; called by the linker before it publishes the plan.
    func setTraits(_ traits: NodeTraits, height: Int) {
        linkState.store(UInt(traits.rawValue) | UInt(height) << 8, ordering: .releasing)
    }

    /// The number of static levels below the node's plan: 0 without static dependencies, otherwise one
    /// more than its highest dependency's. Valid once the node is linked.
    var height: Int {
        Int(linkState.load(ordering: .acquiring) >> 8)
    }

    /// Wraps a plan so that it checks the thread's stack before it runs (see ``Linker``).
    func checkingStack(_ inner: Plan<T>) -> Plan<T> {
        let key = self.key
        return Plan { context throws(ProvisionError) in
            try StackGuard.check(key)
            return try inner.make(context)
        }
    }

    @usableFromInline var isLinked: Bool {
        linkedPlan.load(ordering: .acquiring) != 0
    }

    @usableFromInline
    func prelink(with linker: Linker) {
        linker.prelink(self)
    }

    /// The linked plan, if the node was linked already. No retain: the node keeps the plan alive.
    @inlinable var plan: Plan<T>? {
        AtomicReference.load(linkedPlan, as: Plan<T>.self)?.takeUnretainedValue()
    }

    /// A singleton dependency whose instance is not published yet (see ``PlanReference``): its plan
    /// builds it behind its gate, linking it first if needed.
    @usableFromInline @inline(never)
    func resolveUnbuilt(_ context: ResolutionContext) throws(ProvisionError) -> T {
        guard let plan else { return try linkAndMake(context) }
        return try plan.make(context)
    }

    /// Links the node (and its static dependencies) and runs the plan: the first request's path.
    @usableFromInline
    func linkAndMake(_ context: ResolutionContext) throws(ProvisionError) -> T {
        try linkReportingFailure().make(context)
    }

    /// Resolves through this node: the generic slow path, for lookups that missed the fast path.
    func resolve(_ context: ResolutionContext) throws(ProvisionError) -> T {
        if let value = cell?.value { return value }
        if let plan { return try plan.make(context) }
        return try linkAndMake(context)
    }

    /// Publishes `candidate` unless another thread linked this node first; returns the plan that won.
    ///
    /// Linking is idempotent and side-effect free, so two threads linking the same node at once
    /// both compute a plan and the first to publish wins; the loser's plan is dropped.
    func publish(_ candidate: Plan<T>) -> Plan<T> {
        let retained = Unmanaged.passRetained(candidate)
        let (published, current) = AtomicReference.publishOnce(linkedPlan, retained)
        if !published { retained.release() }
        return current.takeUnretainedValue()
    }

    /// Wraps a plan that builds a fresh value with this node's scope.
    ///
    /// Inlinable so that it is specialized where the recipe's closures are created (in the module that
    /// declares the binding): the singleton fast path then runs as concrete code, with no generic
    /// metadata lookups.
    ///
    /// With a ``ResolutionObserver`` configured, the plan that builds a fresh value is instrumented
    /// first (see `Node+Observation.swift`); without one it is used as it is.
    @inlinable
    func scoped(_ inner: Plan<T>) -> Plan<T> {
        if scope.isScoped { return perScope(observing(inner)) }
        guard scope.isSingleton, let cell, !cell.isPrebuilt else { return observing(inner) }
        let inner = observing(inner, publishingIn: cell)
        // The plan holds the cell, not the node: the node owns the plan, so capturing the node
        // would be a retain cycle.
        return Plan { context throws(ProvisionError) in
            if let value = cell.value {
                return value
            }
            return try cell.build(context, using: inner.make)
        }
    }
}

// Node<T> stores values of T (singletons) that it hands to any thread. The public API only accepts
// singleton and instance bindings for `Sendable` types (`ScopeBuilder.in(_:)` and
// `BindingBuilder.toInstance(_:)` require `T: Sendable`), so every T a node shares is Sendable; the
// compiler cannot see that through the unconstrained generic parameter. The plain `var`s (`scope`,
// `allowsDirect`, `hooks`, `cell`) are written once, by `attach(scope:hooks:)`, while the injector that
// makes the node still owns it alone; the registry publishes the node afterwards (a releasing store under
// the stripe's lock, read with an acquiring load), and nothing writes them again. All other state is
// immutable or behind atomics.
extension Node: @unchecked Sendable {}

/// What a node's stand-in ``Node/directFactory`` would throw; never thrown, since only a node with a
/// real initializer enables direct construction.
@usableFromInline
struct NoDirectFactory: Error {
    @usableFromInline init() {}
}
