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
