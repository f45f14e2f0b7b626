import Testing

@testable import Provision

// Injective's context (IJContextSpec, IJLocalContextSpec, and the behaviours its code has without specs).

extension Seed {
    /// A `GearBox` that nothing declares, for collections of implementations.
    final class ManualGearBox: GearBox {}

    /// Counts how often its requirements are read (Injective computes the property map once).
    final class CountedRequirements: PropertyInjectable {
        static let reads = Counter()

        var brakes: Brakes?

        static var injectedProperties: [InjectedProperty] {
            reads.increment()
            return [.inject(\CountedRequirements.brakes)]
        }
    }

    /// Two missing constructor dependencies.
    struct TwoMissing: Sendable {
        init(gearBox: any GearBox, blinker: Blinker) {}
    }

    @Suite("Seeds: Injective")
    struct InjectiveTests {
        /// Injective's `ITCar` registration: built from an optional name, its brakes injected.
        static let cars = ClosureModule { binder in
            binder.bind(ITCar.self).withArguments(String?.self)
                .to { resolver, name in
                    let car = ITCar(name: name)
                    try resolver.injectDependencies(into: car)
                    return car
                }
                .defaults(nil)
        }

        @Test("B-INJ-01 a factory (transient) binding builds a new instance per request")
        func factoryMode() throws {
            let injector = try Injector(ClosureModule { $0.bind(Blinker.self).to { _ in Blinker(speed: 1) } })
            #expect(try injector.get(Blinker.self) !== injector.get(Blinker.self))
            #expect(try injector.get(Brakes.self) !== injector.get(Brakes.self))
        }

        @Test("B-INJ-02 a singleton is built lazily, once per injector, and later requests' arguments are ignored")
        func singletonMode() throws {
            let builds = Counter()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Parking.self).to { resolver in
                        builds.increment()
                        return Parking(factory: try resolver.get())
                    }.in(.singleton)
                    binder.bind(ITCar.self).withArguments(String?.self)
                        .to { _, name in ITCar(name: name) }
                        .in(.singleton)
                }
            )
            #expect(builds.value == 0)
            #expect(try injector.get(Parking.self) === injector.get(Parking.self))
            #expect(builds.value == 1)
            let first = try injector.get(ITCar.self, arguments: "first" as String?)
            let second = try injector.get(ITCar.self, arguments: "second" as String?)
            #expect(second === first)
            #expect(second.name == "first")
        }

        @Test("B-INJ-03 an unregistered type resolves to nil when requested as an optional; as itself, notBound")
        func unregistered() throws {
            #expect(try Injector().get(ITCar?.self) == nil)
            let error = #expect(throws: ProvisionError.self) { try Injector().get(ITCar.self) }
            #expect(error?.code == .notBound)
            #expect(error?.key == BindingKey(ITCar.self))
        }

        @Test("B-INJ-04 required properties are resolved by type in the same injector, read-only ones included")
        func requiredProperties() throws {
            let brakes = Brakes()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Brakes.self).toInstance(brakes)
                    binder.bind(ITCar.self).to { ITCar(name: "built") }
                }
            )
            let car = try injector.get(ITCar.self)
            #expect(car.brakes === brakes)
            #expect(car.name == "built")
        }

        @Test("B-INJ-05 an unsatisfiable requirement fails the request, listing every missing one in one error")
        func unsatisfiedRequirements() throws {
            let injector = try Injector.unvalidated(
                ClosureModule { binder in
                    binder.bind(NeedyCar.self).to(NeedyCar.init)
                    binder.bind(TwoMissing.self).to(TwoMissing.init(gearBox:blinker:))
                }
            )
            let expected: Set = [BindingKey((any GearBox).self), BindingKey(Blinker.self, named: "left")]
            let built = #expect(throws: ProvisionError.self) { try injector.get(NeedyCar.self) }
            #expect(built?.code == .notBound)
            #expect(Set(built?.underlyingErrors.compactMap(\.key) ?? []) == expected)
            #expect(built?.path.first == BindingKey(NeedyCar.self))

            let existing = NeedyCar()
            let injected = #expect(throws: ProvisionError.self) { try injector.injectDependencies(into: existing) }
            #expect(injected?.code == .notBound)
            #expect(Set(injected?.underlyingErrors.compactMap(\.key) ?? []) == expected)

            let constructed = #expect(throws: ProvisionError.self) { try injector.get(TwoMissing.self) }
            #expect(constructed?.code == .notBound)
            #expect(
                Set(constructed?.underlyingErrors.compactMap(\.key) ?? []) == [
                    BindingKey((any GearBox).self), BindingKey(Blinker.self),
                ])
        }

        @Test("B-INJ-06 values passed when instantiating reach the new object, beside its injected dependencies")
        func passedValues() throws {
            let injector = try Injector(Self.cars)
            let car = try injector.get(ITCar.self, arguments: "test" as String?)
            #expect(car.name == "test")
            #expect(car.brakes != nil)
        }

        @Test("B-INJ-07 (different) a creation closure gets the passed values; its result is injected only if it asks")
        func creationClosure() throws {
            let injector = try Injector(
                Self.cars,
                ClosureModule { binder in
                    binder.bind(ITCar.self, named: "plain").withArguments(String?.self).to { _, name in
                        ITCar(name: name)
                    }
                }
            )
            let asked = try injector.get(ITCar.self, arguments: "asked" as String?)
            #expect(asked.name == "asked" && asked.brakes != nil)
            let plain = try injector.get(ITCar.self, named: "plain", arguments: "plain" as String?)
            #expect(plain.name == "plain" && plain.brakes == nil)
        }

        @Test("B-INJ-08 (different) a duplicate registration is a synchronous duplicateBinding error at creation")
        func duplicateRegistration() throws {
            let error = #expect(throws: ProvisionError.self) {
                try Injector(
                    ClosureModule { binder in
                        binder.bind(Brakes.self).to(Brakes.init)
                        binder.bind(Brakes.self).to(Brakes.init)
                    }
                )
            }
            #expect(error?.code == .duplicateBinding)
            #expect(error?.key == BindingKey(Brakes.self))
            #expect(error?.location != nil)
        }

        @Test("B-INJ-09 a pre-built instance is the singleton, not injected; registering it twice is duplicateBinding")
        func prebuiltInstance() throws {
            let car = ITCar(name: "api")
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(ITCar.self).toInstance(car)
                    binder.eager(ITCar.self)
                }
            )
            #expect(try injector.get(ITCar.self) === car)
            #expect(car.brakes == nil)
            let error = #expect(throws: ProvisionError.self) {
                try Injector(
                    ClosureModule { binder in
                        binder.bind(ITCar.self).toInstance(car)
                        binder.bind(ITCar.self).toInstance(ITCar(name: "other"))
                    }
                )
            }
            #expect(error?.code == .duplicateBinding)
        }

        @Test("B-INJ-10 (different) one binding per protocol: a second one in the same module is duplicateBinding")
        func oneImplementation() throws {
            let injector = try Injector(
                ClosureModule { $0.bind((any GearBox).self).to(binding: AfterMarketGearBox.self) })
            #expect(try injector.get((any GearBox).self) is AfterMarketGearBox)
            let error = #expect(throws: ProvisionError.self) {
                try Injector(
                    ClosureModule { binder in
                        binder.bind((any GearBox).self).to(binding: AfterMarketGearBox.self)
                        binder.bind((any GearBox).self).to(ManualGearBox.init)
                    }
                )
            }
            #expect(error?.code == .duplicateBinding)
            #expect(error?.key == BindingKey((any GearBox).self))
        }

        @Test("B-INJ-11 every implementation of a protocol, in binding order; empty when there is none")
        func allImplementations() throws {
            let manual = ManualGearBox()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.multibind((any GearBox).self).to(binding: AfterMarketGearBox.self)
                    binder.multibind((any GearBox).self).toInstance(manual)
                },
                ClosureModule { $0.multibind((any GearBox).self).to(ManualGearBox.init) }
            )
            let all = try injector.getAll((any GearBox).self)
            #expect(all.count == 3)
            #expect(all[0] is AfterMarketGearBox)
            #expect(all[1] === manual)
            #expect(all[2] is ManualGearBox && all[2] !== manual)
            #expect(try injector.getAll((any CreditCardProcessor).self).isEmpty)
        }

        @Test("B-INJ-12 (different) requirements are key paths checked at compile time; protocol-typed ones work")
        func protocolRequirement() throws {
            let gearBox = AfterMarketGearBox()
            let injector = try Injector(
                ObjectionInjectionTests.cars,
                ClosureModule { $0.bind((any GearBox).self).toInstance(gearBox) }
            )
            #expect(try injector.get(FiveSpeedCar.self).gearBox === gearBox)
        }

        @Test("B-INJ-13 requirements merge across the class hierarchy")
        func mergedRequirements() throws {
            let injector = try Injector(
                ObjectionInjectionTests.cars,
                ClosureModule { $0.bind((any GearBox).self).toInstance(AfterMarketGearBox()) }
            )
            let car = try injector.get(FiveSpeedCar.self)
            #expect(car.engine != nil)
            #expect(car.brakes != nil)
            #expect(car.gearBox != nil)
            #expect(car.hookCalls == 1)
        }

        @Test("B-INJ-14 a binding reads its class's requirements once, not for every instance")
        func requirementsCached() throws {
            let injector = try Injector(
                ClosureModule { $0.bind(CountedRequirements.self).to(CountedRequirements.init) })
            let before = CountedRequirements.reads.value
            for _ in 0..<3 {
                #expect(try injector.get(CountedRequirements.self).brakes != nil)
            }
            #expect(CountedRequirements.reads.value - before == 1)
        }

        @Test("B-INJ-15 the default injector must be set explicitly (nil until then) and then creates objects")
        func defaultContext() throws {
            try DefaultInjectorSlot.with(nil) {
                #expect(Injector.default == nil)
            }
            try DefaultInjectorSlot.with(try Injector(Self.cars)) {
                let injector = try #require(Injector.default)
                #expect(try injector.get(ITCar.self).brakes != nil)
                #expect(try injector.get(ITCar.self, arguments: "test" as String?).name == "test")
            }
        }

        @Test("B-INJ-16 an object creates further objects through the injector that created it")
        func localContext() throws {
            let injector = try Injector(Self.cars)
            let parking = try injector.get(Parking.self)
            let anonymous = try parking.park()
            #expect(anonymous.name == nil)
            #expect(anonymous.brakes != nil)
            #expect(try parking.park(named: "test car").name == "test car")

            // Another injector's parking makes that injector's cars.
            let other = try injector.with(
                ClosureModule { binder in
                    binder.override(ITCar.self).withArguments(String?.self)
                        .to { _, name in ITCar(name: name ?? "other") }
                        .defaults(nil)
                }
            )
            #expect(try other.get(Parking.self).park().name == "other")
            #expect(try parking.park().name == nil)
        }

        @Test("B-INJ-17 (different) no nibs: an object created elsewhere gets its requirements with injectDependencies")
        func createdElsewhere() throws {
            let injector = try Injector()
            let car = ITCar(name: "from a file")
            #expect(car.brakes == nil)
            try injector.injectDependencies(into: car)
            #expect(car.brakes != nil)
        }

        @Test("B-INJ-18 concurrent first requests build one singleton per injector, never shared between injectors")
        func concurrentSingletons() throws {
            let injectors = [try Injector(), try Injector()]
            let seen = Locked<[Int: Set<ObjectIdentifier>]>([:])
            let failures = Counter()
            let barrier = Barrier(count: 8)
            let finished = runThreads(8) { index in
                barrier.arriveAndWait()
                let which = index % 2
                do {
                    let factory = try injectors[which].get(CarFactory.self)
                    seen.withLock { _ = $0[which, default: []].insert(ObjectIdentifier(factory)) }
                } catch {
                    failures.increment()
                }
            }
            #expect(finished)
            #expect(failures.value == 0)
            let instances = seen.withLock { $0 }
            #expect(instances[0]?.count == 1)
            #expect(instances[1]?.count == 1)
            #expect(instances[0] != instances[1])
        }
    }
}
