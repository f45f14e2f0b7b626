/// The factory of a binding that takes resolve-time arguments, with its declared argument types and
/// optional defaults.
final class ArgumentFactory<T, each Argument>: Sendable {
    let make: @Sendable (Resolver, repeat each Argument) throws -> T
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
        self.defaults = defaults
        self.dependencies = dependencies
    }

    /// The argument types in Swift syntax: `(String, Int)`.
    static var signature: String {
        var names: [String] = []
        for type in repeat (each Argument).self {
            names.append(TypeName.describe(type))
        }
        return "(" + names.joined(separator: ", ") + ")"
    }
}

/// What a node knows about its binding's arguments, without the argument types.
@usableFromInline
struct ArgumentInfo: Sendable {
    /// The `ArgumentFactory` the binding was declared with.
    let factory: any Sendable & AnyObject
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
