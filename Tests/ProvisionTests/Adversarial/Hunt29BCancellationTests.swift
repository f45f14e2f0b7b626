import Dispatch
import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

final class Hunt29BPool: Sendable {
    let serial: Int
    init(serial: Int) {
        self.serial = serial
    }
}

/// A synchronous singleton above an async one.
final class Hunt29BPoolUser: Sendable {
    let pool: Hunt29BPool
    init(pool: Hunt29BPool) {
        self.pool = pool
    }
}

/// The outcome of a request, as a value a task can hand back.
enum Hunt29BOutcome: Sendable, Equatable {
    case instance(ObjectIdentifier)
    case failed(ProvisionError.Code)
    /// `factoryFailed` caused by a `CancellationError`: a cancelled builder whose factory honoured it.
    case factoryCancelled
    case otherError
}

func hunt29BOutcome<T: AnyObject>(_ body: () async throws -> T) async -> Hunt29BOutcome {
    do {
        return .instance(ObjectIdentifier(try await body()))
    } catch let error as ProvisionError {
        if error.code == .factoryFailed && error.cause is CancellationError { return .factoryCancelled }
        return .failed(error.code)
    } catch {
        return .otherError
    }
}

/// Awaits `task`'s value, giving up after `seconds` (a hang fails instead of blocking the test).
func hunt29BValue<T: Sendable>(of task: Task<T, Never>, within seconds: Double = 10) async throws -> T? {
    let result = Locked<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let value = await task.value
        result.withLock { $0 = value }
        done.signal()
    }
    let inTime = try await offPool { done.wait(timeout: .now() + seconds) == .success }
    return inTime ? result.withLock { $0 } : nil
}

/// An async singleton whose factory announces it entered, waits for a release, then (optionally)
/// honours cancellation.
final class Hunt29BGatedFactory: Sendable {
    let calls = Hunt29BCounter()
    let successes = Hunt29BCounter()
    let entered = AsyncLatch()
    let release = AsyncLatch()
    let checksCancellation: Bool

    init(checksCancellation: Bool) {
        self.checksCancellation = checksCancellation
    }

    func make() async throws -> Hunt29BPool {
        let call = calls.bump()
        entered.open()
        await release.wait()
        if checksCancellation { try Task.checkCancellation() }
        successes.bump()
        return Hunt29BPool(serial: call)
    }

    func injector() throws -> Injector {
        try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29BPool.self).to { _ async throws in try await self.make() }.in(.singleton)
                binder.bind(Hunt29BPoolUser.self).to(Hunt29BPoolUser.init(pool:)).in(.singleton)
            })
    }
}

// MARK: - Tests

@Suite("Hunt 29B: cancellation around an async singleton's build", .timeLimit(.minutes(2)))
struct Hunt29BCancellationTests {
    static func requestTask(_ injector: Injector) -> Task<Hunt29BOutcome, Never> {
        Task { await hunt29BOutcome { try await injector.get(Hunt29BPool.self) } }
    }

    static func waitForSuspended(_ injector: Injector, _ count: Int) async throws -> Bool {
        try await offPool {
            waitUntil(timeout: 10) { injector.gateWaiters(of: Hunt29BPool.self)?.tasks == count }
        }
    }

    @Test("a task cancelled before it asks: cancelled; 20 later tasks share one build")
    func cancelledBefore() async throws {
        let factory = Hunt29BGatedFactory(checksCancellation: true)
        factory.release.open()
        let injector = try factory.injector()
        let go = AsyncLatch()
        let early = Task { () -> Hunt29BOutcome in
            await go.wait()
            return await hunt29BOutcome { try await injector.get(Hunt29BPool.self) }
        }
        early.cancel()
        go.open()
        // Refused before the factory ran (`cancelled`), or the factory honoured the cancellation.
        let earlyOutcome = try await hunt29BValue(of: early)
        #expect(earlyOutcome == .failed(.cancelled) || earlyOutcome == .factoryCancelled)
        let later = (0..<20).map { _ in Self.requestTask(injector) }
        var outcomes: [Hunt29BOutcome?] = []
        for task in later { outcomes.append(try await hunt29BValue(of: task)) }
        let pool = try await injector.get(Hunt29BPool.self)
        #expect(outcomes.allSatisfy { $0 == .instance(ObjectIdentifier(pool)) })
        #expect(factory.successes.value == 1)
    }

    @Test("the builder cancelled during its build (factory honours it): its 20 waiters still get one instance")
    func builderCancelledDuring() async throws {
        let factory = Hunt29BGatedFactory(checksCancellation: true)
        let injector = try factory.injector()
        let builder = Self.requestTask(injector)
        await factory.entered.wait()
        let waiters = (0..<20).map { _ in Self.requestTask(injector) }
        #expect(try await Self.waitForSuspended(injector, 20))
        builder.cancel()
        factory.release.open()
        #expect(try await hunt29BValue(of: builder) == .factoryCancelled)
        var outcomes: [Hunt29BOutcome?] = []
        for waiter in waiters { outcomes.append(try await hunt29BValue(of: waiter)) }
        let pool = try await injector.get(Hunt29BPool.self)
        #expect(outcomes.allSatisfy { $0 == .instance(ObjectIdentifier(pool)) })
        #expect(factory.calls.value == 2)
        #expect(factory.successes.value == 1)
    }

    @Test("the builder cancelled during a build that ignores cancellation: one build, everyone shares it")
    func builderCancelledIgnored() async throws {
        let factory = Hunt29BGatedFactory(checksCancellation: false)
        let injector = try factory.injector()
        let builder = Self.requestTask(injector)
        await factory.entered.wait()
        let waiters = (0..<20).map { _ in Self.requestTask(injector) }
        #expect(try await Self.waitForSuspended(injector, 20))
        builder.cancel()
        factory.release.open()
        let builderOutcome = try await hunt29BValue(of: builder)
        var outcomes: [Hunt29BOutcome?] = []
        for waiter in waiters { outcomes.append(try await hunt29BValue(of: waiter)) }
        let pool = try await injector.get(Hunt29BPool.self)
        #expect(outcomes.allSatisfy { $0 == .instance(ObjectIdentifier(pool)) })
        #expect(builderOutcome == .instance(ObjectIdentifier(pool)) || builderOutcome == .failed(.cancelled))
        #expect(factory.calls.value == 1)
    }

    @Test("a waiter cancelled during the build ends at once with cancelled; the build goes on for the rest")
    func waiterCancelledDuring() async throws {
        let factory = Hunt29BGatedFactory(checksCancellation: true)
        let injector = try factory.injector()
        let builder = Self.requestTask(injector)
        await factory.entered.wait()
        let waiters = (0..<10).map { _ in Self.requestTask(injector) }
        #expect(try await Self.waitForSuspended(injector, 10))
        waiters[3].cancel()
        // Before the build ends.
        #expect(try await hunt29BValue(of: waiters[3]) == .failed(.cancelled))
        factory.release.open()
        let pool = try #require(try await hunt29BValue(of: builder))
        guard case .instance(let id) = pool else {
            Issue.record("builder got \(pool)")
            return
        }
        for (index, waiter) in waiters.enumerated() where index != 3 {
            #expect(try await hunt29BValue(of: waiter) == .instance(id))
        }
        #expect(factory.calls.value == 1)
    }

    @Test("a whole task group cancelled while its 50 children wait and build: no hang, then one good build")
    func groupCancelled() async throws {
        let factory = Hunt29BGatedFactory(checksCancellation: true)
        let injector = try factory.injector()
        let outcomesTask = Task { () -> [Hunt29BOutcome] in
            await withTaskGroup(of: Hunt29BOutcome.self) { group in
                for _ in 0..<50 {
                    group.addTask { await hunt29BOutcome { try await injector.get(Hunt29BPoolUser.self) } }
                }
                var outcomes: [Hunt29BOutcome] = []
                for await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
        }
        await factory.entered.wait()
        outcomesTask.cancel()
        factory.release.open()
        let outcomes = try #require(try await hunt29BValue(of: outcomesTask))
        #expect(outcomes.count == 50)
        #expect(outcomes.allSatisfy { $0 == .failed(.cancelled) || $0 == .factoryCancelled })
        let user = try await injector.get(Hunt29BPoolUser.self)
        #expect(try injector.syncGet(Hunt29BPool.self) === user.pool)
        #expect(factory.calls.value == 2)
        #expect(factory.successes.value == 1)
    }

    @Test("a cancelled task asking for an already built singleton gets it")
    func cancelledAfter() async throws {
        let factory = Hunt29BGatedFactory(checksCancellation: true)
        factory.release.open()
        let injector = try factory.injector()
        let pool = try await injector.get(Hunt29BPool.self)
        let go = AsyncLatch()
        let late = Task { () -> Hunt29BOutcome in
            await go.wait()
            return await hunt29BOutcome { try await injector.get(Hunt29BPoolUser.self) }
        }
        late.cancel()
        go.open()
        let outcome = try await hunt29BValue(of: late)
        let user = try await injector.get(Hunt29BPoolUser.self)
        #expect(user.pool === pool)
        #expect(outcome == .instance(ObjectIdentifier(user)) || outcome == .failed(.cancelled))
        #expect(factory.calls.value == 1)
    }
}

@Suite("Hunt 29B: sync and async requests mixed", .timeLimit(.minutes(2)))
struct Hunt29BMixedTests {
    @Test("50 tasks ask for a sync singleton a thread is building: they suspend (no pool thread blocks)")
    func tasksSuspendOnThreadBuild() async throws {
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
        let threadResult = Locked<ObjectIdentifier?>(nil)
        let threadDone = DispatchSemaphore(value: 0)
        let thread = Thread {
            threadResult.withLock { $0 = (try? injector.get(Hunt29BPool.self)).map(ObjectIdentifier.init) }
            threadDone.signal()
        }
        thread.start()
        #expect(try await offPool { entered.wait(timeout: .now() + 10) == .success })
        let tasks = (0..<50).map { _ in
            Task { await hunt29BOutcome { try await injector.get(Hunt29BPool.self) } }
        }
        let suspended = try await offPool {
            waitUntil(timeout: 10) { injector.gateWaiters(of: Hunt29BPool.self)?.tasks == 50 }
        }
        #expect(suspended)
        #expect(injector.gateWaiters(of: Hunt29BPool.self)?.threads == 0)
        release.signal()
        #expect(try await offPool { threadDone.wait(timeout: .now() + 10) == .success })
        let id = try #require(threadResult.withLock { $0 })
        for task in tasks { #expect(try await hunt29BValue(of: task) == .instance(id)) }
        #expect(builds.value == 1)
    }

    @Test("the sync API, a Provider and a Lazy ask for an async singleton an async request is building: requiresAsync")
    func syncRequestsDuringAsyncBuild() async throws {
        let factory = Hunt29BGatedFactory(checksCancellation: false)
        let injector = try factory.injector()
        let provider = try injector.syncGet(Provider<Hunt29BPool>.self)
        let lazy = try injector.syncGet(Lazy<Hunt29BPoolUser>.self)
        let builder = Task { await hunt29BOutcome { try await injector.get(Hunt29BPoolUser.self) } }
        await factory.entered.wait()
        let codes = Locked<[String: ProvisionError.Code]>([:])
        let finished = try await offPool {
            runThreads(3, timeout: 10) { index in
                do throws(ProvisionError) {
                    switch index {
                    case 0: _ = try injector.get(Hunt29BPool.self)
                    case 1: _ = try provider.get()
                    default: _ = try lazy.value
                    }
                } catch {
                    codes.withLock { $0["\(index)"] = error.code }
                }
            }
        }
        #expect(finished)
        #expect(codes.withLock { $0 } == ["0": .requiresAsync, "1": .requiresAsync, "2": .requiresAsync])
        factory.release.open()
        let built = try #require(try await hunt29BValue(of: builder))
        let user = try await injector.get(Hunt29BPoolUser.self)
        #expect(built == .instance(ObjectIdentifier(user)))
        #expect(try lazy.value === user)
        #expect(try provider.get() === user.pool)
        #expect(factory.calls.value == 1)
    }
}

final class Hunt29BMaybeUser: Sendable {
    let pool: Hunt29BPool?
    init(pool: Hunt29BPool?) {
        self.pool = pool
    }
}

@Suite("Hunt 29B: async requests settle through shapes above a singleton a thread builds", .timeLimit(.minutes(2)))
struct Hunt29BSettlingShapeTests {
    /// Resolves the shape's consumer and returns the pool it holds.
    static func consume(_ shape: String, _ injector: Injector, _ scope: ServiceScope) async throws -> Hunt29BPool? {
        switch shape {
        case "constructor": return try await injector.get(Hunt29BPoolUser.self, named: "transient").pool
        case "optional": return try await injector.get(Hunt29BMaybeUser.self).pool
        case "declared": return try await injector.get(Hunt29BPoolUser.self, named: "declared").pool
        case "delegation": return try await injector.get(Hunt29BPoolUser.self, named: "delegation").pool
        case "scoped": return try await scope.get(Hunt29BPoolUser.self, named: "scoped").pool
        default: return try await injector.get(Hunt29BPool.self)
        }
    }

    @Test(
        "20 tasks resolve a consumer of a sync singleton a thread is building: all suspend, one build",
        arguments: ["constructor", "optional", "declared", "delegation", "scoped", "direct"])
    func tasksSuspend(shape: String) async throws {
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
                binder.bind(Hunt29BPoolUser.self, named: "transient").to(Hunt29BPoolUser.init(pool:))
                binder.bind(Hunt29BMaybeUser.self).to(Hunt29BMaybeUser.init(pool:))
                binder.bind(Hunt29BPoolUser.self, named: "declared").to(dependencies: [BindingKey(Hunt29BPool.self)]) {
                    resolver in
                    Hunt29BPoolUser(pool: try resolver.get(Hunt29BPool.self))
                }
                binder.bind(Hunt29BPoolUser.self, named: "delegation").to(
                    binding: Hunt29BPoolUser.self, named: "transient")
                binder.bind(Hunt29BPoolUser.self, named: "scoped").to(Hunt29BPoolUser.init(pool:)).in(.scoped)
            })
        let scope = injector.makeScope()
        let threadDone = DispatchSemaphore(value: 0)
        let thread = Thread {
            _ = try? injector.get(Hunt29BPool.self)
            threadDone.signal()
        }
        thread.start()
        #expect(try await offPool { entered.wait(timeout: .now() + 10) == .success })
        let tasks = (0..<20).map { _ in
            Task { () -> ObjectIdentifier? in
                (try? await Self.consume(shape, injector, scope)).flatMap { $0 }.map(ObjectIdentifier.init)
            }
        }
        // ThreadSafety.md: "Before an async request builds a synchronous binding, it ... settles the
        // binding's static dependencies: it walks them and suspends wherever another request is building
        // an instance the synchronous build would need".
        let suspended = try await offPool {
            waitUntil(timeout: 10) { injector.gateWaiters(of: Hunt29BPool.self)?.tasks == 20 }
        }
        #expect(suspended, "\(String(describing: injector.gateWaiters(of: Hunt29BPool.self)))")
        release.signal()
        #expect(try await offPool { threadDone.wait(timeout: .now() + 10) == .success })
        let pool = try await injector.get(Hunt29BPool.self)
        for task in tasks { #expect(try await hunt29BValue(of: task) == .some(ObjectIdentifier(pool))) }
        #expect(builds.value == 1)
        try await scope.close()
    }
}
