/// An array type, seen through its metatype: lets type names spell `[any Plugin]` and validation
/// explain an empty multibinding by its element type.
protocol ArrayType {
    static var elementType: any Any.Type { get }
}

extension Array: ArrayType {
    static var elementType: any Any.Type { Element.self }
}

/// A dictionary type, seen through its metatype: lets type names spell `[String: any Plugin]`.
protocol DictionaryType {
    static var keyType: any Any.Type { get }
    static var valueType: any Any.Type { get }
}

extension Dictionary: DictionaryType {
    static var keyType: any Any.Type { Key.self }
    static var valueType: any Any.Type { Value.self }
}
