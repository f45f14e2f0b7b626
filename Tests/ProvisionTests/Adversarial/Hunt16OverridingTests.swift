import Dispatch
import Foundation
import Testing

@testable import Provision

// Behaviours that hmlongco's Factory and Point-Free's swift-dependencies check for tests: overriding a
// dependency for one test (and only for it), the caches of what depends on it reset while everything
// else is shared, overrides of self-declared types, of collections, of factories with arguments and of
// scoped services, overrides of overrides, and many tests deriving their injectors in parallel.

// MARK: - Fixtures

private protocol Hunt16Clock: Sendable {
    var now: Int { get }
}

private struct Hunt16SystemClock: Hunt16Clock {
    var now: Int { 1 }
}

private struct Hunt16FixedClock: Hunt16Clock {
    let now: Int
}

/// Self-declared (no module binds it): a singleton with the real clock.
private final class Hunt16DeclaredClock: Injectable, Sendable {
    static let injection = Injection(Hunt16DeclaredClock.init).in(.singleton)
    let now: Int
    init() { now = 1 }
    init(now: Int) { self.now = now }
}

/// Self-declared singleton depending on a self-declared clock.
private final class Hunt16Scheduler: Injectable, Sendable {
    static let injection = Injection(Hunt16Scheduler.init(clock:)).in(.singleton)
    let clock: Hunt16DeclaredClock
    init(clock: Hunt16DeclaredClock) { self.clock = clock }
}

/// Bound by a module, built from the self-declared scheduler.
private struct Hunt16Job: Sendable {
    let scheduler: Hunt16Scheduler
}

private final class Hunt16Database: Sendable {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}

/// A singleton built from the shared database and the overridable clock.
private final class Hunt16Billing: Sendable {
    let database: Hunt16Database
    let clock: any Hunt16Clock
    init(database: Hunt16Database, clock: any Hunt16Clock) {
        self.database = database
        self.clock = clock
    }
}

private protocol Hunt16Feature: Sendable {
    var name: String { get }
}

private struct Hunt16NamedFeature: Hunt16Feature {
    let name: String
}

private struct Hunt16FeatureList: Sendable {
    let features: [any Hunt16Feature]
}

private final class Hunt16Greeter: Sendable {
    let text: String
    init(text: String) { self.text = text }
}

/// Holds a Func<String, Greeter>: a provider of a binding with arguments.
private struct Hunt16Welcome: Sendable {
    let greeters: Provider<Hunt16Greeter>
    func greet(_ name: String) throws -> String { try greeters.get(arguments: name).text }
}

private final class Hunt16Session: Sendable {
    let user: String
    init(user: String) { self.user = user }
}

private struct Hunt16Page: Sendable {
    let session: Hunt16Session
}

/// A shared, disposable singleton of the base injector.
private final class Hunt16SharedStore: Disposable {
    let log: EventLog
    init(log: EventLog) { self.log = log }
    func dispose() { log.append("dispose store") }
}

/// Re-created by each test's injector (it needs the overridden clock); disposed by it.
private final class Hunt16Invoicer: Disposable {
    let store: Hunt16SharedStore
    let clock: any Hunt16Clock
    init(store: Hunt16SharedStore, clock: any Hunt16Clock) {
        self.store = store
        self.clock = clock
    }

    func dispose() { store.log.append("dispose invoicer \(clock.now)") }
}

// MARK: - Tests

@Suite("Hunt16: Factory's and swift-dependencies' test overrides on Provision", .timeLimit(.minutes(1)))
struct Hunt16OverridingTests {
    /// Factory's `register { FakeClock() }` on a container whose graph is self-declared: overriding a
    /// self-declared type rebuilds the self-declared singleton above it, in the test's injector only,
    /// whether the original had built it or not; the original keeps its own.
    @Test("overriding a self-declared clock re-creates the self-declared scheduler above it, there only")
    func overrideDeclaredType() throws {
        for builtFirst in [true, false] {
            let app = try Injector(
                ClosureModule { binder in
                    binder.bind(Hunt16Job.self).to(Hunt16Job.init(scheduler:))
                })
            let original = builtFirst ? try app.get(Hunt16Scheduler.self) : nil
            let test = try app.overriding { binder in
                binder.bind(Hunt16DeclaredClock.self).toInstance(Hunt16DeclaredClock(now: 42))
            }
            #expect(try test.get(Hunt16Scheduler.self).clock.now == 42, "built first: \(builtFirst)")
            #expect(try test.get(Hunt16Job.self).scheduler.clock.now == 42, "built first: \(builtFirst)")
            #expect(try app.get(Hunt16Scheduler.self).clock.now == 1, "built first: \(builtFirst)")
            #expect(try app.get(Hunt16Job.self).scheduler.clock.now == 1, "built first: \(builtFirst)")
            if let original { #expect(try app.get(Hunt16Scheduler.self) === original) }
            #expect(try test.get(Hunt16Scheduler.self) !== app.get(Hunt16Scheduler.self))
        }
    }

    /// swift-dependencies' tests run in parallel, each with its own overrides. Sixteen "tests" derive
    /// their injectors from one app injector at the same moment, each with its own fixed clock, and
    /// resolve the billing singleton (which needs the clock and the shared database): the database is
    /// built once for all, each test's billing once, and each test sees its own clock.
    @Test("16 tests override the clock of one app injector in parallel: exact builds, no crosstalk")
    func parallelOverrides() throws {
        let databases = Counter()
        let billings = Counter()
        let app = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt16Database.self).to { Hunt16Database(serial: databases.increment()) }.in(.singleton)
                binder.bind((any Hunt16Clock).self).to { Hunt16SystemClock() }
                binder.bind(Hunt16Billing.self).to { (database: Hunt16Database, clock: any Hunt16Clock) in
                    billings.increment()
                    return Hunt16Billing(database: database, clock: clock)
                }.in(.singleton)
            })
        let barrier = Barrier(count: 16)
        let clocks = Locked<[Int: Int]>([:])
        let databaseSerials = Locked<Set<Int>>([])
        let failures = Locked<[String]>([])
        let finished = runThreads(16, timeout: 20) { index in
            barrier.arriveAndWait()
            do {
                let test = try app.overriding { binder in
                    binder.bind((any Hunt16Clock).self).toInstance(Hunt16FixedClock(now: 100 + index))
                }
                let first = try test.get(Hunt16Billing.self)
                let second = try test.get(Hunt16Billing.self)
                if first !== second { failures.withLock { $0.append("two billings in test \(index)") } }
                clocks.withLock { $0[index] = first.clock.now }
                databaseSerials.withLock { _ = $0.insert(first.database.serial) }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(finished)
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        #expect(databases.value == 1)
        #expect(billings.value == 16)
        #expect(clocks.withLock { $0 } == Dictionary(uniqueKeysWithValues: (0..<16).map { ($0, 100 + $0) }))
        #expect(databaseSerials.withLock { $0 } == [1])
        #expect(try app.get(Hunt16Billing.self).clock.now == 1)
        #expect(billings.value == 17)
    }

    /// Factory's tests replace a whole collection; Provision documents that an override replaces the
    /// collection key `[T]` (not single elements). The test's getAll, and what injects the collection,
    /// see the replacement; the app keeps its elements.
    @Test("overriding a multibinding's collection key: getAll and injected lists see the replacement")
    func overrideCollection() throws {
        let app = try Injector(
            ClosureModule { binder in
                binder.multibind((any Hunt16Feature).self).to { Hunt16NamedFeature(name: "search") }
                binder.multibind((any Hunt16Feature).self).to { Hunt16NamedFeature(name: "share") }.in(.singleton)
                binder.bind(Hunt16FeatureList.self).to(Hunt16FeatureList.init(features:)).in(.singleton)
            })
        #expect(try app.get(Hunt16FeatureList.self).features.map(\.name) == ["search", "share"])
        let test = try app.overriding { binder in
            binder.bind([any Hunt16Feature].self).toInstance([Hunt16NamedFeature(name: "fake")])
        }
        #expect(try test.getAll((any Hunt16Feature).self).map(\.name) == ["fake"])
        #expect(try test.get(Hunt16FeatureList.self).features.map(\.name) == ["fake"])
        #expect(try test.get(Lazy<[any Hunt16Feature]>.self).value.map(\.name) == ["fake"])
        #expect(try app.getAll((any Hunt16Feature).self).map(\.name) == ["search", "share"])
        #expect(try app.get(Hunt16FeatureList.self).features.map(\.name) == ["search", "share"])
    }

    /// Factory's parameterized factories, overridden in a test: a service holding a provider of a binding
    /// with arguments is re-created and greets through the fake; the app still greets through the real.
    @Test("overriding a binding with arguments: a provider of it, held by a singleton, uses the fake")
    func overrideArgumentBinding() throws {
        let app = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt16Greeter.self).withArguments(String.self).to { _, name in
                    Hunt16Greeter(text: "hello \(name)")
                }
                binder.bind(Hunt16Welcome.self).to(Hunt16Welcome.init(greeters:)).in(.singleton)
            })
        #expect(try app.get(Hunt16Welcome.self).greet("ann") == "hello ann")
        let test = try app.overriding { binder in
            binder.bind(Hunt16Greeter.self).withArguments(String.self).to { _, name in
                Hunt16Greeter(text: "fake \(name)")
            }
        }
        #expect(try test.get(Hunt16Welcome.self).greet("bob") == "fake bob")
        #expect(try test.get(Hunt16Greeter.self, arguments: "cy").text == "fake cy")
        #expect(try test.get(ObjectFactory.self).get(Hunt16Greeter.self, arguments: "di").text == "fake di")
        #expect(try app.get(Hunt16Welcome.self).greet("ann") == "hello ann")
    }

    /// swift-dependencies' per-scope values (a request's session), overridden in a test: the test's
    /// scopes get the fake session, one per scope, and what depends on it; the app's scopes the real one.
    @Test("overriding a scoped binding: the test's scopes see the fake, one per scope; the app's the real")
    func overrideScoped() throws {
        let sessions = Counter()
        let app = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt16Session.self).to { () -> Hunt16Session in
                    sessions.increment()
                    return Hunt16Session(user: "real")
                }.in(.scoped)
                binder.bind(Hunt16Page.self).to(Hunt16Page.init(session:))
            })
        let test = try app.overriding { binder in
            binder.bind(Hunt16Session.self).to { Hunt16Session(user: "fake") }.in(.scoped)
        }
        let testScopes = [test.makeScope(), test.makeScope()]
        let pages = try testScopes.map { scope throws(ProvisionError) in try scope.get(Hunt16Page.self) }
        #expect(pages.map(\.session.user) == ["fake", "fake"])
        #expect(pages[0].session !== pages[1].session)
        #expect(try testScopes[0].get(Hunt16Page.self).session === pages[0].session)
        let appScope = app.makeScope()
        #expect(try appScope.get(Hunt16Page.self).session.user == "real")
        #expect(sessions.value == 1)
        for scope in testScopes + [appScope] { try scope.close() }
    }

    /// swift-dependencies' nested `withDependencies`: an override of an override. The innermost sees its
    /// own clock, the middle its own, the app the real one; the shared database is built once for all
    /// three; the billing singleton once per injector that overrides its clock.
    @Test("an override of an override: each level sees its own clock, the database is shared by all")
    func overrideOfOverride() throws {
        let databases = Counter()
        let billings = Counter()
        let app = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt16Database.self).to { Hunt16Database(serial: databases.increment()) }.in(.singleton)
                binder.bind((any Hunt16Clock).self).to { Hunt16SystemClock() }.in(.singleton)
                binder.bind(Hunt16Billing.self).to { (database: Hunt16Database, clock: any Hunt16Clock) in
                    billings.increment()
                    return Hunt16Billing(database: database, clock: clock)
                }.in(.singleton)
            })
        let outer = try app.overriding { binder in
            binder.bind((any Hunt16Clock).self).toInstance(Hunt16FixedClock(now: 7))
        }
        let inner = try outer.overriding { binder in
            binder.bind((any Hunt16Clock).self).toInstance(Hunt16FixedClock(now: 9))
        }
        #expect(try inner.get(Hunt16Billing.self).clock.now == 9)
        #expect(try outer.get(Hunt16Billing.self).clock.now == 7)
        #expect(try app.get(Hunt16Billing.self).clock.now == 1)
        #expect(databases.value == 1)
        #expect(billings.value == 3)
        let serials = try [inner, outer, app].map { injector throws(ProvisionError) in
            try injector.get(Hunt16Billing.self).database.serial
        }
        #expect(serials == [1, 1, 1])
        #expect(billings.value == 3)
    }

    /// ProvisionTesting's documented pattern for parallel tests: each test derives its injector from one
    /// base (`base.overriding(...)`), uses it and shuts it down. Sixteen such tests at once: the shared
    /// store is built once and disposed only by the base's shutdown, each test's invoicer once and by
    /// its own test's shutdown.
    @Test("16 parallel tests derive, use and shut down their injectors: the shared store stays the base's")
    func parallelDeriveAndShutdown() async throws {
        let log = EventLog()
        let stores = Counter()
        let base = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt16SharedStore.self).to { () -> Hunt16SharedStore in
                    stores.increment()
                    return Hunt16SharedStore(log: log)
                }.in(.singleton)
                binder.bind((any Hunt16Clock).self).to { Hunt16SystemClock() }
                binder.bind(Hunt16Invoicer.self).to(Hunt16Invoicer.init(store:clock:)).in(.singleton)
            })
        let start = AsyncLatch()
        let seen = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<16 {
                group.addTask {
                    await start.wait()
                    let test = try base.overriding { binder in
                        binder.bind((any Hunt16Clock).self).toInstance(Hunt16FixedClock(now: 100 + index))
                    }
                    let invoicer = try await test.get(Hunt16Invoicer.self)
                    try await test.shutdown()
                    return invoicer.clock.now
                }
            }
            start.open()
            var all: [Int] = []
            for try await now in group { all.append(now) }
            return all
        }
        #expect(seen.sorted() == Array(100..<116))
        #expect(stores.value == 1)
        #expect(log.with("dispose invoicer ").sorted() == (100..<116).map { "\($0)" })
        #expect(!log.all.contains("dispose store"), "a test's shutdown disposed the base's store")
        try await base.shutdown()
        #expect(log.all.filter { $0 == "dispose store" }.count == 1)
    }
}
