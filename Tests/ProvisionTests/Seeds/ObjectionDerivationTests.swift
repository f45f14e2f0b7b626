import Testing

@testable import Provision

// Objection's derived injectors, module lists and the object factory (AddAndRemoveModulesSpecs,
// BasicUsage "object factory", quirk Q1).

extension Seed {
    /// Objection's `SecondModule`: a gear box instance the module itself holds.
    struct SecondModule: Module {
        let gearBox = AfterMarketGearBox()

        func configure(_ binder: Binder) {
            binder.bind((any GearBox).self).toInstance(gearBox)
        }
    }

    /// Objection's `ProviderModule`: `Car` from a provider (a `FiveSpeedCar`).
    struct ProviderModule: Module {
        func configure(_ binder: Binder) {
            binder.bind(Car.self).to(provider: CarProvider())
        }
    }

    /// Objection's `FirstModule`: `Car` bound to `FiveSpeedCar`, and an eager singleton.
    struct FirstModule: Module {
        let counter: Counter

        func configure(_ binder: Binder) {
            binder.bind(Counter.self).toInstance(counter)
            binder.bind(FiveSpeedCar.self).to(FiveSpeedCar.init)
            binder.override(Car.self).to(binding: FiveSpeedCar.self)
            binder.eager(EagerSingleton.self)
        }
    }

    /// Counts its configurations; binds one instance it holds and one it creates in `configure`.
    final class CountingModule: Module {
        let configurations = Counter()
        let held = Engine()

        func configure(_ binder: Binder) {
            configurations.increment()
            binder.bind(Engine.self, named: "held").toInstance(held)
            binder.bind(Brakes.self).toInstance(Brakes())
        }
    }

    /// A module class with a subclass, for removal by type.
    class ParentModule: Module {
        func configure(_ binder: Binder) {
            binder.bind(Blinker.self).toInstance(Blinker(speed: 1))
        }
    }

    /// A subclass of `ParentModule`.
    final class ChildModule: ParentModule {
        override func configure(_ binder: Binder) {
            binder.bind(Blinker.self, named: "child").toInstance(Blinker(speed: 2))
        }
    }

    @Suite("Seeds: Objection derived injectors and the object factory")
    struct ObjectionDerivationTests {
        @Test("B-OBJ-29 modules are configured again for every injector built from them")
        func reconfigured() throws {
            let module = CountingModule()
            let first = try Injector(module)
            #expect(module.configurations.value == 1)
            let second = try first.with()
            #expect(module.configurations.value == 2)
            // Instances made inside configure are new per injector; instances the module holds are shared.
            #expect(try first.get(Brakes.self) !== second.get(Brakes.self))
            #expect(try first.get(Engine.self, named: "held") === second.get(Engine.self, named: "held"))
        }

        @Test("B-OBJ-30 with(...) builds a new injector of the parent's modules and new ones; the parent is unchanged")
        func withModules() throws {
            let counter = Counter()
            let second = SecondModule()
            let base = try Injector(second)
            #expect(try base.get((any GearBox).self) === second.gearBox)
            #expect(throws: ProvisionError.self) { try base.get(Car.self) }
            #expect(counter.value == 0)

            let derived = try base.with(ProviderModule(), FirstModule(counter: counter))
            #expect(try derived.get((any GearBox).self) === second.gearBox)
            let car = try derived.get(Car.self)
            #expect(car is FiveSpeedCar)
            #expect((car as? FiveSpeedCar)?.gearBox === second.gearBox, "FirstModule's binding, later, wins")
            #expect(counter.value == 1, "the eager singleton was built by the new injector")
            #expect(derived.modules.count == 3)

            #expect(base.modules.count == 1)
            #expect(throws: ProvisionError.self) { try base.get(Car.self) }
            #expect(try base.get(CarFactory.self) !== derived.get(CarFactory.self), "no singleton is shared")
        }

        @Test("B-OBJ-31 without(...) drops every module of the given types, subclasses included")
        func withoutModules() throws {
            let base = try Injector(SecondModule()).with(ProviderModule())
            #expect(try base.get(Car.self) is FiveSpeedCar)
            let removed = try base.without(SecondModule.self, ProviderModule.self)
            #expect(removed.modules.isEmpty)
            let error = #expect(throws: ProvisionError.self) { try removed.get((any GearBox).self) }
            #expect(error?.code == .notBound)
            #expect(throws: ProvisionError.self) { try removed.get(Car.self) }

            let family = try Injector(ParentModule(), ChildModule(), SecondModule())
            let withoutFamily = try family.without(ParentModule.self)
            #expect(withoutFamily.modules.count == 1)
            #expect(withoutFamily.modules.first is SecondModule)
            #expect(try family.get(Blinker.self, named: "child").speed == 2)
        }

        @Test("B-OBJ-32 an injector lists its modules in order, and a clean injector can be rebuilt from them")
        func modulesList() throws {
            let counter = Counter()
            let injector = try Injector(SecondModule(), ProviderModule()).with(FirstModule(counter: counter))
            let modules = injector.modules
            #expect(modules.count == 3)
            #expect(modules[0] is SecondModule && modules[1] is ProviderModule && modules[2] is FirstModule)
            let rebuilt = try Injector(modules: modules)
            #expect(try rebuilt.get(EagerSingleton.self) !== injector.get(EagerSingleton.self))
            #expect(counter.value == 2)
        }

        @Test("B-OBJ-33 every injector provides an object factory that resolves in that injector")
        func objectFactory() throws {
            let first = try Injector()
            let second = try Injector()
            let firstHolder = try first.get(FactoryHolder.self)
            let secondHolder = try second.get(FactoryHolder.self)
            let item = try firstHolder.factory[CarFactory.self]
            #expect(try item === first.get(CarFactory.self))
            #expect(try secondHolder.factory.get(CarFactory.self) !== item)
            #expect(try secondHolder.factory.get(CarFactory.self) === second.get(CarFactory.self))
        }

        @Test("B-OBJ-33 the object factory passes arguments on to the injector")
        func objectFactoryArguments() throws {
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(ConfigurableCar.self).withArguments(String.self, String.self, String.self)
                        .to { resolver, model, horsePower, year in
                            let car = ConfigurableCar(model: model, horsePower: horsePower, year: year)
                            try resolver.injectDependencies(into: car)
                            return car
                        }
                }
            )
            let factory = try injector.get(FactoryHolder.self).factory
            let car = try factory.get(ConfigurableCar.self, arguments: "Model", "200", "1984")
            #expect(car.model == "Model" && car.horsePower == "200" && car.year == "1984")
            #expect(car.engine != nil)
            let error = #expect(throws: ProvisionError.self) {
                try factory.get(ConfigurableCar.self, arguments: "Model")
            }
            #expect(error?.code == .argumentMismatch)
        }

        @Test("B-OBJ-33 the object factory holds its injector weakly and reports a released one")
        func objectFactoryIsWeak() throws {
            func factoryOfReleasedInjector() throws -> ObjectFactory {
                try Injector().get(ObjectFactory.self)
            }
            let factory = try factoryOfReleasedInjector()
            let error = #expect(throws: ProvisionError.self) { try factory.get(Brakes.self) }
            #expect(error?.code == .injectorReleased)
        }

        @Test("B-OBJ-33 a derived or child injector's factory, providers, lazies resolve in it, not its parent (Q1)")
        func handlesResolveInTheirInjector() throws {
            let parent = try Injector(ClosureModule { $0.bind(Blinker.self).toInstance(Blinker(speed: 1)) })
            // The parent hands out its handles first: a child that borrowed them would resolve in the parent.
            #expect(try parent.get(ObjectFactory.self).get(Blinker.self).speed == 1)
            #expect(try parent.get(Provider<Blinker>.self).get().speed == 1)
            #expect(try parent.get(Lazy<Blinker>.self).value.speed == 1)
            #expect(try parent.get(FactoryHolder.self).factory.get(Blinker.self).speed == 1)

            let override = ClosureModule { binder in
                binder.override(Blinker.self).toInstance(Blinker(speed: 2))
                binder.bind(FactoryHolder.self, named: "own").to(FactoryHolder.init(factory:))
            }
            for injector in [try parent.with(override), try parent.makeChild(override)] {
                #expect(try injector.get(ObjectFactory.self).get(Blinker.self).speed == 2)
                #expect(try injector.get(Provider<Blinker>.self).get().speed == 2)
                #expect(try injector.get(Lazy<Blinker>.self).value.speed == 2)
                #expect(try injector.get(FactoryHolder.self, named: "own").factory.get(Blinker.self).speed == 2)
            }
        }

        @Test("B-OBJ-33 handles are safe from any thread: 8 threads share one singleton through them")
        func handlesAcrossThreads() throws {
            let builds = Counter()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(CarFactory.self).to { _ in
                        builds.increment()
                        return CarFactory()
                    }.in(.singleton)
                }
            )
            let provider = try injector.get(Provider<CarFactory>.self)
            let lazy = try injector.get(Lazy<CarFactory>.self)
            let factory = try injector.get(ObjectFactory.self)
            let seen = Locked<Set<ObjectIdentifier>>([])
            let failures = Counter()
            let barrier = Barrier(count: 8)
            let finished = runThreads(8) { _ in
                barrier.arriveAndWait()
                for _ in 0..<100 {
                    do {
                        let values = [try provider.get(), try lazy.value, try factory.get(CarFactory.self)]
                        seen.withLock { set in set.formUnion(values.map(ObjectIdentifier.init)) }
                    } catch {
                        failures.increment()
                    }
                }
            }
            #expect(finished)
            #expect(failures.value == 0)
            #expect(builds.value == 1)
            #expect(seen.withLock { $0.count } == 1)
        }
    }
}

// No stored state: the modules only record bindings.
extension Seed.ParentModule: @unchecked Sendable {}
extension Seed.ChildModule: @unchecked Sendable {}
