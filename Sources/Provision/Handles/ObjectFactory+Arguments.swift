extension ObjectFactory {
    /// Resolves `type`, built from the given arguments, in the factory's injector: the same as
    /// ``Injector/get(_:named:arguments:)`` on that injector.
    ///
    /// ```swift
    /// let car = try factory.get(ConfigurableCar.self, arguments: "VW", "Passat")
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to resolve; its binding must be declared with
    ///     ``BindingBuilder/withArguments(_:)``.
    ///   - name: The binding's name; `nil` (the default) for the unnamed binding.
    ///   - arguments: The arguments, in the declared order.
    /// - Throws: ``ProvisionError``: ``ProvisionError/Code/argumentMismatch`` for arguments that don't
    ///   match the binding, ``ProvisionError/Code/injectorReleased`` when the injector is gone, or what
    ///   resolving throws.
    public func get<T, each Argument>(
        _ type: T.Type = T.self,
        named name: String? = nil,
        arguments: repeat each Argument
    ) throws(ProvisionError) -> T {
        let key = BindingKey(type, named: name)
        let owner = try injector.injector(for: key)
        guard injector.scope != nil else { return try owner.get(type, named: name, arguments: repeat each arguments) }
        return try injector.inScope { context throws(ProvisionError) -> T in
            try owner.resolve(key, as: type, in: context.scope, arguments: repeat each arguments)
        }
    }
}
