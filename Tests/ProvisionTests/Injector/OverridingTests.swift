import Synchronization
import Testing

@testable import Provision

// `injector.overriding { ... }`: a derived injector that replaces some bindings and shares every singleton
// that doesn't depend on them.

private protocol ShopClock: Sendable {
    var now: Int { get }
}

private final class SystemShopClock: ShopClock {
    var now: Int { 1_000 }
}

private final class FixedShopClock: ShopClock {
    let now: Int
    init(now: Int) { self.now = now }
}

/// Untouched by a clock override: shared.
private final class ShopDatabase: Sendable {}

/// Depends on the database only: shared.
private final class ShopReporter: Sendable {
    let database: ShopDatabase
    init(database: ShopDatabase) { self.database = database }
}

/// Depends on the clock: rebuilt.
private final class ShopCheckout: Sendable {
    let clock: any ShopClock
    let database: ShopDatabase
    init(clock: any ShopClock, database: ShopDatabase) {
        self.clock = clock
        self.database = database
    }
}

/// Reaches the clock only through a handle.
private final class ShopScheduler: Sendable {
    let clock: Provider<any ShopClock>
    let lazyClock: Lazy<any ShopClock>
    init(clock: Provider<any ShopClock>, lazyClock: Lazy<any ShopClock>) {
        self.clock = clock
        self.lazyClock = lazyClock
    }
}

/// Resolves anything later.
private final class ShopRouter: Sendable {
    let factory: ObjectFactory
    init(factory: ObjectFactory) { self.factory = factory }
}

/// Declares how it is built: a just-in-time singleton that depends on the clock.
private final class ShopAudit: Injectable, Sendable {
    static let injection = Injection(ShopAudit.init(clock:)).in(.singleton)
    let clock: any ShopClock
    init(clock: any ShopClock) { self.clock = clock }
}

/// A just-in-time singleton that doesn't depend on the clock.
private final class ShopCache: Injectable, Sendable {
    static let injection = Injection(ShopCache.init(database:)).in(.singleton)
    init(database: ShopDatabase) {}
}

/// Gets its clock as an injected property.
private final class ShopTill: PropertyInjectable, @unchecked Sendable {
    // Written once, by the injection, before the till is handed to anyone.
    var clock: (any ShopClock)?
    init() {}
    static var injectedProperties: [InjectedProperty] { [.inject(\ShopTill.clock)] }
}

/// Counts the builds of each service of the shop.
private final class ShopBuilds: Sendable {
    let database = Counter()
    let reporter = Counter()
    let checkout = Counter()
    let closures = Counter()
}

@Suite("Injector.overriding")
struct OverridingTests {
    private static func shop(_ builds: ShopBuilds) -> ClosureModule {
        ClosureModule { binder in
            binder.bind((any ShopClock).self).to(SystemShopClock.init).in(.singleton)
            binder.bind(ShopDatabase.self).to { () -> ShopDatabase in
                builds.database.increment()
                return ShopDatabase()
            }.in(.singleton)
            binder.bind(ShopReporter.self).to { (database: ShopDatabase) -> ShopReporter in
                builds.reporter.increment()
                return ShopReporter(database: database)
            }.in(.singleton)
            binder.bind(ShopCheckout.self).to { (clock: any ShopClock, database: ShopDatabase) -> ShopCheckout in
                builds.checkout.increment()
                return ShopCheckout(clock: clock, database: database)
            }.in(.singleton)
            binder.bind(ShopScheduler.self).to(ShopScheduler.init(clock:lazyClock:)).in(.singleton)
            binder.bind(ShopRouter.self).to(ShopRouter.init(factory:)).in(.singleton)
            binder.bind(ShopTill.self).to(ShopTill.init).in(.singleton)
        }
    }

    private static let fixedClock: @Sendable (Binder) -> Void = { binder in
        binder.bind((any ShopClock).self).toInstance(FixedShopClock(now: 42))
    }

    @Test("the replacement is used, a singleton depending on it is rebuilt, every other singleton is shared")
    func sharesWhatItDoesNotTouch() throws {
        let builds = ShopBuilds()
        let app = try Injector(Self.shop(builds))
        let reporter = try app.get(ShopReporter.self)
        let checkout = try app.get(ShopCheckout.self)

        let test = try app.overriding(Self.fixedClock)
        #expect(try test.get((any ShopClock).self).now == 42)
        #expect(try test.get(ShopReporter.self) === reporter)
        #expect(try test.get(ShopDatabase.self) === reporter.database)
        let rebuilt = try test.get(ShopCheckout.self)
        #expect(rebuilt !== checkout)
        #expect(rebuilt.clock.now == 42)
        #expect(rebuilt.database === reporter.database, "the rebuilt checkout gets the shared database")
        #expect(builds.database.value == 1 && builds.reporter.value == 1 && builds.checkout.value == 2)
        // The original is unchanged.
        #expect(try app.get(ShopCheckout.self) === checkout)
        #expect(try app.get((any ShopClock).self).now == 1_000)
    }

    @Test("an unbuilt shared singleton is built once for both injectors, by threads asking both at once")
    func sharedSingletonBuiltOnce() throws {
        for _ in 0..<20 {
            let builds = ShopBuilds()
            let app = try Injector(Self.shop(builds))
            let test = try app.overriding(Self.fixedClock)
            let barrier = Barrier(count: 8)
            let seen = Locked<Set<ObjectIdentifier>>([])
            let finished = runThreads(8) { index in
                barrier.arriveAndWait()
                let injector = index.isMultiple(of: 2) ? app : test
                if let reporter = try? injector.get(ShopReporter.self) {
                    seen.withLock { _ = $0.insert(ObjectIdentifier(reporter)) }
                }
            }
            #expect(finished)
            #expect(seen.withLock { $0.count } == 1)
            #expect(builds.reporter.value == 1 && builds.database.value == 1)
        }
    }

    @Test("handles, object factories and injected properties that reach the replaced key are rebuilt")
    func indirectDependents() throws {
        let app = try Injector(Self.shop(ShopBuilds()))
        let scheduler = try app.get(ShopScheduler.self)
        let router = try app.get(ShopRouter.self)
        let till = try app.get(ShopTill.self)

        let test = try app.overriding(Self.fixedClock)
        let testScheduler = try test.get(ShopScheduler.self)
        #expect(testScheduler !== scheduler)
        #expect(try testScheduler.clock.get().now == 42)
        #expect(try testScheduler.lazyClock.value.now == 42)
        let testRouter = try test.get(ShopRouter.self)
        #expect(testRouter !== router)
        #expect(try testRouter.factory.get((any ShopClock).self).now == 42)
        let testTill = try test.get(ShopTill.self)
        #expect(testTill !== till && testTill.clock?.now == 42)
        #expect(try scheduler.clock.get().now == 1_000, "the original's handles still resolve in the original")
    }

    @Test("closures that don't declare their dependencies are rebuilt; declared ones that don't reach it are shared")
    func closures() throws {
        let builds = ShopBuilds()
        let app = try Injector(
            Self.shop(builds),
            ClosureModule { binder in
                binder.bind(String.self, named: "undeclared").to { resolver -> String in
                    builds.closures.increment()
                    _ = try resolver.get(ShopDatabase.self)
                    return "undeclared"
                }.in(.singleton)
                binder.bind(String.self, named: "declared").to(dependencies: [BindingKey(ShopDatabase.self)]) {
                    resolver -> String in
                    builds.closures.increment()
                    _ = try resolver.get(ShopDatabase.self)
                    return "declared"
                }.in(.singleton)
            }
        )
        _ = try app.get(String.self, named: "undeclared")
        _ = try app.get(String.self, named: "declared")
        let test = try app.overriding(Self.fixedClock)
        _ = try test.get(String.self, named: "declared")
        #expect(builds.closures.value == 2, "the declared closure is shared")
        _ = try test.get(String.self, named: "undeclared")
        #expect(builds.closures.value == 3, "the undeclared one may reach the clock: rebuilt")
    }

    @Test("just-in-time singletons: shared when they don't reach the replacement, even when first asked later")
    func justInTimeBindings() throws {
        let app = try Injector(Self.shop(ShopBuilds()))
        let audit = try app.get(ShopAudit.self)
        let test = try app.overriding(Self.fixedClock)
        let testAudit = try test.get(ShopAudit.self)
        #expect(testAudit !== audit && testAudit.clock.now == 42)
        // Never requested before the derivation: made once, in the original, and shared.
        let cache = try test.get(ShopCache.self)
        #expect(try app.get(ShopCache.self) === cache)
        #expect(try test.get(ShopCache.self) === cache)
    }

    @Test("a multibinding whose element reaches the replacement is rebuilt; an override can't add elements")
    func multibindings() throws {
        let app = try Injector(
            ClosureModule { binder in
                binder.bind((any ShopClock).self).to(SystemShopClock.init)
                binder.multibind(Int.self).to { (clock: any ShopClock) in clock.now }
                binder.multibind(Int.self).toInstance(7)
                binder.multibind(String.self).toInstance("kept")
            }
        )
        #expect(try app.getAll(Int.self) == [1_000, 7])
        let test = try app.overriding(Self.fixedClock)
        #expect(try test.getAll(Int.self) == [42, 7])
        #expect(try test.getAll(String.self) == ["kept"])
        #expect(try app.getAll(Int.self) == [1_000, 7])

        let error = #expect(throws: ProvisionError.self) {
            try app.overriding { $0.multibind(Int.self).toInstance(1) }
        }
        #expect(error?.code == .duplicateBinding)
        #expect(error?.key == BindingKey([Int].self))
        let whole = try app.overriding { $0.bind([Int].self).toInstance([1, 2]) }
        #expect(try whole.getAll(Int.self) == [1, 2])
    }

    @Test("the derived injector starts and stops only its own singletons; the original's shutdown ends it too")
    func lifecycle() async throws {
        let events = Locked<[String]>([])
        let app = try Injector(
            ClosureModule { binder in
                binder.bind((any ShopClock).self).to(SystemShopClock.init).in(.singleton)
                binder.bind(ShopDatabase.self).to(ShopDatabase.init).in(.singleton)
                    .onStart { _ in events.withLock { $0.append("start database") } }
                    .onStop { _ in events.withLock { $0.append("stop database") } }
                binder.bind(ShopCheckout.self).to(ShopCheckout.init(clock:database:)).in(.singleton)
                    .onStart { _ in events.withLock { $0.append("start checkout") } }
                    .onStop { _ in events.withLock { $0.append("stop checkout") } }
            }
        )
        try await app.start()
        let test = try app.overriding(Self.fixedClock)
        try await test.start()
        try await test.shutdown()
        #expect(
            events.withLock { $0 } == [
                "start database", "start checkout", "start checkout", "stop checkout",
            ])
        #expect(try await app.get(ShopCheckout.self).clock.now == 1_000, "the original runs on")

        let other = try app.overriding(Self.fixedClock)
        try await app.shutdown()
        let error = await #expect(throws: ProvisionError.self) { try await other.get(ShopCheckout.self) }
        #expect(error?.code == .shutDown)
    }

    @Test("eager replacements and eager singletons that depend on them are built when the injector is derived")
    func eagerSingletons() throws {
        let builds = ShopBuilds()
        let app = try Injector(
            ClosureModule { binder in
                binder.bind((any ShopClock).self).to(SystemShopClock.init)
                binder.bind(ShopDatabase.self).to(ShopDatabase.init).asEagerSingleton()
                binder.bind(ShopCheckout.self).to { (clock: any ShopClock, database: ShopDatabase) in
                    builds.checkout.increment()
                    return ShopCheckout(clock: clock, database: database)
                }.asEagerSingleton()
            }
        )
        #expect(builds.checkout.value == 1)
        let clocks = Counter()
        let test = try app.overriding { binder in
            binder.bind((any ShopClock).self).to { () -> any ShopClock in
                clocks.increment()
                return FixedShopClock(now: 42)
            }.asEagerSingleton()
        }
        #expect(builds.checkout.value == 2 && clocks.value == 1)
        #expect(try test.get(ShopCheckout.self).database === app.get(ShopDatabase.self))
    }

    @Test("modules installed into the original are configured again when they depend on the replacement")
    func installedModules() throws {
        let app = try Injector(Self.shop(ShopBuilds()))
        try app.install(
            ClosureModule { $0.bind(Int.self, named: "now").to { (clock: any ShopClock) in clock.now } })
        let test = try app.overriding(Self.fixedClock)
        #expect(try test.get(Int.self, named: "now") == 42)
        #expect(try app.get(Int.self, named: "now") == 1_000)
    }

    @Test("a derived injector can be derived again; with(_:) on it rebuilds from every module")
    func derivingAgain() throws {
        let builds = ShopBuilds()
        let app = try Injector(Self.shop(builds))
        let database = try app.get(ShopDatabase.self)
        let first = try app.overriding(Self.fixedClock)
        let second = try first.overriding { $0.bind((any ShopClock).self).toInstance(FixedShopClock(now: 7)) }
        #expect(try second.get(ShopCheckout.self).clock.now == 7)
        #expect(try second.get(ShopDatabase.self) === database)
        #expect(try first.get(ShopCheckout.self).clock.now == 42)
        let rebuilt = try first.with()
        #expect(try rebuilt.get(ShopCheckout.self).clock.now == 42)
        #expect(try rebuilt.get(ShopDatabase.self) !== database, "with(_:) shares nothing")
    }

    @Test("a chain of 2,000 delegations above the replacement is re-created, derived on a 512 KiB thread")
    func deepChain() throws {
        let app = try Injector(DeepChain.module(.delegations, length: 2_000))
        let result = try DeepChain.run(on: .small) {
            Result { () throws(ProvisionError) in
                try app.overriding { binder in
                    binder.bind(ChainLink.self, named: DeepChain.name(1_999)).to {
                        ChainLink(next: ChainLink(next: nil))
                    }
                }
            }
        }
        let test = try result.get()
        let first = try DeepChain.run(on: .large) {
            Result { () throws(ProvisionError) in try test.get(ChainLink.self, named: DeepChain.name(0)) }
        }
        // Each link delegates to the next: the first link is the last link's value, the replacement's.
        #expect(DeepChain.length(of: try first.get()) == 2)
        #expect(DeepChain.length(of: try app.get(ChainLink.self, named: DeepChain.name(0))) == 1)
    }

    @Test("errors: a replacement module that throws, and a replacement that breaks the graph, at creation")
    func errors() throws {
        let app = try Injector(modules: [Self.shop(ShopBuilds())], configuration: .init(validatesOnCreation: true))
        let thrown = #expect(throws: ProvisionError.self) {
            try app.overriding { _ in throw ExpectedFailure(id: 3) }
        }
        #expect(thrown?.code == .configurationFailed)
        #expect(thrown?.cause as? ExpectedFailure == ExpectedFailure(id: 3))

        let broken = #expect(throws: ProvisionError.self) {
            try app.overriding { $0.bind(ShopDatabase.self).to { (_: Engine) in ShopDatabase() } }
        }
        #expect(broken?.code == .validationFailed)
        #expect(broken?.underlyingErrors.first?.key == BindingKey(Engine.self))
    }
}
