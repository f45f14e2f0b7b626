import Synchronization

/// Builds services from the bindings of its modules; safe to use from any number of threads at once.
///
/// Create an injector from modules, then ask it for services:
///
/// ```swift
/// struct CarModule: Module {
///     func configure(_ binder: Binder) {
///         binder.bind(Engine.self).to(Engine.init)
///         binder.bind(Brakes.self).to(Brakes.init).in(.singleton)
///         binder.bind(Car.self).to(Car.init(engine:brakes:))
///     }
/// }
///
/// let injector = try Injector(CarModule())
/// let car = try injector.get(Car.self)
/// ```
///
/// Modules are configured in order; a key is bound once, unless a later module replaces an earlier
/// module's binding on purpose with ``Binder/override(_:named:fileID:line:)``. Bindings can also be
/// added to a running injector with ``install(_:)`` while other threads resolve. Derive new injectors
/// with ``with(_:)``, ``without(_:)``, ``makeChild(_:)`` and, for tests, ``overriding(_:)-(Module...)``.
///
/// Every method is thread-safe. Singletons are built exactly once per injector, even when many threads
/// request an unbuilt singleton at the same moment. See the "Thread safety" article for the design.
public final class Injector: Sendable {
    /// The configuration the injector was created with.
    public let configuration: Configuration

    /// The modules the injector was created from, in configuration order (not including modules
    /// installed later with ``install(_:)``, nor a parent's modules).
    public let modules: [any Module]

    /// For each of ``modules``, whether every binding it declares is an override: the modules given to
    /// ``overriding(_:)-(Module...)``, kept so that an injector derived again configures them the
    /// same way.
    let overridingModules: [Bool]

    @usableFromInline let registry: Registry

    /// The registry's lock-free read side, kept inline so that a request reaches its stripe's table
    /// without loading the registry first (see ``RegistryLookup``). Valid as long as `registry`.
    @usableFromInline let lookup: RegistryLookup

    /// The injector whose bindings this one falls back to, for child injectors.
    @usableFromInline let parent: Injector?

    /// Started services, built singletons, and whether the injector still builds (see `shutdown()`).
    @usableFromInline let lifecycle = InjectorLifecycle()

    /// For an injector made by ``overriding(_:)-(Module...)``: the injector it was derived from (its
    /// ``parent``) and what it shares with it; `nil` otherwise.
    let derivation: Derivation?

    /// The modules installed with ``install(_:)``, in order, so that an injector derived from this one
    /// can configure them again. A leaf lock: held to append or copy only.
    let installedModules = Locked<[any Module]>([])

    /// For a child: whether its parent may hold the just-in-time binding of a declared type, by key (see
    /// `parentMayHoldJustInTime(_:)` and `JustInTimeVerdicts`). A leaf lock: held to read or record a
    /// verdict, never while one is worked out; reset by ``install(_:)``, whose bindings may change one.
    let justInTimeVerdicts = Locked(JustInTimeVerdicts())

    /// For a child or derived injector: the plans through which its bindings reach an ancestor's (see
    /// `Linker.crossInjectorPlan(to:plan:below:)`), by the ancestor's node, made once and kept here. A
    /// leaf lock: held to read or store one entry.
    let crossInjectorPlans = Locked<[ObjectIdentifier: any AnyObject & Sendable]>([:])

    /// The ``ValidationSeal`` of the injector's validation at creation, retained (released in `deinit`);
    /// 0 when its creation didn't validate, or found a problem. Published once, by the initializer.
    let validationSeal = Atomic<UInt>(0)

    /// What ``isShuttingDown`` last found, and when: the ``InjectorLifecycle/closingEpoch`` it was found
    /// at (the bits above the lowest two), whether it is set (bit 1) and the answer (bit 0).
    let shutdownVerdict = Atomic<UInt>(0)

    /// Creates an injector from modules, configuring them in order, then builds its eager singletons.
    ///
    /// - Parameters:
    ///   - modules: The modules, configured in order. A key is bound by one of them, unless a later
    ///     module replaces an earlier module's binding with ``Binder/override(_:named:fileID:line:)``.
    ///   - configuration: Internal tuning; the default suits most services.
    /// - Throws: ``ProvisionError`` with ``ProvisionError/Code/duplicateBinding`` (a module binds a
    ///   key twice, or two modules bind it and the later one is not an override, naming both
    ///   declarations), ``ProvisionError/Code/incompleteBinding`` (a `bind` without a target),
    ///   ``ProvisionError/Code/configurationFailed`` (a module's `configure` threw),
    ///   ``ProvisionError/Code/typeMismatch`` (a checked instance of the wrong type),
    ///   ``ProvisionError/Code/eagerNotSingleton``, any error building an eager singleton (the
    ///   injector then disposes the instances it built, as ``shutdown()`` would), or, with
    ///   ``Configuration/validatesOnCreation``, ``ProvisionError/Code/validationFailed`` listing every
    ///   problem of the graph (see ``validate()``).
    public convenience init(modules: [any Module], configuration: Configuration = Configuration())
        throws(ProvisionError)
    {
        try self.init(modules: modules, configuration: configuration, parent: nil)
    }

    /// Creates an injector from modules, configuring them in order.
    ///
    /// - Parameter modules: The modules; a later module replaces an earlier one's binding only with
    ///   ``Binder/override(_:named:fileID:line:)``.
    /// - Throws: See ``init(modules:configuration:)``.
    public convenience init(_ modules: any Module...) throws(ProvisionError) {
        try self.init(modules: modules)
    }

    /// Creates an injector of `modules` (a child of `parent`, if any), or one derived from `derivation`'s
    /// original injector by `modules`, which override its bindings.
    ///
    /// - Parameters:
    ///   - overridingModules: For each of `modules`, whether all its bindings are overrides (see
    ///     ``Binder/override(_:named:fileID:line:)``); none when empty.
    ///   - derivation: For ``overriding(_:)-(Module...)``: the original, which is `parent`, and what
    ///     depends on the overridden keys.
    init(
        modules: [any Module],
        overridingModules: [Bool] = [],
        configuration: Configuration,
        parent: Injector?,
        derivation: Derivation? = nil
    ) throws(ProvisionError) {
        // A shut-down injector's tables are emptied: a child (or a derived injector) could reach none of
        // its bindings. (One that shuts down after this check reports it on every such request.)
        if let parent, parent.isShuttingDown { throw ProvisionError.madeFromShutDownInjector() }
        self.configuration = configuration
        self.modules = modules
        self.overridingModules =
            overridingModules.isEmpty ? Array(repeating: false, count: modules.count) : overridingModules
        let registry = Registry(stripeCount: configuration.stripeCount)
        self.registry = registry
        self.lookup = registry.lookup
        self.parent = parent
        self.derivation = derivation

        let eagerKeys: [Binder.EagerKey]
        if let derivation {
            eagerKeys = try installOverrides(derivation)
        } else {
            eagerKeys = try installModules()
        }
        if configuration.validatesOnCreation {
            try validateOnCreation(eager: eagerKeys.map { ($0.key, $0.location) })
        }
        do throws(ProvisionError) {
            try buildEagerSingletons(eagerKeys)
        } catch {
            abandonCreation()
            throw error
        }
    }

    deinit {
        AtomicReference.release(validationSeal)
    }

    /// Undoes a creation that failed while it built its eager singletons. Nobody gets the injector to
    /// shut it down, so it closes itself and disposes the instances it built (the eager singletons
    /// before the failing one, and what they needed), as ``shutdown()`` would: newest first, an
    /// ``AsyncDisposable`` one in a task, bounded by the hook timeout (see ``Disposer``). What a disposal
    /// throws is dropped: the creation's error is the one the caller gets.
    private func abandonCreation() {
        lifecycle.close()
        registry.close()
        Disposer.disposeAbandoned(lifecycle.recorder.drain(), timeout: configuration.lifecycleHookTimeout)
    }

    /// Configures the injector's modules and installs their bindings; returns the keys to build eagerly.
    private func installModules() throws(ProvisionError) -> [Binder.EagerKey] {
        var configuredModules: [([Binder.Record], [Binder.EagerKey])] = []
        for (module, overrides) in zip(modules, self.overridingModules) {
            configuredModules.append(
                try configured(module, overridesByDefault: overrides, checkingDuplicates: modules.count > 1))
        }
        let bindingCount = configuredModules.reduce(0) { $0 + $1.0.count }
        // A later module's override replaces an earlier one's binding; within one module a key is bound
        // once (the registry finds a key bound twice), so one module needs no table of positions.
        var nodes = ModuleNodes(capacity: bindingCount, replacesKeys: configuredModules.count > 1)
        var eager: [Binder.EagerKey] = []
        var takesArguments = false
        for (moduleIndex, (records, eagerKeys)) in configuredModules.enumerated() {
            // Eager keys in module order: a module's `eager(_:)` keys, then its `asEagerSingleton()`
            // bindings, as `installOverrides` orders them. (Found by hunt 21B: every module's `eager(_:)`
            // keys came before any module's eager bindings.)
            eager += eagerKeys
            for index in records.indices where records[index].isEager {
                eager.append(Injector.eagerKey(of: records[index]))
            }
            // Indexed, not iterated: reading the fields doesn't copy each whole record.
            for index in records.indices {
                guard let node = records[index].node else { continue }
                node.attach(scope: records[index].scope, hooks: records[index].hooks)
                let replacing = records[index].isOverride
                if records[index].argumentFactory == nil {
                    if let (earlier, earlierModule) = nodes.add(node, module: moduleIndex, replacing: replacing) {
                        throw ProvisionError.duplicateBinding(
                            node.key,
                            first: (modules[earlierModule], earlier.location),
                            second: (modules[moduleIndex], node.location)
                        )
                    }
                    continue
                }
                // A binding with arguments is counted by its key and argument list (see ArgumentVariants).
                takesArguments = true
                let slot = ArgumentVariants.slot(of: node)
                if let (earlier, earlierModule) = nodes.add(node, slot: slot, module: moduleIndex, replacing: replacing)
                {
                    throw ProvisionError.duplicateBinding(
                        slot,
                        first: (modules[earlierModule], earlier.location),
                        second: (modules[moduleIndex], node.location)
                    )
                }
            }
        }
        let moduleRecords = configuredModules.map(\.0)
        for collection in Injector.collections(of: moduleRecords, injector: self) {
            guard nodes.addNew(collection) else {
                throw ProvisionError.duplicateBinding(
                    collection.key,
                    at: collection.location,
                    reason: "it is both bound and multibound"
                )
            }
        }
        try registry.install(takesArguments ? ArgumentVariants.separate(nodes.nodes) : nodes.nodes)
        return eager
    }

    /// Adds a module's bindings to this running injector, for example a plugin loaded at run time.
    ///
    /// Other threads may resolve while the bindings are added: a request that finds one of the new
    /// bindings finds all of them, and every binding is visible once `install` returns. A running
    /// injector never replaces a binding: installing a key that is already bound (here, or by an
    /// ancestor, which a child's requests fall back to) throws and adds nothing. Eager singletons of the
    /// module are built before `install` returns; when one fails, `install` throws its error and removes
    /// the module's bindings again (requests that found them meanwhile keep what they got), so that a
    /// corrected module can be installed. An injector that is shutting down adds nothing: an install
    /// racing ``shutdown()`` adds its bindings before the shutdown removes them all, or throws.
    ///
    /// - Parameter module: The module to configure and add.
    /// - Throws: ``ProvisionError`` with ``ProvisionError/Code/duplicateBinding`` (also for multibinding
    ///   elements, which can't be added to a running injector's collections),
    ///   ``ProvisionError/Code/incompleteBinding``, ``ProvisionError/Code/configurationFailed``, or
    ///   ``ProvisionError/Code/shutDown`` (the injector is shutting down, or the module binds a key that a
    ///   shut-down ancestor held).
    public func install(_ module: any Module) throws(ProvisionError) {
        if lifecycle.isClosed { throw ProvisionError.shutDown(nil) }
        // Whatever it adds may change the subgraph of a sealed binding: no seal made before it holds.
        ValidationSeal.noteInstall()
        defer { ValidationSeal.noteInstall() }
        let (records, eagerKeys) = try configured(module)
        if let element = records.first(where: { $0.multibinding != nil }), let multibinding = element.multibinding {
            throw ProvisionError.duplicateBinding(
                multibinding.collectionKey,
                at: element.location,
                reason: "multibinding elements can't be added to a running injector; declare them in its modules"
            )
        }
        let added = nodes(of: records)
        // A key an ancestor binds is bound here too (requests fall back to it, and plans linked so far
        // use it): a running child can't shadow it.
        if let parent {
            // A key a shut-down ancestor held resolves nowhere now; the child's requests for it throw
            // `shutDown`, and an install doesn't change that.
            for node in added where parent.heldBeforeShutdown(node.key) {
                throw ProvisionError.shutDown(node.key)
            }
            for node in added where parent.hasAnyBinding(for: node.key) {
                throw ProvisionError.duplicateBinding(
                    node.key,
                    at: node.location,
                    reason: "a parent injector binds it, and this running child resolves it from there",
                    hint: "bind it in the child's modules when the child is made (makeChild), or in the parent"
                )
            }
        }
        // A binding with arguments may add an argument list to a key the injector binds already.
        let installed =
            records.contains(where: { $0.argumentFactory != nil })
            ? try ArgumentVariants.separate(added) { self.registry.retainedNode(for: $0) } : added
        try registry.install(installed)
        // A verdict on a just-in-time binding may have walked into a key bound now.
        justInTimeVerdicts.withLock { $0.reset() }
        do throws(ProvisionError) {
            try buildEagerSingletons(eagerKeys + records.filter(\.isEager).map(Injector.eagerKey(of:)))
        } catch {
            // An eager singleton failed: the install adds nothing, so that a corrected module can be
            // installed. (The instances built meanwhile stay recorded, and are disposed at shutdown.)
            registry.uninstall(installed)
            throw error
        }
        installedModules.withLock { $0.append(module) }
    }

    /// Whether the injector (or an ancestor) has a binding for `type` under `name`. Just-in-time
    /// bindings count once they were created.
    ///
    /// - Parameters:
    ///   - type: The bound type.
    ///   - name: The binding's name; `nil` (the default) for the unnamed binding.
    public func hasBinding<T>(for type: T.Type, named name: String? = nil) -> Bool {
        hasAnyBinding(for: BindingKey(type, named: name))
    }

    /// Whether this injector or an ancestor has a binding (module or just-in-time) for `key`.
    func hasAnyBinding(for key: BindingKey) -> Bool {
        boundNode(for: key) != nil
    }

    /// The node of `key` in this injector or the nearest ancestor that has one (module or just-in-time),
    /// without making a just-in-time binding.
    func boundNode(for key: BindingKey) -> (any AnyNode)? {
        var current: Injector? = self
        while let injector = current {
            // A lock-free miss may be an install in progress: look again under the stripe's lock.
            if let raw = injector.registry.node(for: key) ?? injector.registry.lockedNode(for: key) {
                return raw.takeUnretainedValue() as? any AnyNode
            }
            current = injector.parent
        }
        return nil
    }

    /// Whether this injector or an ancestor shut down while it held `key` (see
    /// ``Registry/wasBound(atClose:)``).
    func heldBeforeShutdown(_ key: BindingKey) -> Bool {
        var current: Injector? = self
        while let injector = current {
            if injector.lifecycle.isClosed, injector.registry.wasBound(atClose: key) { return true }
            current = injector.parent
        }
        return false
    }

    /// Whether a module of this injector or of an ancestor binds `key` (a just-in-time binding doesn't
    /// count): looked up like ``hasBinding(for:named:)``.
    func hasModuleBinding(for key: BindingKey) -> Bool {
        var current: Injector? = self
        while let injector = current {
            if let found = injector.registry.node(for: key) ?? injector.registry.lockedNode(for: key),
                let node = found.takeUnretainedValue() as? any AnyNode, !node.isJustInTime
            {
                return true
            }
            current = injector.parent
        }
        return false
    }

    /// The keys of this injector's own bindings (not its parent's), in no particular order.
    public var bindingKeys: [BindingKey] {
        // A key bound with several argument lists is listed once.
        registry.nodes.map(\.key).filter { !Binder.isElementKey($0) && !ArgumentVariants.isVariantKey($0) }
    }

    func configured(
        _ module: any Module,
        overridesByDefault: Bool = false,
        checkingDuplicates: Bool = false
    ) throws(ProvisionError) -> ([Binder.Record], [Binder.EagerKey]) {
        let binder = Binder(injector: self, overridesByDefault: overridesByDefault)
        do {
            try module.configure(binder)
        } catch {
            throw ProvisionError.configurationFailed(module, cause: error)
        }
        return (try binder.finishedRecords(checkingDuplicates: checkingDuplicates), binder.eagerKeys)
    }

    func nodes(of records: [Binder.Record]) -> [any AnyNode] {
        records.compactMap { record in
            record.node?.attach(scope: record.scope, hooks: record.hooks)
            return record.node
        }
    }

    /// The eager key of a binding made with `asEagerSingleton()`: a node of this injector's modules.
    static func eagerKey(of record: Binder.Record) -> Binder.EagerKey {
        let key = record.key
        return Binder.EagerKey(key: key, location: record.location) { injector in
            injector.registry.retainedNode(for: key)
        }
    }

    /// Builds the eager singletons, in declaration order.
    private func buildEagerSingletons(_ keys: [Binder.EagerKey]) throws(ProvisionError) {
        for eager in keys {
            guard let node = eager.node(self) else {
                // A shutdown since the bindings were added has emptied the tables.
                if lifecycle.isClosed { throw ProvisionError.shutDown(eager.key) }
                throw ProvisionError.notBound(eager.key, path: [eager.key])
            }
            guard node.scope.isSingleton else {
                throw ProvisionError.eagerNotSingleton(eager.key, scope: node.scope, at: eager.location)
            }
            try node.build()
        }
    }
}
