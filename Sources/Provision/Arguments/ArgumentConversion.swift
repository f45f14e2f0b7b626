/// A request's arguments seen without their types: each value, and the type the request passed it as.
///
/// The type matters as much as the value. An `Int?` holding 5 is not an `Int` to a call, though `5 as?
/// Int` succeeds on its value; an `any Shape` holding a square is not a `Square`, nor a `Vehicle` that is
/// a truck a `Truck`. A request is built by the binding whose declared types its arguments convert to
/// *as a call would convert them* (see ``ArgumentConversion``), whatever their values.
struct ArgumentValues {
    /// The values, in order.
    let values: [Any]
    /// The type each value was passed as (its static type, not the type of what it holds).
    let types: [any Any.Type]

    init<each Argument>(_ arguments: repeat each Argument) {
        var values: [Any] = []
        var types: [any Any.Type] = []
        for argument in repeat each arguments {
            values.append(argument)
        }
        for type in repeat (each Argument).self {
            types.append(type)
        }
        self.values = values
        self.types = types
    }

    var count: Int { values.count }
}

/// Whether a value passed as one type converts to a declared argument type the way a call converts it:
/// for every value of the given type, not only for the one at hand.
///
/// A call converts a value to an optional of its type, an instance of a class to a superclass, and a
/// value of a conforming type to a protocol (or `Any`). It never unwraps an optional, opens an
/// existential to a concrete type, or downcasts: a dynamic cast (`as?`) does all three when the value
/// allows it, so a request was built or refused depending on what its arguments held (found by hunt
/// 24A), and a `nil` of one optional type was taken for a `nil` of any other (hunt 24B). These rules
/// decide by the given type alone, except where the declared type is a protocol (or `Any`): the cast of
/// the value then decides, which answers the same for all values of the given type but in one case, a
/// class that doesn't conform to the protocol passed an instance of a subclass that does (the runtime
/// can't be asked about the class alone).
enum ArgumentConversion {
    /// Whether a value of type `given` converts to `declared` as a call's argument would.
    static func converts<Declared>(_ given: any Any.Type, to declared: Declared.Type) -> Bool {
        if ObjectIdentifier(given) == ObjectIdentifier(declared) { return true }
        if let optional = declared as? any OptionalType.Type {
            // A value converts to an optional of a type it converts to; an optional, to an optional of a
            // type its wrapped type converts to.
            if converts(given, to: optional.wrappedType) { return true }
            guard let givenOptional = given as? any OptionalType.Type else { return false }
            return converts(givenOptional.wrappedType, to: optional.wrappedType)
        }
        // Unwrapping an optional depends on the value.
        if given is any OptionalType.Type { return false }
        // So does opening an existential (a protocol, `Any`, `AnyObject`) to anything but an existential.
        if isExistential(given) { return isExistential(declared) }
        if isExistential(declared) {
            // A protocol the given type conforms to, or `Any`: the value's cast answers for every value
            // alike.
            return true
        }
        // From class to class, only upcasts: a downcast depends on the value.
        if given is AnyObject.Type { return declared is AnyObject.Type && given is Declared.Type }
        // Between other concrete types, a call converts nothing (two optionals' `nil`s cast to each other).
        return false
    }

    /// Whether `type` is an existential: a protocol type, a composition, `Any` or `AnyObject` (metadata
    /// kind 0x303, see docs/ABI/TypeMetadata.rst in the Swift repository; a class's first word is 0
    /// without Objective-C, an `isa` pointer with it, never that kind).
    static func isExistential(_ type: any Any.Type) -> Bool {
        unsafeBitCast(type, to: UnsafeRawPointer.self).load(as: UInt.self) == 0x303
    }
}
