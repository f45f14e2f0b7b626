/// A type that builds a service from the resolving context and the request's arguments: Objection's
/// provider objects, as a value you can bind like a closure.
///
/// Write a provider where a closure binding grows too large, carries configuration of its own, or is
/// shared by several bindings:
///
/// ```swift
/// struct CarProvider: ServiceProvider {
///     let model: String
///
///     func provide(_ resolver: Resolver, arguments: Void) throws -> Car {
///         Car(model: model, engine: try resolver.get(), brakes: try resolver.get())
///     }
/// }
///
/// struct TruckProvider: ServiceProvider {
///     func provide(_ resolver: Resolver, arguments: (String, Int)) throws -> Truck {
///         Truck(name: arguments.0, axles: arguments.1, engine: try resolver.get())
///     }
/// }
///
/// binder.bind(Car.self).to(provider: CarProvider(model: "Golf")).in(.singleton)
/// binder.bind(Truck.self).withArguments(String.self, Int.self).to(provider: TruckProvider())
/// let truck = try injector.get(Truck.self, arguments: "Ford", 3)
/// ```
///
/// A provider behaves exactly like a closure binding: it runs with no lock held, on the requesting
/// thread; it resolves its dependencies through the ``Resolver`` it is given (so that cycles are
/// reported with their path); an error it throws fails the request with
/// ``ProvisionError/Code/factoryFailed``; its result is returned as it is (no property injection — call
/// ``Resolver/injectDependencies(into:onlyIfNil:)`` for that); and the binding's scope decides how
/// often it is asked.
public protocol ServiceProvider<Service>: Sendable {
    /// The type the provider builds.
    associatedtype Service

    /// The arguments a request passes: `Void` for a binding without arguments, the argument type for
    /// one argument, a tuple of them for several (in the order of
    /// ``BindingBuilder/withArguments(_:)``).
    associatedtype Arguments = Void

    /// Builds the service.
    ///
    /// - Parameters:
    ///   - resolver: Resolves dependencies in the injector that owns the binding; valid only during
    ///     this call.
    ///   - arguments: The request's arguments, or the binding's defaults.
    /// - Returns: The service.
    /// - Throws: Any error; the request fails with ``ProvisionError/Code/factoryFailed`` and the error as
    ///   its cause (a ``ProvisionError`` from the resolver is passed on as it is).
    func provide(_ resolver: Resolver, arguments: Arguments) throws -> Service
}
