import Provision
import Testing

final class SelfDeclaredEngine: Injectable, Sendable {
    static let injection = Injection(SelfDeclaredEngine.init).in(.singleton)
}

final class SelfDeclaredCar: Injectable, Sendable {
    static let injection = Injection(SelfDeclaredCar.init(engine:))
    let engine: SelfDeclaredEngine
    init(engine: SelfDeclaredEngine) { self.engine = engine }
}

class Dashboard: PropertyInjectable {
    var engine: Engine?
    var left: Headlight?
    var hookCalls = 0
    var engineWhenHooked: Engine?

    class var injectedProperties: [InjectedProperty] {
        [.inject(\Dashboard.engine), .inject(\Dashboard.left, named: "left")]
    }

    func didInjectDependencies() {
        hookCalls += 1
        engineWhenHooked = engine
    }
}

final class SportDashboard: Dashboard {
    var brakes: Brakes?
    override class var injectedProperties: [InjectedProperty] {
        super.injectedProperties + [.inject(\SportDashboard.brakes)]
    }
}

struct Labelled: Sendable, Equatable {
    let make: String
    let model: String
}

protocol Plugin: Sendable { var name: String { get } }
struct NamedPlugin: Plugin { let name: String }

@Suite("Feature smoke tests")
struct FeatureSmokeTests {
    @Test("self-declared types resolve with no module, singleton scope honoured")
    func justInTime() throws {
        let injector = try Injector()
        let car = try injector.get(SelfDeclaredCar.self)
        let other = try injector.get(SelfDeclaredCar.self)
        #expect(car !== other)
        #expect(car.engine === other.engine)
    }

    @Test("providers, lazies and factories resolve from their injector")
    func handles() throws {
        let built = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Engine.self).to { _ in
                    built.increment()
                    return Engine()
                }
            }
        )
        let provider = try injector.get(Provider<Engine>.self)
        #expect(built.value == 0)
        #expect(try provider.get() !== provider.get())
        let lazy = try injector.get(Lazy<Engine>.self)
        #expect(built.value == 2)
        #expect(try lazy.value === lazy.value)
        #expect(built.value == 3)
        let factory = try injector.get(ObjectFactory.self)
        _ = try factory.get(Engine.self)
        #expect(built.value == 4)
    }

    @Test("property injection fills declared and inherited properties and calls the hook once")
    func properties() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Engine.self).to(Engine.init)
                binder.bind(Brakes.self).to(Brakes.init)
                binder.bind(Headlight.self, named: "left").to { _ in Headlight(brand: "L") }
                binder.bind(SportDashboard.self).to(SportDashboard.init)
            }
        )
        let built = try injector.get(SportDashboard.self)
        #expect(built.engine != nil && built.brakes != nil && built.left?.brand == "L")
        #expect(built.hookCalls == 1)
        #expect(built.engineWhenHooked === built.engine)

        let existing = Dashboard()
        let keep = Headlight(brand: "mine")
        existing.left = keep
        try injector.injectDependencies(into: existing, onlyIfNil: true)
        #expect(existing.left === keep)
        #expect(existing.engine != nil)
        try injector.injectDependencies(into: existing)
        #expect(existing.left !== keep)
        #expect(existing.hookCalls == 2)
    }

    @Test("arguments: typed, defaults, mismatch")
    func arguments() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Labelled.self).withArguments(String.self, String.self)
                    .to { _, make, model in Labelled(make: make, model: model) }
                    .defaults("VW", "Golf")
            }
        )
        #expect(try injector.get(Labelled.self, arguments: "VW", "Passat") == Labelled(make: "VW", model: "Passat"))
        #expect(try injector.get(Labelled.self) == Labelled(make: "VW", model: "Golf"))
        let error = #expect(throws: ProvisionError.self) { try injector.get(Labelled.self, arguments: "VW", 3) }
        #expect(error?.code == .argumentMismatch)
        #expect(error?.message.contains("(String, String)") == true)
        #expect(error?.message.contains("(String, Int)") == true)
    }

    @Test("multibindings collect elements across modules in order")
    func multibindings() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.multibind((any Plugin).self).toInstance(NamedPlugin(name: "a"))
                binder.multibind((any Plugin).self).to { _ in NamedPlugin(name: "b") }
            },
            ClosureModule { binder in
                binder.multibind((any Plugin).self).toInstance(NamedPlugin(name: "c"))
            }
        )
        #expect(try injector.getAll((any Plugin).self).map(\.name) == ["a", "b", "c"])
        #expect(try injector.get([any Plugin].self).count == 3)
        #expect(try injector.getAll(Engine.self).isEmpty)
    }

    @Test("eager singletons are built at creation; a non-singleton eager key is an error")
    func eager() throws {
        let built = Counter()
        _ = try Injector(
            ClosureModule { binder in
                binder.bind(Engine.self).to { _ in
                    built.increment()
                    return Engine()
                }.asEagerSingleton()
            }
        )
        #expect(built.value == 1)
        let error = #expect(throws: ProvisionError.self) {
            try Injector(
                ClosureModule { binder in
                    binder.bind(Car.self).to(Car.init(engine:brakes:))
                    binder.eager(Car.self)
                }
            )
        }
        #expect(error?.code == .validationFailed)
        let eager = error?.underlyingErrors.first { $0.code == .eagerNotSingleton }
        #expect(eager?.message.contains("Car") == true)
    }

    @Test("derived and child injectors")
    func derivation() throws {
        let base = try Injector(ClosureModule { $0.bind(Engine.self).to(Engine.init).in(.singleton) })
        let derived = try base.with(ClosureModule { $0.bind(Brakes.self).to(Brakes.init) })
        #expect(!base.hasBinding(for: Brakes.self))
        #expect(derived.hasBinding(for: Brakes.self))
        #expect(try derived.get(Engine.self) !== base.get(Engine.self))
        let removed = try derived.without(ClosureModule.self)
        #expect(!removed.hasBinding(for: Engine.self))
        let child = try base.makeChild(ClosureModule { $0.bind(Brakes.self).to(Brakes.init) })
        #expect(try child.get(Engine.self) === base.get(Engine.self))
        _ = try child[Brakes.self]
        #expect(!base.hasBinding(for: Brakes.self))
    }

    @Test("checked instances, delegating bindings and toSelf")
    func bindingForms() throws {
        let error = #expect(throws: ProvisionError.self) {
            try Injector(ClosureModule { $0.bind((any GearBox).self).toInstance(checking: "sneaky") })
        }
        #expect(error?.code == .typeMismatch)
        #expect(error?.message.contains("String") == true)
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(AfterMarketGearBox.self).to(AfterMarketGearBox.init)
                binder.bind((any GearBox).self).to(binding: AfterMarketGearBox.self).in(.singleton)
                binder.bind(SelfDeclaredCar.self).toSelf().in(.singleton)
            }
        )
        #expect(try injector.get((any GearBox).self).gears == 6)
        #expect(try injector.get(SelfDeclaredCar.self) === injector.get(SelfDeclaredCar.self))
        try DefaultInjectorSlot.with(injector) {
            #expect(Injector.default === injector)
        }
    }
}
