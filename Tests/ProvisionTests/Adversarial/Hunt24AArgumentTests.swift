import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

/// A value built from one `Int` argument.
struct Hunt24ACounted: Sendable {
    let count: Int
}

/// A value built from one optional `Int` argument.
struct Hunt24AMaybeCounted: Sendable {
    let count: Int?
}

/// A protocol arguments may be declared as.
protocol Hunt24AShape: Sendable {
    var sides: Int { get }
}

/// A shape.
struct Hunt24ASquare: Hunt24AShape {
    var sides: Int { 4 }
}

/// Another shape.
struct Hunt24ATriangle: Hunt24AShape {
    var sides: Int { 3 }
}

/// Built from a concrete `Hunt24ASquare` argument.
struct Hunt24ASquareHolder: Sendable {
    let square: Hunt24ASquare
}

/// Built from an optional existential argument.
struct Hunt24AShapeHolder: Sendable {
    let shape: (any Hunt24AShape)?
}

/// A base class for arguments.
class Hunt24AVehicle: @unchecked Sendable {
    init() {}
}

/// A subclass of it.
final class Hunt24ATruck: Hunt24AVehicle, @unchecked Sendable {}

/// Built from a `Hunt24ATruck` argument.
struct Hunt24ATruckHolder: Sendable {
    let truck: Hunt24ATruck
}

/// Built from a `Hunt24AVehicle?` argument.
struct Hunt24AVehicleHolder: Sendable {
    let vehicle: Hunt24AVehicle?
}

// MARK: - Tests

@Suite("Hunt 24A: argument conversions", .timeLimit(.minutes(2)))
struct Hunt24AArgumentTests {
    static func injector() throws -> Injector {
        try Injector(
            ClosureModule { binder in
                binder.bind(Hunt24ACounted.self).withArguments(Int.self).to { _, count in
                    Hunt24ACounted(count: count)
                }
                binder.bind(Hunt24AMaybeCounted.self).withArguments(Int?.self).to { _, count in
                    Hunt24AMaybeCounted(count: count)
                }
                binder.bind(Hunt24ASquareHolder.self).withArguments(Hunt24ASquare.self).to { _, square in
                    Hunt24ASquareHolder(square: square)
                }
                binder.bind(Hunt24AShapeHolder.self).withArguments((any Hunt24AShape)?.self).to { _, shape in
                    Hunt24AShapeHolder(shape: shape)
                }
                binder.bind(Hunt24ATruckHolder.self).withArguments(Hunt24ATruck.self).to { _, truck in
                    Hunt24ATruckHolder(truck: truck)
                }
                binder.bind(Hunt24AVehicleHolder.self).withArguments(Hunt24AVehicle?.self).to { _, vehicle in
                    Hunt24AVehicleHolder(vehicle: vehicle)
                }
            })
    }

    @Test("the conversions a call makes are made: to an optional, an optional existential, an optional base")
    func callConversions() throws {
        let injector = try Self.injector()
        #expect(try injector.get(Hunt24AMaybeCounted.self, arguments: 7).count == 7)
        #expect(try injector.get(Hunt24AMaybeCounted.self, arguments: Int?.none).count == nil)
        #expect(try injector.get(Hunt24AShapeHolder.self, arguments: Hunt24ATriangle()).shape?.sides == 3)
        let noShape: Hunt24ATriangle? = nil
        #expect(try injector.get(Hunt24AShapeHolder.self, arguments: noShape).shape == nil)
        #expect(try injector.get(Hunt24AVehicleHolder.self, arguments: Hunt24ATruck()).vehicle is Hunt24ATruck)
    }

    /// Found by hunt 24A, fixed: arguments convert by the types they are passed as (`ArgumentConversion`), then by
    /// value only where a protocol is declared.
    ///
    /// Promised (ArgumentBindingBuilder.swift): "Arguments are checked against the declaration when the
    /// request is made, and converted as a call would convert them: a `String` where `String?` is
    /// declared, an instance of a subclass where its class is, a value where a protocol it conforms to
    /// is. A wrong count or type throws ``ProvisionError/Code/argumentMismatch`` naming both signatures."
    ///
    /// No call converts an `Int?` to an `Int`, an `any Hunt24AShape` to a `Hunt24ASquare`, or a
    /// `Hunt24AVehicle` to a `Hunt24ATruck`. Each of these requests is built anyway, whenever the value
    /// happens to hold the declared type (`Optional(5)`, a square, a truck); the same request holding
    /// `nil`, a triangle or a plain vehicle throws `argumentMismatch`. So whether a request's argument
    /// types match the declaration depends on the values. Cause: `ArgumentFactory.converted(_:)`
    /// (Injector+Arguments.swift) converts each argument with a dynamic cast, `values[index] as? A`,
    /// which unwraps optionals, opens existentials and downcasts.
    @Test("arguments whose static types no call converts are an argumentMismatch, whatever their values")
    func dynamicCastIsNotACallConversion() throws {
        let injector = try Self.injector()
        let some: Int? = 5
        let optional = #expect(throws: ProvisionError.self) { try injector.get(Hunt24ACounted.self, arguments: some) }
        #expect(optional?.code == .argumentMismatch)
        let square: any Hunt24AShape = Hunt24ASquare()
        let existential = #expect(throws: ProvisionError.self) {
            try injector.get(Hunt24ASquareHolder.self, arguments: square)
        }
        #expect(existential?.code == .argumentMismatch)
        let vehicle: Hunt24AVehicle = Hunt24ATruck()
        let downcast = #expect(throws: ProvisionError.self) {
            try injector.get(Hunt24ATruckHolder.self, arguments: vehicle)
        }
        #expect(downcast?.code == .argumentMismatch)
    }

    @Test("the same requests holding values of other types throw argumentMismatch")
    func otherValuesMismatch() throws {
        let injector = try Self.injector()
        let none: Int? = nil
        #expect(throws: ProvisionError.self) { try injector.get(Hunt24ACounted.self, arguments: none) }
        let triangle: any Hunt24AShape = Hunt24ATriangle()
        #expect(throws: ProvisionError.self) { try injector.get(Hunt24ASquareHolder.self, arguments: triangle) }
        let vehicle = Hunt24AVehicle()
        #expect(throws: ProvisionError.self) { try injector.get(Hunt24ATruckHolder.self, arguments: vehicle) }
    }
}

/// A protocol bound by delegation to a type with arguments.
protocol Hunt24APet: Sendable {
    var name: String? { get }
}

/// A pet built from an optional name.
struct Hunt24ACat: Hunt24APet {
    let name: String?
}

/// Holds handles that resolve pets with arguments.
struct Hunt24APetHandles: Sendable {
    let pets: Provider<any Hunt24APet>
    let factory: ObjectFactory
}

extension Hunt24AArgumentTests {
    @Test("a delegation passes converted arguments on: injector, provider, object factory, singleton target")
    func delegationConverts() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt24ACat.self).withArguments(String?.self).to { _, name in Hunt24ACat(name: name) }
                binder.bind((any Hunt24APet).self).to(binding: Hunt24ACat.self)
                binder.bind(Hunt24APetHandles.self).to(Hunt24APetHandles.init(pets:factory:))
            })
        #expect(try injector.get((any Hunt24APet).self, arguments: "Tom").name == "Tom")
        #expect(try injector.get((any Hunt24APet).self, arguments: String?.none).name == nil)
        let handles = try injector.syncGet(Hunt24APetHandles.self)
        #expect(try handles.pets.get(arguments: "Kit").name == "Kit")
        #expect(try handles.factory.get((any Hunt24APet).self, arguments: "Max").name == "Max")
        #expect(try handles.pets.lazy(arguments: "Lazy").value.name == "Lazy")
        let wrong = #expect(throws: ProvisionError.self) { try injector.get((any Hunt24APet).self, arguments: 5) }
        #expect(wrong?.code == .argumentMismatch)
    }

    @Test("a built singleton with arguments: converted arguments answer it, other types still mismatch")
    func builtSingletonConverts() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt24AMaybeCounted.self).withArguments(Int?.self).to { _, count in
                    Hunt24AMaybeCounted(count: count)
                }.in(.singleton)
            })
        #expect(try injector.get(Hunt24AMaybeCounted.self, arguments: 1).count == 1)
        #expect(try injector.get(Hunt24AMaybeCounted.self, arguments: 2).count == 1)
        #expect(try injector.get(Hunt24AMaybeCounted.self, arguments: Int?.none).count == 1)
        let wrong = #expect(throws: ProvisionError.self) { try injector.get(Hunt24AMaybeCounted.self, arguments: "x") }
        #expect(wrong?.code == .argumentMismatch)
    }
}

/// Nothing binds it.
struct Hunt24AMissing: Sendable {}

/// Built from an optional title, resolving something nothing binds.
struct Hunt24ABrokenReport: Sendable {
    let title: String?
}

/// Depends on the broken report (built with its defaults).
struct Hunt24ABrokenReportUser: Sendable {
    let report: Hunt24ABrokenReport
}

extension Hunt24AArgumentTests {
    @Test("the path of a failure inside a binding with arguments: exact, converted, defaults, as a dependency")
    func failurePaths() throws {
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt24ABrokenReport.self).withArguments(String?.self).to {
                        (resolver: Resolver, title: String?) in
                        _ = try resolver.get(Hunt24AMissing.self)
                        return Hunt24ABrokenReport(title: title)
                    }.defaults("default")
                    binder.bind(Hunt24ABrokenReportUser.self).to(Hunt24ABrokenReportUser.init(report:))
                }
            ], configuration: Injector.Configuration(validatesOnCreation: false))
        let exact = #expect(throws: ProvisionError.self) {
            try injector.get(Hunt24ABrokenReport.self, arguments: String?.some("x"))
        }
        let converted = #expect(throws: ProvisionError.self) {
            try injector.get(Hunt24ABrokenReport.self, arguments: "x")
        }
        let defaults = #expect(throws: ProvisionError.self) { try injector.syncGet(Hunt24ABrokenReport.self) }
        let dependency = #expect(throws: ProvisionError.self) { try injector.syncGet(Hunt24ABrokenReportUser.self) }
        for error in [exact, converted, defaults] {
            #expect(error?.code == .notBound)
            #expect(error?.pathDescription == "Hunt24ABrokenReport -> Hunt24AMissing")
        }
        #expect(dependency?.code == .notBound)
        #expect(dependency?.pathDescription == "Hunt24ABrokenReportUser -> Hunt24ABrokenReport -> Hunt24AMissing")
    }
}
