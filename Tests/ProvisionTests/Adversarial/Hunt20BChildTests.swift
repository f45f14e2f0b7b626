import Dispatch
import Foundation
import Testing

@testable import Provision

// Hunt 20 (B): child and derived injectors of a running daemon, under concurrency. A parent shut down
// while its children resolve; a child shut down under a parent that keeps serving; singletons shared
// by many children made at once; overrides that stay in the injector that made them.

// MARK: - Fixtures

/// The process-wide connection pool: a disposable singleton of the parent.
private final class H20BSharedPool: Disposable {
    let disposals = Counter()
    func dispose() { disposals.increment() }
}

private protocol H20BClock: Sendable {
    var now: Int { get }
}

private struct H20BSystemClock: H20BClock {
    var now: Int { 1 }
}

private struct H20BFixedClock: H20BClock {
    let now: Int
}

/// A singleton stamped by the clock: depends on a key that tests override.
private final class H20BStamper: Sendable {
    let clock: any H20BClock
    init(clock: any H20BClock) { self.clock = clock }
}

/// A singleton of a child: its own, disposable.
private final class H20BTenantCache: Disposable {
    let pool: H20BSharedPool
    let disposals = Counter()
    init(pool: H20BSharedPool) { self.pool = pool }
    func dispose() { disposals.increment() }
}

/// The parent's module: the pool, the clock and the stamper.
private struct H20BAppModule: Module {
    let pools: Counter

    func configure(_ binder: Binder) {
        let pools = pools
        binder.bind(H20BSharedPool.self).to {
            pools.increment()
            return H20BSharedPool()
        }.in(.singleton)
        binder.bind((any H20BClock).self).to { H20BSystemClock() }
        binder.bind(H20BStamper.self).to(H20BStamper.init(clock:)).in(.singleton)
    }
}

/// A child's module: a tenant cache over the parent's pool.
private struct H20BTenantModule: Module {
    func configure(_ binder: Binder) {
        binder.bind(H20BTenantCache.self).to(H20BTenantCache.init(pool:)).in(.singleton)
    }
}

// MARK: - Tests

@Suite("Hunt 20B: child and derived injectors under concurrency", .timeLimit(.minutes(1)))
struct Hunt20BChildTests {
    /// Sixteen threads each make a child of the same parent and resolve the parent's pool through it:
    /// the pool is built once, shared by all, and every child's own singleton is its own.
    @Test func sixteenChildrenShareTheParentsSingleton() async throws {
        let pools = Counter()
        let parent = try Injector(H20BAppModule(pools: pools))
        let caches = Locked<[H20BTenantCache]>([])
        let failures = Counter()
        let finished = try await offPool {
            runThreads(16) { _ in
                do {
                    let child = try parent.makeChild(H20BTenantModule())
                    let cache = try child.get(H20BTenantCache.self)
                    caches.withLock { $0.append(cache) }
                } catch {
                    failures.increment()
                }
            }
        }
        #expect(finished)
        #expect(failures.value == 0)
        #expect(pools.value == 1)
        let all = caches.withLock { $0 }
        let pool = try await parent.get(H20BSharedPool.self)
        #expect(all.count == 16 && all.allSatisfy { $0.pool === pool })
        #expect(Set(all.map(ObjectIdentifier.init)).count == 16)
    }

    /// A child is shut down: its own singleton is disposed once, the parent's pool is not, and the parent
    /// keeps serving (the same pool) while the child refuses with `shutDown`.
    @Test func childShutdownLeavesParentIntact() async throws {
        let parent = try Injector(H20BAppModule(pools: Counter()))
        let child = try parent.makeChild(H20BTenantModule())
        let cache = try await child.get(H20BTenantCache.self)
        try await child.start()
        try await child.shutdown()
        #expect(cache.disposals.value == 1)
        #expect(cache.pool.disposals.value == 0)
        #expect(try await parent.get(H20BSharedPool.self) === cache.pool)
        let refused = Hunt5.result { () throws(ProvisionError) in try child.get(H20BSharedPool.self) }
        #expect(refused.hunt5Error?.code == .shutDown)
        try await parent.shutdown()
        #expect(cache.pool.disposals.value == 1)
        #expect(cache.disposals.value == 1)
    }

    /// The parent is shut down while eight threads keep resolving a child's own binding (a transient
    /// that needs nothing of the parent): none of those requests fails; the child's request for the
    /// parent's pool throws `shutDown`, and the parent disposed the pool once.
    @Test func parentShutDownWhileChildResolvesItsOwnBindings() async throws {
        let parent = try Injector(H20BAppModule(pools: Counter()))
        let child = try parent.makeChild(ClosureModule { binder in binder.bind(Config.self).to { Config(port: 7) } })
        let pool = try await child.get(H20BSharedPool.self)
        let stop = Flag()
        let failures = Counter()
        let resolving = DispatchSemaphore(value: 0)
        let threads = Task {
            try await offPool {
                runThreads(8) { _ in
                    resolving.signal()
                    while !stop.isRaised {
                        if (try? child.get(Config.self)) != Config(port: 7) { failures.increment() }
                    }
                }
            }
        }
        for _ in 0..<8 { #expect(await Hunt5.wait(for: resolving)) }
        try await parent.shutdown()
        stop.raise()
        #expect(try await threads.value)
        #expect(failures.value == 0)
        #expect(pool.disposals.value == 1)
        let fallback = Hunt5.result { () throws(ProvisionError) in try child.get(H20BSharedPool.self) }
        #expect(fallback.hunt5Error?.code == .shutDown)
        #expect(try await child.get(Config.self) == Config(port: 7))
    }

    /// An overriding injector's fake clock is seen by it alone: the parent's stamper keeps the system
    /// clock, the derived one gets the fake; the pool (which doesn't depend on the clock) is shared.
    @Test func overrideNotVisibleToParent() async throws {
        let pools = Counter()
        let parent = try Injector(H20BAppModule(pools: pools))
        let parentStamper = try await parent.get(H20BStamper.self)
        let derived = try parent.overriding { binder in
            binder.bind((any H20BClock).self).toInstance(H20BFixedClock(now: 42))
        }
        #expect(try await derived.get(H20BStamper.self).clock.now == 42)
        #expect(try await parent.get(H20BStamper.self) === parentStamper)
        #expect(try await parent.get((any H20BClock).self).now == 1)
        #expect(try await derived.get(H20BSharedPool.self) === parent.get(H20BSharedPool.self))
        #expect(pools.value == 1)
    }

    /// Eight overriding injectors derived at once from eight threads, each resolving the shared pool and
    /// its own stamper: one pool, eight stampers with their own clocks.
    @Test func concurrentOverridesShareUnaffectedSingletons() async throws {
        let pools = Counter()
        let parent = try Injector(H20BAppModule(pools: pools))
        let clocks = Locked<[Int: Int]>([:])
        let finished = try await offPool {
            runThreads(8) { index in
                guard
                    let derived = try? parent.overriding({ binder in
                        binder.bind((any H20BClock).self).toInstance(H20BFixedClock(now: index))
                    }),
                    let stamper = try? derived.get(H20BStamper.self),
                    (try? derived.get(H20BSharedPool.self)) != nil
                else { return }
                clocks.withLock { $0[index] = stamper.clock.now }
            }
        }
        #expect(finished)
        #expect(clocks.withLock { $0 } == Dictionary(uniqueKeysWithValues: (0..<8).map { ($0, $0) }))
        #expect(pools.value == 1)
    }

    /// An overriding injector shut down stops and disposes only what it built: the parent's pool, shared,
    /// stays usable and undisposed.
    @Test func derivedShutdownKeepsSharedSingletons() async throws {
        let parent = try Injector(H20BAppModule(pools: Counter()))
        let pool = try await parent.get(H20BSharedPool.self)
        let derived = try parent.overriding { binder in
            binder.bind((any H20BClock).self).toInstance(H20BFixedClock(now: 3))
        }
        #expect(try await derived.get(H20BSharedPool.self) === pool)
        try await derived.start()
        try await derived.shutdown()
        #expect(pool.disposals.value == 0)
        #expect(try await parent.get(H20BSharedPool.self) === pool)
        try await parent.shutdown()
        #expect(pool.disposals.value == 1)
    }

    /// `without` drops a module: a binding only it declared is missing in the new injector (named in the
    /// error), while the original still resolves it; `with` adds one whose singleton is the new
    /// injector's own.
    @Test func withAndWithoutDeriveIndependentInjectors() async throws {
        let pools = Counter()
        let parent = try Injector(H20BAppModule(pools: pools), H20BTenantModule())
        let without = try parent.without(H20BTenantModule.self)
        let missing = Hunt5.result { () throws(ProvisionError) in try without.get(H20BTenantCache.self) }
        #expect(missing.hunt5Error?.code == .notBound)
        #expect(missing.hunt5Error?.description.contains("H20BTenantCache") == true)
        #expect(try await parent.get(H20BTenantCache.self).pool === parent.get(H20BSharedPool.self))
        let with = try without.with(H20BTenantModule())
        #expect(try await with.get(H20BTenantCache.self).pool !== parent.get(H20BSharedPool.self))
        #expect(pools.value == 2)
    }

    /// A child's request is building the parent's pool (its factory held) when the parent shuts down:
    /// shutdown waits for that build and disposes the pool exactly once before it returns, whatever the
    /// child's request received.
    @Test func parentShutDownWhileChildBuildsParentsSingleton() async throws {
        let hold = Hunt5.Hold()
        let built = Locked<H20BSharedPool?>(nil)
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(H20BSharedPool.self).to {
                    hold.run()
                    let pool = H20BSharedPool()
                    built.withLock { $0 = pool }
                    return pool
                }.in(.singleton)
            }
        )
        let child = try parent.makeChild(H20BTenantModule())
        let request = Hunt5.Request { () throws(ProvisionError) in try child.get(H20BTenantCache.self) }
        #expect(await Hunt5.wait(for: hold.entered))
        let shutdown = Task { () async throws(ProvisionError) -> Int? in
            try await parent.shutdown()
            return built.withLock { $0 }?.disposals.value
        }
        #expect(await Hunt5.until { parent.isShuttingDown })
        hold.release.signal()
        _ = try #require(await request.result())
        #expect(try await shutdown.value == 1)
        #expect(hold.builds.value == 1)
        #expect(built.withLock { $0 }?.disposals.value == 1)
    }

    /// A child binds the clock its parent binds too: the child's requests for the clock get the child's,
    /// the parent's never see it, and the parent's stamper (resolved through the child) keeps the
    /// parent's clock, since a parent's binding resolves its dependencies in the parent.
    @Test func childShadowingIsInvisibleToParent() async throws {
        let parent = try Injector(H20BAppModule(pools: Counter()))
        let child = try parent.makeChild(
            ClosureModule { binder in binder.bind((any H20BClock).self).toInstance(H20BFixedClock(now: 9)) }
        )
        #expect(try await child.get((any H20BClock).self).now == 9)
        #expect(try await parent.get((any H20BClock).self).now == 1)
        let stamper = try await child.get(H20BStamper.self)
        #expect(stamper.clock.now == 1)
        #expect(try await parent.get(H20BStamper.self) === stamper)
    }
}
