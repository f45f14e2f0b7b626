/// A class, final or not, that declares how it is built, each subclass declaring its own: ``Injectable``
/// for class hierarchies.
///
/// ``Injectable``'s `injection` is an `Injection<Self>`, which only a struct, an enum or a final class can
/// provide. A class hierarchy (Objection registers each class of one) declares its construction in an
/// overridable `class var` instead:
///
/// ```swift
/// class Vehicle: InjectableClass {
///     class var classInjection: any InjectionDeclaration { Injection(Vehicle.init(engine:)) }
///
///     let engine: Engine
///     init(engine: Engine) { self.engine = engine }
/// }
///
/// class Car: Vehicle {
///     override class var classInjection: any InjectionDeclaration {
///         Injection(Car.init(engine:brakes:)).in(.singleton)
///     }
///
///     let brakes: Brakes
///     init(engine: Engine, brakes: Brakes) {
///         self.brakes = brakes
///         super.init(engine: engine)
///     }
/// }
///
/// let car = try Injector().get(Car.self)           // no module: Car's declaration, a singleton
/// let vehicle = try Injector().get(Vehicle.self)   // Vehicle's own
/// ```
///
/// A request for the class with no module binding (unnamed keys only) creates a just-in-time binding from
/// the class's own declaration, exactly like ``Injectable``'s; a module binding of the class always takes
/// precedence, and `binder.bind(Car.self).toSelf().in(...)` changes its scope for one injector. Each
/// class that should be built just in time must override ``classInjection`` with an `Injection` of
/// itself: a subclass that inherits its superclass's declaration (which would build the superclass) is
/// a ``ProvisionError/Code/typeMismatch`` error naming the class to fix, at validation and at its first
/// request. Property requirements (``PropertyInjectable``) are inherited and merged as usual, and are
/// set on every instance built.
public protocol InjectableClass: AnyObject {
    /// How this class is built: an ``Injection`` of exactly this class, its factory and default scope.
    static var classInjection: any InjectionDeclaration { get }
}

/// A declaration of how a type is built, for ``InjectableClass``: an ``Injection``, which is the only
/// conforming type the injector understands.
public protocol InjectionDeclaration: Sendable {}

extension Injection: InjectionDeclaration {}

/// An ``Injection`` read through ``InjectionDeclaration``, without its type.
protocol AnyInjection {
    /// The type the declaration builds.
    var builtType: any Any.Type { get }
}

extension Injection: AnyInjection {
    var builtType: any Any.Type { T.self }
}

extension InjectableClass {
    /// The class's own declaration as an `Injection<T>` (`T` is `Self`); a failure naming the type the
    /// declaration builds when it is not this class's own (an inherited one).
    static func ownInjection<T>(as type: T.Type) -> Result<Injection<T>, ProvisionError> {
        let declared = classInjection
        if let injection = declared as? Injection<T> { return .success(injection) }
        let built = (declared as? any AnyInjection)?.builtType
        return .failure(ProvisionError.inheritedInjection(BindingKey(type), declaredFor: built))
    }

    /// The error of a declaration that is not this class's own (see ``ownInjection(as:)``); `nil` when it
    /// is.
    static var misdeclaration: ProvisionError? {
        let built = (classInjection as? any AnyInjection)?.builtType
        if let built, ObjectIdentifier(built) == ObjectIdentifier(Self.self) { return nil }
        return ProvisionError.inheritedInjection(BindingKey(Self.self), declaredFor: built)
    }
}

extension ProvisionError {
    /// An ``InjectableClass`` whose `classInjection` builds another class (it inherited its superclass's).
    static func inheritedInjection(_ key: BindingKey, declaredFor built: (any Any.Type)?) -> ProvisionError {
        let builtName = built.map(TypeName.describe) ?? "something else"
        return ProvisionError(
            code: .typeMismatch,
            key: key,
            message: "\(key)'s classInjection builds \(builtName), not \(key): it inherits its superclass's "
                + "declaration",
            hint: "override it in \(key): override class var classInjection: any InjectionDeclaration { "
                + "Injection(\(key).init) }",
            path: [key]
        )
    }
}

extension Recipe {
    /// Stands in for a just-in-time binding that can't be made (see `InjectableClass.ownInjection(as:)`):
    /// linking it throws `error`.
    static func failing(with error: ProvisionError) -> Recipe {
        Recipe(dependencies: .known([]), link: { _, _ throws(ProvisionError) in throw error }, instance: nil)
    }
}

extension BindingBuilder where T: InjectableClass {
    /// Binds the class to its own ``InjectableClass`` declaration, in this injector: used to change its
    /// scope for one injector.
    ///
    /// ```swift
    /// binder.bind(Car.self).toSelf().in(.transient)
    /// ```
    ///
    /// A declaration inherited from a superclass makes creating the injector throw
    /// ``ProvisionError/Code/typeMismatch``.
    @discardableResult
    public func toSelf() -> ScopeBuilder<T> {
        switch T.ownInjection(as: T.self) {
        case .success(let injection):
            binder.setRecipe(injection.recipe, at: index)
            binder.setScope(injection.scope, at: index)
        case .failure(let error):
            binder.record(error)
            binder.setRecipe(Recipe<T>.failing(with: error), at: index)
        }
        return ScopeBuilder(binder: binder, index: index)
    }
}
