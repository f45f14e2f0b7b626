/// Links the async plans of a node and of the dependencies it builds, the first time the node is
/// requested asynchronously.
///
/// The synchronous ``Linker`` runs first: it finds missing bindings and cycles, and marks every node
/// whose subgraph has an async factory (``NodeTraits/needsAsync``) or builds a singleton
/// (``NodeTraits/buildsSingleton``). A node with an async factory below gets an async plan made from
/// its recipe's async form, which awaits the factories and suspends where another request is building
/// an instance it needs. Every other node is built by its synchronous plan, also in an async request, so
/// that the gate a synchronous binding's build holds is never held by a suspended build, and a thread
/// can wait at it (see ``SingletonGate/isAsync``); its async plan first suspends while the instance, or
/// a singleton below, is being built by another request (see `Node.synchronousAsyncPlan`).
@usableFromInline
struct AsyncLinker: Sendable {
    /// The declared dependencies of closures being linked by this linker (see ``settle(declared:below:)``).
    /// Only the linking thread uses it; a lock, uncontended, so that the linker stays `Sendable`.
    private let declaredPath = Locked<Set<ObjectIdentifier>>([])

    @usableFromInline init() {}

    /// The async plan of `node`, linking it (and what it builds) if needed.
    @usableFromInline
    func link<T>(_ node: Node<T>) throws(ProvisionError) -> AsyncPlan<T> {
        if let plan = node.asyncPlan { return plan }
        let syncPlan: Plan<T>
        if let plan = node.plan {
            syncPlan = plan
        } else {
            syncPlan = try node.linkReportingFailure()
        }
        let traits = node.traits
        guard traits.contains(.needsAsync) else {
            // Built synchronously (see above), after settling the singletons below, if it builds any. A
            // closure that declared its dependencies settles them (the synchronous link doesn't follow
            // them, so its traits don't say whether they build a singleton or await an async factory).
            guard traits.contains(.buildsSingleton) || node.declaresDependencies else {
                return node.publishAsync(node.synchronousAsyncPlan(PlanReference(syncPlan)))
            }
            try StackGuard.check(node.key)
            if case .async(let plan) = try node.link(.async(self), node) {
                return node.publishAsync(plan)
            }
            // A recipe whose dependencies are not known before it runs (a closure): nothing to settle.
            return node.publishAsync(node.synchronousAsyncPlan(PlanReference(syncPlan)))
        }
        // Linking recurses once per level of the async part of the graph.
        try StackGuard.check(node.key)
        guard case .async(let plan) = try node.link(.async(self), node) else {
            // A recipe with no async form (a type's own `Injectable` declaration, a binding with
            // arguments) above an async factory.
            throw ProvisionError.asyncUnsupported(node.key)
        }
        return node.publishAsync(plan)
    }

    /// What settles the binding of `key`, a dependency that the closure binding `dependent` declared
    /// (`to(dependencies:_:)`), before the closure runs in an async request: the async singletons and
    /// the singletons being built below it are awaited, so that the closure's synchronous requests find
    /// them built.
    ///
    /// Best effort: when the key can't be linked (missing, a declared cycle of closures, a binding with
    /// no async form), nothing is settled, and the closure's own request for it reports the error, with
    /// its path, as it did before settling existed.
    func settle<P>(declared key: BindingKey, below dependent: Node<P>) -> AsyncSettle {
        func settleNode<D>(_ type: D.Type) -> AsyncSettle {
            let unsettled: AsyncSettle = { _ throws(ProvisionError) in false }
            guard let node = dependent.injector.lookup(key, as: type) else { return unsettled }
            if let plan = node.asyncPlan { return plan.settle }
            // Declared dependencies are not linked synchronously, so nothing has checked them for a
            // cycle: a closure met again on this link's path is not followed.
            let id = ObjectIdentifier(node)
            guard declaredPath.withLock({ $0.insert(id).inserted }) else { return unsettled }
            defer { _ = declaredPath.withLock { $0.remove(id) } }
            guard let plan = try? link(node) else { return unsettled }
            guard node.traits.contains(.needsAsync) else { return plan.settle }
            // Its construction awaits: a singleton or scoped instance is built now, by its async plan (the
            // closure's synchronous request then finds it built). A transient is built by the closure's
            // request: what is settled is what lies below it.
            if node.scope.kind != .transient {
                return { context throws(ProvisionError) in
                    _ = try await plan.make(context)
                    return true
                }
            }
            let below = (node.dependencyKeys ?? []).map { self.settle(declared: $0, below: node) }
            return { context throws(ProvisionError) in
                var settled = true
                for settle in below where try await !settle(context) { settled = false }
                return settled
            }
        }
        return settleNode(key.type)
    }

    /// The async plan for the unnamed binding of `type`, a dependency of `dependent`.
    @usableFromInline
    func plan<D, P>(for type: D.Type, below dependent: Node<P>) throws(ProvisionError) -> AsyncPlan<D> {
        try plan(for: BindingKey(type), as: type, below: dependent)
    }

    /// The async plan for the binding of `key` (whose type is `D`), a dependency of `dependent`.
    func plan<D, P>(for key: BindingKey, as type: D.Type, below dependent: Node<P>) throws(ProvisionError)
        -> AsyncPlan<D>
    {
        // The synchronous link of `dependent` found this binding already; a miss here means it was
        // removed since, which a running injector never does.
        guard let node = dependent.injector.lookup(key, as: type) else {
            throw dependent.injector.missing(key, path: [dependent.key, key])
        }
        let plan: AsyncPlan<D>
        do throws(ProvisionError) {
            plan = try link(node)
        } catch {
            throw error.prepending(dependent.key)
        }
        guard node.injector !== dependent.injector else { return plan }
        // An edge into an ancestor ends with its shutdown, as in the synchronous plan (see
        // `Linker.crossInjectorPlan(to:plan:below:)`). The dependent's plan keeps this one.
        let key = node.key
        let above = dependent.injector.parent ?? node.injector
        return AsyncPlan(
            { [unowned(unsafe) above] context throws(ProvisionError) in
                try above.checkNotShuttingDown(key)
                return try await plan.make(context)
            },
            settle: plan.settle
        )
    }
}
