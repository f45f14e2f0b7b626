/// One property a ``PropertyInjectable`` class wants injected: a key path, and the binding to take its
/// value from.
public struct InjectedProperty: Sendable {
    /// The binding the value comes from. For an optional property (`var brakes: Brakes?`, or an implicitly
    /// unwrapped one), the wrapped type's binding (`Brakes`); an injector with a binding of the optional
    /// type itself (`Brakes?`) takes the value from that one instead (see the optional form of
    /// `inject(_:named:)`).
    public let key: BindingKey

    /// Identifies the property, so that a subclass's entry can replace its superclass's.
    let keyPath: any AnyKeyPath & Sendable

    /// Sets the property on `object` (when it is of the declaring class); `onlyIfNil` skips optional
    /// properties that already hold a value. Returns whether it set the property.
    let apply: @Sendable (AnyObject, Resolver, _ onlyIfNil: Bool) throws(ProvisionError) -> Bool

    /// Links the property's binding in an injector (see ``Linker/link(property:as:in:)``).
    let link: @Sendable (Linker, Injector) throws(ProvisionError) -> Void

    /// For an optional property: the same property, taking its value from the binding of the optional
    /// type (nil included), used in an injector that has such a binding (see ``prepared(for:)``).
    let optionalForm: OptionalForm?

    /// An optional property's form for an injector with a binding of the optional type. A class, so that
    /// a property can hold another property.
    final class OptionalForm: Sendable {
        let property: InjectedProperty

        init(_ property: InjectedProperty) {
            self.property = property
        }
    }

    /// Sets the property on `object` (when it is of the declaring class) from its binding resolved by
    /// an async request, awaiting an async factory: what an async request's constructor plan injects
    /// with. Returns whether it set the property.
    let applyAsync: @Sendable (AnyObject, Injector, ResolutionContext) async throws(ProvisionError) -> Bool

    init<Value>(
        key: BindingKey,
        keyPath: any AnyKeyPath & Sendable,
        valueType: Value.Type,
        optionalForm: OptionalForm? = nil,
        assign: @escaping @Sendable (AnyObject, Value) -> Bool,
        apply: @escaping @Sendable (AnyObject, Resolver, _ onlyIfNil: Bool) throws(ProvisionError) -> Bool
    ) {
        self.key = key
        self.keyPath = keyPath
        self.apply = apply
        self.optionalForm = optionalForm
        self.link = { linker, injector throws(ProvisionError) in
            try linker.link(property: key, as: Value.self, in: injector)
        }
        self.applyAsync = { object, injector, context throws(ProvisionError) in
            assign(object, try await injector.resolveAsync(key, as: Value.self, context: context))
        }
    }

    /// The property as `injector` injects it: an optional property takes its value from a module binding
    /// of the optional type when `injector` (or an ancestor) has one, and from the wrapped type's
    /// binding otherwise. Decided once per binding that injects the property, when it reads its class's
    /// requirements (and once per ``Injector/injectDependencies(into:onlyIfNil:)`` call).
    func prepared(for injector: Injector) -> InjectedProperty {
        guard let optionalForm, injector.hasModuleBinding(for: optionalForm.property.key) else { return self }
        return optionalForm.property
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
        let assign = { @Sendable (object: AnyObject, value: Value) -> Bool in
            guard let root = object as? Root else { return false }
            root[keyPath: keyPath] = value
            return true
        }
        return InjectedProperty(key: key, keyPath: keyPath, valueType: Value.self, assign: assign) {
            object, resolver, _ throws(ProvisionError) in
            guard let root = object as? Root else { return false }
            root[keyPath: keyPath] = try resolver.get(Value.self, named: name)
            return true
        }
    }

    /// Injects an optional (or implicitly unwrapped) property: from a binding of the optional type when
    /// the injector has one, from the wrapped type's binding otherwise.
    ///
    /// ```swift
    /// final class Car: PropertyInjectable {
    ///     var engine: Engine!
    ///     var brakes: Brakes?
    ///     class var injectedProperties: [InjectedProperty] { [.inject(\Car.engine), .inject(\Car.brakes)] }
    /// }
    ///
    /// binder.bind(Engine.self).to(Engine.init)                     // engine: the Engine binding
    /// binder.bind(Brakes?.self).to { (_: Resolver) -> Brakes? in nil }   // brakes: nil, on purpose
    /// ```
    ///
    /// A binding of `Brakes?` (in a module of the injector or of an ancestor) may provide `nil` on purpose
    /// (Objection's "nil dependencies allowed"): the property is set to what it provides. Without one,
    /// the property takes `Brakes`'s instance, and a missing `Brakes` binding fails the injection with
    /// ``ProvisionError/Code/notBound`` like any other requirement. Which of the two a binding uses is
    /// decided when it first injects the class. With `onlyIfNil` (see
    /// ``Injector/injectDependencies(into:onlyIfNil:)``), a property that already holds a value is left
    /// alone.
    public static func inject<Root: AnyObject, Value>(
        _ keyPath: any ReferenceWritableKeyPath<Root, Value?> & Sendable,
        named name: String? = nil
    ) -> InjectedProperty {
        let assign = { @Sendable (object: AnyObject, value: Value?) -> Bool in
            guard let root = object as? Root else { return false }
            root[keyPath: keyPath] = value
            return true
        }
        let fromOptional = InjectedProperty(
            key: BindingKey(Value?.self, named: name),
            keyPath: keyPath,
            valueType: Value?.self,
            assign: assign
        ) { object, resolver, onlyIfNil throws(ProvisionError) in
            guard let root = object as? Root else { return false }
            if onlyIfNil && root[keyPath: keyPath] != nil { return false }
            root[keyPath: keyPath] = try resolver.get(Value?.self, named: name)
            return true
        }
        let assignWrapped = { @Sendable (object: AnyObject, value: Value) -> Bool in assign(object, .some(value)) }
        return InjectedProperty(
            key: BindingKey(Value.self, named: name),
            keyPath: keyPath,
            valueType: Value.self,
            optionalForm: OptionalForm(fromOptional),
            assign: assignWrapped
        ) { object, resolver, onlyIfNil throws(ProvisionError) in
            guard let root = object as? Root else { return false }
            if onlyIfNil && root[keyPath: keyPath] != nil { return false }
            root[keyPath: keyPath] = try resolver.get(Value.self, named: name)
            return true
        }
    }
}
