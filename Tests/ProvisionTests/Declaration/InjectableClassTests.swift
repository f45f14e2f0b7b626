import Synchronization
import Testing

@testable import Provision

// Injectable for class hierarchies: each class of a hierarchy declares its own construction in an
// overridable `class var`, and is built just in time from it.

/// The base class: built from an engine.
private class Vehicle: InjectableClass, @unchecked Sendable {
    class var classInjection: any InjectionDeclaration { Injection(Vehicle.init(engine:)) }

    let engine: Engine
    init(engine: Engine) { self.engine = engine }
}

/// A subclass with a declaration of its own: a singleton, with brakes.
private class Roadster: Vehicle, @unchecked Sendable {
    override class var classInjection: any InjectionDeclaration {
        Injection(Roadster.init(engine:brakes:)).in(.singleton)
    }

    let brakes: Brakes
    init(engine: Engine, brakes: Brakes) {
        self.brakes = brakes
        super.init(engine: engine)
    }
}

/// A subclass of the subclass that declares injected properties too.
private final class RallyRoadster: Roadster, PropertyInjectable, @unchecked Sendable {
    override class var classInjection: any InjectionDeclaration {
        Injection { (engine: Engine, brakes: Brakes) in RallyRoadster(engine: engine, brakes: brakes) }
    }

    // Written once, by the injection, before the car is handed to anyone.
    var spare: Headlight?
    private let hooks = Atomic(0)
    var hookCalls: Int { hooks.load(ordering: .relaxed) }

    static var injectedProperties: [InjectedProperty] { [.inject(\RallyRoadster.spare)] }
    func didInjectDependencies() { hooks.add(1, ordering: .relaxed) }
}

/// A subclass that forgot to declare itself: it inherits Vehicle's declaration.
private final class Forgotten: Vehicle, @unchecked Sendable {}

/// Needs the hierarchy's classes.
private final class Garage: Sendable {
    let vehicle: Vehicle
    let roadster: Roadster
    init(vehicle: Vehicle, roadster: Roadster) {
        self.vehicle = vehicle
        self.roadster = roadster
    }
}

@Suite("InjectableClass")
struct InjectableClassTests {
    private static let parts = ClosureModule { binder in
        binder.bind(Engine.self).to(Engine.init)
        binder.bind(Brakes.self).to(Brakes.init)
        binder.bind(Headlight.self).to { Headlight(brand: "spare") }
    }

    @Test("each class of a hierarchy is built from its own declaration, with its own scope, without a module")
    func eachClassItsOwn() throws {
        let injector = try Injector(Self.parts)
        let vehicle = try injector.get(Vehicle.self)
        #expect(type(of: vehicle) == Vehicle.self)
        #expect(try injector.get(Vehicle.self) !== vehicle, "Vehicle's declaration is transient")
        let roadster = try injector.get(Roadster.self)
        #expect(type(of: roadster) == Roadster.self)
        #expect(try injector.get(Roadster.self) === roadster, "Roadster's declaration is a singleton")
        let rally = try injector.get(RallyRoadster.self)
        #expect(rally.spare?.brand == "spare" && rally.hookCalls == 1, "inherited machinery still injects")
        let garage = try Injector(Self.parts, ClosureModule { $0.bind(Garage.self).to(Garage.init) })
            .get(Garage.self)
        #expect(type(of: garage.vehicle) == Vehicle.self && type(of: garage.roadster) == Roadster.self)
    }

    @Test("a subclass that inherits its superclass's declaration fails at validation and at its request")
    func inheritedDeclaration() throws {
        let injector = try Injector(Self.parts)
        let error = #expect(throws: ProvisionError.self) { try injector.get(Forgotten.self) }
        #expect(error?.code == .typeMismatch)
        #expect(error?.key == BindingKey(Forgotten.self))
        #expect(error?.message.contains("builds Vehicle") == true)
        #expect(error?.hint.contains("override class var classInjection") == true)

        let depending = #expect(throws: ProvisionError.self) {
            try Injector(Self.parts, ClosureModule { $0.bind(String.self).to { (_: Forgotten) in "" } })
        }
        #expect(depending?.code == .validationFailed)
        #expect(depending?.underlyingErrors.map(\.code) == [.typeMismatch])
        #expect(depending?.underlyingErrors.first?.pathDescription == "String -> Forgotten")

        let toSelf = #expect(throws: ProvisionError.self) {
            try Injector(Self.parts, ClosureModule { $0.bind(Forgotten.self).toSelf() })
        }
        #expect(toSelf?.code == .typeMismatch)
    }

    @Test("a module binding beats the declaration; toSelf() changes its scope for one injector")
    func moduleBindingsWin() throws {
        let engine = Engine()
        let injector = try Injector(
            Self.parts,
            ClosureModule { binder in
                binder.bind(Vehicle.self).to { Roadster(engine: engine, brakes: Brakes()) }
                binder.bind(Roadster.self).toSelf().in(.transient)
            }
        )
        #expect(try injector.get(Vehicle.self).engine === engine)
        #expect(try injector.get(Roadster.self) !== injector.get(Roadster.self))
    }

    @Test("a declared singleton requested by 8 threads at once is built once; eager ones at creation")
    func singletonFromThreads() throws {
        for _ in 0..<25 {
            let injector = try Injector(Self.parts)
            let barrier = Barrier(count: 8)
            let seen = Locked<Set<ObjectIdentifier>>([])
            let finished = runThreads(8) { _ in
                barrier.arriveAndWait()
                if let roadster = try? injector.get(Roadster.self) {
                    seen.withLock { _ = $0.insert(ObjectIdentifier(roadster)) }
                }
            }
            #expect(finished)
            #expect(seen.withLock { $0.count } == 1)
        }
        let eager = try Injector(Self.parts, ClosureModule { $0.eager(Roadster.self) })
        #expect(eager.hasBinding(for: Roadster.self))
    }

    @Test("validation follows a declaration's dependencies: a missing one is reported with its path")
    func validationOfDeclarations() throws {
        let error = #expect(throws: ProvisionError.self) {
            try Injector(
                ClosureModule { binder in
                    binder.bind(Engine.self).to(Engine.init)
                    binder.bind(Garage.self).to(Garage.init)
                }
            )
        }
        #expect(error?.underlyingErrors.map(\.pathDescription) == ["Garage -> Roadster -> Brakes"])
    }
}
