extension BindingBuilder {
    /// Binds to a closure that resolves what it needs through the given ``Resolver``, declaring the
    /// keys it resolves so that validation and diagrams can check them.
    ///
    /// ```swift
    /// binder.bind(Clock.self).to(dependencies: [BindingKey(TimeZoneSetting.self)]) { resolver in
    ///     SystemClock(timeZone: try resolver.get(TimeZoneSetting.self))
    /// }
    /// ```
    ///
    /// A closure's dependencies are only known when it runs, so ``Injector/validate()`` lists a plain
    /// closure binding as not statically checked. With declared dependencies it checks them like a
    /// constructor's: each must be bound, and none may lead back to this binding. Validation (and
    /// ``Injector/overriding(_:)-(Module...)``) trusts the declaration, so a debug build enforces it:
    /// a request through the resolver for a key not declared (an optional `T?` of a declared `T` is
    /// fine) throws ``ProvisionError/Code/undeclaredDependency``, naming this binding's declaration.
    /// Release builds don't check: resolution costs the same as without a declaration.
    ///
    /// - Parameters:
    ///   - dependencies: The keys the closure resolves; `[]` for a closure that resolves nothing.
    ///   - provider: Builds the value; runs with no lock held, on the requesting thread.
    /// - Returns: A builder to set the binding's scope (transient by default).
    @inlinable
    @discardableResult
    public func to(
        dependencies: [BindingKey],
        _ provider: @escaping @Sendable (Resolver) throws -> T
    ) -> ScopeBuilder<T> {
        binder.setRecipe(Recipe.closure(provider, declaring: dependencies), at: index)
        return ScopeBuilder(binder: binder, index: index)
    }
}
