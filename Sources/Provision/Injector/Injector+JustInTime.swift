import Synchronization

extension Injector {
    /// The node for `key` in this injector, its ancestors, or a just-in-time binding created for it.
    ///
    /// Lookup order: this injector's bindings, then each parent's; then a just-in-time binding for a
    /// handle type (``Provider``, ``Lazy``, ``ObjectFactory``), an optional (`Dog?`, see
    /// `Optional.optionalRecipe(for:)`) or an ``Injectable`` type (unnamed keys only). A just-in-time
    /// binding is installed like any other, so it is created once per injector (two threads racing get
    /// the same node), and its singleton, if any, belongs to the injector that holds it.
    ///
    /// A declared type's binding (``Injectable``, ``InjectableClass``) is made in the highest ancestor
    /// that would build it the same way, as Guice does: one where everything it reaches resolves to the
    /// same bindings as from here (see ``parentMayHoldJustInTime(_:)``). So an `Injectable` singleton
    /// first asked of a child (a request's child injector, say) is the parent's singleton, shared by
    /// every child, and not one per child; one that depends on a binding of the child belongs to the
    /// child.
    ///
    /// Handles are never taken from a parent: a parent's handle resolves in the parent, so a child would
    /// miss its own bindings (Objection's quirk Q1). Each injector makes its own. The same goes for a
    /// parent's just-in-time optional (a module binding of an optional type is taken from a parent like
    /// any other binding).
    ///
    /// A miss in the lock-free tables is not final: an install running on another thread may have added
    /// some of its bindings and not yet this one (see ``RegistryStripe``). So before it creates a
    /// just-in-time binding or reports the key as unbound, the lookup looks again with the stripes'
    /// mutexes held, which waits for such an install to end: a request racing an install sees all of it
    /// or none of it, and never makes a just-in-time binding for a key the install is adding.
    ///
    /// A shut-down injector has no nodes, and a lookup doesn't pass over one to its ancestors: a request
    /// of a grandchild whose parent shut down misses (and throws `shutDown`) even where the grandparent
    /// still runs, as it would if the request fell back to the parent's own bindings.
    @usableFromInline
    func lookup<T>(_ key: BindingKey, as type: T.Type) -> Node<T>? {
        if lifecycle.isClosed { return nil }
        if let node = boundNode(for: key, as: type, locked: false) ?? boundNode(for: key, as: type, locked: true) {
            return node
        }
        switch justInTimeHome(key) {
        case .elsewhere(let owner):
            // The original's (a shared key of a derived injector) or the parent's (a declared type, which
            // climbs as high as it builds the same way). One that shut down makes nothing: the request
            // then fails with `shutDown` rather than this injector making a second binding.
            return owner.lookup(key, as: type)
        case .nowhere:
            return nil
        case .here:
            break
        }
        // A closed registry adds nothing: the caller reports the shutdown.
        guard let made = justInTimeNode(for: key, as: type), let node = registry.installIfAbsent(made) else {
            return nil
        }
        // Every node stored under a key for `T` is a `Node<T>` (see `Binder.setRecipe`).
        return unsafeDowncast(node.takeUnretainedValue(), to: Node<T>.self)
    }

    /// The node bound to `key` in this injector or, unless `T` is a handle type, an ancestor; looked up
    /// without a lock, or with each stripe's mutex held (see ``Registry/lockedNode(for:)``).
    private func boundNode<T>(for key: BindingKey, as type: T.Type, locked: Bool) -> Node<T>? {
        var current: Injector? = self
        while let injector = current {
            if let node = locked ? injector.registry.lockedNode(for: key) : injector.registry.node(for: key) {
                // Every node stored under a key for `T` is a `Node<T>` (see `Binder.setRecipe`).
                let found = unsafeDowncast(node.takeUnretainedValue(), to: Node<T>.self)
                guard injector !== self, found.isJustInTime else { return found }
                // A parent's just-in-time optional resolves in the parent: make this injector's own. So
                // does a derived injector for a just-in-time binding that depends on what it overrides.
                if type is any OptionalType.Type || !self.shares(found, for: key, foundIn: injector) { return nil }
                // An ancestor's binding of a declared type (made there by a request of its own, even a
                // failed one) is used only if it builds it the same way as from here.
                if derivation == nil, !justInTimeBuildsAlike(key, from: injector) { return nil }
                return found
            }
            // Checked only on the way to a parent: a conformance check costs a runtime lookup.
            guard let parent = injector.parent, !(type is any SyntheticDependency.Type) else { break }
            // A shut-down ancestor ends the walk: what lies above it is reached through it.
            if parent.lifecycle.isClosed { return nil }
            current = parent
        }
        return nil
    }

    private func justInTimeNode<T>(for key: BindingKey, as type: T.Type) -> Node<T>? {
        let location = SourceLocation.justInTime
        if let synthetic = type as? any SyntheticDependency.Type,
            let recipe = synthetic.syntheticRecipe(for: key) as? Recipe<T>
        {
            return Node(key: key, scope: .transient, location: location, recipe: recipe, injector: self)
        }
        if let optional = type as? any OptionalType.Type, let recipe = optional.optionalRecipe(for: key) as? Recipe<T> {
            return Node(key: key, scope: .transient, location: location, recipe: recipe, injector: self)
        }
        if key.name == nil, let injectable = type as? any Injectable.Type,
            let injection = injectable.anyInjection as? Injection<T>
        {
            return Node(key: key, scope: injection.scope, location: location, recipe: injection.recipe, injector: self)
        }
        if key.name == nil, let declaring = type as? any InjectableClass.Type {
            switch declaring.ownInjection(as: type) {
            case .success(let injection):
                return Node(
                    key: key, scope: injection.scope, location: location, recipe: injection.recipe, injector: self)
            case .failure(let error):
                return Node(
                    key: key, scope: .transient, location: location, recipe: .failing(with: error), injector: self)
            }
        }
        return nil
    }

    /// Whether the just-in-time binding of `key`, a type that declares itself (``Injectable``,
    /// ``InjectableClass``), may be made in this injector's parent instead: nothing it reaches is bound
    /// in this injector, so from the parent it resolves every dependency to the same binding.
    ///
    /// Walks what the declaration reaches: its initializer's parameters and injected properties, the
    /// declarations of the unbound types among them, and the targets of handles and optionals (a handle
    /// the parent makes resolves in the parent). A key an ancestor's module binds stops the walk there:
    /// it resolves in its own injector. Anything this injector's modules bind, a closure whose
    /// dependencies are unknown or an ``ObjectFactory`` (which resolves anything) keeps the binding
    /// here. Iterative, so a deep declaration can't exhaust the stack.
    func parentMayHoldJustInTime(_ key: BindingKey) -> Bool {
        let (known, generation) = justInTimeVerdicts.withLock { ($0.verdicts[key], $0.generation) }
        if let known { return known }
        let verdict = parentBuildsJustInTimeAlike(key)
        // Kept only if no install ended meanwhile: its bindings may have changed the verdict.
        justInTimeVerdicts.withLock { state in
            if state.generation == generation { state.verdicts[key] = verdict }
        }
        return verdict
    }

    /// Whether the just-in-time binding of `key` that `ancestor` holds builds it as this injector would:
    /// every injector from this one up to `ancestor` may leave it to its parent.
    private func justInTimeBuildsAlike(_ key: BindingKey, from ancestor: Injector) -> Bool {
        // Only a declared type's just-in-time binding reaches here (handles are never taken from an
        // ancestor, optionals were turned away before), so no conformance check: each child request for
        // the key comes this way, and a cached verdict is one lock.
        var current = self
        while current !== ancestor {
            guard current.parentMayHoldJustInTime(key), let parent = current.parent else { return false }
            current = parent
        }
        return true
    }

    /// The walk behind ``parentMayHoldJustInTime(_:)``, whose verdict is kept per key (until an install
    /// into this injector, which may bind something the walk reached).
    private func parentBuildsJustInTimeAlike(_ key: BindingKey) -> Bool {
        guard let parent, key.name == nil,
            key.type is any Injectable.Type || key.type is any InjectableClass.Type
        else { return false }
        var stack = [key]
        var seen: Set<BindingKey> = []
        while let next = stack.popLast() {
            guard seen.insert(next).inserted else { continue }
            if next == BindingKey(ObjectFactory.self) { return false }
            // Bound here by a module (a seed too). This injector's own just-in-time bindings don't count:
            // a handle or an optional is made by every injector alike, and a declared type's own
            // binding here comes from a walk that reaches what keeps it here.
            if let found = registry.node(for: next) ?? registry.lockedNode(for: next),
                let bound = found.takeUnretainedValue() as? any AnyNode, !bound.isJustInTime
            {
                return false
            }
            // A module binding of an ancestor resolves there, whoever asks: the walk stops. Handles are
            // made by each injector (a parent's resolves in the parent) and just-in-time bindings may be
            // made anew here (an ancestor's, made by a request of its own, is used only if this walk
            // allows it): the walk follows their declarations.
            if !(next.type is any SyntheticDependency.Type), parent.hasModuleBinding(for: next) { continue }
            // Nobody binds it: missing (or `nil`, for an optional's) from the parent as from here. A
            // later install into this injector that binds it changes the verdict (see `install`).
            guard let (shape, _) = justInTimeShape(for: next) else { continue }
            if case .unknown = shape.dependencies { return false }
            stack += shape.keys + PropertyInjector.declaredKeys(of: next.type, in: self)
        }
        return true
    }

    /// Resolves a key that is not bound in this injector's own registry: the slow path of `resolve`.
    @usableFromInline
    func resolveUnbound<T>(_ key: BindingKey, as type: T.Type, context: ResolutionContext) throws(ProvisionError) -> T {
        try node(unbound: key, as: type, dependent: context.frame?.key).resolve(context)
    }

    /// The node for a key missing from this injector's own table: an ancestor's or a just-in-time one.
    /// A shut-down injector has none: its tables were emptied, and every request ends here with
    /// `shutDown`; so does every request that would fall back to a shut-down ancestor. `dependent` is the
    /// binding whose build makes the request (a closure's, through its resolver), if any.
    func node<T>(unbound key: BindingKey, as type: T.Type, dependent: BindingKey? = nil) throws(ProvisionError)
        -> Node<T>
    {
        // This injector's own shutdown ends every request. An ancestor's ends those that fall back to it:
        // its tables are emptied, so the lookup misses and `missing` says why. A child's own
        // just-in-time bindings (handles, optionals, declared types that stay in the child) still work.
        if lifecycle.isClosed { throw ProvisionError.shutDown(key) }
        guard let node = lookup(key, as: type) else {
            // Closed since the check above: the registry then refuses just-in-time bindings.
            throw missing(key, path: [key], dependent: dependent)
        }
        return node
    }

    /// The error for `key`, which a lookup in this injector missed: `shutDown` when this injector or an
    /// ancestor began shutting down (shutdown empties the tables, so that is why it missed), `notBound`
    /// with `path` otherwise. Every lookup that can miss reports through here.
    func missing(_ key: BindingKey, path: @autoclosure () -> [BindingKey], dependent: BindingKey? = nil)
        -> ProvisionError
    {
        guard isShuttingDown else { return unbound(key, path: path(), dependent: dependent) }
        return ProvisionError.shutDown(key, path: path(), byAncestor: !lifecycle.isClosed)
    }

    /// The error for `key`, which nothing binds. A dependency (of the key before it on `path`, or of
    /// `dependent`, a closure binding that requested it through its resolver) is explained as
    /// validation explains it: a list that nothing is multibound for (`emptyMultibinding`), one value
    /// of a type that is only multibound (`ambiguousMultibinding`), or `notBound`. (Found by hunts 20A
    /// and 21A: requests reported the first two as `notBound`, which validation didn't.) A request's
    /// own key is `notBound`, as the codes are documented. Only on the error path: the multibinding is
    /// looked for here.
    private func unbound(_ key: BindingKey, path: [BindingKey], dependent: BindingKey?) -> ProvisionError {
        let neededBy: [BindingKey]
        if let dependent {
            neededBy = [dependent]
        } else if path.count > 1 {
            neededBy = [path[path.count - 2]]
        } else {
            return ProvisionError.notBound(key, path: path)
        }
        if let array = key.type as? any ArrayType.Type {
            return ProvisionError.emptyMultibinding(key, element: array.elementType, neededBy: neededBy, path: path)
        }
        if let count = multibindingElementCount(of: key.type, named: key.name) {
            return ProvisionError.onlyMultibound(key, elementCount: count, neededBy: neededBy, path: path)
        }
        return ProvisionError.notBound(key, path: path)
    }

    /// How many elements are multibound for `type` under `name` in this injector or the nearest ancestor
    /// that has its collection; `nil` when none does.
    private func multibindingElementCount<Element>(of type: Element.Type, named name: String?) -> Int? {
        guard let node = boundNode(for: BindingKey([Element].self, named: name)), !node.isJustInTime,
            // A multibinding's collection depends on its elements, and only on them; a list bound
            // otherwise (`bind([T].self)`) is not one.
            let elements = node.dependencyKeys, !elements.isEmpty, elements.allSatisfy(Binder.isElementKey)
        else { return nil }
        return elements.count
    }

    /// Where the just-in-time binding of `key`, which no injector binds, is made (see `JustInTimeHome`).
    func justInTimeHome(_ key: BindingKey) -> JustInTimeHome {
        if lifecycle.isClosed { return .nowhere }
        if let derivation {
            return derivation.shares(justInTime: key) ? .elsewhere(derivation.original) : .here
        }
        if let parent, parentMayHoldJustInTime(key) { return .elsewhere(parent) }
        return .here
    }

    /// Whether a lookup of `key` that finds no binding would make a just-in-time one here: what validation
    /// mirrors below a shut-down ancestor.
    func wouldMakeJustInTime(_ key: BindingKey) -> Bool {
        if case .here = justInTimeHome(key) { return true }
        return false
    }

    /// Throws `shutDown` for `key` when this injector or an ancestor has begun shutting down: what a plan
    /// reaching an ancestor's binding checks before it runs, called on the dependent injector's parent
    /// (see `Linker.crossInjectorPlan(to:plan:below:)`), so that an intermediate injector's shutdown
    /// counts as well as the owner's.
    func checkNotShuttingDown(_ key: BindingKey) throws(ProvisionError) {
        if isShuttingDown { throw ProvisionError.shutDown(key, path: [key], byAncestor: true) }
    }

    /// Whether this injector or an ancestor has begun shutting down: its requests throw `shutDown`.
    ///
    /// The answer is cached (``shutdownVerdict``) until any injector begins shutting down
    /// (``InjectorLifecycle/closingEpoch``): a child made below a chain hundreds of injectors deep reads
    /// its parent's answer instead of walking the chain, and so does each child after it.
    var isShuttingDown: Bool {
        // Read before any flag: a shutdown that began since raised it after setting its flag, so either
        // the flag is seen below or the answer recorded here is stale at once.
        let epoch = UInt(bitPattern: InjectorLifecycle.closingEpoch)
        if let cached = cachedShutdownVerdict(at: epoch) { return cached }
        // Up to the first ancestor that is closed or answered at this epoch; walked without retaining
        // each ancestor (each holds its parent, and `self` is held by the caller).
        var current = Unmanaged.passUnretained(self)
        var answer = false
        while true {
            let (closed, cached, parent) = current._withUnsafeGuaranteedRef { injector in
                (
                    injector.lifecycle.isClosed, injector.cachedShutdownVerdict(at: epoch),
                    injector.parent.map(Unmanaged.passUnretained)
                )
            }
            if closed {
                answer = true
                break
            }
            if let cached {
                answer = cached
                break
            }
            guard let parent else { break }
            current = parent
        }
        shutdownVerdict.store(epoch << 2 | 2 | (answer ? 1 : 0), ordering: .releasing)
        return answer
    }

    /// The answer ``isShuttingDown`` recorded, if it was recorded at `epoch`.
    private func cachedShutdownVerdict(at epoch: UInt) -> Bool? {
        let word = shutdownVerdict.load(ordering: .acquiring)
        guard word & 2 != 0, word >> 2 == epoch else { return nil }
        return word & 1 != 0
    }
}

extension Injectable {
    /// The declaration, type-erased, for just-in-time bindings found through an existential metatype.
    static var anyInjection: Any { injection }
}

/// Where a lookup that found no binding makes the just-in-time binding of a key: the one decision that
/// `Injector.lookup` acts on and validation mirrors.
enum JustInTimeHome {
    /// In this injector.
    case here
    /// In another injector, which decides again: a derived injector's original, for a key it shares, or
    /// the parent, for a declared type that builds the same way from there.
    case elsewhere(Injector)
    /// Nowhere: this injector shut down.
    case nowhere
}
