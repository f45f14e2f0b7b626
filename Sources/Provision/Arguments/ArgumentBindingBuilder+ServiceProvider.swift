extension ArgumentBindingBuilder {
    /// Binds to a ``ServiceProvider`` that receives the request's arguments.
    ///
    /// The provider's ``ServiceProvider/Arguments`` is the declared argument type for one argument and a
    /// tuple of them for several:
    ///
    /// ```swift
    /// binder.bind(Truck.self).withArguments(String.self, Int.self).to(provider: TruckProvider())
    /// let truck = try injector.get(Truck.self, arguments: "Ford", 3)
    /// ```
    ///
    /// - Parameter provider: Builds the value from a resolver and the arguments (or the declared
    ///   defaults).
    /// - Returns: A builder to set defaults and the scope.
    @discardableResult
    public func to<P: ServiceProvider>(
        provider: P
    ) -> ArgumentScopeBuilder<T, repeat each Argument>
    where P.Service == T, P.Arguments == (repeat each Argument) {
        let builder = ArgumentScopeBuilder<T, repeat each Argument>(binder: binder, index: index)
        builder.setFactory(
            ArgumentFactory(
                makeFromTuple: { resolver, arguments in try provider.provide(resolver, arguments: arguments) },
                defaults: nil
            )
        )
        return builder
    }
}
