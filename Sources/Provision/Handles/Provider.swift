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
/// and always resolves in the injector that created it — never a parent of it — and in the
/// ``ServiceScope`` it was created in, if any: a provider injected into a scoped service gets that
/// scope's scoped instances. A binding with arguments is resolved with ``get(arguments:)``.
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
        let owner = try injector.injector(for: key)
        // A provider created in a scope resolves in it (out of line: the rare case).
        if injector.scope != nil { return try injector.resolveInScope(key, as: T.self, in: owner) }
        return try owner.resolve(key, as: T.self, context: .root)
    }

    /// Resolves the provided key, built from the given arguments: for a binding declared with
    /// ``BindingBuilder/withArguments(_:)``, as ``Injector/get(_:named:arguments:)`` does.
    ///
    /// ```swift
    /// final class Garage: Sendable {
    ///     let cars: Provider<Car>
    ///     init(cars: Provider<Car>) { self.cars = cars }
    ///
    ///     func build(model: String) throws -> Car { try cars.get(arguments: model) }
    /// }
    /// ```
    ///
    /// - Parameter arguments: The arguments, in the declared order (or any of the binding's argument
    ///   lists, when it is bound with several).
    /// - Returns: A new instance for a transient binding; the shared one for a singleton (whose arguments
    ///   only matter the first time).
    /// - Throws: ``ProvisionError``: what ``Injector/get(_:named:arguments:)`` throws, or
    ///   ``ProvisionError/Code/injectorReleased`` when the injector is gone.
    public func get<each Argument>(arguments: repeat each Argument) throws(ProvisionError) -> T {
        try StackGuard.check(key)
        let owner = try injector.injector(for: key)
        guard injector.scope != nil else {
            return try owner.get(T.self, named: key.name, arguments: repeat each arguments)
        }
        return try injector.inScope { context throws(ProvisionError) -> T in
            try owner.resolve(key, as: T.self, in: context.scope, arguments: repeat each arguments)
        }
    }

    /// A ``Lazy`` handle that resolves the provided key from the given arguments the first time it is
    /// read, in the provider's injector and scope.
    ///
    /// ```swift
    /// let report = cars.lazy(arguments: "Passat")   // nothing built yet
    /// let car = try report.value                    // built now, from "Passat", once
    /// ```
    ///
    /// - Parameter arguments: The arguments, kept until the value is resolved.
    /// - Returns: A new lazy handle.
    public func lazy<each Argument: Sendable>(arguments: repeat each Argument) -> Lazy<T> where T: Sendable {
        let call = ProviderCall<T, repeat each Argument>(provider: self, arguments: repeat each arguments)
        return Lazy(provider: self, resolve: call.run)
    }
}

/// A provider's request with arguments, kept by a ``Lazy`` until its first read (a closure can't hold a
/// pack).
final class ProviderCall<T, each Argument: Sendable>: Sendable {
    let provider: Provider<T>
    let arguments: (repeat each Argument)

    init(provider: Provider<T>, arguments: repeat each Argument) {
        self.provider = provider
        self.arguments = (repeat each arguments)
    }

    func run() throws(ProvisionError) -> T {
        try provider.get(arguments: repeat each arguments)
    }
}

extension Provider: SyntheticDependency {
    static func syntheticRecipe(for key: BindingKey) -> Any {
        let target = BindingKey(T.self, named: key.name)
        return Recipe<Provider<T>>(
            dependencies: .deferred([target]),
            link: { pass, node in
                guard case .sync = pass else { return .noForm }
                let injector = WeakInjector(node.injector)
                let provider = Provider(injector: injector, key: target)
                // Made in a scope, a provider remembers it (see WeakInjector).
                return .sync(
                    Plan { context in
                        context.scope == nil ? provider : Provider(injector: injector.scoped(in: context), key: target)
                    }
                )
            },
            instance: nil
        )
    }
}
