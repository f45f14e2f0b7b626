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
        // A synchronous closure that declared its dependencies: built by its synchronous plan once what
        // it declared is prepared (its synchronous link doesn't follow them, so its traits can't say).
        if !traits.contains(.needsAsync), case .declared(let keys) = node.dependencies,
            let preparation = DeclaredPreparation.make(for: node, declared: keys)
        {
            return node.publishAsync(node.synchronousAsyncPlan(PlanReference(syncPlan), preparing: preparation))
        }
        guard traits.contains(.needsAsync) else {
            // Built synchronously (see above), after settling the singletons below, if it builds any.
            guard traits.contains(.buildsSingleton) else {
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
