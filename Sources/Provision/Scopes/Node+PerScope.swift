extension Node {
    /// Wraps a plan that builds a fresh value so that it is built once per ``ServiceScope``: the scope
    /// comes from the request's context, and the instance lives in the scope's cell for this node. The
    /// build runs inside the scope's close handshake (see `ServiceScope.build`), which records the
    /// instance for disposal.
    ///
    /// Inlinable, so that the plan runs specialized: it runs in every scope that uses the binding.
    @inlinable
    func perScope(_ inner: Plan<T>) -> Plan<T> {
        let key = self.key
        let id = ObjectIdentifier(self)
        // Unowned: the injector owns this plan (through its node); a strong capture would be a cycle.
        return Plan { [unowned injector] context throws(ProvisionError) in
            let scope = try ServiceScope.scope(of: context, for: key)
            let cell = try scope.cell(for: id, key: key, injector: injector, as: T.self)
            if let value = cell.value { return value }
            return try cell.build(context) { context throws(ProvisionError) in
                try scope.build(key, owner: ExecutionIdentity.current) { () throws(ProvisionError) in
                    try inner.make(context)
                }
            }
        }
    }
}
