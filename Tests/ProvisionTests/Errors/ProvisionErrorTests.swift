import Provision
import Testing

protocol PaymentGateway: Sendable {}

final class Checkout: Sendable {
    init(gateway: any PaymentGateway) {}
}

final class App: Sendable {
    init(checkout: Checkout) {}
}

@Suite("Errors")
struct ProvisionErrorTests {
    @Test("a missing dependency names the key, the whole path and a fix")
    func notBoundMessage() throws {
        let injector = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(App.self).to(App.init(checkout:))
                binder.bind(Checkout.self).to(Checkout.init(gateway:))
            }
        )
        let error = #expect(throws: ProvisionError.self) { try injector.get(App.self) }
        #expect(error?.code == .notBound)
        #expect(error?.key == BindingKey((any PaymentGateway).self))
        #expect(error?.pathDescription == "App -> Checkout -> any PaymentGateway")
        #expect(error?.message == "no binding for any PaymentGateway")
        #expect(error?.hint == "bind it in a module: binder.bind((any PaymentGateway).self).to(...)")
        let text = error?.description ?? ""
        #expect(text.contains("not bound"))
        #expect(text.contains("path: App -> Checkout -> any PaymentGateway"))
        #expect(text.contains("hint: bind it in a module"))
    }

    @Test("every missing dependency below a request is reported in one error, each with its path")
    func allMissingDependencies() throws {
        final class Wheel: Sendable {}
        final class Axle: Sendable {
            init(left: Wheel, right: Brakes) {}
        }
        final class Chassis: Sendable {
            init(axle: Axle, engine: Engine, gearBox: any GearBox) {}
        }
        let injector = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(Chassis.self).to(Chassis.init(axle:engine:gearBox:))
                binder.bind(Axle.self).to(Axle.init(left:right:))
                binder.bind(Engine.self).to(Engine.init)
            }
        )
        let error = #expect(throws: ProvisionError.self) { try injector.get(Chassis.self) }
        #expect(error?.code == .notBound)
        let problems = error?.underlyingErrors ?? []
        #expect(
            problems.map(\.pathDescription) == [
                "Chassis -> Axle -> Wheel",
                "Chassis -> Axle -> Brakes",
                "Chassis -> any GearBox",
            ])
        #expect(error?.message == "3 bindings are missing: Wheel, Brakes, any GearBox")
        #expect(error?.description.contains("3. no binding for any GearBox") == true)

        // Nothing half-linked was kept: once the bindings exist, the same request succeeds.
        try injector.install(
            ClosureModule { binder in
                binder.bind(Wheel.self).to(Wheel.init)
                binder.bind(Brakes.self).to(Brakes.init)
                binder.bind((any GearBox).self).to(AfterMarketGearBox.init)
            }
        )
        _ = try injector.get(Chassis.self)
    }

    @Test("a missing top-level key has a one-element path")
    func notBoundTopLevel() throws {
        let injector = try Injector()
        let error = #expect(throws: ProvisionError.self) { try injector.get((any GearBox).self, named: "fast") }
        #expect(error?.path == [BindingKey((any GearBox).self, named: "fast")])
        #expect(error?.message == "no binding for any GearBox named \"fast\"")
        #expect(error?.hint.contains("binder.bind((any GearBox).self, named: \"fast\")") == true)
    }

    @Test("a failing constructor is reported with its cause and the path to it")
    func factoryFailed() throws {
        struct Fragile: Sendable {
            init(engine: Engine) throws { throw ExpectedFailure(id: 42) }
        }
        struct Holder: Sendable {
            init(fragile: Fragile) {}
        }
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Engine.self).to(Engine.init)
                binder.bind(Fragile.self).to(Fragile.init(engine:))
                binder.bind(Holder.self).to(Holder.init(fragile:))
            }
        )
        let error = #expect(throws: ProvisionError.self) { try injector.get(Holder.self) }
        #expect(error?.code == .factoryFailed)
        #expect(error?.key == BindingKey(Fragile.self))
        #expect(error?.cause as? ExpectedFailure == ExpectedFailure(id: 42))
        #expect(error?.pathDescription == "Holder -> Fragile")
        #expect(error?.description.contains("cause: ExpectedFailure(id: 42)") == true)
    }

    @Test("a failing closure is reported with its cause; a nested resolve error keeps its own code")
    func closureFailures() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Engine.self).to { _ in throw ExpectedFailure(id: 1) }
                binder.bind(Brakes.self).to { resolver in
                    _ = try resolver.get(Headlight.self)
                    return Brakes()
                }
                binder.bind(Car.self).to(Car.init(engine:brakes:))
            }
        )
        let engineError = #expect(throws: ProvisionError.self) { try injector.get(Engine.self) }
        #expect(engineError?.code == .factoryFailed)
        #expect(engineError?.cause is ExpectedFailure)

        let brakesError = #expect(throws: ProvisionError.self) { try injector.get(Brakes.self) }
        #expect(brakesError?.code == .notBound)
        #expect(brakesError?.pathDescription == "Brakes -> Headlight")

        let carError = #expect(throws: ProvisionError.self) { try injector.get(Car.self) }
        #expect(carError?.code == .factoryFailed)
        #expect(carError?.pathDescription == "Car -> Engine")
    }

    @Test("errors compare by code")
    func equality() throws {
        let injector = try Injector()
        let first = #expect(throws: ProvisionError.self) { try injector.get(Engine.self) }
        let second = #expect(throws: ProvisionError.self) { try injector.get(Brakes.self) }
        #expect(first == second)
        #expect(ProvisionError.Code.notBound != .cycle)
    }

    @Test(
        "keys print in Swift syntax",
        arguments: [
            (BindingKey(Engine.self), "Engine"),
            (BindingKey((any GearBox).self), "any GearBox"),
            (BindingKey((any GearBox & Sendable).self), "any GearBox"),
            (BindingKey(Headlight.self, named: "left"), "Headlight named \"left\""),
            (BindingKey([Int].self), "[Int]"),
            (BindingKey(Int?.self), "Int?"),
            (BindingKey(Any.self), "Any"),
            (BindingKey((any GearBox.Type).self), "any GearBox.Type"),
        ])
    func keyDescriptions(key: BindingKey, expected: String) {
        #expect(key.description == expected)
    }
}
