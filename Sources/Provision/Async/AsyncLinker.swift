/// Links the async plans of a node and of the dependencies it builds, the first time the node is
/// requested asynchronously.
///
/// The synchronous ``Linker`` runs first: it finds missing bindings and cycles, and marks every node
/// whose subgraph has an async factory (``NodeTraits/needsAsync``) or a gate where a request may wait
/// (``NodeTraits/hasGate``: a singleton or scoped instance it builds). Those nodes get an async plan
/// made from their recipe's ``Recipe/asyncLink``, which awaits async factories and suspends (never
/// blocks) where another request is building an instance; any other node's async plan runs its
/// synchronous plan, which can neither await nor wait.
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
        let sync = PlanReference(syncPlan)
        guard traits.contains(.needsAsync) || traits.contains(.hasGate) else {
            return node.publishAsync(AsyncPlan { context throws(ProvisionError) in try sync.make(context) })
        }
        // Linking recurses once per level of the async part of the graph.
        try StackGuard.check(node.key)
        if case .async(let plan) = try node.link(.async(self), node) {
            return node.publishAsync(plan)
        }
        guard !traits.contains(.needsAsync) else {
            throw ProvisionError.asyncUnsupported(node.key)
        }
        // A recipe with no async form (a type's own `Injectable` declaration, a binding with
        // arguments): suspend while another request builds the singleton, then run the synchronous plan.
        guard let cell = node.cell else {
            return node.publishAsync(AsyncPlan { context throws(ProvisionError) in try sync.make(context) })
        }
        return node.publishAsync(
            AsyncPlan { context throws(ProvisionError) in
                if let value = cell.value { return value }
                try await cell.awaitBuildInProgress(context)
                return try sync.make(context)
            }
        )
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
        do throws(ProvisionError) {
            return try link(node)
        } catch {
            throw error.prepending(dependent.key)
        }
    }
}
