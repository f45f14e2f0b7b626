import Synchronization
import Testing

@testable import Provision

// Safe by default: an injector validates its graph when it is created (an opt-out stays), `start()`
// validates it whatever the configuration says, and in debug builds a closure that declared its
// dependencies is checked against what it resolves.

/// Declares that it needs an engine, and resolves it once plainly, once as an optional.
private final class DeclaredCar: Injectable, Sendable {
    static let injection = Injection(dependencies: [BindingKey(Engine.self)]) { resolver in
        DeclaredCar(engine: try resolver.get(), spare: try resolver.get(Engine?.self))
    }
    init(engine: Engine, spare: Engine?) {}
}

@Suite("Validation by default")
struct ValidationByDefaultTests {
    private static let brokenCar = ClosureModule { binder in
        binder.bind(Engine.self).to(Engine.init)
        binder.bind(Car.self).to(Car.init(engine:brakes:))
    }

    @Test("an injector with a missing binding is not created by default; the opt-out creates it")
    func createdOnlyWhenValid() throws {
        #expect(Injector.Configuration().validatesOnCreation)
        let error = #expect(throws: ProvisionError.self) { try Injector(Self.brokenCar) }
        #expect(error?.code == .validationFailed)
        #expect(error?.underlyingErrors.map(\.pathDescription) == ["Car -> Brakes"])

        let unvalidated = try Injector(
            modules: [Self.brokenCar], configuration: Injector.Configuration(validatesOnCreation: false))
        let request = #expect(throws: ProvisionError.self) { try unvalidated.get(Car.self) }
        #expect(request?.code == .notBound)
    }

    @Test("nothing is built to validate: an eager singleton of a broken graph never runs")
    func nothingBuilt() throws {
        let built = Counter()
        #expect(throws: ProvisionError.self) {
            try Injector(
                Self.brokenCar,
                ClosureModule { binder in
                    binder.bind(Headlight.self).to { () -> Headlight in
                        built.increment()
                        return Headlight()
                    }.asEagerSingleton()
                }
            )
        }
        #expect(built.value == 0)
    }

    @Test("a child validates its own bindings and the parent's they reach, not the parent's whole graph")
    func childValidatesWhatItReaches() throws {
        let parent = try Injector(
            ClosureModule { $0.bind(Headlight.self).to { Headlight(brand: "parent") }.in(.singleton) })
        // Modules installed later are not validated: the parent gets a broken car.
        try parent.install(Self.brokenCar)
        // The child's bindings reach the parent's headlight, never its broken car.
        let child = try parent.makeChild(
            ClosureModule { $0.bind(String.self).to { (light: Headlight) in light.brand } }
        )
        #expect(try child.get(String.self) == "parent")
        // Validating the child explicitly checks everything it can reach, the parent's car included.
        #expect(child.validationReport().problems.map(\.pathDescription) == ["Car -> Brakes"])

        let reaching = #expect(throws: ProvisionError.self) {
            try parent.makeChild(ClosureModule { $0.bind(String.self).to { (car: Car) in "\(car)" } })
        }
        #expect(reaching?.code == .validationFailed)
        #expect(reaching?.underlyingErrors.map(\.pathDescription) == ["String -> Car -> Brakes"])

        // An eager key of the child, bound by the parent, is found in the parent.
        let eager = try parent.makeChild(ClosureModule { $0.eager(Headlight.self) })
        #expect(try eager.get(Headlight.self).brand == "parent")
    }

    @Test("a child of a shut-down injector is refused with shutDown, not reported invalid")
    func childOfShutDownParent() async throws {
        let parent = try Injector(ClosureModule { $0.bind(Engine.self).to(Engine.init) })
        try await parent.shutdown()
        let error = #expect(throws: ProvisionError.self) {
            try parent.makeChild(
                ClosureModule { $0.bind(Car.self).to { (engine: Engine) in Car(engine: engine, brakes: Brakes()) } })
        }
        #expect(error?.code == .shutDown)
    }

    @Test("children created while their parent shuts down are never refused as invalid, 200 rounds")
    func childrenRacingShutdown() async throws {
        var invalid: [String] = []
        for _ in 0..<200 {
            let parent = try Injector(ClosureModule { $0.bind(Engine.self).to(Engine.init) })
            let child = ClosureModule {
                $0.bind(Car.self).to { (engine: Engine) in Car(engine: engine, brakes: Brakes()) }
            }
            async let shutdown: Void = parent.shutdown()
            let children = try await offPool {
                (0..<20).map { _ in Result { () throws(ProvisionError) in try parent.makeChild(child) } }
            }
            try await shutdown
            for case .failure(let error) in children where error.code != .shutDown {
                invalid.append(error.description)
            }
        }
        #expect(invalid.isEmpty, "\(invalid.first ?? "")")
    }

    @Test("start() validates whatever the configuration says: nothing is built, and the injector stays failed")
    func startValidates() async throws {
        let built = Counter()
        let injector = try Injector(
            modules: [
                Self.brokenCar,
                ClosureModule { binder in
                    binder.bind(Headlight.self).to { () -> Headlight in
                        built.increment()
                        return Headlight()
                    }.in(.singleton)
                },
            ],
            configuration: .unvalidated
        )
        let error = await #expect(throws: ProvisionError.self) { try await injector.start() }
        #expect(error?.code == .validationFailed)
        #expect(error?.underlyingErrors.first?.key == BindingKey(Brakes.self))
        #expect(built.value == 0)
        let again = await #expect(throws: ProvisionError.self) { try await injector.start() }
        #expect(again?.code == .invalidLifecycle)
        try await injector.shutdown()

        // A valid graph starts as before.
        let valid = try Injector(ClosureModule { $0.bind(Headlight.self).to { Headlight() }.in(.singleton) })
        try await valid.start()
        try await valid.shutdown()
    }

    #if DEBUG
        /// A car whose closure declares the engine and resolves the brakes too; `car` adds to the binding.
        private static func undeclaredBrakes(
            _ car: @escaping @Sendable (ScopeBuilder<Car>) -> Void = { _ in }
        ) -> ClosureModule {
            ClosureModule { binder in
                binder.bind(Engine.self).to(Engine.init)
                binder.bind(Brakes.self).to(Brakes.init)
                car(
                    binder.bind(Car.self).to(dependencies: [BindingKey(Engine.self)]) { resolver in
                        Car(engine: try resolver.get(), brakes: try resolver.get())
                    })
            }
        }

        @Test("debug builds: a declared closure resolving an undeclared key throws, naming the declaration")
        func undeclaredDependency() throws {
            let injector = try Injector(Self.undeclaredBrakes())
            let error = #expect(throws: ProvisionError.self) { try injector.get(Car.self) }
            #expect(error?.code == .undeclaredDependency)
            #expect(error?.key == BindingKey(Brakes.self))
            #expect(error?.pathDescription == "Car -> Brakes")
            #expect(error?.location?.fileID.hasSuffix("ValidationByDefaultTests.swift") == true)
            #expect(error?.description.contains("declared at: ProvisionTests/ValidationByDefaultTests.swift:") == true)
            #expect(error?.message.contains("(Engine)") == true)
            #expect(error?.hint.contains("add BindingKey(Brakes.self) to the binding's dependencies") == true)
        }

        @Test("debug builds: an optional of a declared key is allowed, and so are the properties a closure fills")
        func allowedRequests() throws {
            let injector = try Injector(ClosureModule { $0.bind(Engine.self).to(Engine.init) })
            // DeclaredCar resolves Engine? with Engine declared.
            _ = try injector.get(DeclaredCar.self)

            final class Dashboard: PropertyInjectable, @unchecked Sendable {
                var engine: Engine?
                static var injectedProperties: [InjectedProperty] { [.inject(\Dashboard.engine)] }
            }
            let filled = try Injector(
                ClosureModule { binder in
                    binder.bind(Engine.self).to(Engine.init)
                    binder.bind(Dashboard.self).to(dependencies: []) { resolver in
                        let dashboard = Dashboard()
                        try resolver.injectDependencies(into: dashboard)
                        return dashboard
                    }
                }
            )
            #expect(try filled.get(Dashboard.self).engine != nil)
        }

        @Test("debug builds: the check holds on the async path, and on every thread, on every request")
        func everyPathAndThread() async throws {
            let injector = try Injector(
                Self.undeclaredBrakes { $0.in(.singleton) },
                ClosureModule { binder in
                    binder.bind(Headlight.self).to(dependencies: []) { resolver in
                        _ = try resolver.get(Engine.self)
                        return Headlight()
                    }
                }
            )
            let asynchronous = await #expect(throws: ProvisionError.self) { try await injector.get(Car.self) }
            #expect(asynchronous?.code == .undeclaredDependency)
            let failures = Counter()
            let finished = try await offPool {
                runThreads(8) { _ in
                    for _ in 0..<100 {
                        do throws(ProvisionError) {
                            _ = try injector.get(Headlight.self)
                        } catch {
                            if error.code == .undeclaredDependency { failures.increment() }
                        }
                    }
                }
            }
            #expect(finished)
            #expect(failures.value == 800)
        }
    #endif
}
