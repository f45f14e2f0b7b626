/// Identifies one binding in an injector: a type, and optionally a name.
///
/// Two keys are equal when they name the same type and the same name. A named key never matches the
/// unnamed key of the same type: `Headlight` and `Headlight named "left"` are different bindings.
///
/// Types are compared as the runtime sees them, where marker protocols such as `Sendable` don't exist:
/// `any Logger & Sendable` and `any Logger` are one key, and so are `any Sendable` and `Any`.
///
/// A key's description is written in Swift syntax, the way errors print it:
///
/// ```swift
/// BindingKey((any PaymentGateway).self, named: "primary").description
/// // any PaymentGateway named "primary"
/// ```
public struct BindingKey: Hashable, Sendable, CustomStringConvertible {
    /// The bound type.
    public let type: any Any.Type

    /// The binding's name, or `nil` for the unnamed binding of ``type``.
    public let name: String?

    /// The type's identity: the bits of ``type`` (its metadata's address), which a lookup compares.
    /// Computed, not stored: a key is two words and a name, and every node and plan step holds one.
    @inlinable
    var id: ObjectIdentifier { ObjectIdentifier(type) }

    /// Creates the key of the binding for `type`, optionally named.
    ///
    /// - Parameters:
    ///   - type: The bound type, for example `Car.self` or `(any Store).self`.
    ///   - name: The binding's name; `nil` (the default) for the unnamed binding.
    @inlinable
    public init<T>(_ type: T.Type, named name: String? = nil) {
        self.type = type
        self.name = name
    }

    /// Whether two keys name the same type and the same name.
    public static func == (lhs: BindingKey, rhs: BindingKey) -> Bool {
        lhs.id == rhs.id && lhs.name == rhs.name
    }

    /// Hashes the type's identity and the name.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        if let name {
            hasher.combine(name)
        }
    }

    /// The key in Swift syntax: `Car`, `any Store`, `Headlight named "left"`; a multibinding element's
    /// key as `any Plugin (multibinding element)`, and the key of one of several bindings of a type that
    /// differ by their arguments as `any Animal with arguments (String, Int)`.
    public var description: String {
        described(typeName: TypeName.describe(type))
    }

    /// The key as one step of a resolution path (`App -> Store -> any DB`): its ``description``, with a
    /// function type in parentheses, so that its arrow doesn't read as one of the path's
    /// (`Feed -> (@Sendable (Int) async throws -> String)`). (Found by hunt 26B.)
    var pathStep: String {
        let typeName = TypeName.describe(type)
        return described(typeName: TypeName.isFunction(typeName) ? "(\(typeName))" : typeName)
    }

    /// `keys` as a resolution path, outermost first: their ``pathStep``s joined by arrows (a path of
    /// one key is its ``description``: no arrow of the path's to tell apart).
    static func path(_ keys: some Collection<BindingKey>) -> String {
        guard keys.count > 1 else { return keys.first?.description ?? "" }
        return keys.map(\.pathStep).joined(separator: " -> ")
    }

    private func described(typeName: String) -> String {
        guard let name else { return typeName }
        if Binder.isElementKey(self) { return "\(typeName) (multibinding element)" }
        if let (signature, own) = ArgumentVariants.parts(of: self) {
            return "\(typeName) with arguments \(signature)" + (own.map { " named \"\($0)\"" } ?? "")
        }
        return "\(typeName) named \"\(name)\""
    }
}

/// A key reflects as its type's name in Swift syntax and its name: a debugger, `dump(_:)` and test
/// frameworks that reflect a value (Swift Testing reflects a caught error's stored properties) show
/// `any Store`, not the runtime's spelling. The runtime can't print some metatypes at all: reflecting
/// the metatype `any Store<User>.Type` itself crashes the Swift 6.3 runtime, where its name is spelled
/// from its metadata (see `TypeName+ExtendedExistential.swift`). (Found by hunt 28B.)
extension BindingKey: CustomReflectable {
    /// The key's type, spelled in Swift syntax, and its name.
    public var customMirror: Mirror {
        Mirror(self, children: ["type": TypeName.describe(type), "name": name as Any], displayStyle: .struct)
    }
}
