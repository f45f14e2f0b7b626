import Dispatch
import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

/// A request handler that is an actor and opens a scope per request from its own isolation.
actor Hunt29BRequestHandler {
    private(set) var handled = 0
    private var caches: Set<ObjectIdentifier> = []

    func handle(_ injector: Injector) async throws {
        try await injector.withScope { scope in
            // Actor state, touched inside the scope's body: the body runs on this actor.
            handled += 1
            let cache = try await scope.get(Hunt29BCache.self)
            caches.insert(ObjectIdentifier(cache))
        }
    }

    var distinctCaches: Int { caches.count }
}

/// Keeps the unstructured tasks a factory starts.
final class Hunt29BTaskBox: Sendable {
    private let tasks = Locked<[Task<Hunt29BOutcome, Never>]>([])

    func add(_ task: Task<Hunt29BOutcome, Never>) {
        tasks.withLock { $0.append(task) }
    }

    var all: [Task<Hunt29BOutcome, Never>] { tasks.withLock { $0 } }
}

// MARK: - Tests

@Suite("Hunt 29B: isolation, timeouts and tasks started by factories", .timeLimit(.minutes(2)))
struct Hunt29BIsolationTests {
    @Test("an actor opens 100 scopes from its own isolation at once: one cache each, each disposed once")
    func actorOpensScopes() async throws {
        let builds = Hunt29BCounter()
        let injector = try Hunt29BActorTests.cacheInjector(builds, scope: .scoped)
        let handler = Hunt29BRequestHandler()
        let before = Hunt29BCache.disposals.value
        let failures = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<100 {
                group.addTask { (try? await handler.handle(injector)) == nil ? 1 : 0 }
            }
            var failures = 0
            for await failure in group { failures += failure }
            return failures
        }
        #expect(failures == 0)
        #expect(await handler.handled == 100)
        #expect(builds.value == 100)
        #expect(Hunt29BCache.disposals.value - before == 100)
    }

    @Test("100 tasks waiting for a suspended async build with a 50 ms wait timeout: all time out, one build")
    func asyncWaitersTimeOut() async throws {
        let factory = Hunt29BGatedFactory(checksCancellation: false)
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt29BPool.self).to { _ async throws in try await factory.make() }.in(.singleton)
                }
            ],
            configuration: Injector.Configuration(singletonWaitTimeout: .milliseconds(50)))
        let builder = Task { await hunt29BOutcome { try await injector.get(Hunt29BPool.self) } }
        await factory.entered.wait()
        let waiters = (0..<100).map { _ in
            Task { await hunt29BOutcome { try await injector.get(Hunt29BPool.self) } }
        }
        var outcomes: [Hunt29BOutcome?] = []
        for waiter in waiters { outcomes.append(try await hunt29BValue(of: waiter)) }
        #expect(outcomes.allSatisfy { $0 == .failed(.timedOut) })
        factory.release.open()
        let built = try #require(try await hunt29BValue(of: builder))
        let pool = try await injector.get(Hunt29BPool.self)
        #expect(built == .instance(ObjectIdentifier(pool)))
        #expect(factory.calls.value == 1)
    }

    @Test("a task waiting for a sync singleton a thread builds is cancelled: it ends at once with cancelled")
    func cancelTaskWaitingOnThreadBuild() async throws {
        let builds = Hunt29BCounter()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29BPool.self).to { _ in
                    let serial = builds.bump()
                    entered.signal()
                    _ = release.wait(timeout: .now() + 10)
                    return Hunt29BPool(serial: serial)
                }.in(.singleton)
            })
        let threadDone = DispatchSemaphore(value: 0)
        let thread = Thread {
            _ = try? injector.get(Hunt29BPool.self)
            threadDone.signal()
        }
        thread.start()
        #expect(try await offPool { entered.wait(timeout: .now() + 10) == .success })
        let waiter = Task { await hunt29BOutcome { try await injector.get(Hunt29BPool.self) } }
        let other = Task { await hunt29BOutcome { try await injector.get(Hunt29BPool.self) } }
        let suspended = try await offPool {
            waitUntil(timeout: 10) { injector.gateWaiters(of: Hunt29BPool.self)?.tasks == 2 }
        }
        #expect(suspended)
        waiter.cancel()
        // Before the build ends.
        #expect(try await hunt29BValue(of: waiter) == .failed(.cancelled))
        release.signal()
        #expect(try await offPool { threadDone.wait(timeout: .now() + 10) == .success })
        let pool = try await injector.get(Hunt29BPool.self)
        #expect(try await hunt29BValue(of: other) == .instance(ObjectIdentifier(pool)))
        #expect(builds.value == 1)
    }

    @Test("a factory's child task (task group, async let) asking for the factory's own singleton: a cycle, no hang")
    func childAsksForParentsSingleton() async throws {
        let ref = Hunt29BInjectorRef()
        let calls = Hunt29BCounter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29BAssembly.self).to { _ async throws in
                    calls.bump()
                    let owner = try #require(ref.injector)
                    async let viaAsyncLet = owner.get(Hunt29BAssembly.self)
                    _ = try await viaAsyncLet
                    return Hunt29BAssembly(parts: [])
                }.in(.singleton)
                binder.bind(Hunt29BAssembly.self, named: "group").to { _ async throws in
                    calls.bump()
                    let owner = try #require(ref.injector)
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask { _ = try await owner.get(Hunt29BAssembly.self, named: "group") }
                        try await group.waitForAll()
                    }
                    return Hunt29BAssembly(parts: [])
                }.in(.singleton)
            })
        ref.injector = injector
        for name in [nil, "group"] {
            let request = Task { await hunt29BOutcome { try await injector.get(Hunt29BAssembly.self, named: name) } }
            let outcome = try await hunt29BValue(of: request)
            #expect(outcome == .failed(.cycle), "named \(name ?? "nil")")
        }
        #expect(calls.value == 2)
    }

    @Test("an unstructured Task started by a failed singleton's factory asks for it after the build: a new build")
    func unstructuredTaskAfterFailedBuild() async throws {
        let calls = Hunt29BCounter()
        let later = AsyncLatch()
        let box = Hunt29BTaskBox()
        let ref = Hunt29BInjectorRef()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29BPool.self).to { _ async throws in
                    let call = calls.bump()
                    if call == 1 {
                        let owner = try #require(ref.injector)
                        box.add(
                            Task {
                                await later.wait()
                                return await hunt29BOutcome { try await owner.get(Hunt29BPool.self) }
                            })
                        throw Hunt29BFailure(level: 0)
                    }
                    return Hunt29BPool(serial: call)
                }.in(.singleton)
            })
        ref.injector = injector
        let first = await hunt29BOutcome { try await injector.get(Hunt29BPool.self) }
        #expect(first == .failed(.factoryFailed))
        later.open()
        let background = try #require(box.all.first)
        let outcome = try await hunt29BValue(of: background)
        let pool = try await injector.get(Hunt29BPool.self)
        // ThreadSafety.md: "once the build that set the path has ended, a request the task makes is a new
        // one, with a path of its own. ... a singleton whose build failed, is then a build like any other,
        // not a cycle."
        #expect(outcome == .instance(ObjectIdentifier(pool)))
        #expect(calls.value == 2)
    }

    @Test("an unstructured Task started by a scoped factory builds the same binding in another scope afterwards")
    func unstructuredTaskOtherScope() async throws {
        let calls = Hunt29BCounter()
        let later = AsyncLatch()
        let box = Hunt29BTaskBox()
        let second = Locked<ServiceScope?>(nil)
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29BPool.self).to { _ async throws in
                    let call = calls.bump()
                    if call == 1, let other = second.withLock({ $0 }) {
                        box.add(
                            Task {
                                await later.wait()
                                return await hunt29BOutcome { try await other.get(Hunt29BPool.self) }
                            })
                    }
                    return Hunt29BPool(serial: call)
                }.in(.scoped)
            })
        let scope1 = injector.makeScope()
        let scope2 = injector.makeScope()
        second.withLock { $0 = scope2 }
        let first = try await scope1.get(Hunt29BPool.self)
        later.open()
        let background = try #require(box.all.first)
        let outcome = try await hunt29BValue(of: background)
        let inSecond = try await scope2.get(Hunt29BPool.self)
        #expect(outcome == .instance(ObjectIdentifier(inSecond)))
        #expect(first !== inSecond)
        #expect(calls.value == 2)
        try await scope1.close()
        try await scope2.close()
    }

    @Test("start() races 100 tasks over 10 async and sync disposable singletons: each built and disposed once")
    func startRacesRequests() async throws {
        for _ in 0..<stressRounds(10) {
            let graph = Hunt29BShutdownGraph()
            let injector = try Injector(graph.module())
            let start = AsyncBarrier(count: 101)
            let codes = await withTaskGroup(of: [ProvisionError.Code?].self) { group in
                for task in 0..<100 {
                    group.addTask {
                        await start.arrive()
                        return [await graph.request(task % 10, from: injector)]
                    }
                }
                group.addTask {
                    await start.arrive()
                    do throws(ProvisionError) {
                        try await injector.start()
                        return []
                    } catch {
                        return [error.code]
                    }
                }
                var codes: [ProvisionError.Code?] = []
                for await batch in group { codes += batch }
                return codes
            }
            #expect(codes.count == 100)
            #expect(codes.allSatisfy { $0 == nil })
            #expect(graph.builds.allSatisfy { $0.value == 1 })
            try await injector.shutdown()
            for index in 0..<10 {
                let disposed = index.isMultiple(of: 2) ? graph.disposals[index] : graph.asyncDisposals[index]
                #expect(disposed.value == 1, "singleton \(index)")
            }
        }
    }

    @Test("a Lazy read by a cancelled task whose factory honours it: a thread waiting on that read reads again")
    func lazyCancelledReaderThreadWaiter() async throws {
        let calls = Hunt29BCounter()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29BJob.self).to { _ in
                    let call = calls.bump()
                    if call == 1 {
                        entered.signal()
                        _ = release.wait(timeout: .now() + 10)
                        if Task.isCancelled { throw CancellationError() }
                    }
                    return Hunt29BJob(requestID: call)
                }
            })
        let lazy = try injector.syncGet(Lazy<Hunt29BJob>.self)
        let reader = Task { await hunt29BOutcome { try lazy.value } }
        #expect(try await offPool { entered.wait(timeout: .now() + 10) == .success })
        let threadValue = Locked<Int?>(nil)
        let threadDone = DispatchSemaphore(value: 0)
        let thread = Thread {
            threadValue.withLock { $0 = (try? lazy.value)?.requestID }
            threadDone.signal()
        }
        thread.start()
        #expect(try await offPool { waitUntil(timeout: 10) { lazy.waitingReaders == 1 } })
        reader.cancel()
        release.signal()
        #expect(try await hunt29BValue(of: reader) == .factoryCancelled)
        #expect(try await offPool { threadDone.wait(timeout: .now() + 10) == .success })
        #expect(threadValue.withLock { $0 } == 2)
        #expect(try lazy.value.requestID == 2)
        #expect(calls.value == 2)
    }
}

@Suite("Hunt 29B: an unstructured Task awaited by its factory", .timeLimit(.minutes(2)))
struct Hunt29BAwaitedTaskTests {
    @Test("a factory awaits a Task {} that asks for the factory's own singleton: a cycle, no hang")
    func awaitedTaskAsksForOwnKey() async throws {
        let ref = Hunt29BInjectorRef()
        let calls = Hunt29BCounter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29BPool.self).to { _ async throws in
                    let call = calls.bump()
                    let owner = try #require(ref.injector)
                    let inner = Task { await hunt29BOutcome { try await owner.get(Hunt29BPool.self) } }
                    let outcome = await inner.value
                    if outcome != .failed(.cycle) { throw Hunt29BFailure(level: 99) }
                    return Hunt29BPool(serial: call)
                }.in(.singleton)
            })
        ref.injector = injector
        let request = Task { await hunt29BOutcome { try await injector.get(Hunt29BPool.self) } }
        let outcome = try await hunt29BValue(of: request)
        let pool = try await injector.get(Hunt29BPool.self)
        #expect(outcome == .instance(ObjectIdentifier(pool)))
        #expect(calls.value == 1)
    }
}

@Suite("Hunt 29B: a waiter's timeout, its cancellation and the build's end at the same moment", .timeLimit(.minutes(2)))
struct Hunt29BWaiterRaceTests {
    @Test("100 waiters with a 1 ms timeout, half cancelled as the build ends: each ends once, one build")
    func timeoutCancelBuildRace() async throws {
        for round in 0..<stressRounds(30) {
            let factory = Hunt29BGatedFactory(checksCancellation: false)
            let injector = try Injector(
                modules: [
                    ClosureModule { binder in
                        binder.bind(Hunt29BPool.self).to { _ async throws in try await factory.make() }.in(.singleton)
                    }
                ],
                configuration: Injector.Configuration(singletonWaitTimeout: .milliseconds(1 + round % 3)))
            let builder = Task { await hunt29BOutcome { try await injector.get(Hunt29BPool.self) } }
            await factory.entered.wait()
            let waiters = (0..<100).map { _ in
                Task { await hunt29BOutcome { try await injector.get(Hunt29BPool.self) } }
            }
            for (index, waiter) in waiters.enumerated() where index.isMultiple(of: 2) {
                waiter.cancel()
                if index == 50 { factory.release.open() }
            }
            let built = try #require(try await hunt29BValue(of: builder))
            guard case .instance(let id) = built else {
                Issue.record("builder: \(built)")
                return
            }
            for waiter in waiters {
                let outcome = try #require(try await hunt29BValue(of: waiter))
                let allowed: [Hunt29BOutcome] = [.instance(id), .failed(.timedOut), .failed(.cancelled)]
                #expect(allowed.contains(outcome), "\(outcome)")
            }
            #expect(factory.calls.value == 1)
        }
    }
}

@Suite("Hunt 29B: handles outliving their injector", .timeLimit(.minutes(2)))
struct Hunt29BReleasedInjectorTests {
    @Test("100 detached tasks use a Provider and an ObjectFactory while the injector is released")
    func providerWhileReleased() async throws {
        let builds = Hunt29BCounter()
        var injector: Injector? = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29BJob.self).to { _ in Hunt29BJob(requestID: builds.bump()) }
                binder.bind(Hunt29BPool.self).to { _ in Hunt29BPool(serial: 0) }.in(.singleton)
            })
        let provider = try #require(try injector?.syncGet(Provider<Hunt29BJob>.self))
        let singletons = try #require(try injector?.syncGet(Provider<Hunt29BPool>.self))
        let factory = try #require(try injector?.syncGet(ObjectFactory.self))
        let start = AsyncBarrier(count: 101)
        let tasks = (0..<100).map { _ in
            Task.detached { () -> [String] in
                await start.arrive()
                var codes: [String] = []
                for step in 0..<50 {
                    do throws(ProvisionError) {
                        switch step % 3 {
                        case 0: _ = try provider.get()
                        case 1: _ = try singletons.get()
                        default: _ = try factory.get(Hunt29BJob.self)
                        }
                        codes.append("ok")
                    } catch {
                        codes.append("\(error.code)")
                    }
                }
                return codes
            }
        }
        await start.arrive()
        injector = nil
        var codes: [String] = []
        for task in tasks { codes += try #require(try await hunt29BValue(of: task)) }
        #expect(codes.count == 5000)
        #expect(Set(codes).isSubset(of: ["ok", "\(ProvisionError.Code.injectorReleased)"]), "\(Set(codes))")
        // Once released, every handle says so.
        #expect(throws: ProvisionError.self) { try provider.get() }
        let error = #expect(throws: ProvisionError.self) { try singletons.get() }
        #expect(error?.code == .injectorReleased)
    }
}
