extension Resolver {
    /// Sets the injected properties of an object a closure binding or a ``ServiceProvider`` built, then
    /// calls its ``PropertyInjectable/didInjectDependencies()`` once.
    ///
    /// The injector fills the properties of what constructor bindings build, but returns the results of
    /// closures and providers as they are (see ``PropertyInjectable``). A closure that wants its result
    /// filled asks for it, once:
    ///
    /// ```swift
    /// binder.bind(Dashboard.self).to { resolver in
    ///     let dashboard = Dashboard(theme: .dark)
    ///     try resolver.injectDependencies(into: dashboard)
    ///     return dashboard
    /// }
    /// ```
    ///
    /// The properties resolve on this resolver's path, so a cycle through them is reported as one.
    ///
    /// - Parameters:
    ///   - object: The object to fill.
    ///   - onlyIfNil: When `true`, optional properties that already hold a value are kept.
    /// - Throws: ``ProvisionError`` from resolving a property's value; every missing binding is listed in
    ///   one ``ProvisionError/Code/notBound`` error, and the hook is not called.
    public func injectDependencies(into object: some PropertyInjectable, onlyIfNil: Bool = false)
        throws(ProvisionError)
    {
        // The properties are the object's dependencies, not the closure's: not checked against its
        // declaration.
        try PropertyInjector.inject(object, resolver: undeclared, onlyIfNil: onlyIfNil)
    }
}
