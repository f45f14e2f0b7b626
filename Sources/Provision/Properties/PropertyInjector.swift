/// Applies a ``PropertyInjectable`` class's requirements to one object.
enum PropertyInjector {
    /// The requirements of `type` as `injector` injects them (see ``InjectedProperty/prepared(for:)``),
    /// with a subclass's entry replacing its superclass's for the same property (the later entry wins),
    /// in declaration order.
    static func requirements(of type: any PropertyInjectable.Type, in injector: Injector) -> [InjectedProperty] {
        let all = type.injectedProperties
        var lastIndex: [AnyKeyPath: Int] = [:]
        for (index, property) in all.enumerated() {
            lastIndex[property.keyPath] = index
        }
        return all.enumerated().filter { lastIndex[$0.element.keyPath] == $0.offset }.map {
            $0.element.prepared(for: injector)
        }
    }

    /// The key each property `type` declares is injected from in `injector`, when it is a
    /// ``PropertyInjectable`` class (an optional property: its optional type's when `injector` binds it,
    /// the wrapped type's otherwise); empty for any other type.
    static func requiredKeys(of type: any Any.Type, in injector: Injector) -> [BindingKey] {
        guard let declaring = type as? any PropertyInjectable.Type else { return [] }
        return requirements(of: declaring, in: injector).map(\.key)
    }

    /// Every key the properties `type` declares may be injected from, when it is a ``PropertyInjectable``
    /// class: each property's key, and for an optional property the optional type's key too (which of
    /// the two an injection uses depends on the injector).
    static func declaredKeys(of type: any Any.Type, in injector: Injector) -> [BindingKey] {
        guard let declaring = type as? any PropertyInjectable.Type else { return [] }
        return declaring.injectedProperties.flatMap { property in
            [property.key] + (property.optionalForm.map { [$0.property.key] } ?? [])
        }
    }

    /// Sets every required property of `object`, then calls its hook once.
    ///
    /// A property whose binding is missing doesn't stop the others: every missing binding is reported
    /// in one ``ProvisionError/Code/notBound`` error (listed in ``ProvisionError/underlyingErrors``), and
    /// the hook is not called. Any other failure stops at once.
    ///
    /// - Parameter requirements: The requirements of `object`'s class, when the caller has them already.
    static func inject(
        _ object: any PropertyInjectable,
        requirements known: [InjectedProperty]? = nil,
        resolver: Resolver,
        onlyIfNil: Bool
    ) throws(ProvisionError) {
        var missing: [ProvisionError] = []
        for property in known ?? requirements(of: type(of: object), in: resolver.injector) {
            do throws(ProvisionError) {
                _ = try property.apply(object, resolver, onlyIfNil)
            } catch {
                try collect(error, into: &missing)
            }
        }
        try finish(object, missing: missing)
    }

    /// Records a property's missing binding in `missing` (the others are still injected); rethrows any
    /// other failure, which stops the injection at once.
    private static func collect(_ error: ProvisionError, into missing: inout [ProvisionError]) throws(ProvisionError) {
        guard error.code == .notBound else { throw error }
        missing += error.underlyingErrors.isEmpty ? [error] : error.underlyingErrors
    }

    /// Ends an injection: every missing binding in one `notBound` error, or the object's hook.
    private static func finish(_ object: any PropertyInjectable, missing: [ProvisionError]) throws(ProvisionError) {
        guard missing.isEmpty else { throw ProvisionError.missingDependencies(missing) }
        object.didInjectDependencies()
    }
}

extension PropertyInjector {
    /// ``inject(_:requirements:resolver:onlyIfNil:)`` in an async request: each property's binding is
    /// resolved by the async path, so a property bound to an async factory (or to a binding below one)
    /// is set, as the async request's constructor promises.
    static func injectAsync(
        _ object: any PropertyInjectable,
        requirements: [InjectedProperty],
        injector: Injector,
        context: ResolutionContext
    ) async throws(ProvisionError) {
        var missing: [ProvisionError] = []
        for property in requirements {
            do throws(ProvisionError) {
                _ = try await property.applyAsync(object, injector, context)
            } catch {
                try collect(error, into: &missing)
            }
        }
        try finish(object, missing: missing)
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
    /// - Throws: ``ProvisionError`` from resolving a property's value. Missing bindings don't stop the
    ///   other properties: all of them are listed in one ``ProvisionError/Code/notBound`` error (see
    ///   ``ProvisionError/underlyingErrors``). Properties set before a failure keep their new values, and
    ///   the hook is not called.
    public func injectDependencies(into object: some PropertyInjectable, onlyIfNil: Bool = false) throws(ProvisionError)
    {
        try PropertyInjector.inject(object, resolver: Resolver(injector: self, context: .root), onlyIfNil: onlyIfNil)
    }
}
