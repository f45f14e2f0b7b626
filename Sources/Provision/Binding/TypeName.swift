/// Renders types the way Swift source spells them, for error messages and diagrams.
///
/// `String(describing:)` prints an existential such as `any Store` as plain `Store`, which reads like a
/// concrete type in an error message, and spells out `Optional<Dog>`, `Array<Dog>` and
/// `Dictionary<String, Dog>` where source writes `Dog?`, `[Dog]` and `[String: Dog]`. The runtime's
/// metadata kind tells an existential apart: it is the first word of every type's metadata, and its
/// values are part of Swift's stable ABI; the sugared types are recognised through their metatypes.
enum TypeName {
    /// Metadata kinds from the Swift ABI (`MetadataKind` in the runtime's `MetadataValues.h`).
    private static let existentialKind: UInt = 0x303
    private static let existentialMetatypeKind: UInt = 0x306
    private static let extendedExistentialKind: UInt = 0x307

    static func describe(_ type: any Any.Type) -> String {
        if let optional = type as? any OptionalType.Type {
            let wrapped = describe(optional.wrappedType)
            return needsParentheses(wrapped) ? "(\(wrapped))?" : "\(wrapped)?"
        }
        // `[any Plugin]`, where the runtime prints `Array<Plugin>`.
        if let array = type as? any ArrayType.Type {
            return "[\(describe(array.elementType))]"
        }
        if let dictionary = type as? any DictionaryType.Type {
            return "[\(describe(dictionary.keyType)): \(describe(dictionary.valueType))]"
        }
        let name = String(describing: type)
        switch metadataKind(of: type) {
        case existentialKind, extendedExistentialKind:
            // `Any` and `AnyObject` are spelled without `any` in practice.
            if name == "Any" || name == "AnyObject" || name.hasPrefix("any ") { return name }
            return "any \(name)"
        case existentialMetatypeKind:
            return name.hasPrefix("any ") ? name : "any \(name)"
        default:
            return name
        }
    }

    /// The type as a metatype expression in source: `Car.self`, `(any Store).self`, `Car?.self`.
    static func metatypeExpression(_ type: any Any.Type) -> String {
        let name = describe(type)
        return needsParentheses(name) ? "(\(name)).self" : "\(name).self"
    }

    /// Whether a type's name must be parenthesized before a postfix `?` or `.self`: an existential
    /// (`any Store`) or a function type (`() -> Int`).
    private static func needsParentheses(_ name: String) -> Bool {
        name.hasPrefix("any ") || name.hasPrefix("some ") || name.contains("->")
    }

    private static func metadataKind(of type: any Any.Type) -> UInt {
        let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
        let kind = metadata.load(as: UInt.self)
        // Class metadata starts with an isa pointer (any value above the last kind) instead of a kind.
        return kind > 0x7FF ? 0 : kind
    }
}
