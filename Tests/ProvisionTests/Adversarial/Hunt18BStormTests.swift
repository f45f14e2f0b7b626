import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Provision

// Hunt 18B, part 2: the first resolution of a server graph, by 12 threads and 12 tasks released at
// the same moment, while one more thread does something else at that moment: shuts the injector
// down, closes the scope they share, installs a plugin module into the child they resolve through,
// or derives an overriding injector and resolves through it. The graph mixes a synchronous and an
// async singleton, a property-injected singleton, a scoped unit of work, transients, a Provider and a
// Lazy. Exact build counts, no error but the one the other thread's action defines, no hang.

/// Counts for one storm.
final class Hunt18BStormLedger: Sendable {
    let clocks = Hunt18BCount()
    let pools = Hunt18BCount()
    let poolDisposals = Hunt18BCount()
    let remotes = Hunt18BCount()
    let audits = Hunt18BCount()
    let injections = Hunt18BCount()
    let units = Hunt18BCount()
    let unitDisposals = Hunt18BCount()
    let plugins = Hunt18BCount()
}

final class Hunt18BClock: Sendable {
    let fake: Bool
    init(fake: Bool) { self.fake = fake }
}

/// The process-wide pool: a synchronous singleton over the clock.
final class Hunt18BPool: Disposable {
    let clock: Hunt18BClock
    let ledger: Hunt18BStormLedger
    init(clock: Hunt18BClock, ledger: Hunt18BStormLedger) {
        self.clock = clock
        self.ledger = ledger
        ledger.pools.bump()
    }

    func dispose() { ledger.poolDisposals.bump() }
}

/// A remote client opened asynchronously.
final class Hunt18BRemote: Sendable {
    init(ledger: Hunt18BStormLedger) { ledger.remotes.bump() }
}

/// A singleton whose pool is injected into a property after construction.
final class Hunt18BAudit: PropertyInjectable, @unchecked Sendable {
    var pool: Hunt18BPool?
    let ledger: Hunt18BStormLedger
    init(ledger: Hunt18BStormLedger) {
        self.ledger = ledger
        ledger.audits.bump()
    }

    static var injectedProperties: [InjectedProperty] { [.inject(\Hunt18BAudit.pool)] }
    func didInjectDependencies() { ledger.injections.bump() }
}

/// One unit of work per scope.
final class Hunt18BUnit: Disposable {
    let pool: Hunt18BPool
    let ledger: Hunt18BStormLedger
    init(pool: Hunt18BPool, ledger: Hunt18BStormLedger) {
        self.pool = pool
        self.ledger = ledger
        ledger.units.bump()
    }

    func dispose() { ledger.unitDisposals.bump() }
}

final class Hunt18BReport: Sendable {
    let pool: Hunt18BPool
    let clock: Hunt18BClock
    init(pool: Hunt18BPool, clock: Hunt18BClock) {
        self.pool = pool
        self.clock = clock
    }
}

/// A request's handler: everything synchronous.
final class Hunt18BSyncRoot: Sendable {
    let unit: Hunt18BUnit
    let audit: Hunt18BAudit
    let pool: Hunt18BPool
    let reports: Provider<Hunt18BReport>
    let lazyPool: Lazy<Hunt18BPool>
    init(
        unit: Hunt18BUnit, audit: Hunt18BAudit, pool: Hunt18BPool, reports: Provider<Hunt18BReport>,
        lazyPool: Lazy<Hunt18BPool>
    ) {
        self.unit = unit
        self.audit = audit
        self.pool = pool
        self.reports = reports
        self.lazyPool = lazyPool
    }
}

/// A request's handler that needs the remote too: built by async requests only.
final class Hunt18BAsyncRoot: Sendable {
    let root: Hunt18BSyncRoot
    let remote: Hunt18BRemote
    init(root: Hunt18BSyncRoot, remote: Hunt18BRemote) {
        self.root = root
        self.remote = remote
    }
}

/// A plugin installed while the storm runs: an eager singleton over the pool and the audit.
final class Hunt18BPlugin: Sendable {
    let pool: Hunt18BPool
    let audit: Hunt18BAudit
    init(pool: Hunt18BPool, audit: Hunt18BAudit, ledger: Hunt18BStormLedger) {
        self.pool = pool
        self.audit = audit
        ledger.plugins.bump()
    }
}

enum Hunt18BStorm {
    static func module(_ ledger: Hunt18BStormLedger) -> ClosureModule {
        ClosureModule { binder in
            binder.bind(Hunt18BStormLedger.self).toInstance(ledger)
            binder.bind(Hunt18BClock.self).to { (_: Resolver) in
                ledger.clocks.bump()
                return Hunt18BClock(fake: false)
            }.in(.singleton)
            binder.bind(Hunt18BPool.self).to(Hunt18BPool.init(clock:ledger:)).in(.singleton)
            binder.bind(Hunt18BRemote.self).to { (resolver: Resolver) async throws -> Hunt18BRemote in
                await Task.yield()
                return Hunt18BRemote(ledger: try await resolver.get(Hunt18BStormLedger.self))
            }.in(.singleton)
            binder.bind(Hunt18BAudit.self).to(Hunt18BAudit.init(ledger:)).in(.singleton)
            binder.bind(Hunt18BUnit.self).to(Hunt18BUnit.init(pool:ledger:)).in(.scoped)
            binder.bind(Hunt18BReport.self).to(Hunt18BReport.init(pool:clock:))
            binder.bind(Hunt18BSyncRoot.self).to(Hunt18BSyncRoot.init(unit:audit:pool:reports:lazyPool:))
            binder.bind(Hunt18BAsyncRoot.self).to(Hunt18BAsyncRoot.init(root:remote:))
        }
    }

    /// What one request does with its handler: the handles too.
    static func use(_ root: Hunt18BSyncRoot) throws(ProvisionError) -> ObjectIdentifier {
        let report = try root.reports.get()
        let lazy = try root.lazyPool.value
        precondition(report.pool === root.pool && lazy === root.pool && root.unit.pool === root.pool)
        return ObjectIdentifier(root.pool)
    }

    /// How a request ended: the pool it saw, or the error.
    typealias Outcome = Hunt18BOutcome<ObjectIdentifier>

    /// Runs 12 threads and 12 tasks, and `action` on one more thread, all released at once. Each
    /// thread and task resolves through `source(index)` in the scope `scope(index)` gives (closing it
    /// afterwards when `closes`), threads the synchronous root, tasks the async one.
    static func storm(
        scope: @escaping @Sendable (Int) -> ServiceScope,
        closes: Bool,
        action: @escaping @Sendable () -> Void
    ) async -> (outcomes: [Outcome], finished: Bool) {
        let count = 12
        let outcomes = (0..<(2 * count)).map { _ in Outcome() }
        let ready = Hunt18BCount()
        let go = DispatchSemaphore(value: 0)
        let goTasks = AsyncLatch()
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            hunt18BThread {
                let scope = scope(index)
                ready.bump()
                go.wait()
                outcomes[index].record { () throws(ProvisionError) in try use(try scope.get(Hunt18BSyncRoot.self)) }
                if closes { try? scope.close() }
                group.leave()
            }
        }
        for index in count..<(2 * count) {
            group.enter()
            Task.detached {
                let scope = scope(index)
                ready.bump()
                await goTasks.wait()
                await outcomes[index].recordAsync { () async throws(ProvisionError) in
                    try use(try await scope.get(Hunt18BAsyncRoot.self).root)
                }
                if closes { try? await scope.close() }
                group.leave()
            }
        }
        group.enter()
        hunt18BThread {
            ready.bump()
            go.wait()
            action()
            group.leave()
        }
        guard await hunt18BUntilAsync(seconds: 10, { ready.count == 2 * count + 1 }) else { return (outcomes, false) }
        for _ in 0...count { go.signal() }
        goTasks.open()
        let finished = await hunt18BBlocking { group.wait(timeout: .now() + 10) == .success }
        return (outcomes, finished)
    }

    /// Runs `body` from a thread: the async API's shutdown, waited for.
    static func blockingShutdown(_ injector: Injector) {
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            try? await injector.shutdown()
            done.signal()
        }
        _ = hunt18BWait(done, seconds: 10)
    }
}

@Suite(
    "Hunt18B: first-resolution storms with another thread acting at the same moment", .serialized,
    .timeLimit(.minutes(2)))
struct Hunt18BStormTests {
    @Test("12 threads and 12 tasks, one scope each, at the first resolution: each singleton built once, no error")
    func plainStorm() async throws {
        for round in 0..<10 {
            let ledger = Hunt18BStormLedger()
            let injector = try Injector(Hunt18BStorm.module(ledger))
            let scopes = (0..<24).map { _ in injector.makeScope() }
            let (outcomes, finished) = await Hunt18BStorm.storm(scope: { scopes[$0] }, closes: true, action: {})
            #expect(finished, "round \(round): hung")
            let errors = outcomes.compactMap(\.error)
            #expect(errors.isEmpty, "round \(round): \(errors.map(\.description))")
            #expect(Set(outcomes.compactMap(\.value)).count == 1)
            #expect(ledger.clocks.count == 1 && ledger.pools.count == 1 && ledger.remotes.count == 1)
            #expect(ledger.audits.count == 1 && ledger.injections.count == 1, "round \(round)")
            #expect(ledger.units.count == 24 && ledger.unitDisposals.count == 24, "round \(round)")
            try await injector.shutdown()
            #expect(ledger.poolDisposals.count == 1)
        }
    }

    @Test("the same storm while a thread shuts the injector down: success or shutDown, builds == disposals")
    func stormWithShutdown() async throws {
        for round in 0..<10 {
            let ledger = Hunt18BStormLedger()
            let injector = try Injector(Hunt18BStorm.module(ledger))
            let scopes = (0..<24).map { _ in injector.makeScope() }
            let (outcomes, finished) = await Hunt18BStorm.storm(
                scope: { scopes[$0] }, closes: true,
                action: {
                    Hunt18BStorm.blockingShutdown(injector)
                })
            #expect(finished, "round \(round): hung")
            for error in outcomes.compactMap(\.error) {
                #expect(error.code == .shutDown, "round \(round): \(error)")
            }
            #expect(Set(outcomes.compactMap(\.value)).count <= 1)
            #expect(ledger.pools.count <= 1 && ledger.clocks.count <= 1 && ledger.remotes.count <= 1)
            #expect(ledger.audits.count <= 1 && ledger.injections.count == ledger.audits.count, "round \(round)")
            #expect(ledger.poolDisposals.count == ledger.pools.count, "round \(round)")
            #expect(ledger.unitDisposals.count == ledger.units.count, "round \(round)")
        }
    }

    @Test("the storm in one shared scope while a thread closes it: success or outsideScope, one unit, disposed once")
    func stormWithScopeClose() async throws {
        for round in 0..<10 {
            let ledger = Hunt18BStormLedger()
            let injector = try Injector(Hunt18BStorm.module(ledger))
            let shared = injector.makeScope()
            let (outcomes, finished) = await Hunt18BStorm.storm(
                scope: { _ in shared }, closes: false,
                action: {
                    try? shared.close()
                })
            #expect(finished, "round \(round): hung")
            for error in outcomes.compactMap(\.error) {
                #expect(error.code == .outsideScope, "round \(round): \(error)")
            }
            #expect(ledger.units.count <= 1, "round \(round)")
            #expect(ledger.unitDisposals.count == ledger.units.count, "round \(round)")
            #expect(ledger.pools.count <= 1 && ledger.audits.count <= 1)
            try await injector.shutdown()
            #expect(ledger.poolDisposals.count == ledger.pools.count)
        }
    }

    @Test("the storm through a child while a thread installs a plugin with an eager singleton into it: built once")
    func stormWithInstallIntoChild() async throws {
        for round in 0..<10 {
            let ledger = Hunt18BStormLedger()
            let parent = try Injector(Hunt18BStorm.module(ledger))
            let child = try parent.makeChild()
            let scopes = (0..<24).map { _ in child.makeScope() }
            let installError = Locked<ProvisionError?>(nil)
            let (outcomes, finished) = await Hunt18BStorm.storm(
                scope: { scopes[$0] }, closes: true,
                action: {
                    do throws(ProvisionError) {
                        try child.install(
                            ClosureModule { binder in
                                binder.bind(Hunt18BPlugin.self).to(Hunt18BPlugin.init(pool:audit:ledger:))
                                    .asEagerSingleton()
                            })
                    } catch {
                        installError.withLock { $0 = error }
                    }
                })
            #expect(finished, "round \(round): hung")
            let errors = outcomes.compactMap(\.error)
            #expect(errors.isEmpty, "round \(round): \(errors.map(\.description))")
            #expect(installError.withLock { $0 } == nil, "round \(round)")
            #expect(ledger.plugins.count == 1, "round \(round): the eager plugin built \(ledger.plugins.count) times")
            #expect(
                ledger.pools.count == 1 && ledger.audits.count == 1 && ledger.injections.count == 1, "round \(round)")
            let plugin = try child.syncGet(Hunt18BPlugin.self)
            #expect(plugin.pool === (try parent.syncGet(Hunt18BPool.self)))
            #expect(ledger.plugins.count == 1)
        }
    }

    @Test("the storm while a thread derives an overriding injector and resolves through it: exact builds per injector")
    func stormWithOverriding() async throws {
        for round in 0..<10 {
            let ledger = Hunt18BStormLedger()
            let injector = try Injector(Hunt18BStorm.module(ledger))
            let scopes = (0..<24).map { _ in injector.makeScope() }
            // The derived injector is kept: its handles refer to it weakly.
            let derivedInjector = Locked<Injector?>(nil)
            let derived = Hunt18BOutcome<Hunt18BSyncRoot>()
            let (outcomes, finished) = await Hunt18BStorm.storm(
                scope: { scopes[$0] }, closes: true,
                action: {
                    derived.record { () throws(ProvisionError) in
                        let test = try injector.overriding { binder in
                            binder.bind(Hunt18BClock.self).toInstance(Hunt18BClock(fake: true))
                        }
                        derivedInjector.withLock { $0 = test }
                        let scope = test.makeScope()
                        defer { try? scope.close() }
                        let root = try scope.get(Hunt18BSyncRoot.self)
                        _ = try Hunt18BStorm.use(root)
                        return root
                    }
                })
            #expect(finished, "round \(round): hung")
            let errors = outcomes.compactMap(\.error)
            #expect(errors.isEmpty, "round \(round): \(errors.map(\.description))")
            let test = try #require(derived.value, "round \(round): \(String(describing: derived.error))")
            #expect(test.pool.clock.fake, "round \(round): the overriding injector's pool has the real clock")
            #expect(try test.reports.get().clock.fake)
            let original = try injector.syncGet(Hunt18BPool.self)
            #expect(!original.clock.fake)
            #expect(test.pool !== original)
            // The pool and the audit (its property is the pool) depend on the clock: one each per injector.
            // The real clock is built once, by the original only.
            #expect(
                ledger.pools.count == 2 && ledger.audits.count == 2 && ledger.injections.count == 2, "round \(round)")
            #expect(ledger.clocks.count == 1, "round \(round)")
            #expect(ledger.units.count == 25 && ledger.unitDisposals.count == 25, "round \(round)")
            derivedInjector.withLock { $0 = nil }
        }
    }
}
