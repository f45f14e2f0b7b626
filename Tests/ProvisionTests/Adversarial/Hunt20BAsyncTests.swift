import Dispatch
import Foundation
import Testing

@testable import Provision

// Hunt 20 (B): what a server daemon does with async factories. Async singletons below synchronous
// constructors, requested by many tasks at once; tasks cancelled before a build, while its factory
// awaits, and while they wait for another task's build; an async factory failing deep in a graph.

// MARK: - Fixtures

/// A connection pool opened by an async factory.
private final class H20BPool: Sendable {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}

/// A synchronous repository over the pool.
private final class H20BRepository: Sendable {
    let pool: H20BPool
    init(pool: H20BPool) { self.pool = pool }
}

/// A synchronous singleton service over the repository.
private final class H20BService: Sendable {
    let repository: H20BRepository
    init(repository: H20BRepository) { self.repository = repository }
}

/// The transient request handler at the top.
private final class H20BHandler: Sendable {
    let service: H20BService
    init(service: H20BService) { self.service = service }
}

/// A scoped unit of work opened by an async factory.
private final class H20BUnitOfWork: Sendable {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}

/// An async factory's first build waits for `release` (30 s at most); later builds don't wait.
private final class H20BFirstBuildHold: Sendable {
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let builds = Counter()

    /// Counts the build; the first one signals `entered` and suspends until `release`.
    func run() async -> Int {
        let serial = builds.increment()
        if serial == 1 {
            entered.signal()
            await Hunt5.wait(for: release)
        }
        return serial
    }
}

/// Binds handler (transient) -> service (singleton) -> repository (transient) -> pool (async singleton).
private struct H20BPoolModule: Module {
    let pool: @Sendable () async throws -> H20BPool
    let services: Counter

    func configure(_ binder: Binder) {
        let pool = pool
        let services = services
        binder.bind(H20BPool.self).to { _ async throws in try await pool() }.in(.singleton)
        binder.bind(H20BRepository.self).to(H20BRepository.init(pool:))
        binder.bind(H20BService.self).to { (repository: H20BRepository) in
            services.increment()
            return H20BService(repository: repository)
        }.in(.singleton)
        binder.bind(H20BHandler.self).to(H20BHandler.init(service:))
    }
}

// MARK: - Tests

@Suite("Hunt 20B: async factories, cancellation and concurrent tasks", .timeLimit(.minutes(1)))
struct Hunt20BAsyncTests {
    /// Eight tasks of a task group ask for the handler at once, whose async pool sits three levels
    /// down under a synchronous singleton: the pool and the service are each built exactly once, and every
    /// task's handler sees the same service and pool.
    @Test func eightTasksShareAsyncSingletonBelowSyncSingleton() async throws {
        let pools = Counter()
        let services = Counter()
        let injector = try Injector(
            H20BPoolModule(
                pool: {
                    await Task.yield()
                    return H20BPool(serial: pools.increment())
                },
                services: services
            )
        )
        let handlers = try await withThrowingTaskGroup(of: H20BHandler.self) { group in
            for _ in 0..<8 {
                group.addTask { try await injector.get(H20BHandler.self) }
            }
            var handlers: [H20BHandler] = []
            for try await handler in group { handlers.append(handler) }
            return handlers
        }
        #expect(handlers.count == 8)
        #expect(pools.value == 1)
        #expect(services.value == 1)
        let first = try #require(handlers.first)
        #expect(handlers.allSatisfy { $0.service === first.service })
        #expect(Set(handlers.map(ObjectIdentifier.init)).count == 8)
        #expect(try await injector.get(H20BPool.self) === first.service.repository.pool)
    }

    /// An async factory that throws three levels below the request: the error names every key of the
    /// path, outermost first, keeps the factory's error as its cause, and caches nothing (the next
    /// request builds again and succeeds).
    @Test func asyncFactoryThrowingAtDepthNamesWholePath() async throws {
        let attempts = Counter()
        let injector = try Injector(
            H20BPoolModule(
                pool: {
                    let attempt = attempts.increment()
                    await Task.yield()
                    if attempt == 1 { throw ExpectedFailure(id: 7) }
                    return H20BPool(serial: attempt)
                },
                services: Counter()
            )
        )
        let error = try #require(
            await Hunt5.error { () async throws(ProvisionError) in try await injector.get(H20BHandler.self) })
        #expect(error.code == .factoryFailed)
        #expect(error.key == BindingKey(H20BPool.self))
        #expect(
            error.path == [
                BindingKey(H20BHandler.self), BindingKey(H20BService.self), BindingKey(H20BRepository.self),
                BindingKey(H20BPool.self),
            ]
        )
        #expect(error.cause as? ExpectedFailure == ExpectedFailure(id: 7))
        #expect(error.description.contains("H20BHandler -> H20BService -> H20BRepository -> H20BPool"))
        let handler = try await injector.get(H20BHandler.self)
        #expect(handler.service.repository.pool.serial == 2)
    }

    /// A task that asks for the repository while another task's request for the handler is building the
    /// pool waits for that build; when the build fails, the waiter's error carries its own request's
    /// path (repository -> pool), not the builder's.
    @Test func waiterOfFailedAsyncBuildGetsItsOwnPath() async throws {
        let hold = H20BFirstBuildHold()
        let injector = try Injector(
            H20BPoolModule(
                pool: {
                    let serial = await hold.run()
                    if serial == 1 { throw ExpectedFailure(id: 1) }
                    return H20BPool(serial: serial)
                },
                services: Counter()
            )
        )
        let builder = Task {
            await Hunt5.error { () async throws(ProvisionError) in try await injector.get(H20BHandler.self) }
        }
        #expect(await Hunt5.wait(for: hold.entered))
        let waiter = Task {
            await Hunt5.error { () async throws(ProvisionError) in try await injector.get(H20BRepository.self) }
        }
        #expect(await Hunt5.until { injector.gateWaiters(of: H20BPool.self)?.tasks == 1 })
        hold.release.signal()
        let builderError = try #require(await builder.value)
        let waiterError = try #require(await waiter.value)
        #expect(builderError.code == .factoryFailed)
        #expect(builderError.path.first == BindingKey(H20BHandler.self))
        #expect(waiterError.code == .factoryFailed)
        #expect(waiterError.path == [BindingKey(H20BRepository.self), BindingKey(H20BPool.self)])
        #expect(hold.builds.value == 1)
    }

    /// A task cancelled before it asks for an unbuilt async singleton whose factory honours cancellation
    /// fails with the cancellation; the failure is its own: the next request builds and succeeds, and every
    /// later request gets that instance.
    @Test func taskCancelledBeforeRequestLeavesSingletonBuildable() async throws {
        let builds = Counter()
        let injector = try Injector(
            H20BPoolModule(
                pool: {
                    try Task.checkCancellation()
                    return H20BPool(serial: builds.increment())
                },
                services: Counter()
            )
        )
        let cancelled = Task { () async -> ProvisionError? in
            withUnsafeCurrentTask { $0?.cancel() }
            return await Hunt5.error { () async throws(ProvisionError) in try await injector.get(H20BHandler.self) }
        }
        let error = try #require(await cancelled.value)
        #expect(error.code == .cancelled || (error.code == .factoryFailed && error.cause is CancellationError))
        #expect(builds.value == 0)
        let first = try await injector.get(H20BHandler.self)
        let second = try await injector.get(H20BPool.self)
        #expect(first.service.repository.pool === second)
        #expect(builds.value == 1)
    }

    /// Four tasks wait for a pool another task is building; two of them are cancelled while they wait.
    /// The cancelled two fail with `cancelled` at once, while the build is still held; the builder and
    /// the other two get the one instance, built once.
    @Test func waitersCancelledWhileAnotherTaskBuilds() async throws {
        let hold = H20BFirstBuildHold()
        let injector = try Injector(
            H20BPoolModule(pool: { H20BPool(serial: await hold.run()) }, services: Counter())
        )
        let builder = Task { try await injector.get(H20BPool.self) }
        #expect(await Hunt5.wait(for: hold.entered))
        var waiters: [Task<Result<H20BPool, ProvisionError>, Never>] = []
        for _ in 0..<4 {
            waiters.append(
                Task {
                    do throws(ProvisionError) {
                        return .success(try await injector.get(H20BRepository.self).pool)
                    } catch {
                        return .failure(error)
                    }
                }
            )
        }
        #expect(await Hunt5.until { injector.gateWaiters(of: H20BPool.self)?.tasks == 4 })
        waiters[0].cancel()
        waiters[2].cancel()
        let firstCancelled = await waiters[0].value
        let secondCancelled = await waiters[2].value
        #expect(firstCancelled.hunt5Error?.code == .cancelled)
        #expect(secondCancelled.hunt5Error?.code == .cancelled)
        #expect(hold.builds.value == 1)
        hold.release.signal()
        let pool = try await builder.value
        let survivorA = try await waiters[1].value.get()
        let survivorB = try await waiters[3].value.get()
        #expect(survivorA === pool && survivorB === pool)
        #expect(hold.builds.value == 1)
        #expect(try await injector.get(H20BPool.self) === pool)
    }

    /// The builder's task is cancelled while its factory awaits, two levels below its request; the
    /// factory honours it. A task waiting for the same pool (not cancelled) doesn't inherit the
    /// cancellation: it builds the pool itself, and that instance is the one everybody gets afterwards.
    @Test func builderCancelledWhileAwaitingWaiterRebuilds() async throws {
        let hold = H20BFirstBuildHold()
        let injector = try Injector(
            H20BPoolModule(
                pool: {
                    let serial = await hold.run()
                    try Task.checkCancellation()
                    return H20BPool(serial: serial)
                },
                services: Counter()
            )
        )
        let builder = Task {
            await Hunt5.error { () async throws(ProvisionError) in try await injector.get(H20BHandler.self) }
        }
        #expect(await Hunt5.wait(for: hold.entered))
        let waiter = Task { try await injector.get(H20BPool.self) }
        #expect(await Hunt5.until { injector.gateWaiters(of: H20BPool.self)?.tasks == 1 })
        builder.cancel()
        hold.release.signal()
        let builderError = try #require(await builder.value)
        #expect(
            builderError.code == .cancelled
                || (builderError.code == .factoryFailed && builderError.cause is CancellationError)
        )
        let pool = try await waiter.value
        #expect(pool.serial == 2)
        #expect(hold.builds.value == 2)
        let handler = try await injector.get(H20BHandler.self)
        #expect(handler.service.repository.pool === pool)
    }

    /// Before the async pool is built, a synchronous request for the repository (a transient over it)
    /// throws `requiresAsync`, also after an async request failed to build it; once an async request
    /// built it, the synchronous request is served.
    @Test func synchronousRequestBeforeAndAfterAsyncBuild() async throws {
        let attempts = Counter()
        let injector = try Injector(
            H20BPoolModule(
                pool: {
                    let attempt = attempts.increment()
                    if attempt == 1 { throw ExpectedFailure() }
                    return H20BPool(serial: attempt)
                },
                services: Counter()
            )
        )
        let before = Hunt5.result { () throws(ProvisionError) in try injector.get(H20BRepository.self) }
        #expect(before.hunt5Error?.code == .requiresAsync)
        #expect(before.hunt5Error?.path == [BindingKey(H20BRepository.self), BindingKey(H20BPool.self)])
        #expect(
            await Hunt5.error { () async throws(ProvisionError) in try await injector.get(H20BPool.self) }?.code
                == .factoryFailed)
        let afterFailure = Hunt5.result { () throws(ProvisionError) in try injector.get(H20BRepository.self) }
        #expect(afterFailure.hunt5Error?.code == .requiresAsync)
        let pool = try await injector.get(H20BPool.self)
        let repository = try Hunt5.result { () throws(ProvisionError) in try injector.get(H20BRepository.self) }.get()
        #expect(repository.pool === pool)
        #expect(attempts.value == 2)
    }

    /// Found by hunt 20B, fixed: a synchronous request that reaches an unbuilt async singleton through an
    /// unbuilt synchronous singleton gets a requiresAsync error whose path stops at that singleton and
    /// never names the async binding.
    ///
    /// The documented contract ("Async factories"): before the async singleton is built, a synchronous
    /// request throws `requiresAsync` "with the path to the async binding".
    @Test func requiresAsyncThroughSingletonNamesTheAsyncBinding() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H20BPool.self).to { _ async in H20BPool(serial: 1) }.in(.singleton)
                binder.bind(H20BRepository.self).to(H20BRepository.init(pool:)).in(.singleton)
            }
        )
        let result = Hunt5.result { () throws(ProvisionError) in try injector.get(H20BRepository.self) }
        let error = try #require(result.hunt5Error)
        #expect(error.code == .requiresAsync)
        #expect(error.path == [BindingKey(H20BRepository.self), BindingKey(H20BPool.self)], "\(error)")
        #expect(error.message.contains("H20BPool"), "\(error)")
    }

    /// Found by hunt 20B, fixed: the same through a scoped binding: a scope's synchronous request for a scoped
    /// service over an unbuilt async singleton gets a requiresAsync error that never names the async
    /// binding, only the scoped one.
    @Test func requiresAsyncThroughScopedNamesTheAsyncBinding() async throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H20BPool.self).to { _ async in H20BPool(serial: 1) }.in(.singleton)
                binder.bind(H20BRepository.self).to(H20BRepository.init(pool:)).in(.scoped)
            }
        )
        let scope = injector.makeScope()
        let result = Hunt5.result { () throws(ProvisionError) in try scope.get(H20BRepository.self) }
        let error = try #require(result.hunt5Error)
        #expect(error.code == .requiresAsync)
        #expect(error.path == [BindingKey(H20BRepository.self), BindingKey(H20BPool.self)], "\(error)")
        #expect(error.message.contains("H20BPool"), "\(error)")
        try await scope.close()
    }

    /// An async scoped unit of work, requested by eight tasks of one scope at once and eight of another:
    /// built exactly once per scope, two instances in all.
    @Test func asyncScopedBuiltOncePerScopeUnderConcurrency() async throws {
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H20BUnitOfWork.self).to { _ async throws in
                    await Task.yield()
                    return H20BUnitOfWork(serial: builds.increment())
                }.in(.scoped)
            }
        )
        let first = injector.makeScope()
        let second = injector.makeScope()
        let serials = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for index in 0..<16 {
                let scope = index.isMultiple(of: 2) ? first : second
                group.addTask { (index % 2, try await scope.get(H20BUnitOfWork.self).serial) }
            }
            var serials: [Int: Set<Int>] = [:]
            for try await (scope, serial) in group { serials[scope, default: []].insert(serial) }
            return serials
        }
        #expect(builds.value == 2)
        #expect(serials[0]?.count == 1 && serials[1]?.count == 1)
        #expect(serials[0] != serials[1])
        try await first.close()
        try await second.close()
    }

    /// A chain of three async closures, each awaiting the next through its resolver, with synchronous
    /// bindings between them, requested by eight tasks: every singleton of the chain is built once.
    @Test func chainOfAsyncClosuresFromEightTasks() async throws {
        let pools = Counter()
        let services = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H20BPool.self).to { _ async throws in
                    await Task.yield()
                    return H20BPool(serial: pools.increment())
                }.in(.singleton)
                binder.bind(H20BRepository.self).to { resolver async throws in
                    H20BRepository(pool: try await resolver.get(H20BPool.self))
                }
                binder.bind(H20BService.self).to { resolver async throws in
                    await Task.yield()
                    services.increment()
                    return H20BService(repository: try await resolver.get(H20BRepository.self))
                }.in(.singleton)
                binder.bind(H20BHandler.self).to(H20BHandler.init(service:))
            }
        )
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { _ = try await injector.get(H20BHandler.self) }
            }
            try await group.waitForAll()
        }
        #expect(pools.value == 1)
        #expect(services.value == 1)
    }

    /// Found by hunt 20B, fixed: after start() has built every singleton (the async pool among them), a
    /// scope's synchronous request for a scoped service over the pool still throws requiresAsync, in
    /// every scope, although nothing left to build awaits.
    ///
    /// The daemon article: everything that depends on the database, directly or not, needs `try await`
    /// "until the database is built ...; after start(), which builds every singleton, it works too".
    @Test func scopedOverBuiltAsyncSingletonServedSynchronously() async throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H20BPool.self).to { _ async in H20BPool(serial: 1) }.in(.singleton)
                binder.bind(H20BRepository.self).to(H20BRepository.init(pool:)).in(.scoped)
            }
        )
        try await injector.start()
        let pool = try await injector.get(H20BPool.self)
        let scope = injector.makeScope()
        let result = Hunt5.result { () throws(ProvisionError) in try scope.get(H20BRepository.self) }
        #expect(result.hunt5Error == nil, "\(String(describing: result.hunt5Error))")
        #expect((try? result.get())?.pool === pool)
        try await scope.close()
        try await injector.shutdown()
    }
}
