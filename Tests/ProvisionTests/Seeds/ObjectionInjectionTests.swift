import Testing

@testable import Provision

// Objection's property injection: requirements, named requirements, inheritance, the awake hook,
// injecting existing objects, singleton cycles (BasicUsage, InheritanceSpecs, InjectionErrorsSpecs,
// CircularDependencySpecs).

extension Seed {
    @Suite("Seeds: Objection property injection")
    struct ObjectionInjectionTests {
        /// Objection's registered `Car` and its subclasses: a class hierarchy is bound by a module.
        static let cars = ClosureModule { binder in
            binder.bind(Car.self).to(Car.init)
            binder.bind(FiveSpeedCar.self).to(FiveSpeedCar.init)
        }

        /// An injector of `modules` not validated on creation: `FiveSpeedCar`'s gear box is bound by
        /// nobody, which validation reports (the property is a dependency like any other), where
        /// Objection's request fails only when it is made. These tests check what the request does.
        static func unvalidated(_ modules: any Module...) throws -> Injector {
            try Injector(modules: modules, configuration: Injector.Configuration(validatesOnCreation: false))
        }

        @Test("B-OBJ-09 declared property requirements are resolved by their type and set")
        func propertyRequirements() throws {
            let injector = try Self.unvalidated(Self.cars)
            let car = try injector.get(Car.self)
            let engine = try #require(car.engine)
            #expect(car.brakes != nil)
            #expect(engine.hookCalls == 1)
            #expect(try injector.get(Car.self).engine !== engine, "each car gets its own transient engine")
        }

        @Test("B-OBJ-10 named requirements take the named binding, beside plain ones")
        func namedRequirements() throws {
            let right = Headlight()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(HIDHeadlight.self).to(HIDHeadlight.init)
                    binder.bind(Headlight.self, named: "LeftHeadlight").to(binding: HIDHeadlight.self)
                    binder.bind(Headlight.self, named: "RightHeadlight").toInstance(right)
                    binder.bind(Headlight.self).to(Headlight.init)
                }
            )
            let car = try injector.get(ShinyCar.self)
            #expect(car.leftHeadlight is HIDHeadlight)
            #expect(car.rightHeadlight === right)
            let foglight = try #require(car.foglight)
            #expect(!(foglight is HIDHeadlight))
            #expect(foglight !== right)
        }

        @Test("B-OBJ-11 a missing protocol requirement fails the request with notBound and the path")
        func missingProtocolRequirement() throws {
            let injector = try Self.unvalidated(Self.cars)
            let error = #expect(throws: ProvisionError.self) { try injector.get(FiveSpeedCar.self) }
            #expect(error?.code == .notBound)
            #expect(error?.key == BindingKey((any GearBox).self))
            #expect(error?.path == [BindingKey(FiveSpeedCar.self), BindingKey((any GearBox).self)])
            // Provision finds it before any request: validation (on creation, by default) reports it.
            let problem = injector.validationReport().problems.first
            #expect(problem?.code == .notBound)
            #expect(problem?.path == [BindingKey(FiveSpeedCar.self), BindingKey((any GearBox).self)])
            let creation = #expect(throws: ProvisionError.self) { try Injector(Self.cars) }
            #expect(creation?.code == .validationFailed)
        }

        @Test("B-OBJ-11 a dependency bound to an optional may be nil on purpose, and construction continues")
        func nilDependency() throws {
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Brakes?.self).to { (_: Resolver) -> Brakes? in nil }
                    binder.bind(OptionalBrakesCar.self).to(OptionalBrakesCar.init(brakes:))
                }
            )
            let car = try injector.get(OptionalBrakesCar.self)
            #expect(car.brakes == nil)
        }

        @Test("B-OBJ-11 a property bound to an optional block that returns nil is set to nil; injection goes on")
        func nilProperty() throws {
            let injector = try Self.unvalidated(
                Self.cars,
                ClosureModule { $0.bind(Brakes?.self).to { (_: Resolver) -> Brakes? in nil } }
            )
            let car = try injector.get(Car.self)
            #expect(car.brakes == nil)
            #expect(car.engine != nil)
            #expect(car.hookCalls == 1)
        }

        @Test("B-OBJ-12 (different) requirements are key paths; a failed injection caches no half-built singleton")
        func failedInjectionIsNotCached() throws {
            let injector = try Self.unvalidated(
                ClosureModule { $0.bind(FiveSpeedCar.self).to(FiveSpeedCar.init).in(.singleton) })
            for _ in 0..<2 {
                let error = #expect(throws: ProvisionError.self) { try injector.get(FiveSpeedCar.self) }
                #expect(error?.code == .notBound)
            }
        }

        @Test("B-OBJ-13 requirements inherit and merge up the class hierarchy, plain and named")
        func inheritedRequirements() throws {
            let injector = try Injector(
                Self.cars,
                ClosureModule { binder in
                    binder.bind(String.self, named: "title").toInstance("Mr")
                    binder.bind(String.self, named: "language").toInstance("Swift")
                    binder.bind((any GearBox).self).toInstance(AfterMarketGearBox())
                }
            )
            let programmer = try injector.get(Programmer.self)
            #expect(programmer.attributes != nil)
            #expect(programmer.title == "Mr")
            #expect(programmer.computer != nil)
            #expect(programmer.favouriteLanguage == "Swift")

            let car = try injector.get(FiveSpeedCar.self)
            #expect(car.engine != nil && car.brakes != nil && car.gearBox != nil)
        }

        @Test("B-OBJ-13 a subclass's entry for a property replaces its superclass's")
        func subclassEntryWins() throws {
            // "title" is not bound: were Person's entry still applied, the request would fail.
            let injector = try Injector(
                ClosureModule { $0.bind(String.self, named: "senior title").toInstance("Principal") })
            let senior = try injector.get(SeniorProgrammer.self)
            #expect(senior.title == "Principal")
            #expect(senior.attributes != nil)
        }

        @Test("B-OBJ-13 requirements declared below a superclass that declares none")
        func noInheritance() throws {
            let injector = try Injector(ClosureModule { $0.bind(String.self, named: "title").toInstance("Dr") })
            let object = try injector.get(NoInheritance.self)
            #expect(object.attributes != nil)
            #expect(object.title == "Dr")
        }

        @Test("B-OBJ-14 the hook runs once, after every property is set, dependencies before their dependent")
        func hookOrder() throws {
            let injector = try Self.unvalidated(Self.cars)
            let car = try injector.get(Car.self)
            #expect(car.hookCalls == 1)
            #expect(car.propertiesSetAtHook)
            #expect(car.engineAwakeAtHook)
            #expect(car.engine?.hookCalls == 1)
            // A class without requirements gets the hook too.
            #expect(try injector.get(Engine.self).hookCalls == 1)
        }

        @Test("B-OBJ-14 the hook runs for constructors, declarations, injectDependencies; not instances or closures")
        func hookScope() throws {
            let bound = Engine()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Engine.self, named: "instance").toInstance(bound)
                    binder.bind(Engine.self, named: "closure").to { _ in Engine() }
                    binder.bind(Engine.self, named: "constructor").to(Engine.init)
                }
            )
            #expect(try injector.get(Engine.self, named: "instance").hookCalls == 0)
            #expect(try injector.get(Engine.self, named: "closure").hookCalls == 0)
            #expect(try injector.get(Engine.self, named: "constructor").hookCalls == 1)
            #expect(try injector.get(Engine.self).hookCalls == 1)
            let existing = Engine()
            try injector.injectDependencies(into: existing)
            #expect(existing.hookCalls == 1)
        }

        @Test("B-OBJ-15 injectDependencies fills an existing object, overwriting set properties, and wakes it")
        func injectExisting() throws {
            let injector = try Injector()
            let car = Car()
            #expect(car.engine == nil && car.brakes == nil)
            let mine = Brakes()
            car.brakes = mine
            try injector.injectDependencies(into: car)
            #expect(car.engine?.hookCalls == 1)
            let brakes = try #require(car.brakes)
            #expect(brakes !== mine)
            #expect(car.hookCalls == 1)
            #expect(car.engineAwakeAtHook)
        }

        @Test("B-OBJ-40 (different) singletons requiring each other are a cycle error; a Lazy edge resolves the pair")
        func singletonCycle() throws {
            let injector = try Injector()
            for _ in 0..<2 {
                let error = #expect(throws: ProvisionError.self) { try injector.get(SingletonFoo.self) }
                #expect(error?.code == .cycle)
                #expect(error?.key == BindingKey(SingletonFoo.self))
                #expect(error?.path.contains(BindingKey(SingletonBar.self)) == true)
            }
            let foo = try injector.get(LazyFoo.self)
            let bar = try #require(foo.bar)
            #expect(try injector.get(LazyBar.self) === bar)
            #expect(try bar.foo?.value === foo)
        }

        @Test("B-OBJ-44 instances and closure results are returned as they are; a closure may ask for injection")
        func providedObjectsAreNotInjected() throws {
            let bound = Car()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Car.self).toInstance(bound)
                    binder.bind(Car.self, named: "closure").to { _ in Car() }
                    binder.bind(Car.self, named: "asks").to { resolver in
                        let car = Car()
                        try resolver.injectDependencies(into: car)
                        return car
                    }
                }
            )
            let instance = try injector.get(Car.self)
            #expect(instance === bound)
            #expect(instance.engine == nil && instance.hookCalls == 0)
            let plain = try injector.get(Car.self, named: "closure")
            #expect(plain.engine == nil && plain.hookCalls == 0)
            let asked = try injector.get(Car.self, named: "asks")
            #expect(asked.engine != nil && asked.hookCalls == 1)
        }
    }
}
