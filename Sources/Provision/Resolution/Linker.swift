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

    /// Links `node` and its static dependencies, or throws one error for everything missing.
    func link<T>(_ node: Node<T>) throws(ProvisionError) -> Plan<T> {
        let plan = try plan(for: node)
        guard missing.isEmpty else { throw ProvisionError.missingDependencies(missing) }
        return plan
    }

    /// The plan for `node`, linking it if needed.
    private func plan<T>(for node: Node<T>) throws(ProvisionError) -> Plan<T> {
        if let plan = node.plan { return plan }
        let key = node.key
        if onStack.contains(key) {
            throw ProvisionError.cycle(key, path: stack + [key])
        }
        stack.append(key)
        onStack.insert(key)
        defer {
            stack.removeLast()
            onStack.remove(key)
        }
        let missingBefore = missing.count
        let plan = try node.recipe.link(self, node)
        // A plan that captured a stand-in for a missing binding must never run: don't publish it.
        return missing.count == missingBefore ? node.publish(plan) : plan
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
            let error = ProvisionError.notBound(key, path: stack + [key])
            missing.append(error)
            let placeholder = Plan<D> { _ throws(ProvisionError) in throw error }
            placeholders.append(placeholder)
            return PlanReference(placeholder)
        }
        return try PlanReference(plan(for: node))
    }
}
