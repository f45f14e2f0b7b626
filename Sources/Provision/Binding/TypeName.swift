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
        let name = qualifiedName(of: type)
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
    /// The type's name as it is written outside its module: with the types it is nested in
    /// (`Payments.Config`, where `String(describing:)` prints `Config` for both `Payments.Config` and
    /// `Storage.Config`), and without module names (`Box<Int>`, not `Shop.Box<Swift.Int>`).
    ///
    /// A type private to a file, or local to a function, prints an unspellable context in its place
    /// (`(Config in _4C7A...)`, `(unknown context at $...)`): such names keep the short form.
    static func qualifiedName(of type: any Any.Type) -> String {
        let reflected = String(reflecting: type)
        guard reflected.contains("."), !reflected.contains("(unknown context at "), !reflected.contains(" in _") else {
            return String(describing: type)
        }
        return withoutModules(reflected)
    }

    /// `reflected` with the first component of each dotted name removed: the runtime spells every
    /// nominal type, generic arguments included, from its module (`Swift.Array<Shop.Item>.Type`).
    static func withoutModules(_ reflected: String) -> String {
        var result = ""
        result.reserveCapacity(reflected.utf8.count)
        func append(_ word: Substring) {
            // A word that starts with a dot follows a parenthesized type (`((Int) -> ()).Type`).
            guard !word.hasPrefix("."), let dot = word.firstIndex(of: ".") else {
                result += word
                return
            }
            result += word[word.index(after: dot)...]
        }
        var start = reflected.startIndex
        for index in reflected.indices {
            let character = reflected[index]
            if character.isLetter || character.isNumber || character == "_" || character == "." || character == "$" {
                continue
            }
            append(reflected[start..<index])
            result.append(character)
            start = reflected.index(after: index)
        }
        append(reflected[start...])
        return result
    }

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
