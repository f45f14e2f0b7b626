/// One property a ``PropertyInjectable`` class wants injected: a key path, and the binding to take its
/// value from.
public struct InjectedProperty: Sendable {
    /// The binding the value comes from.
    public let key: BindingKey

    /// Identifies the property, so that a subclass's entry can replace its superclass's.
    let keyPath: any AnyKeyPath & Sendable

    /// Sets the property on `object` (when it is of the declaring class); `onlyIfNil` skips optional
    /// properties that already hold a value. Returns whether it set the property.
    let apply: @Sendable (AnyObject, Resolver, _ onlyIfNil: Bool) throws(ProvisionError) -> Bool

    /// Links the property's binding in an injector (see ``Linker/link(property:as:in:)``).
    let link: @Sendable (Linker, Injector) throws(ProvisionError) -> Void

    init<Value>(
        key: BindingKey,
        keyPath: any AnyKeyPath & Sendable,
        valueType: Value.Type,
        apply: @escaping @Sendable (AnyObject, Resolver, _ onlyIfNil: Bool) throws(ProvisionError) -> Bool
    ) {
        self.key = key
        self.keyPath = keyPath
        self.apply = apply
        self.link = { linker, injector throws(ProvisionError) in
            try linker.link(property: key, as: Value.self, in: injector)
        }
    }

    /// Injects the unnamed (or `name`d) binding of the property's type.
    ///
    /// - Parameters:
    ///   - keyPath: A writable property of the class, for example `\Car.engine`.
    ///   - name: The binding's name; `nil` for the unnamed binding.
    public static func inject<Root: AnyObject, Value>(
        _ keyPath: any ReferenceWritableKeyPath<Root, Value> & Sendable,
        named name: String? = nil
    ) -> InjectedProperty {
        let key = BindingKey(Value.self, named: name)
        return InjectedProperty(key: key, keyPath: keyPath, valueType: Value.self) {
            object, resolver, _ throws(ProvisionError) in
            guard let root = object as? Root else { return false }
            root[keyPath: keyPath] = try resolver.get(Value.self, named: name)
            return true
        }
    }

    /// Injects the binding of the wrapped type into an optional (or implicitly unwrapped) property.
    ///
    /// With `onlyIfNil` (see ``Injector/injectDependencies(into:onlyIfNil:)``), a property that already
    /// holds a value is left alone.
    public static func inject<Root: AnyObject, Value>(
        _ keyPath: any ReferenceWritableKeyPath<Root, Value?> & Sendable,
        named name: String? = nil
    ) -> InjectedProperty {
        let key = BindingKey(Value.self, named: name)
        return InjectedProperty(key: key, keyPath: keyPath, valueType: Value.self) {
            object, resolver, onlyIfNil throws(ProvisionError) in
            guard let root = object as? Root else { return false }
            if onlyIfNil && root[keyPath: keyPath] != nil { return false }
            root[keyPath: keyPath] = try resolver.get(Value.self, named: name)
            return true
        }
    }
}
