extension BindingBuilder where T: Sendable {
    /// Binds the key to a value that each scope is opened with: the request a scope serves, its
    /// logger, its identifier.
    ///
    /// ```swift
    /// binder.bind(HTTPRequest.self).toSeed()
    /// binder.bind(RequestLog.self).to(RequestLog.init(request:)).in(.scoped)
    ///
    /// let scope = try injector.makeScope { seed in seed.provide(request) }
    /// ```
    ///
    /// A seed binding has the ``Scope/scoped`` lifetime: scoped and transient bindings resolved in a
    /// scope can depend on it, a singleton can't (``Injector/validate()`` reports that as a
    /// ``ProvisionError/Code/captiveDependency``, with the path), and a request outside any scope throws
    /// ``ProvisionError/Code/outsideScope``. A scope opened without the value throws
    /// ``ProvisionError/Code/notSeeded`` when it is requested.
    @inlinable
    public func toSeed() {
        binder.setRecipe(Recipe<T>.seed(), at: index)
        binder.setScope(.scoped, at: index)
    }
}
