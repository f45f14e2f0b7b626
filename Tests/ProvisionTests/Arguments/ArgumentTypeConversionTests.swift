import Testing

@testable import Provision

/// A protocol for the conversion rules.
private protocol ConversionShape {}
/// A class for the conversion rules.
private class ConversionVehicle {}
/// A subclass that conforms where its class doesn't.
private final class ConversionTruck: ConversionVehicle, ConversionShape {}
/// A conforming struct.
private struct ConversionSquare: ConversionShape {}
/// Another protocol.
private protocol ConversionNamed {}
/// A class-bound protocol.
private protocol ConversionObject: AnyObject {}

/// The conversions a request's arguments get: those of a call, decided by the types the arguments are
/// passed as (see `ArgumentConversion`).
@Suite("Argument conversion by static type")
struct ArgumentTypeConversionTests {
    @Test("what a call converts: the same type, into an optional, a subclass to its class, a value to a protocol")
    func callConversions() {
        #expect(ArgumentConversion.converts(Int.self, to: Int.self))
        #expect(ArgumentConversion.converts(String.self, to: String?.self))
        #expect(ArgumentConversion.converts(String?.self, to: String?.self))
        #expect(ArgumentConversion.converts(Int?.self, to: Int??.self))
        #expect(ArgumentConversion.converts(ConversionTruck.self, to: ConversionVehicle.self))
        #expect(ArgumentConversion.converts(ConversionTruck.self, to: ConversionVehicle?.self))
        #expect(ArgumentConversion.converts(ConversionSquare.self, to: (any ConversionShape).self))
        #expect(ArgumentConversion.converts(ConversionSquare.self, to: Any.self))
        #expect(ArgumentConversion.converts(ConversionTruck.self, to: AnyObject.self))
        #expect(ArgumentConversion.converts((any ConversionShape).self, to: Any.self))
        #expect(ArgumentConversion.converts((any ConversionShape).self, to: (any ConversionShape)?.self))
    }

    @Test("what a call never converts: unwrapping, opening an existential, a downcast, unrelated types")
    func noCallConversions() {
        #expect(!ArgumentConversion.converts(Int?.self, to: Int.self))
        #expect(!ArgumentConversion.converts(Int?.self, to: String?.self))
        #expect(!ArgumentConversion.converts(Any.self, to: Int.self))
        #expect(!ArgumentConversion.converts((any ConversionShape).self, to: ConversionSquare.self))
        #expect(!ArgumentConversion.converts(ConversionVehicle.self, to: ConversionTruck.self))
        #expect(!ArgumentConversion.converts(AnyObject.self, to: ConversionVehicle.self))
        #expect(!ArgumentConversion.converts(Int.self, to: String.self))
        #expect(!ArgumentConversion.converts(Int.self, to: ConversionVehicle.self))
        #expect(!ArgumentConversion.converts(ConversionVehicle.self, to: Int.self))
    }

    @Test("existentials: to fewer protocols, to Any, to AnyObject only from classes; never to another protocol")
    func existentialRules() {
        #expect(
            ArgumentConversion.converts((any ConversionShape & ConversionNamed).self, to: (any ConversionShape).self))
        #expect(
            !ArgumentConversion.converts((any ConversionShape).self, to: (any ConversionShape & ConversionNamed).self))
        #expect(!ArgumentConversion.converts((any ConversionShape).self, to: (any ConversionNamed).self))
        #expect(!ArgumentConversion.converts(Any.self, to: (any ConversionShape).self))
        #expect(ArgumentConversion.converts((any ConversionObject).self, to: AnyObject.self))
        #expect(!ArgumentConversion.converts(ConversionSquare.self, to: AnyObject.self))
        #expect(!ArgumentConversion.converts((any ConversionShape).self, to: AnyObject.self))
        #expect(!ArgumentConversion.converts(ConversionSquare.self, to: (any ConversionObject).self))
    }

    @Test("metatypes convert as their instance types do; arrays as their elements")
    func metatypesAndArrays() {
        #expect(ArgumentConversion.converts(ConversionTruck.Type.self, to: ConversionVehicle.Type.self))
        #expect(!ArgumentConversion.converts(ConversionVehicle.Type.self, to: ConversionTruck.Type.self))
        #expect(ArgumentConversion.converts(Int.Type.self, to: Any.Type.self))
        #expect(!ArgumentConversion.converts(Any.Type.self, to: Int.Type.self))
        #expect(ArgumentConversion.converts([Int].self, to: [Int?].self))
        #expect(!ArgumentConversion.converts([Int?].self, to: [Int].self))
        #expect(ArgumentConversion.converts([ConversionTruck].self, to: [ConversionVehicle].self))
        #expect(!ArgumentConversion.converts([Any].self, to: [Int].self))
        #expect(TypeName.describe(Any.Type.self) == "Any.Type")
        #expect(TypeName.describe((any ConversionShape.Type).self) == "any ConversionShape.Type")
    }

    @Test("existentials are told apart from classes, structs and optionals by their metadata")
    func existentials() {
        #expect(ArgumentConversion.isExistential(Any.self))
        #expect(ArgumentConversion.isExistential(AnyObject.self))
        #expect(ArgumentConversion.isExistential((any ConversionShape).self))
        #expect(!ArgumentConversion.isExistential(ConversionVehicle.self))
        #expect(!ArgumentConversion.isExistential(ConversionSquare.self))
        #expect(!ArgumentConversion.isExistential(Int?.self))
    }
}
