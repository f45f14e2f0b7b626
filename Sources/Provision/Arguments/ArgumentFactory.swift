/// The factory of a binding that takes resolve-time arguments, with its declared argument types and
/// optional defaults.
@usableFromInline
final class ArgumentFactory<T, each Argument>: Sendable {
    /// The closure of `to { resolver, make, model in ... }`, which takes the arguments one by one.
    /// Exactly one of `make` and `makeFromTuple` is set (an enum can't hold a pack).
    @usableFromInline let make: (@Sendable (Resolver, repeat each Argument) throws -> T)?
    /// The adapter of a ``ServiceProvider``, which takes the arguments as one tuple.
    @usableFromInline let makeFromTuple: (@Sendable (Resolver, (repeat each Argument)) throws -> T)?
    /// The defaults, as a closure so that the pack needs no storage of its own.
    let defaults: (@Sendable () -> (repeat each Argument))?
    /// The keys the factory declared it resolves, if it declared them (for validation and diagrams).
    let dependencies: [BindingKey]?

    init(
        make: @escaping @Sendable (Resolver, repeat each Argument) throws -> T,
        defaults: (@Sendable () -> (repeat each Argument))?,
        dependencies: [BindingKey]?
    ) {
        self.make = make
        self.makeFromTuple = nil
        self.defaults = defaults
        self.dependencies = dependencies
    }

    init(
        makeFromTuple: @escaping @Sendable (Resolver, (repeat each Argument)) throws -> T,
        defaults: (@Sendable () -> (repeat each Argument))?,
        dependencies: [BindingKey]? = nil
    ) {
        self.make = nil
        self.makeFromTuple = makeFromTuple
        self.defaults = defaults
        self.dependencies = dependencies
    }

    /// This factory with other defaults (and the same declared dependencies).
    func withDefaults(_ defaults: @escaping @Sendable () -> (repeat each Argument)) -> ArgumentFactory {
        if let make { return ArgumentFactory(make: make, defaults: defaults, dependencies: dependencies) }
        if let makeFromTuple {
            return ArgumentFactory(makeFromTuple: makeFromTuple, defaults: defaults, dependencies: dependencies)
        }
        return self
    }

    /// Calls the factory. Inlinable, so that a request specialized for its argument types calls the
    /// closure without instantiating the pack's metadata (see `Injector.get(_:named:arguments:)`).
    @inlinable
    func call(_ resolver: Resolver, _ arguments: repeat each Argument) throws -> T {
        if let make { return try make(resolver, repeat each arguments) }
        if let makeFromTuple { return try makeFromTuple(resolver, (repeat each arguments)) }
        throw noFactory()
    }

    /// The error of a factory with neither closure (never made: each initializer sets one).
    @usableFromInline
    func noFactory() -> ProvisionError {
        ProvisionError.argumentMismatch(
            BindingKey(T.self),
            expected: ArgumentFactory.signature,
            given: ArgumentFactory.signature,
            reason: "its binding has no factory"
        )
    }

    /// The argument types in Swift syntax: `(String, Int)`.
    @usableFromInline static var signature: String {
        var names: [String] = []
        for type in repeat (each Argument).self {
            names.append(TypeName.describe(type))
        }
        return "(" + names.joined(separator: ", ") + ")"
    }

    /// The number of arguments.
    static var arity: Int {
        var count = 0
        for _ in repeat (each Argument).self {
            count += 1
        }
        return count
    }
}

/// What a node knows about its binding's arguments, without the argument types.
@usableFromInline
struct ArgumentInfo: Sendable {
    /// The `ArgumentFactory` the binding was declared with.
    @usableFromInline let factory: any Sendable & AnyObject
    /// The declared argument types in Swift syntax.
    let signature: String
    let hasDefaults: Bool
}

/// One request's call of an argument factory, prepared so that a closure can run it without touching
/// the parameter pack.
final class ArgumentCall<T, each Argument> {
    let key: BindingKey
    let factory: ArgumentFactory<T, repeat each Argument>
    let arguments: (repeat each Argument)

    init(key: BindingKey, factory: ArgumentFactory<T, repeat each Argument>, arguments: repeat each Argument) {
        self.key = key
        self.factory = factory
        self.arguments = (repeat each arguments)
    }

    func run(_ resolver: Resolver) throws(ProvisionError) -> T {
        try Recipe.build(key, factory, resolver, repeat each arguments)
    }
}
