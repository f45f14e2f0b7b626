import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Provision

// Hunt 18B, part 1: shutdown at every moment of a build, the way daemons meet it. A build that outlives
// shutdown's bounded wait, shutdown called from inside a factory and from inside a start hook, two
// shutdowns while a build is in flight, waiters already at the gate, and storms of handles and tasks
// released at the same moment as shutdown. Every wait is bounded: a hang fails the test, it doesn't
// stick the suite. The helpers at the top serve every Hunt18B file.

// MARK: - Helpers shared by the Hunt18B files

/// A count any thread bumps.
final class Hunt18BCount: Sendable {
    private let value = Atomic<Int>(0)

    @discardableResult
    func bump() -> Int { value.add(1, ordering: .sequentiallyConsistent).newValue }

    var count: Int { value.load(ordering: .sequentiallyConsistent) }
}

/// Builds and disposals of one kind of instance; `disposed` is signalled once per disposal.
final class Hunt18BLedger: Sendable {
    let builds = Hunt18BCount()
    let disposals = Hunt18BCount()
    let disposed = DispatchSemaphore(value: 0)
}

enum Hunt18BA {}
enum Hunt18BB {}
enum Hunt18BC {}
enum Hunt18BD {}

/// A disposable resource, one key per tag; counts its builds and disposals in its ledger.
final class Hunt18BRes<Tag>: Disposable {
    let ledger: Hunt18BLedger
    init(_ ledger: Hunt18BLedger) {
        self.ledger = ledger
        ledger.builds.bump()
    }

    func dispose() {
        ledger.disposals.bump()
        ledger.disposed.signal()
    }
}

/// An async-disposable resource, one key per tag.
final class Hunt18BAsyncRes<Tag>: AsyncDisposable {
    let ledger: Hunt18BLedger
    init(_ ledger: Hunt18BLedger) {
        self.ledger = ledger
        ledger.builds.bump()
    }

    func dispose() async {
        await Task.yield()
        ledger.disposals.bump()
        ledger.disposed.signal()
    }
}

/// The injector a factory or hook needs to reach, set once the injector exists.
final class Hunt18BSlot: Sendable {
    private let slot = Locked<Injector?>(nil)
    var injector: Injector? {
        get { slot.withLock { $0 } }
        set { slot.withLock { $0 = newValue } }
    }
}

/// The outcome of a request made on another thread or task.
final class Hunt18BOutcome<T: Sendable>: Sendable {
    private let result = Locked<Result<T, ProvisionError>?>(nil)

    func record(_ body: () throws(ProvisionError) -> T) {
        do throws(ProvisionError) {
            let value = try body()
            result.withLock { $0 = .success(value) }
        } catch {
            result.withLock { $0 = .failure(error) }
        }
    }

    func recordAsync(_ body: () async throws(ProvisionError) -> T) async {
        do throws(ProvisionError) {
            let value = try await body()
            result.withLock { $0 = .success(value) }
        } catch {
            result.withLock { $0 = .failure(error) }
        }
    }

    var value: T? {
        guard case .success(let value) = result.withLock({ $0 }) else { return nil }
        return value
    }

    var error: ProvisionError? {
        guard case .failure(let error) = result.withLock({ $0 }) else { return nil }
        return error
    }

    var isRecorded: Bool { result.withLock { $0 != nil } }
}

/// Runs `body` on a new thread with `stackSize` bytes of stack (Foundation sets it with the pthread
/// attributes); the semaphore is signalled when it returns.
@discardableResult
func hunt18BThread(stackSize: Int = 1 << 20, _ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        done.signal()
    }
    thread.stackSize = stackSize
    thread.start()
    return done
}

/// Waits for `semaphore` at most `seconds`: `false` when the time was up.
func hunt18BWait(_ semaphore: DispatchSemaphore, seconds: Double = 5) -> Bool {
    semaphore.wait(timeout: .now() + seconds) == .success
}

/// Runs a blocking check on a thread of its own and suspends until it returns (no pool thread blocks).
func hunt18BBlocking(_ check: @escaping @Sendable () -> Bool) async -> Bool {
    await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        hunt18BThread(stackSize: 1 << 18) { continuation.resume(returning: check()) }
    }
}

/// ``hunt18BWait(_:seconds:)`` from async code.
func hunt18BWaitAsync(_ semaphore: DispatchSemaphore, seconds: Double = 5) async -> Bool {
    await hunt18BBlocking { semaphore.wait(timeout: .now() + seconds) == .success }
}

/// Waits until `condition` holds (another thread's or task's state, e.g. a waiter registered on a
/// gate), yielding between checks; `false` after `seconds`.
func hunt18BUntil(seconds: Double = 5, _ condition: () -> Bool) -> Bool {
    let deadline = DispatchTime.now() + seconds
    while !condition() {
        if DispatchTime.now() > deadline { return false }
        sched_yield()
    }
    return true
}

/// ``hunt18BUntil(seconds:_:)`` from async code, spinning on a thread of its own.
func hunt18BUntilAsync(seconds: Double = 5, _ condition: @escaping @Sendable () -> Bool) async -> Bool {
    await hunt18BBlocking { hunt18BUntil(seconds: seconds, condition) }
}

/// Runs `body` in a detached task and waits at most `seconds` for it: `false` when it hung.
func hunt18BWithin(seconds: Double = 5, _ body: @escaping @Sendable () async -> Void) async -> Bool {
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        await body()
        done.signal()
    }
    return await hunt18BWaitAsync(done, seconds: seconds)
}

/// A configuration whose hooks, async disposals and shutdown's wait for builds are bounded by `hook`.
func hunt18BConfiguration(
    hook: Duration = .seconds(30), wait: Duration? = nil, validates: Bool = true
) -> Injector.Configuration {
    Injector.Configuration(singletonWaitTimeout: wait, validatesOnCreation: validates, lifecycleHookTimeout: hook)
}

// MARK: - Fixtures of this file

/// A transient user of a disposable singleton.
final class Hunt18BUser: Sendable {
    let res: Hunt18BRes<Hunt18BC>
    init(res: Hunt18BRes<Hunt18BC>) { self.res = res }
}

/// Handles made before shutdown, read while it runs.
final class Hunt18BHandles: Sendable {
    let provider: Provider<Hunt18BUser>
    let lazy: Lazy<Hunt18BUser>
    init(provider: Provider<Hunt18BUser>, lazy: Lazy<Hunt18BUser>) {
        self.provider = provider
        self.lazy = lazy
    }
}

/// An async singleton over a synchronous one.
final class Hunt18BTop: Sendable {
    let below: Hunt18BRes<Hunt18BD>
    let remote: Hunt18BAsyncRes<Hunt18BD>
    init(below: Hunt18BRes<Hunt18BD>, remote: Hunt18BAsyncRes<Hunt18BD>) {
        self.below = below
        self.remote = remote
    }
}

@Suite("Hunt18B: shutdown at every moment", .serialized, .timeLimit(.minutes(2)))
struct Hunt18BShutdownTests {
    /// Found by hunt 18, fixed.
    @Test("a synchronous singleton build that outlives shutdown's wait is disposed once, never handed out live")
    func syncBuildOutlivesShutdownWait() async throws {
        let ledger = Hunt18BLedger()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt18BRes<Hunt18BA>.self).to { (_: Resolver) in
                        entered.signal()
                        _ = hunt18BWait(release, seconds: 30)
                        return Hunt18BRes<Hunt18BA>(ledger)
                    }.in(.singleton)
                }
            ], configuration: hunt18BConfiguration(hook: .milliseconds(200)))
        let request = Hunt18BOutcome<Hunt18BRes<Hunt18BA>>()
        let done = hunt18BThread {
            request.record { () throws(ProvisionError) in try injector.syncGet(Hunt18BRes<Hunt18BA>.self) }
        }
        #expect(await hunt18BWaitAsync(entered))
        // Shutdown waits for the build in flight for at most the hook timeout, then returns.
        try await injector.shutdown()
        #expect(ledger.builds.count == 0)
        release.signal()
        #expect(await hunt18BWaitAsync(done))
        #expect(ledger.builds.count == 1)
        // ThreadSafety.md: "each built singleton is disposed exactly once"; shutdown() step 3: every
        // Disposable singleton the injector built is disposed. A scope's late build disposes its refused
        // instance itself and throws; this singleton's build must not be dropped on the floor.
        #expect(await hunt18BWaitAsync(ledger.disposed, seconds: 2), "the late singleton was never disposed")
        #expect(ledger.disposals.count == 1)
        #expect(
            request.error?.code == .shutDown,
            "the request got \(request.value.map { _ in "an instance nobody will dispose" } ?? "\(String(describing: request.error))")"
        )
        #expect(throws: ProvisionError.self) { try injector.syncGet(Hunt18BRes<Hunt18BA>.self) }
    }

    /// Found by hunt 18, fixed.
    @Test("an async singleton build that outlives shutdown's wait is disposed once, never handed out live")
    func asyncBuildOutlivesShutdownWait() async throws {
        let ledger = Hunt18BLedger()
        let entered = DispatchSemaphore(value: 0)
        let release = AsyncLatch()
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt18BAsyncRes<Hunt18BA>.self).to { (_: Resolver) async in
                        entered.signal()
                        await release.wait()
                        return Hunt18BAsyncRes<Hunt18BA>(ledger)
                    }.in(.singleton)
                }
            ], configuration: hunt18BConfiguration(hook: .milliseconds(200)))
        let request = Hunt18BOutcome<Hunt18BAsyncRes<Hunt18BA>>()
        let requester = Task {
            await request.recordAsync { () async throws(ProvisionError) in
                try await injector.get(Hunt18BAsyncRes<Hunt18BA>.self)
            }
        }
        #expect(await hunt18BWaitAsync(entered))
        try await injector.shutdown()
        #expect(ledger.builds.count == 0)
        release.open()
        #expect(await hunt18BWithin { await requester.value })
        #expect(ledger.builds.count == 1)
        #expect(await hunt18BWaitAsync(ledger.disposed, seconds: 2), "the late async singleton was never disposed")
        #expect(ledger.disposals.count == 1)
        #expect(
            request.error?.code == .shutDown, "\(String(describing: request.error)), value: \(request.value != nil)")
    }

    /// Found by hunt 18, fixed.
    @Test("shutdown() awaited from inside an async singleton's factory: no hang, the singleton disposed once")
    func shutdownFromInsideAsyncFactory() async throws {
        let ledger = Hunt18BLedger()
        let slot = Hunt18BSlot()
        let shutdownReturned = Hunt18BCount()
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt18BAsyncRes<Hunt18BB>.self).to { (_: Resolver) async in
                        try? await slot.injector?.shutdown()
                        shutdownReturned.bump()
                        return Hunt18BAsyncRes<Hunt18BB>(ledger)
                    }.in(.singleton)
                }
            ], configuration: hunt18BConfiguration(hook: .milliseconds(200)))
        slot.injector = injector
        let request = Hunt18BOutcome<Hunt18BAsyncRes<Hunt18BB>>()
        let finished = await hunt18BWithin {
            await request.recordAsync { () async throws(ProvisionError) in
                try await injector.get(Hunt18BAsyncRes<Hunt18BB>.self)
            }
        }
        #expect(finished, "the request hung")
        #expect(shutdownReturned.count == 1)
        #expect(ledger.builds.count == 1)
        #expect(await hunt18BWaitAsync(ledger.disposed, seconds: 2), "built during its own shutdown, never disposed")
        #expect(ledger.disposals.count == 1)
        slot.injector = nil
    }

    @Test("shutdown() awaited from inside a start hook: start throws, no hang, disposed once, never stopped")
    func shutdownFromInsideStartHook() async throws {
        let ledger = Hunt18BLedger()
        let slot = Hunt18BSlot()
        let stops = Hunt18BCount()
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt18BRes<Hunt18BB>.self).to { _ in Hunt18BRes<Hunt18BB>(ledger) }.in(.singleton)
                        .onStart { _ in try await slot.injector?.shutdown() }
                        .onStop { _ in stops.bump() }
                }
            ], configuration: hunt18BConfiguration(hook: .milliseconds(300)))
        slot.injector = injector
        let start = Hunt18BOutcome<Bool>()
        let finished = await hunt18BWithin {
            await start.recordAsync { () async throws(ProvisionError) in
                try await injector.start()
                return true
            }
        }
        #expect(finished, "start() hung")
        #expect(
            start.error?.code == .shutDown || start.error?.code == .startFailed, "\(String(describing: start.error))")
        #expect(await hunt18BWaitAsync(ledger.disposed, seconds: 3), "never disposed")
        #expect(ledger.builds.count == 1)
        #expect(ledger.disposals.count == 1)
        // Its start hook never returned in time: it didn't start, so it isn't stopped.
        #expect(stops.count == 0)
        #expect(await hunt18BWithin { try? await injector.shutdown() }, "a later shutdown() hung")
        #expect(ledger.disposals.count == 1)
        slot.injector = nil
    }

    @Test("two shutdowns while a build is in flight: both return after it ended and was disposed, once")
    func twoShutdownsWithBuildInFlight() async throws {
        let ledger = Hunt18BLedger()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt18BRes<Hunt18BC>.self).to { (_: Resolver) in
                    entered.signal()
                    _ = hunt18BWait(release, seconds: 30)
                    return Hunt18BRes<Hunt18BC>(ledger)
                }.in(.singleton)
            })
        let request = Hunt18BOutcome<Hunt18BRes<Hunt18BC>>()
        let done = hunt18BThread {
            request.record { () throws(ProvisionError) in try injector.syncGet(Hunt18BRes<Hunt18BC>.self) }
        }
        #expect(await hunt18BWaitAsync(entered))
        let seenAtReturn = Locked<[Int]>([])
        let first = Task {
            try? await injector.shutdown()
            seenAtReturn.withLock { $0.append(ledger.disposals.count) }
        }
        #expect(await hunt18BUntilAsync { injector.lifecycle.isClosed })
        let second = Task {
            try? await injector.shutdown()
            seenAtReturn.withLock { $0.append(ledger.disposals.count) }
        }
        #expect(await hunt18BUntilAsync { injector.lifecycle.state.withLock { $0.shutdownWaiters.count } == 1 })
        #expect(seenAtReturn.withLock { $0 }.isEmpty, "a shutdown returned while a build was in flight")
        release.signal()
        #expect(await hunt18BWithin { await first.value })
        #expect(await hunt18BWithin { await second.value })
        #expect(await hunt18BWaitAsync(done))
        #expect(seenAtReturn.withLock { $0 } == [1, 1])
        #expect(ledger.builds.count == 1)
        #expect(
            request.value != nil, "a request running before shutdown may complete: \(String(describing: request.error))"
        )
    }

    @Test("a thread and a task waiting at the gate when shutdown begins: one build, one instance, one disposal")
    func waitersAtGateWhenShutdownBegins() async throws {
        let ledger = Hunt18BLedger()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt18BRes<Hunt18BD>.self).to { (_: Resolver) in
                    entered.signal()
                    _ = hunt18BWait(release, seconds: 30)
                    return Hunt18BRes<Hunt18BD>(ledger)
                }.in(.singleton)
            })
        let builder = Hunt18BOutcome<Hunt18BRes<Hunt18BD>>()
        let thread = Hunt18BOutcome<Hunt18BRes<Hunt18BD>>()
        let task = Hunt18BOutcome<Hunt18BRes<Hunt18BD>>()
        let builderDone = hunt18BThread {
            builder.record { () throws(ProvisionError) in try injector.syncGet(Hunt18BRes<Hunt18BD>.self) }
        }
        #expect(await hunt18BWaitAsync(entered))
        let threadDone = hunt18BThread {
            thread.record { () throws(ProvisionError) in try injector.syncGet(Hunt18BRes<Hunt18BD>.self) }
        }
        let waiter = Task {
            await task.recordAsync { () async throws(ProvisionError) in
                try await injector.get(Hunt18BRes<Hunt18BD>.self)
            }
        }
        #expect(
            await hunt18BUntilAsync {
                let waiters = injector.gateWaiters(of: Hunt18BRes<Hunt18BD>.self)
                return waiters?.threads == 1 && waiters?.tasks == 1
            })
        let shutdown = Task { try? await injector.shutdown() }
        #expect(await hunt18BUntilAsync { injector.lifecycle.isClosed })
        release.signal()
        #expect(await hunt18BWithin { await shutdown.value })
        #expect(await hunt18BWaitAsync(builderDone))
        #expect(await hunt18BWaitAsync(threadDone))
        #expect(await hunt18BWithin { await waiter.value })
        let built = try #require(builder.value, "\(String(describing: builder.error))")
        for (name, outcome) in [("thread", thread), ("task", task)] {
            if let value = outcome.value {
                #expect(value === built, "\(name) got another instance")
            } else {
                #expect(outcome.error?.code == .shutDown, "\(name): \(String(describing: outcome.error))")
            }
        }
        #expect(ledger.builds.count == 1)
        #expect(ledger.disposals.count == 1)
    }

    @Test("12 threads read Providers and a Lazy made before shutdown as it begins: one outcome, builds == disposals")
    func handleStormWithShutdown() async throws {
        for round in 0..<30 {
            let ledger = Hunt18BLedger()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Hunt18BRes<Hunt18BC>.self).to { _ in Hunt18BRes<Hunt18BC>(ledger) }.in(.singleton)
                    binder.bind(Hunt18BUser.self).to(Hunt18BUser.init(res:))
                    binder.bind(Hunt18BHandles.self).to(Hunt18BHandles.init(provider:lazy:))
                })
            let handles = try injector.syncGet(Hunt18BHandles.self)
            let go = DispatchSemaphore(value: 0)
            let ready = Hunt18BCount()
            let outcomes = (0..<12).map { _ in Hunt18BOutcome<Hunt18BUser>() }
            let group = DispatchGroup()
            for index in 0..<12 {
                group.enter()
                hunt18BThread {
                    ready.bump()
                    go.wait()
                    outcomes[index].record { () throws(ProvisionError) in
                        if index % 2 == 0 { return try handles.provider.get() }
                        return try handles.lazy.value
                    }
                    group.leave()
                }
            }
            #expect(await hunt18BUntilAsync { ready.count == 12 })
            let shutdown = Task { try? await injector.shutdown() }
            for _ in 0..<12 { go.signal() }
            #expect(await hunt18BWithin { await shutdown.value })
            #expect(
                await hunt18BBlocking { group.wait(timeout: .now() + 5) == .success }, "round \(round): a reader hung")
            let users = outcomes.compactMap(\.value)
            for outcome in outcomes where outcome.value == nil {
                #expect(outcome.error?.code == .shutDown, "round \(round): \(String(describing: outcome.error))")
            }
            #expect(Set(users.map { ObjectIdentifier($0.res) }).count <= 1, "round \(round)")
            let lazyUsers = outcomes.enumerated().filter { $0.offset % 2 == 1 }.compactMap(\.element.value)
            #expect(Set(lazyUsers.map(ObjectIdentifier.init)).count <= 1, "round \(round): the Lazy gave two values")
            #expect(ledger.builds.count <= 1)
            #expect(ledger.disposals.count == ledger.builds.count, "round \(round)")
        }
    }

    @Test("16 tasks ask for an async singleton over a synchronous one as shutdown begins: builds == disposals")
    func asyncStormWithShutdown() async throws {
        for round in 0..<20 {
            let below = Hunt18BLedger()
            let remote = Hunt18BLedger()
            let tops = Hunt18BCount()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Hunt18BRes<Hunt18BD>.self).to { _ in Hunt18BRes<Hunt18BD>(below) }.in(.singleton)
                    binder.bind(Hunt18BAsyncRes<Hunt18BD>.self).to { (_: Resolver) async in
                        await Task.yield()
                        return Hunt18BAsyncRes<Hunt18BD>(remote)
                    }.in(.singleton)
                    binder.bind(Hunt18BTop.self).to { (resolver: Resolver) async throws -> Hunt18BTop in
                        tops.bump()
                        return Hunt18BTop(
                            below: try await resolver.get(Hunt18BRes<Hunt18BD>.self),
                            remote: try await resolver.get(Hunt18BAsyncRes<Hunt18BD>.self))
                    }.in(.singleton)
                })
            let go = AsyncLatch()
            let ready = Hunt18BCount()
            let outcomes = (0..<16).map { _ in Hunt18BOutcome<Hunt18BTop>() }
            let tasks = (0..<16).map { index in
                Task {
                    ready.bump()
                    await go.wait()
                    await outcomes[index].recordAsync { () async throws(ProvisionError) in
                        try await injector.get(Hunt18BTop.self)
                    }
                }
            }
            #expect(await hunt18BUntilAsync { ready.count == 16 })
            let shutdown = Task {
                await go.wait()
                try? await injector.shutdown()
            }
            go.open()
            #expect(await hunt18BWithin { await shutdown.value })
            #expect(await hunt18BWithin { for task in tasks { await task.value } }, "round \(round): a task hung")
            for outcome in outcomes where outcome.value == nil {
                #expect(outcome.error?.code == .shutDown, "round \(round): \(String(describing: outcome.error))")
            }
            #expect(Set(outcomes.compactMap(\.value).map(ObjectIdentifier.init)).count <= 1)
            #expect(tops.count <= 1, "round \(round): the top singleton's factory ran \(tops.count) times")
            for (name, ledger) in [("below", below), ("remote", remote)] {
                #expect(ledger.builds.count <= 1, "round \(round): \(name)")
                #expect(await hunt18BUntilAsync(seconds: 2) { ledger.disposals.count == ledger.builds.count })
                #expect(ledger.disposals.count == ledger.builds.count, "round \(round): \(name)")
            }
        }
    }
}
