/// Applies a ``PropertyInjectable`` class's requirements to one object.
enum PropertyInjector {
    /// The requirements of `type`, with a subclass's entry replacing its superclass's for the same
    /// property (the later entry wins), in declaration order.
    static func requirements(of type: any PropertyInjectable.Type) -> [InjectedProperty] {
        let all = type.injectedProperties
        var lastIndex: [AnyKeyPath: Int] = [:]
        for (index, property) in all.enumerated() {
            lastIndex[property.keyPath] = index
        }
        return all.enumerated().filter { lastIndex[$0.element.keyPath] == $0.offset }.map(\.element)
    }

    /// Sets every required property of `object`, then calls its hook once.
    static func inject(
        _ object: any PropertyInjectable,
        resolver: Resolver,
        onlyIfNil: Bool
    ) throws(ProvisionError) {
        for property in requirements(of: type(of: object)) {
            _ = try property.apply(object, resolver, onlyIfNil)
        }
        object.didInjectDependencies()
    }
}

extension Injector {
    /// Sets the injected properties of an object created elsewhere, then calls its
    /// ``PropertyInjectable/didInjectDependencies()`` once.
    ///
    /// ```swift
    /// let model = DetailViewModel()
    /// try injector.injectDependencies(into: model)
    /// ```
    ///
    /// - Parameters:
    ///   - object: The object to fill.
    ///   - onlyIfNil: When `true`, optional properties that already hold a value are kept (OBInjector's
    ///     rule); by default every declared property is set.
    /// - Throws: ``ProvisionError`` from resolving a property's value; properties set before the failure
    ///   keep their new values, and the hook is not called.
    public func injectDependencies(into object: some PropertyInjectable, onlyIfNil: Bool = false) throws(ProvisionError)
    {
        try PropertyInjector.inject(object, resolver: Resolver(injector: self, context: .root), onlyIfNil: onlyIfNil)
    }
}

extension Node {
    /// Wraps a constructor plan so that instances of a ``PropertyInjectable`` class get their properties
    /// and hook before anyone sees them (before a singleton is published). Checked once, when linking.
    @usableFromInline
    func injectingProperties(_ plan: Plan<T>) -> Plan<T> {
        guard T.self is any PropertyInjectable.Type else { return plan }
        let key = self.key
        // Unowned: the injector owns this plan (through its node); a strong capture would be a cycle.
        return Plan { [unowned injector] context throws(ProvisionError) in
            let value = try plan.make(context)
            if let object = value as? any PropertyInjectable {
                do throws(ProvisionError) {
                    try PropertyInjector.inject(
                        object,
                        resolver: Resolver(injector: injector, context: context.pushing(key)),
                        onlyIfNil: false
                    )
                } catch {
                    throw error.prepending(key)
                }
            }
            return value
        }
    }
}
