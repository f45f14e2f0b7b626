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
/// A linker is used by one thread for one link operation and then dropped.
@usableFromInline
final class Linker {
    @usableFromInline init() {}

    private var stack: [BindingKey] = []
    private var onStack: Set<BindingKey> = []

    /// The plan for `node`, linking it if needed.
    func plan<T>(for node: Node<T>) throws(ProvisionError) -> Plan<T> {
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
        return try node.publish(node.recipe.link(self, node))
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
            throw ProvisionError.notBound(key, path: stack + [key])
        }
        return try PlanReference(plan(for: node))
    }
}
