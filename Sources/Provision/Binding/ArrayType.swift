/// An array type, seen through its metatype: lets type names spell `Array<any Plugin>` and validation
/// explain an empty multibinding by its element type.
protocol ArrayType {
    static var elementType: any Any.Type { get }
}

extension Array: ArrayType {
    static var elementType: any Any.Type { Element.self }
}
