extension Injector {
    /// A new injector in which `modules` replace some of this injector's bindings, sharing every
    /// singleton that doesn't depend on a replaced one: the way to swap a fake in for one test.
    ///
    /// ```swift
    /// let app = try Injector(AppModule(), StorageModule())
    ///
    /// // In a test: a fake clock, and a Checkout built with it; the database pool stays app's.
    /// let injector = try app.overriding(ClosureModule { binder in
    ///     binder.bind(Clock.self).toInstance(FixedClock(now: .zero))
    /// })
    /// let checkout = try injector.get(Checkout.self)
    /// ```
    ///
    /// Every binding of `modules` replaces this injector's binding of its key (or adds one): no
    /// ``Binder/override(_:named:fileID:line:)`` is needed. The new injector then re-creates, from this
    /// injector's modules (configured again, with the modules installed since), exactly the bindings that
    /// depend on a replaced key, directly or through other bindings: through a constructor's parameters,
    /// the dependencies a closure declares, a ``Provider`` or ``Lazy`` handle, a multibinding's elements
    /// and injected properties. A closure that doesn't declare its dependencies, and anything that holds
    /// an ``ObjectFactory``, may reach a replaced key, so it is re-created too. (The injected properties
    /// are those the key's type declares, and those of the subclass a binding was seen to build: a
    /// binding of `Animal` to `Dog.init`, where only `Dog` declares an injected property, is known to
    /// depend on it once it has built a `Dog`. Bind the subclass's key too, `bind(Dog.self)`, or derive
    /// after the first build, when that property is overridden.) Every other binding is
    /// this injector's own, resolved in it: its singletons (built or not) are shared, built at most once
    /// for both injectors, and stay this injector's to start and shut down.
    ///
    /// The new injector is a child of this one: it starts and shuts down only its own singletons (the
    /// replacements and the re-created bindings), and this injector's shutdown ends its requests too.
    /// Bindings of this injector's parent, if it has one, keep resolving in that parent and are not
    /// re-created. Modules installed into this injector after the derivation are seen as they are here.
    /// This injector is unchanged.
    ///
    /// - Parameter modules: The replacing bindings. They can't add multibinding elements (replace the
    ///   whole collection, `[T]`, instead).
    /// - Returns: The derived injector, created with this injector's configuration (validated on
    ///   creation when it says so) and with its eager replacements built.
    /// - Throws: What ``init(modules:configuration:)`` throws, ``ProvisionError/Code/shutDown`` when this
    ///   injector has begun shutting down, and
    ///   ``ProvisionError/Code/duplicateBinding`` for a multibinding element in `modules`.
    /// - Complexity: O(*n*) in the number of this injector's bindings, plus configuring its modules
    ///   again when a binding depends on a replaced key.
    public func overriding(_ modules: any Module...) throws(ProvisionError) -> Injector {
        let overridden = try Injector.keys(boundBy: modules)
        let analysis = OverrideAnalysis(original: self, overridden: overridden)
        return try Injector(
            modules: self.modules + modules,
            overridingModules: overridingModules + modules.map { _ in true },
            configuration: configuration,
            parent: self,
            derivation: Derivation(
                original: self,
                overrides: modules,
                touched: analysis.touched,
                sharedJustInTime: analysis.sharedJustInTime
            )
        )
    }

    /// A new injector in which the bindings `configure` declares replace this injector's, sharing every
    /// singleton that doesn't depend on them: `overriding(ClosureModule(configure))`.
    ///
    /// ```swift
    /// let injector = try app.overriding { binder in
    ///     binder.bind((any PaymentGateway).self).to(FakeGateway.init)
    /// }
    /// ```
    ///
    /// - Parameter configure: Declares the replacing bindings.
    /// - Returns: The derived injector (see ``overriding(_:)-(Module...)``).
    /// - Throws: What ``overriding(_:)-(Module...)`` throws.
    public func overriding(_ configure: @escaping @Sendable (Binder) throws -> Void) throws(ProvisionError)
        -> Injector
    {
        try overriding(ClosureModule(configure))
    }

    /// The injector that derived injectors (``with(_:)``, ``without(_:)``) take as their parent: the
    /// parent, or for an injector made by ``overriding(_:)-(Module...)``, its original's.
    var moduleParent: Injector? {
        guard let derivation else { return parent }
        return derivation.original.moduleParent
    }

    /// The keys `modules` bind, found by configuring them into a binder that records keys only.
    private static func keys(boundBy modules: [any Module]) throws(ProvisionError) -> Set<BindingKey> {
        var keys: Set<BindingKey> = []
        for module in modules {
            let binder = Binder(injector: nil, overridesByDefault: true)
            do {
                try module.configure(binder)
            } catch {
                throw ProvisionError.configurationFailed(module, cause: error)
            }
            for record in binder.records where record.multibinding == nil {
                keys.insert(record.key)
            }
        }
        return keys
    }

    /// The bindings of an injector made by ``overriding(_:)-(Module...)``: the replacements, and the
    /// original's bindings that depend on them, configured again for this injector. Returns the keys to
    /// build eagerly.
    func installOverrides(_ derivation: Derivation) throws(ProvisionError) -> [Binder.EagerKey] {
        var nodes = ModuleNodes(capacity: 0, replacesKeys: true)
        var eagerKeys: [Binder.EagerKey] = []
        var overridden: Set<BindingKey> = []
        for (moduleIndex, module) in derivation.overrides.enumerated() {
            let (records, eager) = try configured(module, overridesByDefault: true, checkingDuplicates: true)
            if let element = records.first(where: { $0.multibinding != nil }), let multibinding = element.multibinding {
                throw ProvisionError.duplicateBinding(
                    multibinding.collectionKey,
                    at: element.location,
                    reason: "an override can't add multibinding elements to the original's collection",
                    hint:
                        "replace the whole collection: binder.bind(\(TypeName.metatypeExpression(multibinding.collectionKey.type))).to(...)"
                )
            }
            eagerKeys += eager
            for index in records.indices {
                guard let node = records[index].node else { continue }
                node.attach(scope: records[index].scope, hooks: records[index].hooks)
                let slot = records[index].argumentFactory == nil ? nil : ArgumentVariants.slot(of: node)
                _ = nodes.add(node, slot: slot, module: moduleIndex, replacing: true)
                overridden.insert(node.key)
                if let slot { overridden.insert(slot) }
                if records[index].isEager { eagerKeys.append(Injector.eagerKey(of: records[index])) }
            }
        }
        if !derivation.touched.isEmpty {
            eagerKeys += try recreateTouchedBindings(of: derivation, except: overridden, into: &nodes)
        }
        // A binding with arguments of a key the original binds replaces the original's binding of its
        // argument list: under the key when that is the original's primary binding, as a variant
        // otherwise (see ArgumentVariants).
        let original = derivation.original
        try registry.install(
            ArgumentVariants.separate(
                nodes.nodes, existing: { original.registry.retainedNode(for: $0) }, replacing: true))
        return eagerKeys
    }

    /// Configures the original's modules again (those it was created with, then those installed since)
    /// and adds the bindings that depend on an overridden key to `nodes`: those `derivation` found
    /// touched, except the keys overridden, and the touched multibinding collections (with the elements
    /// that are touched themselves; the collection reaches the others in the original).
    /// Returns the eager keys among them.
    private func recreateTouchedBindings(
        of derivation: Derivation,
        except overridden: Set<BindingKey>,
        into nodes: inout ModuleNodes
    ) throws(ProvisionError) -> [Binder.EagerKey] {
        let original = derivation.original
        let installed = original.installedModules.withLock { $0 }
        let sources = Array(zip(original.modules, original.overridingModules)) + installed.map { ($0, false) }
        var moduleRecords: [[Binder.Record]] = []
        var eagerKeys: [Binder.EagerKey] = []
        let recreates = { (key: BindingKey) in derivation.touched.contains(key) && !overridden.contains(key) }
        // A touched collection's elements: configured again, each gets a new key. Each stands for the
        // original's element declared at the same place (the n-th declared there, for a loop), whatever
        // order the module declares them in this time. One that depends on no override is not
        // re-created: the new collection takes the original's element (a singleton element stays
        // shared, built at most once for both injectors). One the original didn't declare is made anew.
        var originalElements: [BindingKey: [ElementPlace: BindingKey]] = [:]
        var elementsSeen: [ElementPlace: Int] = [:]
        var sharedElements: [BindingKey: BindingKey] = [:]
        for (index, (module, overrides)) in sources.enumerated() {
            let (records, eager) = try configured(
                module, overridesByDefault: overrides, checkingDuplicates: sources.count > 1)
            moduleRecords.append(records)
            eagerKeys += eager.filter { recreates($0.key) }
            for record in records.indices {
                guard let node = records[record].node else { continue }
                var key = records[record].key
                if let collection = records[record].multibinding?.collectionKey {
                    guard recreates(collection) else { continue }
                    var place = ElementPlace(collection: collection, location: records[record].location, index: 0)
                    place.index = elementsSeen[place, default: 0]
                    elementsSeen[place] = place.index + 1
                    let originals = Self.elements(of: collection, in: original, cache: &originalElements)
                    if let standsFor = originals[place] {
                        key = standsFor
                        if !recreates(key) {
                            sharedElements[records[record].key] = key
                            continue
                        }
                    } else {
                        key = collection
                    }
                }
                // A binding with arguments may be a variant of its key in the original.
                let slot = records[record].argumentFactory == nil ? nil : ArgumentVariants.slot(of: node)
                guard recreates(key) || slot.map(recreates) == true else { continue }
                node.attach(scope: records[record].scope, hooks: records[record].hooks)
                // The original was created from these modules: a replacing binding is an override.
                _ = nodes.add(node, slot: slot, module: index, replacing: true)
                if records[record].isEager { eagerKeys.append(Injector.eagerKey(of: records[record])) }
            }
        }
        let collections = Injector.collections(of: moduleRecords, injector: self) { sharedElements[$0] ?? $0 }
        for collection in collections where recreates(collection.key) {
            _ = nodes.addNew(collection)
        }
        return eagerKeys
    }

    /// Where a multibinding element is declared: its collection, its source line, and how many elements
    /// of the collection were declared on that line before it (a loop declares several).
    struct ElementPlace: Hashable {
        let collection: BindingKey
        let location: SourceLocation
        var index: Int
    }

    /// The element keys of the original's collection `key` by where they were declared (cached in
    /// `cache`); empty when the original (or, for a derived original, its own original) has no such
    /// collection.
    private static func elements(
        of key: BindingKey,
        in original: Injector,
        cache: inout [BindingKey: [ElementPlace: BindingKey]]
    ) -> [ElementPlace: BindingKey] {
        if let known = cache[key] { return known }
        let collection = elementNode(key, below: original) as? any ReachingNode
        var places: [ElementPlace: BindingKey] = [:]
        var seen: [ElementPlace: Int] = [:]
        for element in (collection?.dependenciesReached ?? []).filter(Binder.isElementKey) {
            guard let node = Self.elementNode(element, below: original) else { continue }
            var place = ElementPlace(collection: key, location: node.location, index: 0)
            place.index = seen[place, default: 0]
            seen[place] = place.index + 1
            places[place] = element
        }
        cache[key] = places
        return places
    }

    /// The node of `key` (a collection or an element) in `original` or the injectors it was derived
    /// from.
    private static func elementNode(_ key: BindingKey, below original: Injector) -> (any AnyNode)? {
        original.derivationChain.lazy.compactMap { $0.registry.retainedNode(for: key) }.first
    }

    /// This injector, and for one made by ``overriding(_:)-(Module...)``, the injector it was derived
    /// from, and so on: together they hold the bindings of this injector's modules (a derived injector
    /// holds only what its derivation replaced or re-created). The last one's parent is
    /// ``moduleParent``.
    var derivationChain: [Injector] {
        var chain = [self]
        while let derivation = chain[chain.count - 1].derivation { chain.append(derivation.original) }
        return chain
    }

    /// Whether a lookup in this injector may take `node`, found under `key` in `owner`, an ancestor:
    /// always, except in an injector made by ``overriding(_:)-(Module...)``, which makes its own
    /// just-in-time binding for a key whose binding in the original depends on an overridden key.
    func shares(_ node: some AnyNode, for key: BindingKey, foundIn owner: Injector) -> Bool {
        // Found in the original or above it: a just-in-time binding of a declared type may live in one of
        // the original's ancestors (see `Injector.parentMayHoldJustInTime(_:)`) and still depend on what
        // is overridden.
        guard let derivation, node.isJustInTime else { return true }
        return derivation.shares(justInTime: key)
    }
}

/// What an injector made by ``Injector/overriding(_:)-(Module...)`` knows about the injector it was
/// derived from.
final class Derivation: Sendable {
    /// The injector derived from: the derived injector's parent.
    let original: Injector
    /// The replacing modules.
    let overrides: [any Module]
    /// The original's bindings that depend on an overridden key (see ``OverrideAnalysis``).
    let touched: Set<BindingKey>
    /// The original's just-in-time bindings found not to: the derived injector uses them.
    private let sharedJustInTime: Set<BindingKey>
    /// The verdicts of ``shares(justInTime:)`` for keys the analysis didn't reach. A leaf lock: held to
    /// read or record a verdict, never while one is worked out.
    private let verdicts = Locked<[BindingKey: Bool]>([:])

    init(original: Injector, overrides: [any Module], touched: Set<BindingKey>, sharedJustInTime: Set<BindingKey>) {
        self.original = original
        self.overrides = overrides
        self.touched = touched
        self.sharedJustInTime = sharedJustInTime
    }

    /// Whether the derived injector uses the original's just-in-time binding of `key` (an ``Injectable``
    /// type's, which the original makes if it hasn't yet) rather than making its own: when that binding
    /// depends on no overridden key. Handles and optionals are always made per injector.
    ///
    /// A key the analysis didn't reach (a type first requested after the derivation) is worked out
    /// here, from the just-in-time declarations below it, once.
    func shares(justInTime key: BindingKey) -> Bool {
        if sharedJustInTime.contains(key) { return true }
        if touched.contains(key) || key.type is any SyntheticDependency.Type || key.type is any OptionalType.Type {
            return false
        }
        if let verdict = verdicts.withLock({ $0[key] }) { return verdict }
        let verdict = reachesNoOverride(from: key)
        verdicts.withLock { $0[key] = verdict }
        return verdict
    }

    /// Whether nothing below the just-in-time declaration of `key` is touched (or unknown).
    private func reachesNoOverride(from key: BindingKey) -> Bool {
        var stack = [key]
        var seen: Set<BindingKey> = []
        while let next = stack.popLast() {
            guard seen.insert(next).inserted else { continue }
            if touched.contains(next) { return false }
            if sharedJustInTime.contains(next) || original.hasModuleBinding(for: next) { continue }
            if let node = original.registry.retainedNode(for: next) {
                guard let dependencies = (node as? any ReachingNode)?.dependenciesReached else { return false }
                stack += dependencies
            } else if let (shape, _) = original.justInTimeShape(for: next) {
                if case .unknown = shape.dependencies { return false }
                stack += shape.keys + PropertyInjector.declaredKeys(of: next.type, in: original)
            }
        }
        return true
    }
}

/// Which of an injector's bindings depend on a set of overridden keys: the bindings an injector derived
/// with ``Injector/overriding(_:)-(Module...)`` must re-create rather than share.
///
/// Walks the original's own bindings (and the just-in-time bindings their dependencies would make),
/// records who depends on whom, then marks everything that reaches an overridden key, through any
/// dependency: constructor parameters, a closure's declared keys, handles, optionals, multibinding
/// elements, injected properties. A binding whose dependencies are unknown (a closure that declared
/// none, a binding with arguments) and an ``ObjectFactory`` (which resolves anything) count as
/// depending on everything. Bindings of the original's ancestors are leaves: they resolve in their own
/// injector whatever is overridden. Iterative, so a deep graph can't exhaust the stack.
struct OverrideAnalysis {
    /// The keys to re-create: overridden, or depending on one.
    private(set) var touched: Set<BindingKey> = []
    /// The original's just-in-time keys that are not touched.
    private(set) var sharedJustInTime: Set<BindingKey> = []

    init(original: Injector, overridden: Set<BindingKey>) {
        var dependents: [BindingKey: [BindingKey]] = [:]
        var justInTime: Set<BindingKey> = []
        var seeds = Array(overridden)
        var visited: Set<BindingKey> = []
        // An original that was itself derived by `overriding` holds only what its derivation replaced or
        // re-created; the rest of its modules' bindings live in its own original (its parent), and so
        // on. They are all the original's bindings here, re-created like its own when they depend on an
        // override: only the bindings of the first original's parent are leaves.
        //
        // Each key's node is the first one found along the chain, nearest first, read once for all keys
        // (looking each key up along the chain made a chain of n derivations cost n^3).
        var nodes: [BindingKey: any AnyNode] = [:]
        for source in original.derivationChain {
            for listed in source.registry.nodes where nodes[listed.key] == nil {
                nodes[listed.key] = source.registry.retainedNode(for: listed.key)
            }
        }
        let leaves = original.moduleParent
        var queue = Array(nodes.keys)
        while let key = queue.popLast() {
            guard visited.insert(key).inserted else { continue }
            let dependencies: [BindingKey]?
            if let node = nodes[key] {
                if node.isJustInTime { justInTime.insert(key) }
                dependencies = (node as? any ReachingNode)?.dependenciesReached
            } else if leaves?.hasAnyBinding(for: key) == true {
                continue
            } else if let (shape, _) = original.justInTimeShape(for: key) {
                justInTime.insert(key)
                if case .unknown = shape.dependencies {
                    dependencies = nil
                } else {
                    dependencies = shape.keys + PropertyInjector.declaredKeys(of: key.type, in: original)
                }
            } else {
                continue
            }
            guard let dependencies, key != BindingKey(ObjectFactory.self) else {
                seeds.append(key)
                continue
            }
            for dependency in dependencies {
                dependents[dependency, default: []].append(key)
                queue.append(dependency)
            }
        }
        guard !overridden.isEmpty else {
            sharedJustInTime = justInTime
            return
        }
        var touched: Set<BindingKey> = []
        while let key = seeds.popLast() {
            guard touched.insert(key).inserted else { continue }
            seeds += dependents[key] ?? []
        }
        self.touched = touched
        sharedJustInTime = justInTime.subtracting(touched)
    }
}

/// A node as ``OverrideAnalysis`` reads it. Every node is a `Node<T>`; the protocol reads it without `T`.
protocol ReachingNode: AnyNode {
    /// Every key the node's values may reach: its dependencies, handle targets and injected properties;
    /// `nil` when a closure resolves what it needs at run time.
    var dependenciesReached: [BindingKey]? { get }
}

extension Node: ReachingNode {
    var dependenciesReached: [BindingKey]? {
        var keys: [BindingKey]
        switch dependencies {
        case .known(let known), .declared(let known), .deferred(let known), .optional(let known): keys = known
        case .dynamic: return nil
        }
        return keys + injectedPropertyKeys + PropertyInjector.declaredKeys(of: T.self, in: injector)
    }
}
