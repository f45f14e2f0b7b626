import Synchronization

extension Node {
    /// Wraps a plan that builds a fresh value so that it is built once per ``ServiceScope``: the scope
    /// comes from the request's context, and the instance lives in the scope's cell for this node. The
    /// build runs inside the scope's close handshake (see `ServiceScope.build`), which records the
    /// instance for disposal.
    ///
    /// Not inlinable: `Node.scoped` is specialized for every binding (whether a binding is scoped is known
    /// only when it is linked), and a specialized copy of this plan in each cost a release build of
    /// thousands of bindings several times its compile time, for about 7% of a scoped build's
    /// instructions. The plan instantiates no generic metadata per request as it is: the cell's gate
    /// action is a non-generic enum, the published word is a bit cast, and the table and the handshake
    /// are non-generic calls.
    @usableFromInline
    func perScope(_ inner: Plan<T>) -> Plan<T> {
        let key = self.key
        let id = ObjectIdentifier(self)
        let cellType = InstanceCell<T>.self
        let disposal = scopedDisposal
        // Unowned: the injector owns this plan (through its node); a strong capture would be a cycle.
        return Plan { [unowned injector] context throws(ProvisionError) in
            let scope = try ServiceScope.scope(of: context, for: key)
            let cell = try scope.cell(for: id, key: key, injector: injector, as: cellType)
            if let address = cell.publishedAddress { return PublishedValue<T>.value(at: address) }
            return try cell.build(context) { context throws(ProvisionError) in
                // The build's owner is the holder of the gate the cell just installed: this thread (or
                // task), looked up once by the cell.
                try scope.build(key, owner: context.buildOwner, disposing: disposal) { () throws(ProvisionError) in
                    try inner.make(context)
                }
            }
        }
    }
}

extension Node {
    /// How a scope disposes this binding's instances, decided when the binding is linked (by the
    /// synchronous and the async scoped plans alike). A delegation whose target keeps its instances (a
    /// singleton, say) disposes nothing: the target's binding does (see
    /// `RecipeOptions.sharesTargetInstances`, set before the plan is wrapped). A binding that may hand on
    /// instances it didn't build checks each one's owner (see `ServiceScope.holdsElsewhere`).
    var scopedDisposal: DisposalClassifier<T> {
        if options?.sharesTargetInstances.load(ordering: .acquiring) == true { return .never }
        return DisposalClassifier<T>(mayHandOn: !buildsNewInstances)
    }
}
