import Dispatch
import Testing

@testable import Provision

// Hunt 29A: seed behaviours B-OBJ-01..B-OBJ-34, written as a user porting an Objective-C app would
// write them (types and key paths, thrown errors instead of nil).

protocol Hunt29ADB: AnyObject, Sendable {}

final class Hunt29APostgres: Hunt29ADB {}

final class Hunt29AStore: Sendable {
    let db: any Hunt29ADB
    init(db: any Hunt29ADB) { self.db = db }
}

final class Hunt29AApp: Sendable {
    let store: Hunt29AStore
    init(store: Hunt29AStore) { self.store = store }
}

final class Hunt29ACounter: @unchecked Sendable {
    private let queue = DispatchQueue(label: "Hunt29ACounter")
    private var count = 0
    func next() -> Int {
        queue.sync {
            count += 1
            return count
        }
    }
    var value: Int { queue.sync { count } }
}

final class Hunt29AEngine: Sendable {}
final class Hunt29ABrakes: Sendable {}

protocol Hunt29AGearBox: AnyObject, Sendable {}
final class Hunt29AAfterMarketGearBox: Hunt29AGearBox {}

class Hunt29ACar: PropertyInjectable {
    var engine: Hunt29AEngine?
    var brakes: Hunt29ABrakes?
    var hooks = 0
    required init() {}
    class var injectedProperties: [InjectedProperty] {
        [.inject(\Hunt29ACar.engine), .inject(\Hunt29ACar.brakes)]
    }
    func didInjectDependencies() { hooks += 1 }
}

final class Hunt29AFiveSpeedCar: Hunt29ACar {
    var gearBox: (any Hunt29AGearBox)?
    override class var injectedProperties: [InjectedProperty] {
        super.injectedProperties + [.inject(\Hunt29AFiveSpeedCar.gearBox)]
    }
}

struct Hunt29AFirstModule: Module {
    func configure(_ binder: Binder) {
        binder.bind(Hunt29AEngine.self).to(Hunt29AEngine.init)
        binder.bind(Hunt29ABrakes.self).to(Hunt29ABrakes.init)
        binder.bind(Hunt29ACar.self).to(Hunt29ACar.init)
    }
}

struct Hunt29ASecondModule: Module {
    let gearBox: Hunt29AAfterMarketGearBox
    func configure(_ binder: Binder) {
        binder.bind((any Hunt29AGearBox).self).toInstance(gearBox)
    }
}

struct Hunt29AProviderModule: Module {
    func configure(_ binder: Binder) {
        binder.override(Hunt29ACar.self).to { resolver in
            let car = Hunt29AFiveSpeedCar()
            try resolver.injectDependencies(into: car)
            return car
        }
    }
}

@Suite("Hunt29A: Objection core behaviours")
struct Hunt29AObjectionCoreTests {
    static let unvalidated = Injector.Configuration(validatesOnCreation: false)

    // B-OBJ-11 / B-OBJ-05: a missing binding is thrown, with the path in Swift syntax and a hint.
    @Test func missingBindingNamesThePathInSwiftSyntax() throws {
        let module = ClosureModule { binder in
            binder.bind(Hunt29AApp.self).to(Hunt29AApp.init(store:))
            binder.bind(Hunt29AStore.self).to(Hunt29AStore.init(db:))
        }
        let injector = try Injector(modules: [module], configuration: Self.unvalidated)
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt29AApp.self) }
        #expect(error?.code == .notBound)
        #expect(error?.pathDescription == "Hunt29AApp -> Hunt29AStore -> any Hunt29ADB")
        #expect(error?.key == BindingKey((any Hunt29ADB).self))
        #expect(error?.hint.isEmpty == false)
        let text = error.map { String(describing: $0) } ?? ""
        #expect(text.contains("path: Hunt29AApp -> Hunt29AStore -> any Hunt29ADB"))
        #expect(text.contains("hint: "))
        // The optional request is nil (B-OBJ-05), the plain one throws.
        #expect(try injector.get((any Hunt29ADB)?.self) == nil)
        // Validation on creation reports the same path.
        let creation = #expect(throws: ProvisionError.self) { try Injector(module) }
        #expect(creation?.code == .validationFailed)
        #expect(creation?.underlyingErrors.first?.pathDescription == "Hunt29AApp -> Hunt29AStore -> any Hunt29ADB")
    }

    // B-OBJ-11: a missing protocol property fails the build with the property's key in the path.
    @Test func missingProtocolPropertyFailsWithPath() throws {
        let module = ClosureModule { binder in
            Hunt29AFirstModule().configure(binder)
            binder.bind(Hunt29AFiveSpeedCar.self).to(Hunt29AFiveSpeedCar.init)
        }
        let injector = try Injector(modules: [module], configuration: Self.unvalidated)
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt29AFiveSpeedCar.self) }
        #expect(error?.code == .notBound)
        #expect(error?.pathDescription == "Hunt29AFiveSpeedCar -> any Hunt29AGearBox")
        // A second request fails again: nothing half-built was cached (quirk Q4).
        let again = #expect(throws: ProvisionError.self) { try injector.get(Hunt29AFiveSpeedCar.self) }
        #expect(again?.code == .notBound)
    }

    // B-OBJ-01 / B-OBJ-28: modules are configured in order; a later module replaces only with override.
    @Test func laterModuleOverrideWinsAndDuplicateIsAnError() throws {
        let gearBox = Hunt29AAfterMarketGearBox()
        let injector = try Injector(
            Hunt29AFirstModule(), Hunt29ASecondModule(gearBox: gearBox), Hunt29AProviderModule())
        let car = try injector.get(Hunt29ACar.self)
        let five = try #require(car as? Hunt29AFiveSpeedCar)
        #expect(five.gearBox === gearBox)
        #expect(five.engine != nil && five.brakes != nil)
        #expect(five.hooks == 1)
        // Without override, a second module binding the same key is an error naming both.
        let duplicate = ClosureModule { $0.bind(Hunt29ACar.self).to(Hunt29ACar.init) }
        let error = #expect(throws: ProvisionError.self) { try Injector(Hunt29AFirstModule(), duplicate) }
        #expect(error?.code == .duplicateBinding)
    }

    // B-OBJ-07 / B-OBJ-08: transient is new each time; a singleton is per injector.
    @Test func singletonIsPerInjector() throws {
        let counter = Hunt29ACounter()
        let module = ClosureModule { binder in
            binder.bind(Hunt29AEngine.self).to { _ in
                _ = counter.next()
                return Hunt29AEngine()
            }.in(.singleton)
            binder.bind(Hunt29ABrakes.self).to(Hunt29ABrakes.init)
        }
        let first = try Injector(module)
        let second = try Injector(module)
        #expect(try first.get(Hunt29AEngine.self) === first.get(Hunt29AEngine.self))
        #expect(try first.get(Hunt29AEngine.self) !== second.get(Hunt29AEngine.self))
        #expect(try first.get(Hunt29ABrakes.self) !== first.get(Hunt29ABrakes.self))
        #expect(counter.value == 2)
    }

    // B-OBJ-15 / B-OBI-05 / B-OBI-06: inject into an existing object; overwrite by default, nil-only on
    // request; the hook runs every time.
    @Test func injectIntoExistingObject() throws {
        let injector = try Injector(Hunt29AFirstModule())
        let car = Hunt29ACar()
        let engine = Hunt29AEngine()
        car.engine = engine
        try injector.injectDependencies(into: car)
        #expect(car.engine !== engine)
        #expect(car.brakes != nil)
        #expect(car.hooks == 1)
        let kept = try #require(car.engine)
        let brakes = try #require(car.brakes)
        try injector.injectDependencies(into: car, onlyIfNil: true)
        #expect(car.engine === kept)
        #expect(car.brakes === brakes)
        #expect(car.hooks == 2)
    }

    // B-OBJ-16: the subscript is get.
    @Test func subscriptIsGet() throws {
        let injector = try Injector(Hunt29AFirstModule())
        let car = try injector[Hunt29ACar.self]
        #expect(car.engine != nil)
        let error = #expect(throws: ProvisionError.self) { try injector[Hunt29AStore.self] }
        #expect(error?.code == .notBound)
        #expect(error?.pathDescription == "Hunt29AStore")
    }

    // B-OBJ-18: an instance bound to a protocol, checked; the dynamic path rejects a non-conforming value.
    @Test func instanceToProtocolChecking() throws {
        let gearBox = Hunt29AAfterMarketGearBox()
        let ok = try Injector(ClosureModule { $0.bind((any Hunt29AGearBox).self).toInstance(checking: gearBox) })
        #expect(try ok.get((any Hunt29AGearBox).self) === gearBox)
        let error = #expect(throws: ProvisionError.self) {
            try Injector(ClosureModule { $0.bind((any Hunt29AGearBox).self).toInstance(checking: "sneaky") })
        }
        #expect(error?.code == .typeMismatch || error?.underlyingErrors.first?.code == .typeMismatch)
    }

    // B-OBJ-20: a class bound to a protocol reuses the class's binding, with the protocol binding's
    // scope layered on top.
    @Test func classToProtocolLayersScope() throws {
        let counter = Hunt29ACounter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29AAfterMarketGearBox.self).to { _ in
                    _ = counter.next()
                    return Hunt29AAfterMarketGearBox()
                }
                binder.bind((any Hunt29AGearBox).self).to(binding: Hunt29AAfterMarketGearBox.self).in(.singleton)
            })
        let a = try injector.get((any Hunt29AGearBox).self)
        let b = try injector.get((any Hunt29AGearBox).self)
        #expect(a === b)
        #expect(try injector.get(Hunt29AAfterMarketGearBox.self) !== a)
        #expect(counter.value == 2)
    }

    // B-OBJ-24: an eager singleton is built when the injector is created; eager on a transient fails.
    @Test func eagerSingletons() throws {
        let counter = Hunt29ACounter()
        let module = ClosureModule { binder in
            binder.bind(Hunt29AEngine.self).to { _ in
                _ = counter.next()
                return Hunt29AEngine()
            }.in(.singleton)
            binder.eager(Hunt29AEngine.self)
        }
        let injector = try Injector(module)
        #expect(counter.value == 1)
        _ = try injector.get(Hunt29AEngine.self)
        #expect(counter.value == 1)
        // B-OBJ-30: a derived injector builds its own eager singletons.
        _ = try injector.with(ClosureModule { _ in })
        #expect(counter.value == 2)

        let transient = ClosureModule { binder in
            binder.bind(Hunt29ABrakes.self).to(Hunt29ABrakes.init)
            binder.eager(Hunt29ABrakes.self)
        }
        let error = #expect(throws: ProvisionError.self) { try Injector(transient) }
        let codes = [error?.code] + (error?.underlyingErrors.map(\.code) ?? [])
        #expect(codes.contains(.eagerNotSingleton))
        // An instance binding counts as a singleton.
        let instance = ClosureModule { binder in
            binder.bind(Hunt29ABrakes.self).toInstance(Hunt29ABrakes())
            binder.eager(Hunt29ABrakes.self)
        }
        _ = try Injector(instance)
    }

    // B-OBJ-30 / B-OBJ-31: derive with and without modules.
    @Test func deriveWithAndWithout() throws {
        let gearBox = Hunt29AAfterMarketGearBox()
        let base = try Injector(Hunt29AFirstModule(), Hunt29ASecondModule(gearBox: gearBox))
        #expect(!(try base.get(Hunt29ACar.self) is Hunt29AFiveSpeedCar))
        let derived = try base.with(Hunt29AProviderModule())
        #expect(try derived.get(Hunt29ACar.self) is Hunt29AFiveSpeedCar)
        #expect(!(try base.get(Hunt29ACar.self) is Hunt29AFiveSpeedCar))
        let stripped = try derived.without(Hunt29ASecondModule.self, Hunt29AProviderModule.self)
        #expect(try stripped.get((any Hunt29AGearBox)?.self) == nil)
        #expect(!(try stripped.get(Hunt29ACar.self) is Hunt29AFiveSpeedCar))
        #expect(stripped.modules.count == 1)
        #expect(derived.modules.count == 3)
    }

    // B-OBJ-33 / Q1: the object factory of a derived injector resolves in that injector.
    @Test func objectFactoryResolvesInItsOwnInjector() throws {
        final class Holder: Sendable {
            let factory: ObjectFactory
            init(factory: ObjectFactory) { self.factory = factory }
        }
        let module = ClosureModule { binder in
            binder.bind(Holder.self).to(Holder.init(factory:))
            binder.bind(Hunt29AEngine.self).to(Hunt29AEngine.init).in(.singleton)
        }
        let parent = try Injector(module)
        let child = try parent.with(ClosureModule { _ in })
        let parentEngine = try parent.get(Holder.self).factory.get(Hunt29AEngine.self)
        let childEngine = try child.get(Holder.self).factory.get(Hunt29AEngine.self)
        #expect(parentEngine === (try parent.get(Hunt29AEngine.self)))
        #expect(childEngine === (try child.get(Hunt29AEngine.self)))
        #expect(parentEngine !== childEngine)
        let made = try child.get(Holder.self).factory[Hunt29AEngine.self]
        #expect(made === childEngine)
    }

    // B-OBJ-34: the default injector slot.
    @Test func defaultInjectorSlot() throws {
        let previous = Injector.default
        defer { Injector.default = previous }
        let injector = try Injector(Hunt29AFirstModule())
        Injector.default = injector
        #expect(Injector.default === injector)
        let car = Hunt29ACar()
        try Injector.default?.injectDependencies(into: car)
        #expect(car.engine != nil)
        #expect(car.hooks == 1)
    }

    // B-OBJ-27: binding queries on a module and an injector, named and unnamed.
    @Test func bindingQueries() throws {
        let module = ClosureModule { binder in
            binder.bind(Hunt29AEngine.self).to(Hunt29AEngine.init)
            binder.bind(Hunt29AEngine.self, named: "spare").to(Hunt29AEngine.init)
            binder.bind((any Hunt29AGearBox).self).toInstance(Hunt29AAfterMarketGearBox())
        }
        #expect(module.hasBinding(for: Hunt29AEngine.self))
        #expect(module.hasBinding(for: Hunt29AEngine.self, named: "spare"))
        #expect(!module.hasBinding(for: Hunt29AEngine.self, named: "other"))
        #expect(module.hasBinding(for: (any Hunt29AGearBox).self))
        #expect(!module.hasBinding(for: Hunt29ABrakes.self))
        let injector = try Injector(module)
        #expect(injector.hasBinding(for: Hunt29AEngine.self, named: "spare"))
        #expect(!injector.hasBinding(for: Hunt29ABrakes.self))
    }

    // B-OBJ-25 / Q5: a named request never falls back to the unnamed binding.
    @Test func namedNeverFallsBack() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29AEngine.self).to(Hunt29AEngine.init).in(.singleton)
                binder.bind(Hunt29AEngine.self, named: "left").to(Hunt29AEngine.init).in(.singleton)
            })
        let left = try injector.get(Hunt29AEngine.self, named: "left")
        #expect(left === (try injector[Hunt29AEngine.self, named: "left"]))
        #expect(left !== (try injector.get(Hunt29AEngine.self)))
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt29AEngine.self, named: "right") }
        #expect(error?.code == .notBound)
        #expect(error?.pathDescription.contains("Hunt29AEngine") == true)
    }
}
