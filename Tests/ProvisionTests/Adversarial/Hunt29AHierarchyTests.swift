import Dispatch
import Testing

@testable import Provision

// Hunt 29A: class hierarchies declared with InjectableClass (Objection's registered Car and
// FiveSpeedCar), B-OBJ-26 promote/demote, property cycles broken by a Lazy, named properties missing,
// and a failed shared singleton seen from two request paths on two threads.

class Hunt29AHVehicle: InjectableClass, PropertyInjectable, @unchecked Sendable {
    class var classInjection: any InjectionDeclaration { Injection(Hunt29AHVehicle.init(engine:)) }
    let engine: Hunt29AEngine
    var brakes: Hunt29ABrakes?
    var hooks = 0
    init(engine: Hunt29AEngine) { self.engine = engine }
    class var injectedProperties: [InjectedProperty] { [.inject(\Hunt29AHVehicle.brakes)] }
    func didInjectDependencies() { hooks += 1 }
}

final class Hunt29AHCar: Hunt29AHVehicle, @unchecked Sendable {
    override class var classInjection: any InjectionDeclaration {
        Injection(Hunt29AHCar.init(engine:)).in(.singleton)
    }
    var gearBox: (any Hunt29AGearBox)?
    override class var injectedProperties: [InjectedProperty] {
        super.injectedProperties + [.inject(\Hunt29AHCar.gearBox)]
    }
}

final class Hunt29ALazyFoo: PropertyInjectable, @unchecked Sendable {
    var bar: Hunt29ALazyBar?
    init() {}
    static var injectedProperties: [InjectedProperty] { [.inject(\Hunt29ALazyFoo.bar)] }
}

final class Hunt29ALazyBar: PropertyInjectable, @unchecked Sendable {
    var foo: Lazy<Hunt29ALazyFoo>?
    init() {}
    static var injectedProperties: [InjectedProperty] { [.inject(\Hunt29ALazyBar.foo)] }
}

final class Hunt29AShared: Sendable {
    init(db: any Hunt29ADB) {}
}

final class Hunt29ARootOne: Sendable {
    init(shared: Hunt29AShared) {}
}

final class Hunt29ARootTwo: Sendable {
    init(shared: Hunt29AShared) {}
}

@Suite("Hunt29A: hierarchies and shared failures")
struct Hunt29AHierarchyTests {
    static let parts = ClosureModule { binder in
        binder.bind(Hunt29AEngine.self).to(Hunt29AEngine.init)
        binder.bind(Hunt29ABrakes.self).to(Hunt29ABrakes.init)
        binder.bind((any Hunt29AGearBox).self).to(Hunt29AAfterMarketGearBox.init)
    }

    // InjectableClass: each class of the hierarchy its own declaration, properties inherited.
    @Test func hierarchyJustInTime() throws {
        let injector = try Injector(Self.parts)
        let vehicle = try injector.get(Hunt29AHVehicle.self)
        #expect(type(of: vehicle) == Hunt29AHVehicle.self)
        #expect(vehicle.brakes != nil)
        #expect(vehicle.hooks == 1)
        #expect(try injector.get(Hunt29AHVehicle.self) !== vehicle)
        let car = try injector.get(Hunt29AHCar.self)
        #expect(car.gearBox != nil)
        #expect(car.brakes != nil)
        #expect(car.hooks == 1)
        #expect(try injector.get(Hunt29AHCar.self) === car)
    }

    // B-OBJ-26: a module demotes a declared singleton, for one injector only, and promotes a transient.
    @Test func promoteAndDemote() throws {
        let demoted = try Injector(Self.parts, ClosureModule { $0.bind(Hunt29AHCar.self).toSelf().in(.transient) })
        let a = try demoted.get(Hunt29AHCar.self)
        let b = try demoted.get(Hunt29AHCar.self)
        #expect(a !== b)
        #expect(a.gearBox != nil && a.hooks == 1)
        let promoted = try Injector(Self.parts, ClosureModule { $0.bind(Hunt29AHVehicle.self).toSelf().in(.singleton) })
        let v = try promoted.get(Hunt29AHVehicle.self)
        #expect(v === (try promoted.get(Hunt29AHVehicle.self)))
        #expect(v.hooks == 1)
        let plain = try Injector(Self.parts)
        #expect(try plain.get(Hunt29AHCar.self) === plain.get(Hunt29AHCar.self))
    }

    // B-OBJ-21 with a hierarchy: the superclass key bound to the subclass's own binding.
    @Test func superclassBoundToSubclass() throws {
        let injector = try Injector(
            Self.parts, ClosureModule { $0.bind(Hunt29AHVehicle.self).to(binding: Hunt29AHCar.self) })
        let vehicle = try injector.get(Hunt29AHVehicle.self)
        let car = try #require(vehicle as? Hunt29AHCar)
        #expect(car === (try injector.get(Hunt29AHCar.self)))
        #expect(car.hooks == 1)
        #expect(car.gearBox != nil)
    }

    // B-OBJ-40 (different): "put a Lazy or Provider on one edge instead" — a property cycle broken by
    // a Lazy property resolves, between singletons.
    @Test func propertyCycleBrokenByLazy() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29ALazyFoo.self).to(Hunt29ALazyFoo.init).in(.singleton)
                binder.bind(Hunt29ALazyBar.self).to(Hunt29ALazyBar.init).in(.singleton)
            })
        let foo = try injector.get(Hunt29ALazyFoo.self)
        let bar = try #require(foo.bar)
        #expect(bar === (try injector.get(Hunt29ALazyBar.self)))
        let lazy = try #require(bar.foo)
        #expect(try lazy.value === foo)
    }

    // B-OBJ-10: a named property whose name is not bound: notBound naming the key with its name.
    @Test func missingNamedProperty() throws {
        final class Lamp: PropertyInjectable {
            var left: Hunt29AEngine?
            init() {}
            static var injectedProperties: [InjectedProperty] { [.inject(\Lamp.left, named: "LeftHeadlight")] }
        }
        let injector = try Injector(ClosureModule { $0.bind(Hunt29AEngine.self).to(Hunt29AEngine.init) })
        let lamp = Lamp()
        let error = #expect(throws: ProvisionError.self) { try injector.injectDependencies(into: lamp) }
        #expect(error?.code == .notBound)
        #expect(error?.key == BindingKey(Hunt29AEngine.self, named: "LeftHeadlight"))
        #expect(error?.pathDescription.hasSuffix("Hunt29AEngine named \"LeftHeadlight\"") == true)
        #expect(lamp.left == nil)
    }

    // A shared singleton fails while two roots on two threads need it: each thread's error has its own
    // path ("each waiter that inherits it gets a copy of its own").
    @Test func sharedFailureKeepsEachPath() throws {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let counter = Hunt29ACounter()
        let module = ClosureModule { binder in
            binder.bind(Hunt29ARootOne.self).to(Hunt29ARootOne.init(shared:))
            binder.bind(Hunt29ARootTwo.self).to(Hunt29ARootTwo.init(shared:))
            binder.bind(Hunt29AShared.self).to { resolver in
                if counter.next() == 1 {
                    entered.signal()
                    _ = release.wait(timeout: .now() + 10)
                }
                return Hunt29AShared(db: try resolver.get((any Hunt29ADB).self))
            }.in(.singleton)
        }
        let injector = try Injector(
            modules: [module], configuration: Injector.Configuration(validatesOnCreation: false))
        let one = Hunt29AResults<String>()
        let two = Hunt29AResults<String>()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            defer { group.leave() }
            one.add(.success(Hunt29ARun.path { try injector.get(Hunt29ARootOne.self) } ?? "none"))
        }
        #expect(entered.wait(timeout: .now() + 10) == .success)
        let started = DispatchSemaphore(value: 0)
        group.enter()
        DispatchQueue.global().async {
            defer { group.leave() }
            started.signal()
            two.add(.success(Hunt29ARun.path { try injector.get(Hunt29ARootTwo.self) } ?? "none"))
        }
        #expect(started.wait(timeout: .now() + 10) == .success)
        release.signal()
        #expect(group.wait(timeout: .now() + 10) == .success)
        #expect(try one.values.first?.get() == "Hunt29ARootOne -> Hunt29AShared -> any Hunt29ADB")
        #expect(try two.values.first?.get() == "Hunt29ARootTwo -> Hunt29AShared -> any Hunt29ADB")
    }
}
