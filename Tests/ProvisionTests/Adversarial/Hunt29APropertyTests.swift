import Dispatch
import Testing

@testable import Provision

// Hunt 29A: which objects get their properties (ComingFromObjection, "Which objects get their
// properties"), injection by the object's own class, arguments forwarded through class bindings,
// children and overriding.

protocol Hunt29AVehicle: AnyObject, Sendable {}

class Hunt29AVehicleBase: PropertyInjectable, @unchecked Sendable {
    var engine: Hunt29AEngine?
    private let queue = DispatchQueue(label: "Hunt29AVehicleBase")
    private var calls = 0
    var hookCalls: Int { queue.sync { calls } }
    required init() {}
    class var injectedProperties: [InjectedProperty] { [.inject(\Hunt29AVehicleBase.engine)] }
    func didInjectDependencies() { queue.sync { calls += 1 } }
}

final class Hunt29ASportsCar: Hunt29AVehicleBase, Hunt29AVehicle, @unchecked Sendable {
    var brakes: Hunt29ABrakes?
    override class var injectedProperties: [InjectedProperty] {
        super.injectedProperties + [.inject(\Hunt29ASportsCar.brakes)]
    }
}

class Hunt29AProcessor: @unchecked Sendable {
    let number: String?
    init(number: String?) { self.number = number }
}

final class Hunt29AVisaProcessor: Hunt29AProcessor, @unchecked Sendable {
    let engine: Hunt29AEngine
    init(engine: Hunt29AEngine, number: String) {
        self.engine = engine
        super.init(number: number)
    }
}

final class Hunt29AUsesProvider: Sendable {
    let engines: Provider<Hunt29AEngine>
    init(engines: Provider<Hunt29AEngine>) { self.engines = engines }
}

@Suite("Hunt29A: property injection and class bindings")
struct Hunt29APropertyTests {
    static let base = ClosureModule { binder in
        binder.bind(Hunt29AEngine.self).to(Hunt29AEngine.init)
        binder.bind(Hunt29ABrakes.self).to(Hunt29ABrakes.init)
    }

    // Documented: "`bind((any Vehicle).self).to { Car() }` ... set: the instance is a `Car`".
    @Test func protocolKeyZeroArityConstructorInjectsTheInstance() throws {
        let injector = try Injector(
            Self.base, ClosureModule { $0.bind((any Hunt29AVehicle).self).to { Hunt29ASportsCar() } })
        let vehicle = try injector.get((any Hunt29AVehicle).self)
        let car = try #require(vehicle as? Hunt29ASportsCar)
        #expect(car.engine != nil)
        #expect(car.brakes != nil)
        #expect(car.hookCalls == 1)
    }

    // Documented: "`bind(Vehicle.self).to { SportsCar() }`, a class key | set when `SportsCar`
    // declares properties" — by its own class, so the subclass's brakes too.
    @Test func classKeySubclassInstanceIsInjectedByItsOwnClass() throws {
        let injector = try Injector(
            Self.base, ClosureModule { $0.bind(Hunt29AVehicleBase.self).to { Hunt29ASportsCar() } })
        let vehicle = try injector.get(Hunt29AVehicleBase.self)
        let car = try #require(vehicle as? Hunt29ASportsCar)
        #expect(car.engine != nil)
        #expect(car.brakes != nil)
        #expect(car.hookCalls == 1)
    }

    // Documented: "`to { resolver in ... }` ... left as they are".
    @Test func resolverClosureResultIsLeftAsItIs() throws {
        let injector = try Injector(
            Self.base, ClosureModule { $0.bind((any Hunt29AVehicle).self).to { _ in Hunt29ASportsCar() } })
        let car = try #require(try injector.get((any Hunt29AVehicle).self) as? Hunt29ASportsCar)
        #expect(car.engine == nil)
        #expect(car.hookCalls == 0)
    }

    // Documented: "`to(binding: Car.self)` | the target built and injected it; not injected again".
    @Test func delegationInjectsOnce() throws {
        let injector = try Injector(
            Self.base,
            ClosureModule { binder in
                binder.bind(Hunt29ASportsCar.self).to(Hunt29ASportsCar.init)
                binder.bind((any Hunt29AVehicle).self).to(binding: Hunt29ASportsCar.self)
                binder.bind(Hunt29AVehicleBase.self).to(binding: Hunt29ASportsCar.self).in(.singleton)
            })
        let car = try #require(try injector.get((any Hunt29AVehicle).self) as? Hunt29ASportsCar)
        #expect(car.hookCalls == 1)
        #expect(car.brakes != nil)
        let single = try injector.get(Hunt29AVehicleBase.self)
        #expect(single.hookCalls == 1)
        #expect(single === (try injector.get(Hunt29AVehicleBase.self)))
    }

    // B-OBJ-15: injectDependencies into an object whose static type is its superclass: Objection
    // applies the requirements of the object's class (FiveSpeedCar's gearBox too).
    @Test func injectIntoSubclassThroughSuperclassReference() throws {
        let injector = try Injector(Self.base)
        let vehicle: Hunt29AVehicleBase = Hunt29ASportsCar()
        try injector.injectDependencies(into: vehicle)
        let car = try #require(vehicle as? Hunt29ASportsCar)
        #expect(car.engine != nil)
        #expect(car.brakes != nil)
        #expect(car.hookCalls == 1)
    }

    // Singleton with properties raced by threads: injected once, before it is published.
    @Test func singletonWithPropertiesRace() throws {
        let injector = try Injector(
            Self.base, ClosureModule { $0.bind(Hunt29ASportsCar.self).to(Hunt29ASportsCar.init).in(.singleton) })
        let threads = 8
        let start = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        let results = Hunt29AResults<Hunt29ASportsCar>()
        for _ in 0..<threads {
            group.enter()
            DispatchQueue.global().async {
                defer { group.leave() }
                guard start.wait(timeout: .now() + 10) == .success else { return }
                results.add(
                    Result {
                        let car = try injector.get(Hunt29ASportsCar.self)
                        // Published only after injection: every thread sees it complete.
                        guard car.engine != nil, car.brakes != nil, car.hookCalls == 1 else {
                            throw Hunt29AFailure(depth: -1)
                        }
                        return car
                    })
            }
        }
        for _ in 0..<threads { start.signal() }
        #expect(group.wait(timeout: .now() + 10) == .success)
        let values = results.values
        #expect(values.count == threads)
        let first = try values[0].get()
        for value in values { #expect(try value.get() === first) }
        #expect(first.hookCalls == 1)
    }

    // B-OBJ-21: a subclass bound to its superclass; the request's arguments reach the target.
    @Test func argumentsForwardedThroughClassBinding() throws {
        let injector = try Injector(
            Self.base,
            ClosureModule { binder in
                binder.bind(Hunt29AVisaProcessor.self).withArguments(String.self).to { resolver, number in
                    Hunt29AVisaProcessor(engine: try resolver.get(Hunt29AEngine.self), number: number)
                }
                binder.bind(Hunt29AProcessor.self).to(binding: Hunt29AVisaProcessor.self)
            })
        let processor = try injector.get(Hunt29AProcessor.self, arguments: "12414")
        #expect(processor is Hunt29AVisaProcessor)
        #expect(processor.number == "12414")
        let missing = #expect(throws: ProvisionError.self) { try injector.get(Hunt29AProcessor.self) }
        #expect(missing?.code == .argumentMismatch)
    }

    // Q1: a Provider made in a derived or child injector resolves there.
    @Test func providerResolvesInItsOwnInjector() throws {
        let module = ClosureModule { binder in
            binder.bind(Hunt29AEngine.self).to(Hunt29AEngine.init).in(.singleton)
            binder.bind(Hunt29AUsesProvider.self).to(Hunt29AUsesProvider.init(engines:))
        }
        let parent = try Injector(module)
        let derived = try parent.with(ClosureModule { _ in })
        let fromParent = try parent.get(Hunt29AUsesProvider.self).engines.get()
        let fromDerived = try derived.get(Hunt29AUsesProvider.self).engines.get()
        #expect(fromParent === (try parent.get(Hunt29AEngine.self)))
        #expect(fromDerived === (try derived.get(Hunt29AEngine.self)))
        #expect(fromParent !== fromDerived)
        // A child shares its parent's singletons.
        let child = try parent.makeChild(ClosureModule { _ in })
        #expect(try child.get(Hunt29AEngine.self) === fromParent)
        #expect(try child.get(Hunt29AUsesProvider.self).engines.get() === fromParent)
    }

    // overriding: replaced bindings take effect, other singletons are shared.
    @Test func overridingSharesUnaffectedSingletons() throws {
        let module = ClosureModule { binder in
            binder.bind(Hunt29AEngine.self).to(Hunt29AEngine.init).in(.singleton)
            binder.bind(Hunt29ABrakes.self).to(Hunt29ABrakes.init).in(.singleton)
            binder.bind(Hunt29AStore.self).to(Hunt29AStore.init(db:)).in(.singleton)
            binder.bind((any Hunt29ADB).self).to(Hunt29APostgres.init).in(.singleton)
        }
        let injector = try Injector(module)
        let engine = try injector.get(Hunt29AEngine.self)
        let store = try injector.get(Hunt29AStore.self)
        let fake = Hunt29APostgres()
        let testing = try injector.overriding { binder in
            binder.override((any Hunt29ADB).self).toInstance(fake)
        }
        #expect(try testing.get(Hunt29AEngine.self) === engine)
        let testStore = try testing.get(Hunt29AStore.self)
        #expect(testStore !== store)
        #expect(testStore.db === fake)
        #expect(try injector.get(Hunt29AStore.self) === store)
    }

    // Errors through property injection below constructor injection: the path goes through both.
    @Test func missingPropertyBelowConstructor() throws {
        final class Garage: Sendable {
            let car: Hunt29ASportsCar
            init(car: Hunt29ASportsCar) { self.car = car }
        }
        let module = ClosureModule { binder in
            binder.bind(Hunt29AEngine.self).to(Hunt29AEngine.init)
            binder.bind(Hunt29ASportsCar.self).to(Hunt29ASportsCar.init)
            binder.bind(Garage.self).to(Garage.init(car:))
        }
        let injector = try Injector(
            modules: [module], configuration: Injector.Configuration(validatesOnCreation: false))
        let error = #expect(throws: ProvisionError.self) { try injector.get(Garage.self) }
        #expect(error?.code == .notBound)
        #expect(
            error?.path == [BindingKey(Garage.self), BindingKey(Hunt29ASportsCar.self), BindingKey(Hunt29ABrakes.self)])
        let creation = #expect(throws: ProvisionError.self) { try Injector(module) }
        #expect(creation?.underlyingErrors.first?.path.last == BindingKey(Hunt29ABrakes.self))
    }

    // B-OBI-05 with named properties and an optional binding that gives nil.
    @Test func onlyIfNilWithNamedAndNil() throws {
        final class Dash: PropertyInjectable {
            var left: Hunt29AEngine?
            var right: Hunt29AEngine?
            var spare: Hunt29ABrakes?
            var hooks = 0
            init() {}
            static var injectedProperties: [InjectedProperty] {
                [
                    .inject(\Dash.left, named: "left"), .inject(\Dash.right, named: "right"),
                    .inject(\Dash.spare),
                ]
            }
            func didInjectDependencies() { hooks += 1 }
        }
        let left = Hunt29AEngine()
        let right = Hunt29AEngine()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29AEngine.self, named: "left").toInstance(left)
                binder.bind(Hunt29AEngine.self, named: "right").toInstance(right)
                binder.bind(Hunt29ABrakes?.self).to { _ -> Hunt29ABrakes? in nil }
            })
        let dash = Dash()
        let mine = Hunt29AEngine()
        dash.left = mine
        dash.spare = Hunt29ABrakes()
        try injector.injectDependencies(into: dash, onlyIfNil: true)
        #expect(dash.left === mine)
        #expect(dash.right === right)
        #expect(dash.spare != nil)
        #expect(dash.hooks == 1)
        try injector.injectDependencies(into: dash)
        #expect(dash.left === left)
        #expect(dash.spare == nil)
        #expect(dash.hooks == 2)
    }
}
