/// A type that declares how it is built, so that an injector can build it with no binding at all.
///
/// Conform and describe the construction with an ``Injection``; `try injector.get(T.self)` then works
/// without any module (a just-in-time binding, as in Guice), and so does depending on `T`:
///
/// ```swift
/// final class Car: Injectable {
///     static let injection = Injection(Car.init(engine:brakes:))
///
///     let engine: Engine
///     let brakes: Brakes
///     init(engine: Engine, brakes: Brakes) { self.engine = engine; self.brakes = brakes }
/// }
///
/// final class Engine: Injectable {
///     static let injection = Injection(Engine.init).in(.singleton)
/// }
///
/// let car = try Injector().get(Car.self)   // no module
/// ```
///
/// A module binding of the same key always takes precedence, so a module can still replace the type
/// (for tests) or change its scope for one injector with `binder.bind(Car.self).toSelf().in(...)`.
/// Just-in-time bindings are only made for unnamed keys. Because ``injection`` mentions `Self`, only
/// structs, enums and final classes can conform; the classes of a hierarchy declare themselves with
/// ``InjectableClass``, whose declaration each subclass overrides.
public protocol Injectable {
    /// How the injector builds this type: its initializer (whose parameters are its dependencies) and
    /// its default scope.
    static var injection: Injection<Self> { get }
}
