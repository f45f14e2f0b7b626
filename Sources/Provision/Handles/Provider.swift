/// Builds a `T` on demand, from the injector that created the provider.
///
/// Inject a provider instead of a `T` to create instances later, several times, or only sometimes — or
/// to break a construction cycle, since the provider resolves nothing until ``get()`` is called:
///
/// ```swift
/// final class ReportJob: Sendable {
///     let connections: Provider<Connection>
///     init(connections: Provider<Connection>) { self.connections = connections }
///
///     func run() throws {
///         let connection = try connections.get()   // a new connection per run (transient binding)
///         // ...
///     }
/// }
/// ```
///
/// No binding is needed: every injector provides `Provider<T>` for any `T` it can resolve, and
/// `try injector.get(Provider<Engine>.self, named: "v8")` gives a provider of the `Engine` named "v8".
/// A provider refers to its injector weakly (so a singleton holding one doesn't keep the injector alive)
/// and always resolves in the injector that created it — never a parent of it.
public struct Provider<T>: Sendable {
    @usableFromInline let injector: WeakInjector
    @usableFromInline let key: BindingKey

    init(injector: WeakInjector, key: BindingKey) {
        self.injector = injector
        self.key = key
    }

    /// The key this provider resolves.
    public var providedKey: BindingKey { key }

    /// Resolves the provided key: a new instance for a transient binding, the shared one for a singleton.
    ///
    /// - Throws: ``ProvisionError``: what resolving the key throws, or
    ///   ``ProvisionError/Code/injectorReleased`` when the injector is gone.
    @inlinable
    public func get() throws(ProvisionError) -> T {
        // A handle called while its service is built (from an initializer) recurses like a dependency,
        // but outside the plans: check the stack here.
        try StackGuard.check(key)
        return try injector.injector(for: key).resolve(key, as: T.self, context: .root)
    }
}

extension Provider: SyntheticDependency {
    static func syntheticRecipe(for key: BindingKey) -> Any {
        let target = BindingKey(T.self, named: key.name)
        return Recipe<Provider<T>>(
            dependencies: .deferred([target]),
            link: { pass, node in
                guard case .sync = pass else { return .noForm }
                let provider = Provider(injector: WeakInjector(node.injector), key: target)
                return .sync(Plan { _ in provider })
            },
            instance: nil
        )
    }
}
