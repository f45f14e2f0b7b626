/// Resolves any type on demand from the injector that created it: the injector as a dependency.
///
/// Every injector provides an `ObjectFactory` without a binding. Prefer a ``Provider`` of a specific
/// type; use a factory where the type is only known later (plugins, routing tables):
///
/// ```swift
/// final class Router: Sendable {
///     let factory: ObjectFactory
///     init(factory: ObjectFactory) { self.factory = factory }
///
///     func handler(for route: String) throws -> any Handler {
///         try factory.get((any Handler).self, named: route)
///     }
/// }
/// ```
///
/// The factory refers to its injector weakly and always resolves in the injector that created it.
public struct ObjectFactory: Sendable {
    @usableFromInline let injector: WeakInjector

    /// Resolves `type`, optionally named, from the factory's injector.
    ///
    /// - Throws: ``ProvisionError``: what resolving throws, or ``ProvisionError/Code/injectorReleased``.
    @inlinable
    public func get<T>(_ type: T.Type = T.self, named name: String? = nil) throws(ProvisionError) -> T {
        let key = BindingKey(type, named: name)
        // Called while a service is built, it recurses like a dependency (see Provider.get()).
        try StackGuard.check(key)
        return try injector.injector(for: key).resolve(key, as: type, context: .root)
    }

    /// Resolves `type` from the factory's injector; the same as ``get(_:named:)``.
    public subscript<T>(_ type: T.Type) -> T {
        get throws(ProvisionError) { try get(type) }
    }
}

extension ObjectFactory: SyntheticDependency {
    static func syntheticRecipe(for key: BindingKey) -> Any {
        Recipe<ObjectFactory>(
            dependencies: .known([]),
            link: { pass, node in
                guard case .sync = pass else { return .noForm }
                let factory = ObjectFactory(injector: WeakInjector(node.injector))
                return .sync(Plan { _ in factory })
            },
            instance: nil
        )
    }
}
