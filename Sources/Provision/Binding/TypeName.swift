/// Renders types the way Swift source spells them, for error messages and diagrams.
///
/// `String(describing:)` prints an existential such as `any Store` as plain `Store`, which reads like a
/// concrete type in an error message. The runtime's metadata kind tells the two apart: it is the first
/// word of every type's metadata, and its values are part of Swift's stable ABI.
enum TypeName {
    /// Metadata kinds from the Swift ABI (`MetadataKind` in the runtime's `MetadataValues.h`).
    private static let existentialKind: UInt = 0x303
    private static let existentialMetatypeKind: UInt = 0x306
    private static let extendedExistentialKind: UInt = 0x307

    static func describe(_ type: any Any.Type) -> String {
        // An array of existentials: `Array<any Plugin>`, where the runtime prints `Array<Plugin>`.
        if let array = type as? any ArrayType.Type {
            return "Array<\(describe(array.elementType))>"
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

    /// The type as a metatype expression in source: `Car.self`, `(any Store).self`.
    static func metatypeExpression(_ type: any Any.Type) -> String {
        let name = describe(type)
        return name.hasPrefix("any ") ? "(\(name)).self" : "\(name).self"
    }

    private static func metadataKind(of type: any Any.Type) -> UInt {
        let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
        let kind = metadata.load(as: UInt.self)
        // Class metadata starts with an isa pointer (any value above the last kind) instead of a kind.
        return kind > 0x7FF ? 0 : kind
    }
}
