extension BindingBuilder {
    /// Binds to a ``ServiceProvider`` that takes no arguments: each time the binding builds a value, the
    /// provider is asked for it.
    ///
    /// ```swift
    /// binder.bind((any GearBox).self).to(provider: GearBoxProvider()).in(.singleton)
    /// ```
    ///
    /// - Parameter provider: Builds the value; shared by every thread, so it must be `Sendable`.
    /// - Returns: A builder to set the binding's scope (transient by default).
    @discardableResult
    public func to<P: ServiceProvider>(provider: P) -> ScopeBuilder<T> where P.Service == T, P.Arguments == Void {
        to { resolver in try provider.provide(resolver, arguments: ()) }
    }
}
