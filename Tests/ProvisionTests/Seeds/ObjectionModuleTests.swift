import Testing

@testable import Provision

// Objection's modules: instance, protocol, meta class, class, provider and closure bindings, eager
// singletons, named bindings, scopes, binding queries and precedence (ModuleUsageSpecs).

extension Seed {
    /// Objection's `CarProvider`: builds a `FiveSpeedCar` and gives it brakes from the resolving injector.
    struct CarProvider: ServiceProvider {
        let calls = Counter()

        func provide(_ resolver: Resolver, arguments: Void) throws -> Car {
            calls.increment()
            let car = FiveSpeedCar()
            car.brakes = try resolver.get(Brakes.self)
            return car
        }
    }

    /// Objection's `GearBoxProvider`.
    struct GearBoxProvider: ServiceProvider {
        func provide(_ resolver: Resolver, arguments: Void) -> any GearBox {
            AfterMarketGearBox()
        }
    }

    /// A provider of blinkers at a fixed speed (Objection's `RightBlinker` provider).
    struct BlinkerProvider: ServiceProvider {
        let speed: Double

        func provide(_ resolver: Resolver, arguments: Void) -> Blinker {
            Blinker(speed: speed)
        }
    }

    /// A provider that receives the request's arguments: a card number.
    struct ProcessorProvider: ServiceProvider {
        func provide(_ resolver: Resolver, arguments: String) throws -> VisaCCProcessor {
            VisaCCProcessor(validator: try resolver.get(), number: arguments)
        }
    }

    /// A provider that fails.
    struct FailingProvider: ServiceProvider {
        func provide(_ resolver: Resolver, arguments: Void) throws -> Blinker {
            throw ExpectedFailure(id: 22)
        }
    }

    @Suite("Seeds: Objection modules")
    struct ObjectionModuleTests {
        @Test("B-OBJ-17 an instance bound to a class, plain or named, is returned every time and fills dependents")
        func instanceBinding() throws {
            let engine = Engine()
            let gearBox = AfterMarketGearBox()
            let right = Headlight()
            let injector = try Injector(
                ObjectionInjectionTests.cars,
                ClosureModule { binder in
                    binder.bind(Engine.self).toInstance(engine)
                    binder.bind((any GearBox).self).toInstance(gearBox)
                    binder.bind(Headlight.self, named: "RightHeadlight").toInstance(right)
                }
            )
            #expect(try injector.get(Engine.self) === engine)
            #expect(try injector.get(Engine.self) === engine)
            #expect(try injector.get(Headlight.self, named: "RightHeadlight") === right)
            let car = try injector.get(FiveSpeedCar.self)
            #expect(car.engine === engine)
            #expect(car.gearBox === gearBox)
            #expect(engine.hookCalls == 0, "a bound instance is not injected or woken")
        }

        @Test("B-OBJ-18 an instance bound to a protocol is checked: at compile time, or when configured")
        func protocolInstance() throws {
            let gearBox = AfterMarketGearBox()
            let injector = try Injector(ClosureModule { $0.bind((any GearBox).self).toInstance(gearBox) })
            #expect(try injector.get((any GearBox).self) === gearBox)

            let error = #expect(throws: ProvisionError.self) {
                try Injector(ClosureModule { $0.bind((any GearBox).self).toInstance(checking: "sneaky") })
            }
            #expect(error?.code == .typeMismatch)
            #expect(error?.key == BindingKey((any GearBox).self))
            #expect(error?.message.contains("String") == true)
        }

        @Test("B-OBJ-19 a type is bound as its metatype for an API of static methods")
        func metatypeBinding() throws {
            let injector = try Injector(ClosureModule { $0.bind((any MetaCar.Type).self).toInstance(Car.self) })
            let maker = try injector.get((any MetaCar.Type).self)
            #expect(ObjectIdentifier(maker) == ObjectIdentifier(Car.self))
            let car = maker.manufacture()
            #expect(ObjectIdentifier(type(of: car)) == ObjectIdentifier(Car.self))
        }

        @Test("B-OBJ-19 a value that is not a conforming metatype is typeMismatch when the injector is created")
        func metatypeMismatch() throws {
            for value in ["sneaky", Brakes.self] as [any Sendable] {
                let error = #expect(throws: ProvisionError.self) {
                    try Injector(ClosureModule { $0.bind((any MetaCar.Type).self).toInstance(checking: value) })
                }
                #expect(error?.code == .typeMismatch)
                #expect(error?.key == BindingKey((any MetaCar.Type).self))
            }
        }

        @Test("B-OBJ-20 a protocol bound to a class is built by that class's binding, with its own scope on top")
        func classToProtocol() throws {
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(VisaCCProcessor.self).withArguments(String?.self)
                        .to { resolver, number in VisaCCProcessor(validator: try resolver.get(), number: number) }
                        .defaults(nil)
                    binder.bind((any CreditCardProcessor).self).to(binding: VisaCCProcessor.self)
                    binder.bind((any CreditCardProcessor).self, named: "shared").to(binding: VisaCCProcessor.self)
                        .in(.singleton)
                }
            )
            let processor = try injector.get((any CreditCardProcessor).self)
            #expect(processor is VisaCCProcessor)
            #expect(try injector.get((any CreditCardProcessor).self) !== processor)
            let shared = try injector.get((any CreditCardProcessor).self, named: "shared")
            #expect(try injector.get((any CreditCardProcessor).self, named: "shared") === shared)
            // Arguments given to the protocol request reach the class's binding.
            let numbered = try injector.get((any CreditCardProcessor).self, arguments: "4111" as String?)
            #expect((numbered as? VisaCCProcessor)?.number == "4111")
        }

        @Test("B-OBJ-21 a superclass bound to a subclass forwards the request's arguments")
        func subclassToSuperclass() throws {
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(VisaCCProcessor.self).withArguments(String?.self)
                        .to { resolver, number in VisaCCProcessor(validator: try resolver.get(), number: number) }
                    binder.bind(BaseCreditCardProcessor.self).to(binding: VisaCCProcessor.self)
                }
            )
            let processor = try injector.get(BaseCreditCardProcessor.self, arguments: "12414" as String?)
            #expect(processor is VisaCCProcessor)
            #expect(processor.number == "12414")

            let error = #expect(throws: ProvisionError.self) {
                try injector.get(BaseCreditCardProcessor.self, arguments: 12414)
            }
            #expect(error?.code == .argumentMismatch)
            #expect(error?.path.first == BindingKey(BaseCreditCardProcessor.self))
        }

        @Test("B-OBJ-22 a provider builds a class or protocol from the resolving injector; its result isn't injected")
        func providerBindings() throws {
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Car.self).to(provider: CarProvider())
                    binder.bind((any GearBox).self).to(provider: GearBoxProvider())
                    binder.bind(Blinker.self, named: "RightBlinker").to(provider: BlinkerProvider(speed: 11))
                }
            )
            let car = try injector.get(Car.self)
            #expect(car is FiveSpeedCar)
            #expect(car.brakes != nil)
            #expect(car.engine == nil && car.hookCalls == 0)
            #expect(try injector.get((any GearBox).self) is AfterMarketGearBox)
            #expect(try injector.get(Blinker.self, named: "RightBlinker").speed == 11)
        }

        @Test("B-OBJ-22 provider scopes: a singleton provider is asked once, a transient one every time")
        func providerScopes() throws {
            let singleton = CarProvider()
            let transient = CarProvider()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Car.self).to(provider: singleton).in(.singleton)
                    binder.bind(Car.self, named: "normal").to(provider: transient)
                }
            )
            #expect(try injector.get(Car.self) === injector.get(Car.self))
            #expect(singleton.calls.value == 1)
            #expect(try injector.get(Car.self, named: "normal") !== injector.get(Car.self, named: "normal"))
            #expect(transient.calls.value == 2)
        }

        @Test("B-OBJ-22 a provider receives the request's arguments")
        func providerArguments() throws {
            let injector = try Injector(
                ClosureModule {
                    $0.bind(VisaCCProcessor.self).withArguments(String.self).to(provider: ProcessorProvider())
                }
            )
            #expect(try injector.get(VisaCCProcessor.self, arguments: "12414").number == "12414")
            let error = #expect(throws: ProvisionError.self) { try injector.get(VisaCCProcessor.self) }
            #expect(error?.code == .argumentMismatch)
        }

        @Test("B-OBJ-22 a provider's error fails the request as factoryFailed, with the error as its cause")
        func providerFailure() throws {
            let injector = try Injector(ClosureModule { $0.bind(Blinker.self).to(provider: FailingProvider()) })
            let error = #expect(throws: ProvisionError.self) { try injector.get(Blinker.self) }
            #expect(error?.code == .factoryFailed)
            #expect(error?.key == BindingKey(Blinker.self))
            #expect(error?.cause as? ExpectedFailure == ExpectedFailure(id: 22))
        }

        @Test("B-OBJ-23 a closure builds a class or a protocol; its result is returned as it is")
        func closureBindings() throws {
            let brakes = Brakes()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Brakes.self).toInstance(brakes)
                    binder.bind(Car.self).to { resolver in
                        let car = FiveSpeedCar()
                        car.brakes = try resolver.get(Brakes.self)
                        return car
                    }
                    binder.bind((any GearBox).self).to { _ in AfterMarketGearBox() }
                    binder.bind(Blinker.self, named: "LeftBlinker").to { _ in Blinker(speed: 1.092) }
                }
            )
            let car = try injector.get(Car.self)
            #expect(car is FiveSpeedCar)
            #expect(car.brakes === brakes)
            #expect(car.engine == nil && car.hookCalls == 0)
            #expect(try injector.get((any GearBox).self) is AfterMarketGearBox)
            #expect(try injector.get(Blinker.self, named: "LeftBlinker").speed == 1.092)
        }

        @Test("B-OBJ-23 closure scopes: a singleton closure runs once (issue #94), a transient one every time")
        func closureScopes() throws {
            let runs = Counter()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Car.self).to { _ in
                        runs.increment()
                        return Car()
                    }.in(.singleton)
                    binder.bind((any GearBox).self).to { _ in AfterMarketGearBox() }
                }
            )
            #expect(try injector.get(Car.self) === injector.get(Car.self))
            #expect(runs.value == 1)
            #expect(try injector.get((any GearBox).self) !== injector.get((any GearBox).self))
        }

        @Test("B-OBJ-23 a closure's error fails the request as factoryFailed; a failed singleton runs again")
        func closureFailure() throws {
            let runs = Counter()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Car.self).to { _ in
                        runs.increment()
                        throw ExpectedFailure(id: 23)
                    }.in(.singleton)
                }
            )
            for _ in 0..<2 {
                let error = #expect(throws: ProvisionError.self) { try injector.get(Car.self) }
                #expect(error?.code == .factoryFailed)
                #expect(error?.cause as? ExpectedFailure == ExpectedFailure(id: 23))
            }
            #expect(runs.value == 2)
        }

        @Test("B-OBJ-24 eager singletons are built when the injector is created")
        func eagerSingletons() throws {
            let counter = Counter()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Counter.self).toInstance(counter)
                    binder.eager(EagerSingleton.self)
                }
            )
            #expect(counter.value == 1)
            let singleton = try injector.get(EagerSingleton.self)
            #expect(try injector.get(EagerSingleton.self) === singleton)
            #expect(counter.value == 1)
        }

        @Test("B-OBJ-24 eager keys of every module are built: singleton bindings, instances, asEagerSingleton")
        func eagerAcrossModules() throws {
            let counter = Counter()
            let closureRuns = Counter()
            _ = try Injector(
                ClosureModule { binder in
                    binder.bind(Counter.self).toInstance(counter)
                    binder.bind(Brakes.self).toInstance(Brakes())
                    binder.eager(Brakes.self)
                },
                ClosureModule { binder in
                    binder.eager(EagerSingleton.self)
                    binder.bind(Car.self).to { _ in
                        closureRuns.increment()
                        return Car()
                    }.asEagerSingleton()
                }
            )
            #expect(counter.value == 1)
            #expect(closureRuns.value == 1)
        }

        @Test("B-OBJ-24 marking a binding that is not a singleton eager fails creation, naming the type")
        func eagerNotSingleton() throws {
            let transientCar = ClosureModule { binder in
                binder.bind(Car.self).to(Car.init)
                binder.eager(Car.self)
            }
            // Validation (on by default) finds it before anything is built; without it, building finds it.
            let validated = #expect(throws: ProvisionError.self) { try Injector(transientCar) }
            #expect(validated?.code == .validationFailed)
            #expect(validated?.underlyingErrors.map(\.code) == [.eagerNotSingleton])
            let bound = #expect(throws: ProvisionError.self) { try Injector.unvalidated(transientCar) }
            #expect(bound?.code == .eagerNotSingleton)
            #expect(bound?.key == BindingKey(Car.self))
            #expect(bound?.message.contains("Car") == true)
            #expect(bound?.location != nil)

            let declared = #expect(throws: ProvisionError.self) {
                try Injector.unvalidated(ClosureModule { $0.eager(Brakes.self) })
            }
            #expect(declared?.code == .eagerNotSingleton)
            #expect(declared?.key == BindingKey(Brakes.self))

            let unbound = #expect(throws: ProvisionError.self) {
                try Injector.unvalidated(ClosureModule { $0.eager(UnregisteredCar.self) })
            }
            #expect(unbound?.code == .notBound)
            #expect(unbound?.key == BindingKey(UnregisteredCar.self))
        }

        @Test("B-OBJ-25 every kind of binding can be named; a named singleton is cached per name")
        func namedBindings() throws {
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Blinker.self, named: "LeftBlinker").to { _ in Blinker(speed: 1.092) }
                    binder.bind(Blinker.self, named: "RightBlinker").to(provider: BlinkerProvider(speed: 11))
                    binder.bind(HIDHeadlight.self).to(HIDHeadlight.init)
                    binder.bind(Headlight.self, named: "My HID Headlight").to(binding: HIDHeadlight.self).in(.singleton)
                    binder.bind(Headlight.self, named: "Another Headlight").to(binding: HIDHeadlight.self)
                }
            )
            let car = try injector.get(FlashyCar.self)
            #expect(car.leftBlinker?.speed == 1.092)
            #expect(car.rightBlinker?.speed == 11)
            let headlight = try injector.get(Headlight.self, named: "My HID Headlight")
            #expect(try injector.get(Headlight.self, named: "My HID Headlight") === headlight)
            #expect(try injector.get(Headlight.self, named: "Another Headlight") !== headlight)
        }

        @Test("B-OBJ-25 (different) a named request never falls back to the unnamed binding or a new instance (Q5)")
        func namedNoFallback() throws {
            let injector = try Injector(ClosureModule { $0.bind(Headlight.self).to(Headlight.init) })
            _ = try injector.get(Headlight.self)
            let error = #expect(throws: ProvisionError.self) { try injector.get(Headlight.self, named: "Unbound") }
            #expect(error?.code == .notBound)
            #expect(error?.key == BindingKey(Headlight.self, named: "Unbound"))
            #expect(error?.hint.contains("never falls back") == true)
            // Declared types don't get named just-in-time bindings either.
            let declared = #expect(throws: ProvisionError.self) { try injector.get(CarFactory.self, named: "other") }
            #expect(declared?.code == .notBound)
        }

        @Test("B-OBJ-26 a module promotes a declared type to singleton or demotes it, for its injector only")
        func promoteAndDemote() throws {
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Brakes.self).toSelf().in(.singleton)
                    binder.bind(CarFactory.self).toSelf().in(.transient)
                    binder.bind(Car.self).to(Car.init).in(.singleton)
                }
            )
            #expect(try injector[Brakes.self] === injector[Brakes.self])
            #expect(try injector[CarFactory.self] !== injector[CarFactory.self])
            #expect(try injector[Car.self] === injector[Car.self])
            let plain = try Injector()
            #expect(try plain[Brakes.self] !== plain[Brakes.self])
            #expect(try plain[CarFactory.self] === plain[CarFactory.self])
        }

        @Test("B-OBJ-27 a module answers whether it binds a class or a protocol, plain or named")
        func hasBinding() throws {
            let module = ClosureModule { binder in
                binder.bind(Car.self).to(Car.init)
                binder.bind((any GearBox).self).toInstance(AfterMarketGearBox())
                binder.bind(Headlight.self, named: "RightHeadlight").to(Headlight.init)
                binder.bind((any CreditCardProcessor).self, named: "visa").to(binding: VisaCCProcessor.self)
            }
            #expect(module.hasBinding(for: Car.self))
            #expect(!module.hasBinding(for: UnregisteredCar.self))
            #expect(module.hasBinding(for: (any GearBox).self))
            #expect(!module.hasBinding(for: (any CreditCardProcessor).self))
            #expect(module.hasBinding(for: Headlight.self, named: "RightHeadlight"))
            #expect(!module.hasBinding(for: Headlight.self, named: "LeftHeadlight"))
            #expect(module.hasBinding(for: (any CreditCardProcessor).self, named: "visa"))
            #expect(!module.hasBinding(for: (any GearBox).self, named: "visa"))
            // The "visa" delegation's target is not bound: the injector is not validated.
            let injector = try Injector.unvalidated(module)
            #expect(injector.hasBinding(for: (any GearBox).self))
            #expect(!injector.hasBinding(for: Headlight.self))
        }

        @Test("B-OBJ-28 a module's binding beats the type's declaration, and a later module's override the earlier")
        func precedence() throws {
            let first = Engine()
            let second = Engine()
            let injector = try Injector(
                ClosureModule { $0.bind(Engine.self).toInstance(first) },
                ClosureModule { $0.override(Engine.self).toInstance(second) }
            )
            #expect(try injector.get(Engine.self) === second)
            #expect(second.hookCalls == 0, "the declaration of Engine was not used")
            // A just-in-time binding is made only for what no module binds, when first requested.
            #expect(!injector.hasBinding(for: Brakes.self))
            _ = try injector.get(Brakes.self)
            #expect(injector.hasBinding(for: Brakes.self))
        }

        @Test("B-OBJ-45 (different) bindings are checked at compile time; a non-converting delegation is typeMismatch")
        func typeCheckedBindings() throws {
            let injector = try Injector(ClosureModule { $0.bind((any GearBox).self).to(binding: Brakes.self) })
            let error = #expect(throws: ProvisionError.self) { try injector.get((any GearBox).self) }
            #expect(error?.code == .typeMismatch)
            #expect(error?.key == BindingKey((any GearBox).self))
            #expect(error?.message.contains("Brakes") == true)
        }
    }
}
