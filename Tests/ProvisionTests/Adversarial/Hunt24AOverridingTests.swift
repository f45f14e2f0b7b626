import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

/// The key an overriding injector replaces.
struct Hunt24AMotor: Sendable {
    let label: String
}

/// Built by several bindings of one key, some depending on the motor.
struct Hunt24AVehicleBuild: Sendable {
    let motor: String
    let model: String
}

/// Depends on the multibound list, whose elements depend on the motor.
struct Hunt24AFleet: Sendable {
    let vehicles: [Hunt24AVehicleBuild]
}

// MARK: - Tests

@Suite("Hunt 24A: overriding re-creates what depends on a replaced key", .timeLimit(.minutes(2)))
struct Hunt24AOverridingTests {
    static func original() throws -> Injector {
        try Injector(
            ClosureModule { binder in
                binder.bind(Hunt24AMotor.self).toInstance(Hunt24AMotor(label: "real"))
                binder.bind(Hunt24AVehicleBuild.self).to { _ in Hunt24AVehicleBuild(motor: "none", model: "plain") }
                binder.bind(Hunt24AVehicleBuild.self).withArguments(String.self)
                    .to(dependencies: [BindingKey(Hunt24AMotor.self)]) { resolver, model in
                        Hunt24AVehicleBuild(motor: try resolver.get(Hunt24AMotor.self).label, model: model)
                    }
                binder.bind(Hunt24AVehicleBuild.self).withArguments(Int.self)
                    .to(dependencies: [BindingKey(Hunt24AMotor.self)]) { resolver, number in
                        Hunt24AVehicleBuild(motor: try resolver.get(Hunt24AMotor.self).label, model: "#\(number)")
                    }.in(.singleton)
            })
    }

    @Test("a variant (a second argument list) that depends on the replaced key is re-created")
    func variantRecreated() throws {
        let original = try Self.original()
        let derived = try original.overriding { binder in
            binder.bind(Hunt24AMotor.self).toInstance(Hunt24AMotor(label: "fake"))
        }
        #expect(try derived.get(Hunt24AVehicleBuild.self, arguments: "x").motor == "fake")
        #expect(try derived.get(Hunt24AVehicleBuild.self, arguments: 1).motor == "fake")
        #expect(try original.get(Hunt24AVehicleBuild.self, arguments: 1).motor == "real")
        #expect(try original.get(Hunt24AVehicleBuild.self, arguments: "x").motor == "real")
        #expect(try derived.syncGet(Hunt24AVehicleBuild.self).model == "plain")
    }

    @Test("a variant's singleton built in the original before the derivation is not shared")
    func builtVariantNotShared() throws {
        let original = try Self.original()
        #expect(try original.get(Hunt24AVehicleBuild.self, arguments: 1).motor == "real")
        let derived = try original.overriding { binder in
            binder.bind(Hunt24AMotor.self).toInstance(Hunt24AMotor(label: "fake"))
        }
        #expect(try derived.get(Hunt24AVehicleBuild.self, arguments: 2).motor == "fake")
    }

    @Test("multibinding elements depending on the replaced key are re-created, with the list holding them")
    func elementsRecreated() throws {
        let original = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt24AMotor.self).toInstance(Hunt24AMotor(label: "real"))
                binder.multibind(Hunt24AVehicleBuild.self).to { _ in Hunt24AVehicleBuild(motor: "none", model: "a") }
                binder.multibind(Hunt24AVehicleBuild.self).to { (motor: Hunt24AMotor) in
                    Hunt24AVehicleBuild(motor: motor.label, model: "b")
                }.in(.singleton)
                binder.bind(Hunt24AFleet.self).to(Hunt24AFleet.init(vehicles:)).in(.singleton)
            })
        #expect(try original.syncGet(Hunt24AFleet.self).vehicles.map(\.motor) == ["none", "real"])
        let derived = try original.overriding { binder in
            binder.bind(Hunt24AMotor.self).toInstance(Hunt24AMotor(label: "fake"))
        }
        #expect(try derived.syncGet(Hunt24AFleet.self).vehicles.map(\.motor) == ["none", "fake"])
        #expect(try derived.getAll(Hunt24AVehicleBuild.self).map(\.motor) == ["none", "fake"])
        #expect(try original.getAll(Hunt24AVehicleBuild.self).map(\.motor) == ["none", "real"])
    }
}
