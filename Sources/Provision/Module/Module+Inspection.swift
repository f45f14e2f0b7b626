extension Module {
    /// Whether this module binds `type` under `name`, found by configuring it into a scratch binder.
    ///
    /// - Parameters:
    ///   - type: The bound type.
    ///   - name: The binding's name; `nil` (the default) for the unnamed binding.
    /// - Returns: `false` as well when `configure` throws.
    public func hasBinding<T>(for type: T.Type, named name: String? = nil) -> Bool {
        let binder = Binder(injector: nil)
        guard (try? configure(binder)) != nil else { return false }
        let key = BindingKey(type, named: name)
        return binder.records.contains { $0.key == key }
    }
}
