extension Injector {
    /// Whether this injector (or an ancestor) declares `type`, optionally named, as a seed binding
    /// (``BindingBuilder/toSeed()``): whether a scope can be seeded with it.
    ///
    /// ```swift
    /// if injector.hasSeed(Logger.self) {
    ///     seed.provide(requestLogger)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The seeded type.
    ///   - name: The seed binding's name; `nil` (the default) for the unnamed binding.
    /// - Returns: `true` when ``ScopeSeed/provide(_:as:named:)`` accepts a value for the key.
    public func hasSeed<T>(_ type: T.Type, named name: String? = nil) -> Bool {
        declaresSeed(BindingKey(type, named: name), as: type)
    }
}
