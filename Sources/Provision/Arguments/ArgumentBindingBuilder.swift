/// Declares a binding whose instances are built from arguments given at resolve time.
///
/// Start with ``BindingBuilder/withArguments(_:)``, then give the factory, which receives a
/// ``Resolver`` for the dependencies and the arguments, in order:
///
/// ```swift
/// binder.bind(ConfigurableCar.self)
///     .withArguments(String.self, String.self)
///     .to { resolver, make, model in
///         ConfigurableCar(engine: try resolver.get(), make: make, model: model)
///     }
///     .defaults("VW", "Golf")
///
/// let passat = try injector.get(ConfigurableCar.self, arguments: "VW", "Passat")
/// let golf = try injector.get(ConfigurableCar.self)   // the defaults
/// ```
///
/// Arguments are checked against the declaration when the request is made, and converted as a call
/// would convert them: a `String` where `String?` is declared, an instance of a subclass where its class
/// is, a value where a protocol it conforms to is. A literal is not converted: the request's parameters
/// have no declared types to give it, so it takes its default type (`arguments: 7` passes an `Int`;
/// write `7.0` or `7 as Double` where `Double` is declared). A wrong count or type throws
/// ``ProvisionError/Code/argumentMismatch`` naming both signatures. A request without arguments (or a
/// dependency on the type) uses the declared defaults, and fails with
/// ``ProvisionError/Code/argumentMismatch`` when there are none. Arguments only matter when an
/// instance is built: a singleton built once ignores the arguments of later requests.
///
/// A type can be bound once per argument list, as Swinject registers a factory per argument types:
///
/// ```swift
/// binder.bind((any Animal).self).to { Cat(name: "Tom") }
/// binder.bind((any Animal).self).withArguments(String.self).to { _, name in Cat(name: name) }
/// binder.bind((any Animal).self).withArguments(String.self, Int.self).to { _, name, age in
///     Cat(name: name, age: age)
/// }
///
/// let tom = try injector.get((any Animal).self)                        // the binding without arguments
/// let kit = try injector.get((any Animal).self, arguments: "Kit", 2)   // (String, Int)
/// ```
///
/// A request takes the binding of its arguments' types (or the one binding they convert to); a request
/// without arguments, and a dependency on the type, take the binding without arguments, or else the
/// first one with defaults. Arguments that match none throw ``ProvisionError/Code/argumentMismatch``
/// listing every argument list the type is bound with. One argument list is bound once: a second binding
/// of it is a ``ProvisionError/Code/duplicateBinding`` (a later module replaces it with
/// ``Binder/override(_:named:fileID:line:)``). The binding first chosen for a type serves its requests
/// fastest; the others cost a lookup more.
public struct ArgumentBindingBuilder<T, each Argument> {
    @usableFromInline let binder: Binder
    @usableFromInline let index: Int

    @usableFromInline
    init(binder: Binder, index: Int) {
        self.binder = binder
        self.index = index
    }

    /// Binds to a factory that receives a resolver and the request's arguments.
    ///
    /// - Parameter factory: Builds the value; runs with no lock held.
    /// - Returns: A builder to set defaults and the scope.
    @discardableResult
    public func to(
        _ factory: @escaping @Sendable (Resolver, repeat each Argument) throws -> T
    ) -> ArgumentScopeBuilder<T, repeat each Argument> {
        let builder = ArgumentScopeBuilder<T, repeat each Argument>(binder: binder, index: index)
        builder.setFactory(ArgumentFactory(make: factory, defaults: nil, dependencies: nil))
        return builder
    }

    /// Binds to a factory that receives a resolver and the request's arguments, declaring the keys it
    /// resolves so that validation and diagrams can check them (see
    /// ``BindingBuilder/to(dependencies:_:)``).
    ///
    /// - Parameters:
    ///   - dependencies: The keys the factory resolves through its resolver.
    ///   - factory: Builds the value; runs with no lock held.
    /// - Returns: A builder to set defaults and the scope.
    @discardableResult
    public func to(
        dependencies: [BindingKey],
        _ factory: @escaping @Sendable (Resolver, repeat each Argument) throws -> T
    ) -> ArgumentScopeBuilder<T, repeat each Argument> {
        let builder = ArgumentScopeBuilder<T, repeat each Argument>(binder: binder, index: index)
        builder.setFactory(ArgumentFactory(make: factory, defaults: nil, dependencies: dependencies))
        return builder
    }
}

/// Sets the defaults and the scope of a binding with arguments.
public struct ArgumentScopeBuilder<T, each Argument> {
    let binder: Binder
    let index: Int

    func setFactory(_ factory: ArgumentFactory<T, repeat each Argument>) {
        binder.setRecipe(Recipe<T>.arguments(factory), at: index)
    }
}

extension ArgumentScopeBuilder {
    /// Declares the arguments used when a request gives none (or the type is injected as a dependency).
    ///
    /// The defaults are shared by every thread, so they must be `Sendable`.
    @discardableResult
    public func defaults(_ values: repeat each Argument) -> ArgumentScopeBuilder
    where repeat each Argument: Sendable {
        let defaults = (repeat each values)
        guard let factory = binder.argumentFactory(at: index, as: ArgumentFactory<T, repeat each Argument>.self)
        else { return self }
        setFactory(factory.withDefaults { defaults })
        return self
    }
}

extension ArgumentScopeBuilder where T: Sendable {
    /// Sets how long the binding's instances live. A singleton is built once, from the arguments of the
    /// request that builds it.
    ///
    /// A binding with arguments can't be ``Scope/scoped``: one instance per scope would ignore the
    /// arguments of every request but the first. Creating the injector then throws
    /// ``ProvisionError/Code/invalidLifecycle``.
    @discardableResult
    public func `in`(_ scope: Scope) -> ArgumentScopeBuilder {
        if scope.isScoped {
            binder.record(
                ProvisionError(
                    code: .invalidLifecycle,
                    key: binder.key(at: index),
                    message: "\(binder.key(at: index)) takes arguments and can't be scoped",
                    hint: "bind it transient (built from each request's arguments) or singleton",
                    location: binder.location(at: index)
                )
            )
        }
        binder.setScope(scope, at: index)
        return self
    }
}

extension BindingBuilder {
    /// Starts a binding whose instances are built from arguments given at resolve time.
    ///
    /// - Parameter types: The argument types, in order.
    /// - Returns: A builder; finish it with `to { resolver, arguments... in ... }`.
    public func withArguments<each Argument>(
        _ types: repeat (each Argument).Type
    ) -> ArgumentBindingBuilder<T, repeat each Argument> {
        ArgumentBindingBuilder(binder: binder, index: index)
    }
}

@available(*, unavailable)
extension ArgumentBindingBuilder: Sendable {}

@available(*, unavailable)
extension ArgumentScopeBuilder: Sendable {}
