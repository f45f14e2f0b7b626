import Dispatch
import Foundation
import Testing

@testable import Provision

// Service graphs the way server code writes them: actors as singletons, generic repositories, protocol
// compositions as keys, structs holding closures, initializers with default arguments, async and
// throwing construction at different depths, first access from 50 tasks and 8 threads at once, errors
// at every depth with their path, and a retry after a failure.

// MARK: - Fixtures

/// A singleton actor shared by every request.
private actor Hunt16Ledger {
    static let builds = Counter()
    private(set) var entries: [Int] = []
    init() { Hunt16Ledger.builds.increment() }
    func record(_ value: Int) { entries.append(value) }
}

private struct Hunt16User: Sendable {}
private struct Hunt16Order: Sendable {}

/// A generic self-declared singleton: one per model type.
private final class Hunt16Repository<Model: Sendable>: Injectable, Sendable {
    static var injection: Injection<Hunt16Repository<Model>> {
        Injection(Hunt16Repository<Model>.init(ledger:)).in(.singleton)
    }

    let ledger: Hunt16Ledger
    init(ledger: Hunt16Ledger) {
        self.ledger = ledger
        Hunt16RepositoryBuilds.shared.withLock { $0[String(describing: Model.self), default: 0] += 1 }
    }
}

private enum Hunt16RepositoryBuilds {
    static let shared = Locked<[String: Int]>([:])
}

private struct Hunt16Checkout: Sendable {
    let users: Hunt16Repository<Hunt16User>
    let orders: Hunt16Repository<Hunt16Order>
}

private protocol Hunt16Mailer {
    func send(_ text: String) -> String
}

private struct Hunt16SMTPMailer: Hunt16Mailer, Sendable {
    let host: String
    func send(_ text: String) -> String { "\(host): \(text)" }
}

/// A struct holding closures, and an initializer with default arguments.
private struct Hunt16RetryPolicy: Sendable {
    let attempts: Int
    let delay: @Sendable (Int) -> Int
    let clock: @Sendable () -> Int
    init(
        attempts: Int = 3,
        delay: @escaping @Sendable (Int) -> Int = { $0 * 2 },
        clock: @escaping @Sendable () -> Int
    ) {
        self.attempts = attempts
        self.delay = delay
        self.clock = clock
    }
}

private struct Hunt16Notifier: Sendable {
    let mailer: any Hunt16Mailer & Sendable
    let policy: Hunt16RetryPolicy
}

/// A chain with one async singleton at its bottom: Level0 (async factory) <- Level1 ... <- Level5.
private final class Hunt16Level: Sendable {
    let depth: Int
    let below: Hunt16Level?
    init(depth: Int, below: Hunt16Level?) {
        self.depth = depth
        self.below = below
    }
}

private enum Hunt16D0 {}
private enum Hunt16D1 {}
private enum Hunt16D2 {}
private enum Hunt16D3 {}
private enum Hunt16D4 {}
private enum Hunt16D5 {}

/// One level of a chain of distinct types (constructor parameters resolve unnamed keys).
private final class Hunt16Tier<Depth>: Sendable {
    let depth: Int
    /// The instance at the bottom of the chain.
    let bottom: Hunt16Bottom
    init<Below>(depth: Int, _ below: Hunt16Tier<Below>?) {
        self.depth = depth
        self.bottom = below?.bottom ?? Hunt16Bottom()
    }
}

private final class Hunt16Bottom: Sendable {}

/// A failure at a chosen depth.
private final class Hunt16Flaky: Sendable {
    let failures = Locked<[Int: Int]>([:])
    func fail(at depth: Int, times: Int) { failures.withLock { $0[depth] = times } }
    /// Throws while failures remain for `depth`.
    func check(_ depth: Int) throws {
        let fails = failures.withLock { state -> Bool in
            guard let left = state[depth], left > 0 else { return false }
            state[depth] = left - 1
            return true
        }
        if fails { throw ExpectedFailure(id: depth) }
    }
}

private final class Hunt16Config: Sendable {}
private final class Hunt16Cache: Sendable {
    let config: Hunt16Config
    init(config: Hunt16Config) { self.config = config }
}

private final class Hunt16Repo: Sendable {
    let cache: Hunt16Cache
    let config: Hunt16Config
    init(cache: Hunt16Cache, config: Hunt16Config) {
        self.cache = cache
        self.config = config
    }
}

private struct Hunt16Controller: Sendable {
    let repo: Hunt16Repo
    let cache: Hunt16Cache
    let mailer: any Hunt16Mailer & Sendable
}

/// The process-wide pool and a request's unit of work, both disposable, counted by id.
private final class Hunt16RequestPool: Disposable {
    let disposals: Locked<[Int]>
    init(disposals: Locked<[Int]>) { self.disposals = disposals }
    func dispose() { disposals.withLock { $0.append(0) } }
}

private final class Hunt16RequestUnit: Disposable {
    let id: Int
    let pool: Hunt16RequestPool
    init(id: Int, pool: Hunt16RequestPool) {
        self.id = id
        self.pool = pool
    }

    func dispose() { pool.disposals.withLock { $0.append(id) } }
}

private struct Hunt16RequestHandler: Sendable {
    let unit: Hunt16RequestUnit
}

/// A remote client opened asynchronously: the async singleton under the wide graph.
private final class Hunt16Remote: Sendable {}

private struct Hunt16P1: Sendable {}
private struct Hunt16P2: Sendable {}
private struct Hunt16P3: Sendable {}
private final class Hunt16P4: Sendable {}

/// A self-declared report over the remote (its declaration's parameters, like a constructor's).
private final class Hunt16Report: Injectable, Sendable {
    static let injection = Injection(Hunt16Report.init(remote:config:))
    let remote: Hunt16Remote
    let config: Hunt16Config
    init(remote: Hunt16Remote, config: Hunt16Config) {
        self.remote = remote
        self.config = config
    }
}

/// Thirteen parameters (past the generated fixed arities): the remote, the report, handles, an
/// optional, a collection, plain values.
private final class Hunt16Dashboard: Sendable {
    let remote: Hunt16Remote
    let report: Hunt16Report
    let p1: Hunt16P1
    let p2: Hunt16P2
    let p3: Hunt16P3
    let p4: Hunt16P4
    let lazyRemote: Lazy<Hunt16Remote>
    let reports: Provider<Hunt16Report>
    let missing: Hunt16Bottom?
    let names: [String]
    let port: Int
    let host: String
    let config: Hunt16Config

    init(
        remote: Hunt16Remote, report: Hunt16Report, p1: Hunt16P1, p2: Hunt16P2, p3: Hunt16P3, p4: Hunt16P4,
        lazyRemote: Lazy<Hunt16Remote>, reports: Provider<Hunt16Report>, missing: Hunt16Bottom?, names: [String],
        port: Int, host: String, config: Hunt16Config
    ) {
        self.remote = remote
        self.report = report
        self.p1 = p1
        self.p2 = p2
        self.p3 = p3
        self.p4 = p4
        self.lazyRemote = lazyRemote
        self.reports = reports
        self.missing = missing
        self.names = names
        self.port = port
        self.host = host
        self.config = config
    }
}

// MARK: - Tests

@Suite("Hunt16: server-shaped graphs on Provision", .timeLimit(.minutes(1)))
struct Hunt16ServerTests {
    /// An actor bound as a singleton, resolved first by 50 tasks and 8 threads at once, each recording
    /// one entry: one actor, every entry kept. A generic self-declared repository per model type, both
    /// built once, sharing the actor.
    @Test("an actor singleton and generic repositories, first resolved by 50 tasks and 8 threads at once")
    func actorAndGenericsRaced() async throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt16Ledger.self).to(Hunt16Ledger.init).in(.singleton)
                binder.bind(Hunt16Checkout.self).to(Hunt16Checkout.init(users:orders:))
            })
        let ledgersBefore = Hunt16Ledger.builds.value
        let repositoriesBefore = Hunt16RepositoryBuilds.shared.withLock { $0 }
        let start = AsyncLatch()
        let gate = Barrier(count: 9)
        let threadResults = Locked<[ObjectIdentifier]>([])
        let threadFailures = Counter()
        let threadsDone = DispatchSemaphore(value: 0)
        Hunt5.onThread {
            let finished = runThreads(8, timeout: 20) { _ in
                gate.arriveAndWait()
                do throws(ProvisionError) {
                    let checkout = try injector.get(Hunt16Checkout.self)
                    threadResults.withLock { $0.append(ObjectIdentifier(checkout.users.ledger)) }
                } catch {
                    threadFailures.increment()
                }
            }
            if finished { threadsDone.signal() }
        }
        let ledgers = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
            for index in 0..<50 {
                group.addTask {
                    await start.wait()
                    let checkout = try await injector.get(Hunt16Checkout.self)
                    let ledger: Hunt16Ledger = try await injector.get()
                    await ledger.record(index)
                    #expect(checkout.orders.ledger === ledger)
                    return ObjectIdentifier(ledger)
                }
            }
            Hunt5.onThread { gate.arriveAndWait() }
            start.open()
            var all: [ObjectIdentifier] = []
            for try await ledger in group { all.append(ledger) }
            return all
        }
        #expect(await Hunt5.wait(for: threadsDone, seconds: 20))
        #expect(threadFailures.value == 0)
        #expect(Set(ledgers + threadResults.withLock { $0 }).count == 1)
        #expect(Hunt16Ledger.builds.value - ledgersBefore == 1)
        let ledger = try await injector.get(Hunt16Ledger.self)
        #expect(await ledger.entries.sorted() == Array(0..<50))
        let builds = Hunt16RepositoryBuilds.shared.withLock { $0 }
        for model in [String(describing: Hunt16User.self), String(describing: Hunt16Order.self)] {
            #expect((builds[model] ?? 0) - (repositoriesBefore[model] ?? 0) == 1, "\(model)")
        }
        #expect(try await injector.get(Hunt16Repository<Hunt16User>.self).ledger === ledger)
    }

    /// A protocol composition (`any Mailer & Sendable`) is its own key; a struct holding closures is
    /// bound through a closure that relies on its initializer's default arguments, and a closure
    /// value (a function type) is a key of its own.
    @Test("a protocol composition key, a struct of closures with defaults, a function-typed key")
    func compositionClosuresDefaults() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind((any Hunt16Mailer & Sendable).self).to { Hunt16SMTPMailer(host: "mx") }
                binder.bind((@Sendable () -> Int).self).toInstance({ 1_700 })
                binder.bind(Hunt16RetryPolicy.self).to { (clock: @escaping @Sendable () -> Int) in
                    Hunt16RetryPolicy(clock: clock)
                }
                binder.bind(Hunt16Notifier.self).to(Hunt16Notifier.init(mailer:policy:))
            })
        let notifier = try injector.get(Hunt16Notifier.self)
        #expect(notifier.mailer.send("hi") == "mx: hi")
        #expect(notifier.policy.attempts == 3)
        #expect(notifier.policy.delay(5) == 10)
        #expect(notifier.policy.clock() == 1_700)
        #expect(try injector.get((@Sendable () -> Int).self)() == 1_700)
        #expect(try injector.get(Lazy<@Sendable () -> Int>.self).value() == 1_700)
        #expect(try injector.get((@Sendable () -> Int)?.self)?() == 1_700)
        // `Sendable` is a marker protocol, erased at run time: `any Mailer & Sendable` and `any Mailer` are
        // one type, so one key, and a request for either gets the one binding (Swift's rule, not a choice
        // of Provision's).
        #expect(BindingKey((any Hunt16Mailer & Sendable).self) == BindingKey((any Hunt16Mailer).self))
        #expect(try injector.get((any Hunt16Mailer).self).send("x") == "mx: x")
    }

    /// An async singleton at the bottom of a chain of six constructor bindings (documented: constructors
    /// above an async binding build asynchronously too): synchronous requests throw requiresAsync naming
    /// the path to it; 50 tasks at once build it once and every level above once per request; once
    /// built, synchronous requests are served.
    @Test("an async singleton six constructors down: requiresAsync with the path, one build for 50 tasks")
    func asyncAtDepth() async throws {
        let bottoms = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt16Tier<Hunt16D0>.self).to { _ async throws -> Hunt16Tier<Hunt16D0> in
                    bottoms.increment()
                    await Task.yield()
                    return Hunt16Tier(depth: 0, Hunt16Tier<Never>?.none)
                }.in(.singleton)
                binder.bind(Hunt16Tier<Hunt16D1>.self).to { (below: Hunt16Tier<Hunt16D0>) in
                    Hunt16Tier(depth: 1, below)
                }
                binder.bind(Hunt16Tier<Hunt16D2>.self).to { (below: Hunt16Tier<Hunt16D1>) in
                    Hunt16Tier(depth: 2, below)
                }
                binder.bind(Hunt16Tier<Hunt16D3>.self).to { (below: Hunt16Tier<Hunt16D2>) in
                    Hunt16Tier(depth: 3, below)
                }
                binder.bind(Hunt16Tier<Hunt16D4>.self).to { (below: Hunt16Tier<Hunt16D3>) in
                    Hunt16Tier(depth: 4, below)
                }
                binder.bind(Hunt16Tier<Hunt16D5>.self).to { (below: Hunt16Tier<Hunt16D4>) in
                    Hunt16Tier(depth: 5, below)
                }
            })
        let sync = Hunt5.result { () throws(ProvisionError) in try injector.get(Hunt16Tier<Hunt16D5>.self) }
        let error = try #require(sync.hunt5Error)
        #expect(error.code == .requiresAsync)
        let path = [
            BindingKey(Hunt16Tier<Hunt16D5>.self), BindingKey(Hunt16Tier<Hunt16D4>.self),
            BindingKey(Hunt16Tier<Hunt16D3>.self), BindingKey(Hunt16Tier<Hunt16D2>.self),
            BindingKey(Hunt16Tier<Hunt16D1>.self), BindingKey(Hunt16Tier<Hunt16D0>.self),
        ]
        #expect(error.path == path, "\(error)")
        let tops = try await withThrowingTaskGroup(of: Hunt16Tier<Hunt16D5>.self) { group in
            for _ in 0..<50 {
                group.addTask { try await injector.get(Hunt16Tier<Hunt16D5>.self) }
            }
            var all: [Hunt16Tier<Hunt16D5>] = []
            for try await top in group { all.append(top) }
            return all
        }
        #expect(tops.count == 50)
        #expect(bottoms.value == 1)
        #expect(Set(tops.map { ObjectIdentifier($0) }).count == 50)
        #expect(Set(tops.map { ObjectIdentifier($0.bottom) }).count == 1)
        let later = Hunt5.result { () throws(ProvisionError) in try injector.get(Hunt16Tier<Hunt16D5>.self) }
        #expect(later.hunt5Error == nil)
        #expect(bottoms.value == 1)
    }

    /// The same chain written with synchronous closures that declare their dependencies (Provision's
    /// documented way to make a closure's dependencies static: "with declared dependencies it checks
    /// them like a constructor's"), resolved by one async request.
    ///
    /// Hunt 16 found that such a request threw requiresAsync (a closure was linked as a recipe "whose
    /// dependencies are not known before it runs", even when it declared them). Now the async request
    /// settles what each closure declared before the closure runs.
    @Test("an async request through synchronous closures declaring an async singleton below them")
    func asyncBelowDeclaredClosures() async throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt16Level.self, named: "0").to { _ async throws -> Hunt16Level in
                    Hunt16Level(depth: 0, below: nil)
                }.in(.singleton)
                for depth in 1...3 {
                    binder.bind(Hunt16Level.self, named: "\(depth)").to(
                        dependencies: [BindingKey(Hunt16Level.self, named: "\(depth - 1)")]
                    ) { resolver in
                        Hunt16Level(depth: depth, below: try resolver.get(Hunt16Level.self, named: "\(depth - 1)"))
                    }
                }
            })
        // Found by hunt 16, fixed: the async request settles the closures' declared dependencies (the
        // async singleton is built, awaited) before the synchronous closures run.
        let level = try await injector.get(Hunt16Level.self, named: "3")
        #expect(level.depth == 3)
        #expect(level.below?.below?.below?.depth == 0)
        // The singleton the request settled is the one the closures received.
        let bottom = try await injector.get(Hunt16Level.self, named: "0")
        #expect(level.below?.below?.below === bottom)
    }

    /// A failing factory at every depth of a chain of six constructor bindings (singletons at even
    /// depths): the error is factoryFailed for the failing key, with the path from the request down to
    /// it and the factory's error as its cause; nothing above the failure is kept, what was built
    /// below is, and the retry (the factory now succeeds) builds each singleton exactly once.
    @Test("a factory failing once at each depth of a chain: path, cause, and an exact retry", arguments: 0...5)
    func failureAtDepth(_ failing: Int) throws {
        let flaky = Hunt16Flaky()
        flaky.fail(at: failing, times: 1)
        let builds = Locked<[Int: Int]>([:])
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt16Level.self, named: "0").to { () throws -> Hunt16Level in
                    try flaky.check(0)
                    builds.withLock { $0[0, default: 0] += 1 }
                    return Hunt16Level(depth: 0, below: nil)
                }.in(.singleton)
                for depth in 1...5 {
                    let builder = binder.bind(Hunt16Level.self, named: "\(depth)").to(
                        dependencies: [BindingKey(Hunt16Level.self, named: "\(depth - 1)")]
                    ) { resolver in
                        let below = try resolver.get(Hunt16Level.self, named: "\(depth - 1)")
                        try flaky.check(depth)
                        builds.withLock { $0[depth, default: 0] += 1 }
                        return Hunt16Level(depth: depth, below: below)
                    }
                    if depth.isMultiple(of: 2) { builder.in(.singleton) }
                }
            })
        let first = Hunt5.result { () throws(ProvisionError) in try injector.get(Hunt16Level.self, named: "5") }
        let error = try #require(first.hunt5Error)
        #expect(error.code == .factoryFailed)
        #expect(error.key == BindingKey(Hunt16Level.self, named: "\(failing)"))
        #expect(
            error.path == (failing...5).reversed().map { BindingKey(Hunt16Level.self, named: "\($0)") },
            "\(error.pathDescription)")
        #expect((error.cause as? ExpectedFailure)?.id == failing)
        // What each level's build count must be: a model of the chain (singletons at even depths kept
        // once built, transients built by each request that reaches them).
        var modelBuilds: [Int: Int] = [:]
        var modelKept: Set<Int> = []
        func model(_ depth: Int, failing: Int?) -> Bool {
            if depth.isMultiple(of: 2), modelKept.contains(depth) { return true }
            if depth > 0, !model(depth - 1, failing: failing) { return false }
            if depth == failing { return false }
            modelBuilds[depth, default: 0] += 1
            if depth.isMultiple(of: 2) { modelKept.insert(depth) }
            return true
        }
        _ = model(5, failing: failing)
        #expect(builds.withLock { $0 } == modelBuilds)
        let retry = try injector.get(Hunt16Level.self, named: "5")
        #expect(retry.depth == 5)
        let again = try injector.get(Hunt16Level.self, named: "5")
        _ = model(5, failing: nil)
        _ = model(5, failing: nil)
        #expect(builds.withLock { $0 } == modelBuilds)
        #expect(again.below === retry.below) // depth 4 is a singleton
    }

    /// The service graph of a small server (config, cache, repository singletons; a transient
    /// controller; a protocol-composition mailer) resolved at once, on first access, by 50 tasks and 8
    /// threads: each singleton built exactly once, each controller once per request.
    @Test("a server graph first resolved by 50 tasks and 8 threads at once: exact build counts")
    func serverGraphRaced() async throws {
        let counts = Locked<[String: Int]>([:])
        @Sendable func count(_ name: String) { counts.withLock { $0[name, default: 0] += 1 } }
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt16Config.self).to { () -> Hunt16Config in
                    count("config")
                    return Hunt16Config()
                }.in(.singleton)
                binder.bind(Hunt16Cache.self).to { (config: Hunt16Config) in
                    count("cache")
                    return Hunt16Cache(config: config)
                }.in(.singleton)
                binder.bind(Hunt16Repo.self).to { (cache: Hunt16Cache, config: Hunt16Config) in
                    count("repo")
                    return Hunt16Repo(cache: cache, config: config)
                }.in(.singleton)
                binder.bind((any Hunt16Mailer & Sendable).self).to { () -> any Hunt16Mailer & Sendable in
                    count("mailer")
                    return Hunt16SMTPMailer(host: "mx")
                }
                binder.bind(Hunt16Controller.self).to {
                    (repo: Hunt16Repo, cache: Hunt16Cache, mailer: any Hunt16Mailer & Sendable) in
                    count("controller")
                    return Hunt16Controller(repo: repo, cache: cache, mailer: mailer)
                }
            })
        let start = AsyncLatch()
        let gate = Barrier(count: 9)
        let repos = Locked<Set<ObjectIdentifier>>([])
        let failures = Counter()
        let threadsDone = DispatchSemaphore(value: 0)
        Hunt5.onThread {
            let finished = runThreads(8, timeout: 20) { _ in
                gate.arriveAndWait()
                do throws(ProvisionError) {
                    let controller = try injector.get(Hunt16Controller.self)
                    repos.withLock { _ = $0.insert(ObjectIdentifier(controller.repo)) }
                    if controller.repo.cache !== controller.cache { failures.increment() }
                } catch {
                    failures.increment()
                }
            }
            if finished { threadsDone.signal() }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    await start.wait()
                    let controller = try await injector.get(Hunt16Controller.self)
                    repos.withLock { _ = $0.insert(ObjectIdentifier(controller.repo)) }
                    if controller.repo.cache !== controller.cache { failures.increment() }
                }
            }
            // Release the threads (the ninth arrival) and the tasks together.
            Hunt5.onThread { gate.arriveAndWait() }
            start.open()
            try await group.waitForAll()
        }
        #expect(await Hunt5.wait(for: threadsDone, seconds: 20))
        #expect(failures.value == 0)
        #expect(repos.withLock { $0.count } == 1)
        #expect(
            counts.withLock { $0 } == ["config": 1, "cache": 1, "repo": 1, "mailer": 58, "controller": 58])
    }

    /// A server shutting down while 8 threads keep serving requests, each in a scope of its own that it
    /// closes: every request gets its handler or `shutDown`, nothing hangs, every unit of work built is
    /// disposed exactly once (by its scope's close), and the pool exactly once (by the shutdown).
    @Test("shutdown racing 8 threads that open scopes, resolve and close them: each instance disposed once")
    func shutdownRacingScopes() async throws {
        let disposals = Locked<[Int]>([])
        let unitIDs = Counter()
        let pools = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt16RequestPool.self).to { () -> Hunt16RequestPool in
                    pools.increment()
                    return Hunt16RequestPool(disposals: disposals)
                }.in(.singleton)
                binder.bind(Hunt16RequestUnit.self).to { (pool: Hunt16RequestPool) in
                    Hunt16RequestUnit(id: unitIDs.increment(), pool: pool)
                }.in(.scoped)
                binder.bind(Hunt16RequestHandler.self).to(Hunt16RequestHandler.init(unit:))
            })
        _ = try await injector.get(Hunt16RequestPool.self)
        let served = Counter()
        let unexpected = Locked<[String]>([])
        let done = DispatchSemaphore(value: 0)
        Hunt5.onThread {
            let finished = runThreads(8, timeout: 20) { _ in
                for _ in 0..<2_000 {
                    let scope = injector.makeScope()
                    var stop = false
                    do throws(ProvisionError) {
                        let handler = try scope.get(Hunt16RequestHandler.self)
                        if try scope.get(Hunt16RequestUnit.self) !== handler.unit {
                            unexpected.withLock { $0.append("two units in one scope") }
                        }
                        served.increment()
                    } catch {
                        if error.code != .shutDown { unexpected.withLock { $0.append("\(error)") } }
                        stop = true
                    }
                    do throws(ProvisionError) {
                        try scope.close()
                    } catch {
                        unexpected.withLock { $0.append("close: \(error)") }
                    }
                    if stop { break }
                }
            }
            if finished { done.signal() }
        }
        #expect(await Hunt5.until { served.value >= 50 })
        try await injector.shutdown()
        #expect(await Hunt5.wait(for: done, seconds: 20))
        #expect(unexpected.withLock { $0 }.isEmpty, "\(unexpected.withLock { $0 }.prefix(3))")
        let disposed = disposals.withLock { $0 }
        #expect(disposed.filter { $0 == 0 }.count == 1)
        let units = disposed.filter { $0 != 0 }
        #expect(units.count == unitIDs.value)
        #expect(Set(units).count == units.count)
        #expect(pools.value == 1)
    }

    /// Async factories failing at each depth of a chain of async closures (singletons at even depths):
    /// factoryFailed for the failing key, the path from the request down to it, the factory's error as
    /// cause, nothing above kept, and a retry that builds each singleton exactly once.
    @Test("an async closure failing once at each depth of a chain: path, cause, and an exact retry", arguments: 0...5)
    func asyncFailureAtDepth(_ failing: Int) async throws {
        let flaky = Hunt16Flaky()
        flaky.fail(at: failing, times: 1)
        let builds = Locked<[Int: Int]>([:])
        let injector = try Injector(
            ClosureModule { binder in
                for depth in 0...5 {
                    let builder = binder.bind(Hunt16Level.self, named: "\(depth)").to { resolver async throws in
                        let below: Hunt16Level? =
                            depth == 0 ? nil : try await resolver.get(Hunt16Level.self, named: "\(depth - 1)")
                        await Task.yield()
                        try flaky.check(depth)
                        builds.withLock { $0[depth, default: 0] += 1 }
                        return Hunt16Level(depth: depth, below: below)
                    }
                    if depth.isMultiple(of: 2) { builder.in(.singleton) }
                }
            })
        let error = try #require(
            await Hunt5.error { () async throws(ProvisionError) in try await injector.get(Hunt16Level.self, named: "5")
            })
        #expect(error.code == .factoryFailed)
        #expect(error.key == BindingKey(Hunt16Level.self, named: "\(failing)"))
        #expect(
            error.path == (failing...5).reversed().map { BindingKey(Hunt16Level.self, named: "\($0)") },
            "\(error.pathDescription)")
        #expect((error.cause as? ExpectedFailure)?.id == failing)
        var expected = Dictionary(uniqueKeysWithValues: (0..<failing).map { ($0, 1) })
        #expect(builds.withLock { $0 } == expected)
        let retry = try await injector.get(Hunt16Level.self, named: "5")
        #expect(retry.depth == 5)
        for depth in failing...5 { expected[depth] = 1 }
        // Transients below the failure are built again by the retry, up to the first kept singleton.
        for depth in (0..<failing).reversed() where !depth.isMultiple(of: 2) {
            if (depth + 1...failing).contains(where: { $0 < failing && $0.isMultiple(of: 2) }) { break }
            expected[depth] = 2
        }
        #expect(builds.withLock { $0 } == expected)
    }

    /// A thirteen-parameter constructor (the parameter-pack form, past the generated arities) and a
    /// self-declared type, both over a singleton with an async factory, resolved by 20 tasks at once:
    /// the remote is opened once, and every dashboard gets it, directly, through the report and lazily.
    @Test("a 13-parameter constructor and a declared type over an async singleton, from 20 tasks at once")
    func wideOverAsync() async throws {
        let remotes = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt16Remote.self).to { _ async throws -> Hunt16Remote in
                    remotes.increment()
                    await Task.yield()
                    return Hunt16Remote()
                }.in(.singleton)
                binder.bind(Hunt16Config.self).to(Hunt16Config.init).in(.singleton)
                binder.bind(Hunt16P1.self).toInstance(Hunt16P1())
                binder.bind(Hunt16P2.self).to(Hunt16P2.init)
                binder.bind(Hunt16P3.self).to(Hunt16P3.init)
                binder.bind(Hunt16P4.self).to(Hunt16P4.init).in(.singleton)
                binder.multibind(String.self).toInstance("a")
                binder.multibind(String.self).toInstance("b")
                binder.bind(Int.self).toInstance(8080)
                binder.bind(String.self).toInstance("localhost")
                binder.bind(Hunt16Dashboard.self).to(
                    Hunt16Dashboard.init(
                        remote:report:p1:p2:p3:p4:lazyRemote:reports:missing:names:port:host:config:))
            })
        let dashboards = try await withThrowingTaskGroup(of: Hunt16Dashboard.self) { group in
            for _ in 0..<20 {
                group.addTask { try await injector.get(Hunt16Dashboard.self) }
            }
            var all: [Hunt16Dashboard] = []
            for try await dashboard in group { all.append(dashboard) }
            return all
        }
        #expect(dashboards.count == 20)
        #expect(remotes.value == 1)
        let remote = try await injector.get(Hunt16Remote.self)
        for dashboard in dashboards {
            #expect(dashboard.remote === remote)
            #expect(dashboard.report.remote === remote)
            #expect(try dashboard.lazyRemote.value === remote)
            #expect(try dashboard.reports.get().remote === remote)
            #expect(dashboard.missing == nil && dashboard.names == ["a", "b"] && dashboard.port == 8080)
        }
        #expect(Set(dashboards.map { ObjectIdentifier($0.p4) }).count == 1)
    }
}
