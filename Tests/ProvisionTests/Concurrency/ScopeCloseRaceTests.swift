import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Provision

/// Counts the instances a test built, how often each one was disposed, and how many were freed, so that
/// "every instance was disposed exactly once" is checked instance by instance.
private final class DisposalLedger: Sendable {
    final class Count: Sendable {
        private let count = Atomic(0)

        func increment() {
            count.add(1, ordering: .relaxed)
        }

        var value: Int {
            count.load(ordering: .relaxed)
        }
    }

    private let counts = Locked<[Count]>([])
    let freed = Counter()

    /// A new instance's disposal count.
    func register() -> Count {
        let count = Count()
        counts.withLock { $0.append(count) }
        return count
    }

    var built: Int {
        counts.withLock { $0.count }
    }

    /// How often each instance was disposed, in creation order.
    var disposals: [Int] {
        counts.withLock { $0.map(\.value) }
    }
}

private final class SyncResource: Disposable {
    let disposals: DisposalLedger.Count
    let ledger: DisposalLedger

    init(ledger: DisposalLedger) {
        self.ledger = ledger
        disposals = ledger.register()
    }

    func dispose() {
        disposals.increment()
    }

    deinit {
        ledger.freed.increment()
    }
}

private final class AsyncResource: AsyncDisposable {
    let disposals: DisposalLedger.Count
    let ledger: DisposalLedger

    init(ledger: DisposalLedger) {
        self.ledger = ledger
        disposals = ledger.register()
    }

    func dispose() async {
        await Task.yield()
        disposals.increment()
    }

    deinit {
        ledger.freed.increment()
    }
}

/// The scope a test's factory watches (set once the scope exists; cleared to free it).
private final class ScopeSlot: Sendable {
    private let scope = Locked<ServiceScope?>(nil)

    func set(_ value: ServiceScope?) {
        scope.withLock { $0 = value }
    }

    var value: ServiceScope? {
        scope.withLock { $0 }
    }

    /// Whether the scope's close has begun.
    var isClosed: Bool {
        value?.isClosed == true
    }
}

/// Suspends (yielding, never blocking a thread) until `condition` holds; `false` after `timeout` seconds.
private func until(timeout: Double = 30, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() > deadline { return false }
        await Task.yield()
    }
    return true
}

/// The outcome of an async request, as a value.
private func catching<T>(_ body: () async throws(ProvisionError) -> T) async -> Result<T, ProvisionError> {
    do throws(ProvisionError) {
        return .success(try await body())
    } catch {
        return .failure(error)
    }
}

/// A few yields of the processor, a random number of them: shakes the interleavings of a round.
private func jitter() {
    for _ in 0..<Int.random(in: 0...3) { sched_yield() }
}

private func jitterAsync() async {
    for _ in 0..<Int.random(in: 0...3) { await Task.yield() }
}

@Suite("Closing a scope while its instances are being built")
struct ScopeCloseRaceTests {
    /// An injector whose scoped `SyncResource` and `AsyncResource` run `hook` / `asyncHook` before
    /// they are built.
    private static func injector(
        ledger: DisposalLedger,
        timeout: Duration = .seconds(30),
        hook: @escaping @Sendable () -> Void = {},
        asyncHook: @escaping @Sendable () async -> Void = {}
    ) throws -> Injector {
        try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(SyncResource.self).to { _ in
                        hook()
                        return SyncResource(ledger: ledger)
                    }.in(.scoped)
                    binder.bind(AsyncResource.self).to { _ async in
                        await asyncHook()
                        return AsyncResource(ledger: ledger)
                    }.in(.scoped)
                    // An async-disposable instance built by a synchronous factory.
                    binder.bind(AsyncResource.self, named: "built synchronously").to { _ in
                        hook()
                        return AsyncResource(ledger: ledger)
                    }.in(.scoped)
                }
            ],
            configuration: Injector.Configuration(lifecycleHookTimeout: timeout)
        )
    }

    // MARK: Synchronous builds

    @Test("closingScopeDuringScopedBuild: a synchronous close waits for the build, and disposes its instance once")
    func closingScopeDuringScopedBuild() throws {
        let ledger = DisposalLedger()
        let slot = ScopeSlot()
        let entered = DispatchSemaphore(value: 0)
        let injector = try Self.injector(ledger: ledger) {
            entered.signal()
            // Blocks until the close has begun: the build is in flight when the scope closes.
            #expect(waitUntil { slot.isClosed })
        }
        let disposedWhenCloseReturned = Locked<[Int]>([])
        let outcome = Locked<Result<SyncResource, ProvisionError>?>(nil)
        do {
            let scope = injector.makeScope()
            slot.set(scope)
            let finished = runThreads(2, timeout: 60) { index in
                if index == 0 {
                    let result = Result { () throws(ProvisionError) in try scope.syncGet(SyncResource.self) }
                    outcome.withLock { $0 = result }
                } else {
                    entered.wait()
                    #expect(throws: Never.self) { try scope.syncClose() }
                    disposedWhenCloseReturned.withLock { $0 = ledger.disposals }
                }
            }
            #expect(finished)
        }
        // The build began before the close, so the close waited for it: the request got the instance,
        // and the close had disposed it when it returned.
        let instance = try #require(try outcome.withLock { $0 }?.get())
        #expect(disposedWhenCloseReturned.withLock { $0 } == [1])
        #expect(instance.disposals.value == 1)
        slot.set(nil)
        outcome.withLock { $0 = nil }
        _ = consume instance
        #expect(ledger.built == 1)
        #expect(ledger.disposals == [1])
        // Freed once the threads that held it exited.
        #expect(waitUntil { ledger.freed.value == 1 })
    }

    @Test("a build that outlives the close's wait disposes its own instance and throws outsideScope")
    func buildEndingAfterTheCloseGaveUp() async throws {
        // Blocking waits, and an AsyncDisposable disposed in a task of its own: run off the cooperative
        // pool, so that the disposal's task finds a thread while tests running beside it block theirs.
        try await offPool { try self.buildEndingAfterTheCloseGaveUpRounds() }
    }

    private func buildEndingAfterTheCloseGaveUpRounds() throws {
        for name in [nil, "built synchronously"] {
            let ledger = DisposalLedger()
            let entered = DispatchSemaphore(value: 0)
            let closeReturned = DispatchSemaphore(value: 0)
            let injector = try Self.injector(ledger: ledger, timeout: .milliseconds(20)) {
                entered.signal()
                // Blocks until the close has given up waiting and returned.
                closeReturned.wait()
            }
            let error = Locked<ProvisionError?>(nil)
            do {
                let scope = injector.makeScope()
                let finished = runThreads(2, timeout: 60) { index in
                    if index == 0 {
                        do throws(ProvisionError) {
                            if let name {
                                _ = try scope.syncGet(AsyncResource.self, named: name)
                            } else {
                                _ = try scope.syncGet(SyncResource.self)
                            }
                        } catch let thrown {
                            error.withLock { $0 = thrown }
                        }
                    } else {
                        entered.wait()
                        #expect(throws: Never.self) { try scope.syncClose() }
                        // The factory's hook runs before the instance exists: nothing was built yet.
                        #expect(ledger.built == 0)
                        closeReturned.signal()
                    }
                }
                #expect(finished)
            }
            let thrown = try #require(error.withLock { $0 })
            #expect(thrown.code == .outsideScope)
            #expect(thrown.message.contains("closed while it was being built"))
            // A synchronous build disposes a Disposable before it throws; an AsyncDisposable in a task of
            // its own.
            #expect(waitUntil { ledger.disposals == [1] })
            #expect(waitUntil { ledger.freed.value == 1 })
            #expect(ledger.built == 1)
        }
    }

    @Test("a factory that closes its own scope: the close doesn't wait for it, and its build disposes the instance")
    func factoryClosingItsOwnScope() throws {
        let ledger = DisposalLedger()
        let slot = ScopeSlot()
        let closeFailed = Locked(false)
        let injector = try Self.injector(ledger: ledger) {
            do throws(ProvisionError) {
                try slot.value?.syncClose()
            } catch {
                closeFailed.withLock { $0 = true }
            }
        }
        let scope = injector.makeScope()
        slot.set(scope)
        // Would wait for itself (until the 30 s timeout) if the close waited for its own thread's build.
        let started = ContinuousClock.now
        let error = #expect(throws: ProvisionError.self) { try scope.syncGet(SyncResource.self) }
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(error?.code == .outsideScope)
        #expect(!closeFailed.withLock { $0 })
        #expect(ledger.disposals == [1])
        slot.set(nil)
    }

    @Test("threads waiting on a scoped build's gate when the scope closes get its instance or outsideScope")
    func gateWaitersWhenTheScopeCloses() throws {
        for gaveUp in [false, true] {
            let ledger = DisposalLedger()
            let slot = ScopeSlot()
            let entered = DispatchSemaphore(value: 0)
            let closeReturned = Flag()
            let injector = try Self.injector(ledger: ledger, timeout: gaveUp ? .milliseconds(20) : .seconds(30)) {
                entered.signal()
                #expect(waitUntil { gaveUp ? closeReturned.isRaised : slot.isClosed })
            }
            let outcomes = Locked<[Int: Result<SyncResource, ProvisionError>]>([:])
            do {
                let scope = injector.makeScope()
                slot.set(scope)
                let inside = Barrier(count: 3)
                let finished = runThreads(4, timeout: 60) { index in
                    if index < 3 {
                        if index > 0 { inside.arriveAndWait() }
                        let result = Result { () throws(ProvisionError) in try scope.syncGet(SyncResource.self) }
                        outcomes.withLock { $0[index] = result }
                    } else {
                        entered.wait()
                        inside.arriveAndWait()
                        jitter()
                        #expect(throws: Never.self) { try scope.syncClose() }
                        closeReturned.raise()
                    }
                }
                #expect(finished)
            }
            let results = outcomes.withLock { $0 }
            let instances = results.values.compactMap { try? $0.get() }
            let errors = results.values.compactMap { result -> ProvisionError? in
                guard case .failure(let error) = result else { return nil }
                return error
            }
            #expect(instances.count + errors.count == 3)
            #expect(errors.allSatisfy { $0.code == .outsideScope })
            #expect(Set(instances.map(ObjectIdentifier.init)).count <= 1, "one instance per scope")
            if gaveUp {
                #expect(instances.isEmpty, "no request gets an instance its scope refused")
            } else {
                #expect(try results[0]?.get() != nil, "the build began before the close, which waited for it")
            }
            #expect(ledger.built == 1)
            #expect(ledger.disposals == [1])
            slot.set(nil)
        }
    }

    @Test("many rounds of requests racing a synchronous close: every built instance is disposed exactly once")
    func randomizedSynchronousRounds() throws {
        let rounds = 400
        var served = 0
        for _ in 0..<rounds {
            let ledger = DisposalLedger()
            let round = try Self.synchronousRound(ledger: ledger)
            #expect(round.finished)
            if !round.finished { return }
            #expect(round.closeFailed == false)
            #expect(round.requests == round.instances + round.refusals, "each request got an instance or outsideScope")
            #expect(round.distinctInstances <= 1)
            // Disposed by the time the close and the requests returned, exactly once each.
            #expect(ledger.built <= 1)
            #expect(ledger.disposals.allSatisfy { $0 == 1 })
            #expect(waitUntil { ledger.freed.value == ledger.built })
            served += round.instances > 0 ? 1 : 0
        }
        // Both orders happen: builds that began before the close (served, then disposed by it) and
        // requests that came after it.
        #expect(served > 0)
    }

    private struct Round {
        var finished = false
        var closeFailed = false
        var requests = 0
        var instances = 0
        var refusals = 0
        var distinctInstances = 0
    }

    /// Two threads request the scoped instance while a third closes the scope, each after a random few
    /// yields; returns what happened (holding no instance, so that the caller can check they are freed).
    private static func synchronousRound(ledger: DisposalLedger) throws -> Round {
        let injector = try Self.injector(ledger: ledger, hook: jitter)
        let scope = injector.makeScope()
        let outcomes = Locked<[Result<SyncResource, ProvisionError>]>([])
        let closeFailed = Locked(false)
        let start = Barrier(count: 3)
        var round = Round()
        round.finished = runThreads(3, timeout: 60) { index in
            start.arriveAndWait()
            jitter()
            if index < 2 {
                let result = Result { () throws(ProvisionError) in try scope.syncGet(SyncResource.self) }
                outcomes.withLock { $0.append(result) }
            } else {
                do throws(ProvisionError) { try scope.syncClose() } catch { closeFailed.withLock { $0 = true } }
            }
        }
        let results = outcomes.withLock { $0 }
        let instances = results.compactMap { try? $0.get() }
        round.closeFailed = closeFailed.withLock { $0 }
        round.requests = results.count
        round.instances = instances.count
        round.refusals =
            results.filter { result in
                guard case .failure(let error) = result else { return false }
                return error.code == .outsideScope
            }.count
        round.distinctInstances = Set(instances.map(ObjectIdentifier.init)).count
        outcomes.withLock { $0 = [] }
        return round
    }

    // MARK: Async builds

    @Test("closingScopeDuringScopedBuild, async: the close awaits the build and disposes its instance once")
    func closingScopeDuringAsyncScopedBuild() async throws {
        let ledger = DisposalLedger()
        let slot = ScopeSlot()
        let entered = AsyncLatch()
        let injector = try Self.injector(ledger: ledger) {
        } asyncHook: {
            entered.open()
            #expect(await until { slot.isClosed })
        }
        let scope = injector.makeScope()
        slot.set(scope)
        async let request = catching { () async throws(ProvisionError) in try await scope.get(AsyncResource.self) }
        await entered.wait()
        try await scope.close()
        // The close waited for the build it found running: the instance was recorded, then disposed.
        #expect(ledger.disposals == [1])
        let instance = try await request.get()
        #expect(instance.disposals.value == 1)
        #expect(ledger.built == 1)
        slot.set(nil)
    }

    @Test("an async build that outlives the close's wait awaits its instance's disposal and throws outsideScope")
    func asyncBuildEndingAfterTheCloseGaveUp() async throws {
        let ledger = DisposalLedger()
        let entered = AsyncLatch()
        let closeReturned = AsyncLatch()
        let injector = try Self.injector(ledger: ledger, timeout: .milliseconds(20)) {
        } asyncHook: {
            entered.open()
            await closeReturned.wait()
        }
        let scope = injector.makeScope()
        async let request = catching { () async throws(ProvisionError) in try await scope.get(AsyncResource.self) }
        await entered.wait()
        try await scope.close()
        #expect(ledger.built == 0, "the factory's hook runs before the instance exists")
        closeReturned.open()
        let result = await request
        let error = #expect(throws: ProvisionError.self) { try result.get() }
        #expect(error?.code == .outsideScope)
        // The build awaited the disposal before it threw.
        #expect(ledger.disposals == [1])
        #expect(ledger.built == 1)
    }

    @Test("a task closing the scope while another task awaits the scoped build: both see one outcome")
    func closeFromAnotherTaskWhileATaskAwaitsTheBuild() async throws {
        for gaveUp in [false, true] {
            let ledger = DisposalLedger()
            let slot = ScopeSlot()
            let entered = AsyncLatch()
            let closeReturned = AsyncLatch()
            let injector = try Self.injector(ledger: ledger, timeout: gaveUp ? .milliseconds(20) : .seconds(30)) {
            } asyncHook: {
                entered.open()
                if gaveUp {
                    await closeReturned.wait()
                } else {
                    #expect(await until { slot.isClosed })
                }
            }
            let scope = injector.makeScope()
            slot.set(scope)
            async let builder = catching { () async throws(ProvisionError) in try await scope.get(AsyncResource.self) }
            await entered.wait()
            async let waiter = catching { () async throws(ProvisionError) in try await scope.get(AsyncResource.self) }
            await jitterAsync()
            let closer = Task {
                try await scope.close()
                closeReturned.open()
            }
            try await closer.value
            let built = await builder
            let waited = await waiter
            if gaveUp {
                #expect(throws: ProvisionError.outsideScopeError) { try built.get() }
                #expect(throws: ProvisionError.outsideScopeError) { try waited.get() }
            } else {
                let instance = try built.get()
                if case .success(let other) = waited {
                    #expect(other === instance)
                } else {
                    #expect(throws: ProvisionError.outsideScopeError) { try waited.get() }
                }
            }
            #expect(ledger.built == 1)
            #expect(ledger.disposals == [1])
            slot.set(nil)
        }
    }

    @Test("many rounds of async requests racing an async close: every built instance is disposed exactly once")
    func randomizedAsyncRounds() async throws {
        let rounds = 300
        for _ in 0..<rounds {
            let ledger = DisposalLedger()
            let injector = try Self.injector(ledger: ledger) {
            } asyncHook: {
                await jitterAsync()
            }
            let scope = injector.makeScope()
            let start = AsyncBarrier(count: 3)
            async let first = catching { () async throws(ProvisionError) in
                await start.arrive()
                await jitterAsync()
                return try await scope.get(AsyncResource.self)
            }
            async let second = catching { () async throws(ProvisionError) in
                await start.arrive()
                await jitterAsync()
                return try await scope.get(AsyncResource.self)
            }
            await start.arrive()
            await jitterAsync()
            try await scope.close()
            let results = [await first, await second]
            let instances = results.compactMap { try? $0.get() }
            for case .failure(let error) in results {
                #expect(error.code == .outsideScope)
            }
            #expect(Set(instances.map(ObjectIdentifier.init)).count <= 1)
            #expect(ledger.built <= 1)
            #expect(ledger.disposals.allSatisfy { $0 == 1 })
        }
    }
}

extension ProvisionError {
    /// An `outsideScope` error, to compare thrown errors with (errors are equal when their codes are).
    static let outsideScopeError = ProvisionError.outsideScope(BindingKey(Int.self), closed: true)
}
