import Synchronization

/// Turns recipes into plans, depth first, finding missing bindings and static cycles on the way.
///
/// Linking a binding links every binding it depends on (unless already linked), so the first request
/// for a root links its whole static subgraph once; later requests find the plan published on the node
/// and run it directly. The linker's stack is the resolution path, so a missing dependency or a cycle
/// is reported with the full path (`App -> Store -> any DB`) before anything is constructed.
///
/// Invariant: a node's plan is published only after the plans of all its static dependencies were
/// published, so the published plans form an acyclic graph and a linked node never needs re-checking.
///
/// Missing bindings don't stop the walk: the linker records each one (with its path), links the rest of
/// the subgraph, publishes nothing that depends on a missing binding, and then throws one error listing
/// every missing binding, so that a configuration is fixed in one round rather than one error at a
/// time. A cycle stops the walk at once.
///
/// Linking recurses as deep as the graph, and so do the plans it makes; a chain of bindings longer than
/// the thread's stack holds must fail with ``ProvisionError/Code/depthExceeded`` rather than crash.
/// The linker checks the stack at each binding it links (see ``StackGuard``), and gives the plans of a
/// long static chain a check of their own without making every plan pay for it: each node gets a
/// *height* (0 for a binding without static dependencies, otherwise one more than its highest
/// dependency's), and a node checks the stack before it runs when its height and its lowest
/// dependency's height fall in different blocks of ``StackGuard/staticStride`` heights. Heights
/// strictly decrease along any path of plans, so a path can't pass through more than one block
/// without crossing a block boundary at a checked node: at most a stride's worth of unchecked plans
/// runs below any check. In a plain chain that is one plan in every 32; graphs less than 32 deep have
/// no checks at all.
///
/// A linker is used by one thread for one link operation and then dropped.
@usableFromInline
final class Linker {
    @usableFromInline init() {}

    private var stack: [BindingKey] = []
    private var onStack: Set<BindingKey> = []
    /// The missing bindings found so far, each with its path.
    private var missing: [ProvisionError] = []
    /// Stand-in plans for missing bindings, kept alive while linking; they are never published.
    private var placeholders: [AnyObject] = []
    /// For each node being linked (parallel to `stack`): what its static dependencies add up to.
    private var dependencyTraits: [LinkedDependencies] = []

    /// What the linker learns about a node's static dependencies while it links them.
    private struct LinkedDependencies {
        /// The traits of the dependencies it builds.
        var traits: NodeTraits = []
        /// The first dependency that needs a scope.
        var scoped: BindingKey?
        /// The highest and lowest heights of its dependencies; `nil` without static dependencies.
        var heights: (highest: Int, lowest: Int)?

        mutating func add(height: Int) {
            guard let current = heights else {
                heights = (height, height)
                return
            }
            heights = (max(current.highest, height), min(current.lowest, height))
        }
    }

    /// Links `node` and its static dependencies, or throws one error for everything missing.
    func link<T>(_ node: Node<T>) throws(ProvisionError) -> Plan<T> {
        if node.plan == nil { linkDeepDependencies(of: node) }
        let plan = try plan(for: node)
        guard missing.isEmpty else { throw ProvisionError.missingDependencies(missing) }
        return plan
    }

    /// How deep the static graph below a node must be for ``linkDeepDependencies(of:)`` to link it
    /// bottom-up first.
    static let bottomUpDepth = 64

    /// Links the bindings below a deep `root` bottom-up, so that linking `root` itself recurses no
    /// deeper than the bindings the walk couldn't reach.
    ///
    /// Linking recurses once per level, and a level of linking takes more stack than a level of the
    /// plans it makes (about 3 KiB against 1.5 KiB in a debug build): without this, a chain that its
    /// thread could run would fail while it is linked. The walk is iterative, over the bindings of
    /// this injector that the plans link (``AnyNode/staticDependencies()``), and stops at linked ones.
    /// It links nothing when the graph is shallow, and nothing when it finds a cycle: the depth-first
    /// link reports that, with its path. Each binding it links is linked by a linker of its own
    /// (``prelink(_:)``), whose errors are dropped: a binding that fails stays unlinked, and the
    /// depth-first link then reports the error with its whole path.
    private func linkDeepDependencies(of root: any AnyNode) {
        var order: [any AnyNode] = []
        var onPath: Set<ObjectIdentifier> = [ObjectIdentifier(root)]
        var done: Set<ObjectIdentifier> = []
        var path: [(node: any AnyNode, dependencies: [any AnyNode], next: Int)] = [
            (root, root.staticDependencies(), 0)
        ]
        var deepest = 1
        while let last = path.indices.last {
            let (node, dependencies, next) = path[last]
            guard next < dependencies.count else {
                path.removeLast()
                onPath.remove(ObjectIdentifier(node))
                done.insert(ObjectIdentifier(node))
                order.append(node)
                continue
            }
            path[last].next += 1
            let dependency = dependencies[next]
            let id = ObjectIdentifier(dependency)
            if dependency.isLinked || done.contains(id) { continue }
            if onPath.contains(id) { return }
            onPath.insert(id)
            path.append((dependency, dependency.staticDependencies(), 0))
            deepest = max(deepest, path.count)
        }
        guard deepest >= Self.bottomUpDepth else { return }
        let linker = Linker()
        // `order` ends with the root, which the caller links.
        for node in order.dropLast() {
            node.prelink(with: linker)
        }
    }

    /// Links `node`, whose static dependencies were linked already (see
    /// ``linkDeepDependencies(of:)``), dropping any error.
    func prelink<T>(_ node: Node<T>) {
        _ = try? plan(for: node)
    }

    /// The plan for `node`, linking it if needed.
    private func plan<T>(for node: Node<T>) throws(ProvisionError) -> Plan<T> {
        if let plan = node.plan { return plan }
        let key = node.key
        if onStack.contains(key) {
            throw ProvisionError.cycle(key, path: stack + [key])
        }
        // Linking recurses once per level of the graph.
        try StackGuard.check(key, path: self.stack + [key])
        stack.append(key)
        onStack.insert(key)
        defer {
            stack.removeLast()
            onStack.remove(key)
        }
        let missingBefore = missing.count
        dependencyTraits.append(LinkedDependencies())
        guard case .sync(var plan) = try node.link(.sync(self), node) else {
            preconditionFailure("a recipe's link answered the synchronous pass without a plan")
        }
        let dependencies = dependencyTraits.removeLast()
        var height = 0
        if let heights = dependencies.heights {
            height = heights.highest + 1
            // A path leaving this node's block of heights passes through here (see above).
            if height / StackGuard.staticStride > heights.lowest / StackGuard.staticStride {
                plan = node.checkingStack(plan)
            }
        }
        var traits = dependencies.traits
        if node.isAsync { traits.insert(.needsAsync) }
        switch node.scope.kind {
        case .transient:
            break
        case .scoped:
            traits.insert(.needsScope)
        case .singleton:
            if node.cell?.isPrebuilt != true { traits.insert(.buildsSingleton) }
            if traits.contains(.needsScope), let scoped = dependencies.scoped {
                throw ProvisionError.captiveDependency(
                    holder: key,
                    holderLifetime: .singleton,
                    captive: scoped,
                    captiveLifetime: .scoped,
                    path: stack + [scoped]
                )
            }
        }
        // Only the async path builds a singleton or scoped instance whose own factory awaits. One whose
        // factory is synchronous, over async bindings, keeps its synchronous plan, behind its gate like
        // any other: a synchronous request builds it once the async singletons it needs are built (by
        // `start()`, or by an async request), and before that their plans throw `requiresAsync`, with the
        // path down to the async binding, without waiting at their gates. Such a synchronous build
        // never blocks an async one: a synchronous caller doesn't wait at a gate an async build holds
        // (`builtAsynchronously`), and an async waiter doesn't inherit a synchronous build's
        // `requiresAsync` but builds the instance itself (see `InstanceCell`).
        if traits.contains(.needsAsync), node.scope.kind != .transient, node.isAsync {
            plan = node.asyncOnlyPlan()
        }
        // A plan that captured a stand-in for a missing binding must never run: don't publish it.
        guard missing.count == missingBefore else { return plan }
        node.setTraits(traits, height: height)
        return node.publish(plan)
    }

    /// The plan for the unnamed binding of `type`, a dependency of `dependent`, looked up in the
    /// injector that owns `dependent`.
    @usableFromInline
    func plan<D, P>(for type: D.Type, below dependent: Node<P>) throws(ProvisionError) -> PlanReference<D> {
        try plan(for: BindingKey(type), as: type, below: dependent)
    }

    /// The plan for the binding of `key` (whose type is `D`), a dependency of `dependent`.
    func plan<D, P>(for key: BindingKey, as type: D.Type, below dependent: Node<P>) throws(ProvisionError)
        -> PlanReference<D>
    {
        guard let node = dependent.injector.lookup(key, as: type) else {
            let error = dependent.injector.missing(key, path: stack + [key])
            // A shut-down injector (or ancestor) emptied its tables: that is why the key is missing.
            if error.code == .shutDown { throw error }
            missing.append(error)
            let placeholder = Plan<D> { _ throws(ProvisionError) in throw error }
            placeholders.append(placeholder)
            return PlanReference(placeholder)
        }
        let plan = try plan(for: node)
        if let index = dependencyTraits.indices.last {
            let traits = node.traits
            dependencyTraits[index].traits.formUnion(traits)
            if traits.contains(.needsScope), dependencyTraits[index].scoped == nil {
                dependencyTraits[index].scoped = key
            }
            dependencyTraits[index].add(height: node.height)
        }
        if node.injector !== dependent.injector {
            return PlanReference(Linker.crossInjectorPlan(to: node, plan: plan, below: dependent))
        }
        return Linker.reference(to: node, plan: plan)
    }

    /// How a binding of a child (or derived) injector reaches `node`, an ancestor's binding: through a
    /// plan that throws `shutDown` once the ancestor, or any injector between it and the dependent's,
    /// has begun shutting down (the dependent injector's parent and its ancestors are checked), then
    /// runs `plan`. The
    /// dependent's plan, linked before, would otherwise keep reading the ancestor's instances, disposed
    /// by its shutdown, where a request made through the ancestor's own tables throws (they are emptied).
    /// Made once per ancestor node and dependent injector, and kept by the dependent injector (which
    /// keeps its ancestors, so the captured injector outlives the plan).
    static func crossInjectorPlan<D, P>(to node: Node<D>, plan: Plan<D>, below dependent: Node<P>) -> Plan<D> {
        let id = ObjectIdentifier(node)
        let holder = dependent.injector
        if let made = holder.crossInjectorPlans.withLock({ $0[id] }) as? Plan<D> { return made }
        let key = node.key
        // The node is an ancestor's, so the dependent injector has a parent (the owner, for a derived one).
        let above = holder.parent ?? node.injector
        let made = Plan<D> { [unowned(unsafe) above] context throws(ProvisionError) in
            try above.checkNotShuttingDown(key)
            return try plan.make(context)
        }
        return holder.crossInjectorPlans.withLock { plans in
            if let stored = plans[id] as? Plan<D> { return stored }
            plans[id] = made
            return made
        }
    }

    /// How a dependent reaches `node`, whose plan is `plan` (see ``PlanReference``): straight from the
    /// node when the plan would only read a singleton's published reference or call a plain transient's
    /// initializer, through the plan otherwise.
    static func reference<D>(to node: Node<D>, plan: Plan<D>) -> PlanReference<D> {
        if node.cell != nil {
            // A singleton or instance binding of a reference type: read from its cell's word, and built
            // through its plan while the word is empty. Other types keep their plan.
            guard PublishedValue<D>.storesReference else { return PlanReference(plan) }
            return PlanReference(node: node, tags: ReferenceTag.instance)
        }
        guard node.isDirect else { return PlanReference(plan) }
        let checksClass =
            node.directClass.load(ordering: .relaxed) != 0
            && AtomicReference.load(node.propertyInjection, as: PropertyInjection.self) != nil
        return PlanReference(node: node, tags: checksClass ? ReferenceTag.classCheck : 0)
    }

    /// Links the binding of a property that `dependent`'s plan injects, so that a cycle through
    /// injected properties, or a missing binding for one, is found before anything is built.
    ///
    /// The injection resolves the property when it runs (through a ``Resolver``, which checks the
    /// stack and the path itself), so the property's traits and height are not the dependent's, but
    /// one: a property whose binding only the async path can build makes the dependent need it too (its
    /// async plan awaits the property; a synchronous request throws `requiresAsync`). Otherwise only its
    /// plan's existence and acyclicity are checked here.
    func link<D>(property key: BindingKey, as type: D.Type, in injector: Injector) throws(ProvisionError) {
        guard let node = injector.lookup(key, as: type) else {
            let error = injector.missing(key, path: stack + [key])
            if error.code == .shutDown { throw error }
            missing.append(error)
            return
        }
        _ = try plan(for: node)
        if let index = dependencyTraits.indices.last {
            dependencyTraits[index].traits.formUnion(node.traits.intersection(.needsAsync))
        }
    }
}
