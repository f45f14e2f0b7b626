import Testing

@testable import Provision

// Objection's injector: creation, lookup, scopes, the default injector and thread safety
// (BasicUsageSpecs and the injector half of ModuleUsageSpecs).

extension Seed {
    @Suite("Seeds: Objection injector")
    struct ObjectionInjectorTests {
        @Test("B-OBJ-01 an injector is created from no module, one, or several in order; a later override wins")
        func createInjector() throws {
            let configured = Counter()
            let slow = ClosureModule { binder in
                configured.increment()
                binder.bind(Blinker.self).toInstance(Blinker(speed: 1))
            }
            let fast = ClosureModule { binder in
                configured.increment()
                binder.override(Blinker.self).toInstance(Blinker(speed: 2))
            }

            let empty = try Injector()
            #expect(empty.modules.isEmpty)
            let error = #expect(throws: ProvisionError.self) { try empty.get(Blinker.self) }
            #expect(error?.code == .notBound)

            #expect(try Injector(slow).get(Blinker.self).speed == 1)
            #expect(try Injector(slow, fast).get(Blinker.self).speed == 2)
            let fromArray = try Injector(modules: [slow, fast])
            #expect(try fromArray.get(Blinker.self).speed == 2)
            #expect(fromArray.modules.count == 2)
            // Order matters: the later binding must be the override.
            let reversed = #expect(throws: ProvisionError.self) { try Injector(modules: [fast, slow]) }
            #expect(reversed?.code == .duplicateBinding)
            // The injector configures each module itself, once per module and injector.
            #expect(configured.value == 7)
        }

        @Test("B-OBJ-02 (different) types declare themselves (Injectable), not in a global registry; scopes hold")
        func selfDeclaredTypes() throws {
            #expect(CarFactory.injection.defaultScope == .singleton)
            #expect(Brakes.injection.defaultScope == .transient)
            let injector = try Injector()
            #expect(try injector.get(CarFactory.self) === injector.get(CarFactory.self))
            #expect(try injector.get(Brakes.self) !== injector.get(Brakes.self))
        }

        @Test("B-OBJ-03 (different) lookup: a module's binding, then the type's own declaration, else notBound")
        func lookupOrder() throws {
            let mine = Brakes()
            let injector = try Injector(ClosureModule { $0.bind(Brakes.self).toInstance(mine) })
            #expect(try injector.get(Brakes.self) === mine)
            #expect(!injector.hasBinding(for: Engine.self))
            #expect(try injector.get(Engine.self).hookCalls == 1)
            #expect(injector.hasBinding(for: Engine.self), "the just-in-time binding stays in the injector")
            let error = #expect(throws: ProvisionError.self) { try injector.get((any GearBox).self) }
            #expect(error?.code == .notBound)
            #expect(error?.key == BindingKey((any GearBox).self))
            #expect(BindingKey(Headlight.self, named: "left") != BindingKey(Headlight.self))
        }

        @Test("B-OBJ-04 (different) an unregistered concrete type is notBound, not built by reflection")
        func unregisteredType() throws {
            let injector = try Injector()
            let error = #expect(throws: ProvisionError.self) { try injector.get(UnregisteredCar.self) }
            #expect(error?.code == .notBound)
            #expect(error?.key == BindingKey(UnregisteredCar.self))
            #expect(error?.hint.contains("UnregisteredCar.self") == true)

            // Bound to its initializer, it is built and filled like Objection's auto-registered class.
            let bound = try Injector(ClosureModule { $0.bind(UnregisteredCar.self).to(UnregisteredCar.init) })
            let car = try bound.get(UnregisteredCar.self)
            #expect(car.engine?.hookCalls == 1)
        }

        @Test("B-OBJ-05 an existential with no binding resolves to nil as an optional; as itself, it throws notBound")
        func unboundProtocol() throws {
            let injector = try Injector()
            #expect(try injector.get((any GearBox)?.self) == nil)
            let error = #expect(throws: ProvisionError.self) { try injector.get((any GearBox).self) }
            #expect(error?.code == .notBound)
            #expect(error?.path == [BindingKey((any GearBox).self)])
            // Bound, the optional request returns the instance.
            let bound = try Injector(ClosureModule { $0.bind((any GearBox).self).to(AfterMarketGearBox.init) })
            #expect(try bound.get((any GearBox)?.self) is AfterMarketGearBox)
        }

        @Test("B-OBJ-07 the default scope builds a new instance per request")
        func transientByDefault() throws {
            let injector = try Injector(ClosureModule { $0.bind(Car.self).to(Car.init) })
            #expect(try injector.get(Engine.self) !== injector.get(Engine.self))
            let first = try injector.get(Car.self)
            let second = try injector.get(Car.self)
            #expect(first !== second)
            #expect(first.engine !== second.engine)
        }

        @Test("B-OBJ-08 a singleton is one instance per injector, not per process")
        func singletonPerInjector() throws {
            let injector = try Injector()
            let factory = try injector.get(CarFactory.self)
            #expect(try injector.get(CarFactory.self) === factory)
            #expect(try Injector().get(CarFactory.self) !== factory)
        }

        @Test("B-OBJ-16 the subscript is the same as get, plain and named")
        func subscripts() throws {
            let right = Headlight()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Car.self).to(Car.init)
                    binder.bind(Headlight.self, named: "RightHeadlight").toInstance(right)
                }
            )
            #expect(try injector[Car.self].engine?.hookCalls == 1)
            #expect(try injector[CarFactory.self] === injector.get(CarFactory.self))
            #expect(try injector[Headlight.self, named: "RightHeadlight"] === right)
            let error = #expect(throws: ProvisionError.self) { try injector[Headlight.self] }
            #expect(error?.code == .notBound)
        }

        @Test("B-OBJ-34 the default injector is nil until set, replaced by assignment, and used only when asked")
        func defaultInjector() throws {
            let first = try Injector()
            let second = try Injector()
            try DefaultInjectorSlot.with(nil) {
                #expect(Injector.default == nil)
            }
            try DefaultInjectorSlot.with(first) {
                #expect(Injector.default === first)
                let factory = try #require(Injector.default).get(CarFactory.self)
                #expect(try first.get(CarFactory.self) === factory)
                Injector.default = second
                #expect(Injector.default === second)
                #expect(try second.get(CarFactory.self) !== factory)
            }
        }

        @Test("B-OBJ-41 (different) a declared singleton is shared by holders that never referenced it before")
        func singletonSharedByHolders() throws {
            let injector = try Injector()
            let first = try injector.get(SingletonItemHolder.self)
            let second = try injector.get(SingletonItemHolder.self)
            #expect(first !== second)
            let item = try #require(first.singletonItem)
            #expect(second.singletonItem === item)
        }

        @Test("B-OBJ-42 (different) thread-safe without a global lock: 8 threads share one singleton, built once")
        func threadSafety() throws {
            let builds = Counter()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(CarFactory.self).to { _ in
                        builds.increment()
                        return CarFactory()
                    }.in(.singleton)
                }
            )
            let seen = Locked<Set<ObjectIdentifier>>([])
            let failures = Counter()
            let barrier = Barrier(count: 8)
            let finished = runThreads(8) { _ in
                barrier.arriveAndWait()
                for _ in 0..<200 {
                    do {
                        let factory = try injector.get(CarFactory.self)
                        seen.withLock { _ = $0.insert(ObjectIdentifier(factory)) }
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
