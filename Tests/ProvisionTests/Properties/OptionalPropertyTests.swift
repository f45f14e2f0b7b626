import Synchronization
import Testing

@testable import Provision

// An optional (or implicitly unwrapped) injected property takes its value from a binding of the optional
// type when the injector has one (nil on purpose included: Objection's "nil dependencies allowed",
// B-OBJ-11), and from the wrapped type's binding otherwise.

/// A car whose brakes may be nil on purpose; its engine is implicitly unwrapped.
private final class ConvertibleCar: PropertyInjectable, @unchecked Sendable {
    // Written once, by the injection, before the car is handed to anyone. Implicitly unwrapped, as
    // Objection-style property injection declares it: what this suite checks.
    // swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
    var engine: Engine!
    var brakes: Brakes?
    var rearBrakes: Brakes?
    private let hooks = Atomic(0)

    var hookCalls: Int { hooks.load(ordering: .relaxed) }

    init() {}

    class var injectedProperties: [InjectedProperty] {
        [
            .inject(\ConvertibleCar.engine), .inject(\ConvertibleCar.brakes),
            .inject(\ConvertibleCar.rearBrakes, named: "rear"),
        ]
    }

    func didInjectDependencies() {
        hooks.add(1, ordering: .relaxed)
    }
}

@Suite("Optional injected properties")
struct OptionalPropertyTests {
    /// Binds the car and its engine; the brakes are up to each test.
    private static func module(_ brakes: @escaping @Sendable (Binder) -> Void) -> ClosureModule {
        ClosureModule { binder in
            binder.bind(Engine.self).to(Engine.init)
            binder.bind(ConvertibleCar.self).to(ConvertibleCar.init)
            brakes(binder)
        }
    }

    @Test("a binding of the optional type that gives nil sets the property to nil; the hook still runs")
    func nilOnPurpose() throws {
        let injector = try Injector(
            Self.module { binder in
                binder.bind(Brakes?.self).to { (_: Resolver) -> Brakes? in nil }
                binder.bind(Brakes?.self, named: "rear").toInstance(nil)
            }
        )
        let car = try injector.get(ConvertibleCar.self)
        #expect(car.brakes == nil && car.rearBrakes == nil)
        #expect(car.engine != nil)
        #expect(car.hookCalls == 1)
    }

    @Test("without a binding of the optional type, the wrapped type's binding is used, and required")
    func wrappedBinding() throws {
        let injector = try Injector(
            Self.module { binder in
                binder.bind(Brakes.self).to(Brakes.init)
                binder.bind(Brakes.self, named: "rear").to(Brakes.init)
            }
        )
        let car = try injector.get(ConvertibleCar.self)
        #expect(car.brakes != nil && car.rearBrakes != nil && car.brakes !== car.rearBrakes)

        let missing = try Injector(modules: [Self.module { _ in }], configuration: .init(validatesOnCreation: false))
        let error = #expect(throws: ProvisionError.self) { try missing.get(ConvertibleCar.self) }
        #expect(error?.code == .notBound)
        #expect(
            Set(error?.underlyingErrors.compactMap(\.key) ?? [])
                == [BindingKey(Brakes.self), BindingKey(Brakes.self, named: "rear")])
    }

    @Test("a binding of the optional type wins over the wrapped type's, whichever it gives")
    func optionalBindingWins() throws {
        let front = Brakes()
        let injector = try Injector(
            Self.module { binder in
                binder.bind(Brakes.self).to(Brakes.init)
                binder.bind(Brakes?.self).toInstance(front)
                binder.bind(Brakes?.self, named: "rear").toInstance(nil)
                binder.bind(Brakes.self, named: "rear").to(Brakes.init)
            }
        )
        let car = try injector.get(ConvertibleCar.self)
        #expect(car.brakes === front)
        #expect(car.rearBrakes == nil)
    }

    @Test("a parent's binding of the optional type is used by a child's bindings")
    func parentsOptionalBinding() throws {
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(Brakes?.self).toInstance(nil)
                binder.bind(Brakes?.self, named: "rear").toInstance(nil)
            }
        )
        let child = try parent.makeChild(Self.module { _ in })
        let car = try child.get(ConvertibleCar.self)
        #expect(car.brakes == nil && car.engine != nil)
    }

    @Test("objects created elsewhere get the optional binding too; onlyIfNil keeps what they hold")
    func injectIntoExistingObject() throws {
        let kept = Brakes()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Engine.self).to(Engine.init)
                binder.bind(Brakes.self).to(Brakes.init)
                binder.bind(Brakes?.self).toInstance(nil)
                binder.bind(Brakes?.self, named: "rear").to { (_: Resolver) -> Brakes? in Brakes() }
            }
        )
        let car = ConvertibleCar()
        car.brakes = kept
        try injector.injectDependencies(into: car, onlyIfNil: true)
        #expect(car.brakes === kept)
        #expect(car.rearBrakes != nil)
        try injector.injectDependencies(into: car)
        #expect(car.brakes == nil, "without onlyIfNil, the optional binding's nil replaces the value")
        #expect(car.hookCalls == 2)
    }

    @Test("a closure's result filled through its resolver takes the optional binding")
    func throughResolver() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Engine.self).to(Engine.init)
                binder.bind(Brakes?.self).toInstance(nil)
                binder.bind(Brakes?.self, named: "rear").toInstance(nil)
                binder.bind(ConvertibleCar.self).to { resolver in
                    let car = ConvertibleCar()
                    try resolver.injectDependencies(into: car)
                    return car
                }
            }
        )
        let car = try injector.get(ConvertibleCar.self)
        #expect(car.brakes == nil && car.engine != nil && car.hookCalls == 1)
    }

    @Test("linking and validation need no Brakes binding when Brakes? is bound; start order follows it")
    func linkingAndStartOrder() throws {
        let injector = try Injector(
            modules: [
                Self.module { binder in
                    binder.bind(Brakes?.self).to { (_: Resolver) -> Brakes? in Brakes() }.in(.singleton)
                    binder.bind(Brakes?.self, named: "rear").toInstance(nil)
                }
            ],
            configuration: .init(validatesOnCreation: true)
        )
        let car = try injector.get(ConvertibleCar.self)
        #expect(car.brakes != nil)
        let node = try #require(injector.registry.retainedNode(for: BindingKey(ConvertibleCar.self)))
        #expect(node.injectedPropertyKeys.contains(BindingKey(Brakes?.self)))
        #expect(!node.injectedPropertyKeys.contains(BindingKey(Brakes.self)))
    }

    @Test("a singleton with optional properties requested by 8 threads at once is built and injected once")
    func singletonFromThreads() throws {
        for _ in 0..<25 {
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Engine.self).to(Engine.init)
                    binder.bind(Brakes?.self).toInstance(nil)
                    binder.bind(Brakes?.self, named: "rear").to { (_: Resolver) -> Brakes? in Brakes() }
                    binder.bind(ConvertibleCar.self).to(ConvertibleCar.init).in(.singleton)
                }
            )
            let barrier = Barrier(count: 8)
            let cars = Locked<[ObjectIdentifier]>([])
            let finished = runThreads(8) { _ in
                barrier.arriveAndWait()
                if let car = try? injector.get(ConvertibleCar.self) {
                    cars.withLock { $0.append(ObjectIdentifier(car)) }
                }
            }
            #expect(finished)
            let identities = cars.withLock { $0 }
            #expect(identities.count == 8 && Set(identities).count == 1)
            let car = try injector.get(ConvertibleCar.self)
            #expect(car.hookCalls == 1 && car.brakes == nil && car.rearBrakes != nil)
        }
    }
}
