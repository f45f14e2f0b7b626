/// The keys a closure binding declared it resolves (`to(dependencies:_:)`, `Injection(dependencies:_:)`),
/// checked against what it really resolves in debug builds.
///
/// Validation and diagrams trust a declaration; a closure that resolves a key it didn't declare would
/// make them wrong (a missing binding or a cycle found only at run time, an `overriding` injector sharing
/// a singleton it should rebuild). In a debug build, the ``Resolver`` a declaring closure receives checks
/// each request against the declaration and throws ``ProvisionError/Code/undeclaredDependency`` for a
/// key it doesn't list, naming the declaration to fix. Release builds check nothing and pay nothing: the
/// resolver doesn't carry the declaration.
@usableFromInline
final class DependencyDeclaration: Sendable {
    /// The binding whose closure declared the keys.
    let binding: BindingKey
    /// Where the binding was declared.
    let location: SourceLocation
    /// The keys in declaration order, for the error.
    let keys: [BindingKey]
    private let allowed: Set<BindingKey>

    init(binding: BindingKey, location: SourceLocation, keys: [BindingKey]) {
        self.binding = binding
        self.location = location
        self.keys = keys
        self.allowed = Set(keys)
    }

    /// Throws unless the closure declared `key`, or the type `key` wraps when it is an optional (`Dog?`
    /// resolves `Dog`'s binding).
    ///
    /// The error's path starts at `key`: the closure's plan prepends its own key as the error passes
    /// through it, as it does for every error of its requests.
    @usableFromInline
    func check(_ key: BindingKey) throws(ProvisionError) {
        if allowed.contains(key) { return }
        if let optional = key.type as? any OptionalType.Type,
            allowed.contains(BindingKey(key: key, replacingTypeWith: optional.wrappedType))
        {
            return
        }
        throw ProvisionError.undeclaredDependency(key, declaration: self, path: [key])
    }
}

extension BindingKey {
    /// The key of `type` with `key`'s name.
    init(key: BindingKey, replacingTypeWith type: any Any.Type) {
        self.init(opening: type, named: key.name)
    }

    private init<T>(opening type: T.Type, named name: String?) {
        self.init(type, named: name)
    }
}

extension Node {
    /// The declaration of a closure binding that declared its dependencies, for its resolver (see
    /// ``DependencyDeclaration``); `nil` for every other binding.
    @usableFromInline var dependencyDeclaration: DependencyDeclaration? {
        guard case .declared(let keys) = dependencies else { return nil }
        return DependencyDeclaration(binding: key, location: location, keys: keys)
    }
}

extension ProvisionError {
    /// A closure that declared its dependencies resolved `key`, which it didn't declare (debug builds).
    static func undeclaredDependency(_ key: BindingKey, declaration: DependencyDeclaration, path: [BindingKey])
        -> ProvisionError
    {
        let declared = declaration.keys.map(\.description).joined(separator: ", ")
        let name = key.name.map { ", named: \"\($0)\"" } ?? ""
        return ProvisionError(
            code: .undeclaredDependency,
            key: key,
            message: "the closure bound to \(declaration.binding) resolved \(key), which its declared "
                + "dependencies don't list (\(declared.isEmpty ? "none" : declared))",
            hint: "add BindingKey(\(TypeName.metatypeExpression(key.type))\(name)) to the binding's dependencies: "
                + "validation, diagrams and overriding injectors trust them",
            location: declaration.location,
            path: path
        )
    }
}
