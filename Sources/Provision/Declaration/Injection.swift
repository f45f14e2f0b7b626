/// How an ``Injectable`` type is built: a factory whose parameters are its dependencies, and a scope.
///
/// ```swift
/// static let injection = Injection(Car.init(engine:brakes:))            // transient
/// static let injection = Injection(Clock.init).in(.singleton)           // one per injector
/// static let injection = Injection { resolver in try Clock(zone: resolver.get()) }
/// ```
public struct Injection<T> {
    @usableFromInline let recipe: Recipe<T>
    @usableFromInline var scope: Scope = .transient

    @inlinable
    init(recipe: Recipe<T>) {
        self.recipe = recipe
    }

    /// Declares a factory whose parameters are resolved from the injector, like
    /// ``BindingBuilder``'s `to(_:)`.
    @inlinable
    public init<each Dependency>(_ factory: @escaping @Sendable (repeat consuming each Dependency) throws -> T) {
        self.init(recipe: .constructor(factory))
    }

    /// Declares a factory with no parameters.
    @inlinable
    public init(_ factory: @escaping @Sendable () throws -> T) {
        self.init(recipe: .constructor(factory))
    }

    /// Declares a closure that resolves what it needs through the given ``Resolver``.
    @inlinable
    public init(_ provider: @escaping @Sendable (Resolver) throws -> T) {
        self.init(recipe: .closure(provider))
    }

    /// Declares a closure that resolves what it needs through the given ``Resolver``, and the keys it
    /// resolves, so that validation and diagrams can check them (see
    /// ``BindingBuilder/to(dependencies:_:)``).
    @inlinable
    public init(dependencies: [BindingKey], _ provider: @escaping @Sendable (Resolver) throws -> T) {
        self.init(recipe: .closure(provider, declaring: dependencies))
    }

    /// The scope a just-in-time binding of the type gets (a module binding sets its own).
    public var defaultScope: Scope { scope }
}

extension Injection where T: Sendable {
    /// Returns this declaration with another default scope.
    ///
    /// - Parameter scope: The scope; singletons need a `Sendable` type.
    public func `in`(_ scope: Scope) -> Injection {
        var copy = self
        copy.scope = scope
        return copy
    }
}

// A declaration is immutable data (a recipe made of `Sendable` closures, and a scope).
extension Injection: @unchecked Sendable {}
