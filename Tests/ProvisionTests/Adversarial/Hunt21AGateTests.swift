import Dispatch
import Foundation
import Testing

@testable import Provision

// Hunt 21 (A): a singleton or scoped service whose own factory is synchronous, over async singletons,
// keeps its synchronous plan behind its gate. Synchronous threads and async tasks race for it before,
// while and after the async singleton builds, during start() and shutdown(), and with cancellation:
// exact build counts, bounded waits, the documented errors, disposal exactly once.

// MARK: - Fixtures

/// A pool opened by an async factory; disposal counted.
private final class H21APool: Disposable {
    let serial: Int
    let disposals = Counter()
    init(serial: Int) { self.serial = serial }
    func dispose() { disposals.increment() }
}

/// A synchronous service over the pool; disposal counted.
private final class H21AService: Disposable {
    let pool: H21APool
    let disposals = Counter()
    init(pool: H21APool) { self.pool = pool }
    func dispose() { disposals.increment() }
}

/// A transient handler over the service.
private final class H21AHandler: Sendable {
    let service: H21AService
    init(service: H21AService) { self.service = service }
}

/// A transient repository over the pool.
private final class H21ARepository: Sendable {
    let pool: H21APool
    init(pool: H21APool) { self.pool = pool }
}

/// A service over an optional pool.
private final class H21AOptionalUser: Sendable {
    let pool: H21APool?
    init(pool: H21APool?) { self.pool = pool }
}

/// A service over a list of pools.
private final class H21AListUser: Sendable {
    let pools: [H21APool]
    init(pools: [H21APool]) { self.pools = pools }
}

/// A service over the transient repository.
private final class H21ARepositoryUser: Sendable {
    let repository: H21ARepository
    init(repository: H21ARepository) { self.repository = repository }
}

/// A service that gets the pool through an injected property.
private final class H21APropertyUser: PropertyInjectable, @unchecked Sendable {
    var pool: H21APool?
    init() {}
    static var injectedProperties: [InjectedProperty] { [.inject(\H21APropertyUser.pool)] }
}

/// A service over a provider of the pool: it needs nothing built to be constructed.
private final class H21AProviderUser: Sendable {
    let pools: Provider<H21APool>
    init(pools: Provider<H21APool>) { self.pools = pools }
}

/// A service over a lazy pool.
private final class H21ALazyUser: Sendable {
    let pool: Lazy<H21APool>
    init(pool: Lazy<H21APool>) { self.pool = pool }
}

/// An async factory's first build suspends until `release` (30 s at most); later builds don't.
private final class H21AAsyncHold: Sendable {
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let builds = Counter()

    func run() async -> Int {
        let serial = builds.increment()
        if serial == 1 {
            entered.signal()
            await Hunt5.wait(for: release)
        }
        return serial
    }
}

/// A synchronous factory's first call blocks its thread until `release` (30 s at most); later calls don't.
private final class H21ASyncHold: Sendable {
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let calls = Counter()

    func run() {
        if calls.increment() == 1 {
            entered.signal()
            _ = release.wait(timeout: .now() + 30)
        }
    }
}

/// The async pool (held on its first build), the service singleton over it, and the transient handler.
private func h21APoolModule(_ hold: H21AAsyncHold, services: Counter, scope: Scope = .singleton) -> ClosureModule {
    ClosureModule { binder in
        binder.bind(H21APool.self).to { _ async in H21APool(serial: await hold.run()) }.in(.singleton)
        binder.bind(H21AService.self).to { (pool: H21APool) in
            services.increment()
            return H21AService(pool: pool)
        }.in(scope)
        binder.bind(H21AHandler.self).to(H21AHandler.init(service:))
        binder.bind(H21ARepository.self).to(H21ARepository.init(pool:))
    }
}

/// The ways a singleton's synchronous factory can reach the async pool.
enum Hunt21AReach: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case direct, transient, optional, list, property, declaredClosure, child

    var testDescription: String { rawValue }
}

extension ServiceScope {
    /// The tasks suspended on the gates of this scope's instances being built.
    fileprivate var hunt21ASuspendedTasks: Int {
        withGates { gates in gates.values.reduce(0) { $0 + $1.suspended.count } }
    }
}

// MARK: - Tests

@Suite("Hunt 21A: synchronous singletons over async singletons, behind their gates", .timeLimit(.minutes(2)))
struct Hunt21AGateTests {
    /// Requests the singleton of `reach` synchronously (on a thread of its own, bounded).
    private static func syncRequest(_ injector: Injector, _ reach: Hunt21AReach) async -> Result<
        H21APool?, ProvisionError
    >? {
        let request = Hunt5.Request { () throws(ProvisionError) -> H21APool? in
            switch reach {
            case .direct: try injector.get(H21AService.self).pool
            case .transient: try injector.get(H21ARepositoryUser.self).repository.pool
            case .optional: try injector.get(H21AOptionalUser.self).pool
            case .list: try injector.get(H21AListUser.self).pools.first
            case .property: try injector.get(H21APropertyUser.self).pool
            case .declaredClosure: try injector.get(H21AService.self, named: "declared").pool
            case .child: try injector.get(H21AService.self, named: "child").pool
            }
        }
        return await request.result(seconds: 20)
    }

    /// The injector of `reach`: the singleton's key, and the injector its requests go to.
    private static func injector(_ reach: Hunt21AReach, pools: Counter, services: Counter) throws -> (
        Injector, BindingKey
    ) {
        let pool = ClosureModule { binder in
            if reach == .list {
                binder.multibind(H21APool.self).to { _ async in H21APool(serial: pools.increment()) }.in(.singleton)
            } else {
                binder.bind(H21APool.self).to { _ async in H21APool(serial: pools.increment()) }.in(.singleton)
            }
        }
        let module = ClosureModule { binder in
            switch reach {
            case .direct:
                binder.bind(H21AService.self).to { (pool: H21APool) in
                    services.increment()
                    return H21AService(pool: pool)
                }.in(.singleton)
            case .transient:
                binder.bind(H21ARepository.self).to(H21ARepository.init(pool:))
                binder.bind(H21ARepositoryUser.self).to { (repository: H21ARepository) in
                    services.increment()
                    return H21ARepositoryUser(repository: repository)
                }.in(.singleton)
            case .optional:
                binder.bind(H21AOptionalUser.self).to { (pool: H21APool?) in
                    services.increment()
                    return H21AOptionalUser(pool: pool)
                }.in(.singleton)
            case .list:
                binder.bind(H21AListUser.self).to { (pools: [H21APool]) in
                    services.increment()
                    return H21AListUser(pools: pools)
                }.in(.singleton)
            case .property:
                binder.bind(H21APropertyUser.self).to(H21APropertyUser.init).in(.singleton)
            case .declaredClosure:
                binder.bind(H21AService.self, named: "declared").to(dependencies: [BindingKey(H21APool.self)]) {
                    resolver in
                    let pool = try resolver.get(H21APool.self)
                    services.increment()
                    return H21AService(pool: pool)
                }.in(.singleton)
            case .child:
                break
            }
        }
        if reach == .child {
            let parent = try Injector(pool)
            let child = try parent.makeChild(
                ClosureModule { binder in
                    binder.bind(H21AService.self, named: "child").to { (pool: H21APool) in
                        services.increment()
                        return H21AService(pool: pool)
                    }.in(.singleton)
                })
            return (child, BindingKey(H21AService.self, named: "child"))
        }
        let key: BindingKey =
            switch reach {
            case .direct: BindingKey(H21AService.self)
            case .transient: BindingKey(H21ARepositoryUser.self)
            case .optional: BindingKey(H21AOptionalUser.self)
            case .list: BindingKey(H21AListUser.self)
            case .property: BindingKey(H21APropertyUser.self)
            case .declaredClosure: BindingKey(H21AService.self, named: "declared")
            case .child: BindingKey(H21AService.self, named: "child")
            }
        return (try Injector(pool, module), key)
    }

    /// A synchronous request before the async pool is built throws requiresAsync, with a path from the
    /// singleton down to the pool, and builds nothing; once an async request built the pool, the same
    /// synchronous request builds the singleton, exactly once, over that pool.
    @Test(
        "before the async singleton: requiresAsync down to it; after: built once, synchronously",
        arguments: Hunt21AReach.allCases)
    func beforeAndAfter(reach: Hunt21AReach) async throws {
        let pools = Counter()
        let services = Counter()
        let (injector, key) = try Self.injector(reach, pools: pools, services: services)
        let before = try #require(await Self.syncRequest(injector, reach), "the synchronous request hung")
        let error = try #require(before.hunt5Error, "built before the async pool was: \(before)")
        #expect(error.code == .requiresAsync, "\(error)")
        #expect(error.path.first == key, "\(error)")
        #expect(error.path.last?.type == BindingKey(H21APool.self).type, "\(error)")
        #expect(error.message.contains("H21APool"), "\(error)")
        #expect(pools.value == 0)
        if reach != .property { #expect(services.value == 0) }
        let pool: H21APool =
            reach == .list
            ? try #require(try await injector.getAll(H21APool.self).first) : try await injector.get(H21APool.self)
        let first = try #require(await Self.syncRequest(injector, reach))
        let second = try #require(await Self.syncRequest(injector, reach))
        #expect(try first.get() === pool)
        #expect(try second.get() === pool)
        if reach != .property { #expect(services.value == 1) }
        #expect(pools.value == 1)
    }

    /// While an async request builds the service (suspended in the pool's factory), a synchronous request
    /// for the service, and one for a transient over it, throw requiresAsync at once rather than wait;
    /// the async request then finishes, and the service is built exactly once and served synchronously.
    @Test("a synchronous request while an async request holds the gate: requiresAsync, no wait")
    func syncWhileAsyncBuilds() async throws {
        let hold = H21AAsyncHold()
        let services = Counter()
        let injector = try Injector(h21APoolModule(hold, services: services))
        let builder = Task { try await injector.get(H21AService.self) }
        #expect(await Hunt5.wait(for: hold.entered, seconds: 10))
        let direct = Hunt5.Request { () throws(ProvisionError) in try injector.get(H21AService.self) }
        let handler = Hunt5.Request { () throws(ProvisionError) in try injector.get(H21AHandler.self) }
        let directResult = await direct.result(seconds: 10)
        let handlerResult = await handler.result(seconds: 10)
        hold.release.signal()
        #expect(directResult != nil, "the synchronous request waited for the async build")
        #expect(handlerResult != nil, "the synchronous request waited for the async build")
        #expect(directResult?.hunt5Error?.code == .requiresAsync, "\(String(describing: directResult))")
        #expect(handlerResult?.hunt5Error?.code == .requiresAsync, "\(String(describing: handlerResult))")
        #expect(handlerResult?.hunt5Error?.path.first == BindingKey(H21AHandler.self))
        let built = try await builder.value
        let served = try Hunt5.result { () throws(ProvisionError) in try injector.get(H21AService.self) }.get()
        #expect(served === built)
        #expect(services.value == 1)
        #expect(hold.builds.value == 1)
    }

    /// After the pool is built: a thread builds the service (its factory blocks), an async task and
    /// another thread ask for it meanwhile and wait at its gate; all three get the one instance.
    @Test("after the async singleton: a thread builds, a task and a thread wait, one instance")
    func syncBuilderAsyncWaiter() async throws {
        let hold = H21ASyncHold()
        let services = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H21APool.self).to { _ async in H21APool(serial: 1) }.in(.singleton)
                binder.bind(H21AService.self).to { (pool: H21APool) in
                    services.increment()
                    hold.run()
                    return H21AService(pool: pool)
                }.in(.singleton)
            })
        let pool = try await injector.get(H21APool.self)
        let builder = Hunt5.Request { () throws(ProvisionError) in try injector.get(H21AService.self) }
        #expect(await Hunt5.wait(for: hold.entered, seconds: 10))
        let task = Task { try await injector.get(H21AService.self) }
        let taskWaits = await Hunt5.until { injector.gateWaiters(of: H21AService.self)?.tasks == 1 }
        let thread = Hunt5.Request { () throws(ProvisionError) in try injector.get(H21AService.self) }
        let threadWaits = await Hunt5.until { injector.gateWaiters(of: H21AService.self)?.threads == 1 }
        hold.release.signal()
        #expect(taskWaits)
        #expect(threadWaits)
        let first = try #require(await builder.result(seconds: 20)).get()
        let second = try await task.value
        let third = try #require(await thread.result(seconds: 20)).get()
        #expect(first === second && second === third)
        #expect(first.pool === pool)
        #expect(services.value == 1)
    }

    /// A declared closure singleton: a thread's build (before the pool is built) fails with
    /// requiresAsync while an async task waits at its gate; the task doesn't inherit that failure but
    /// builds the singleton itself, awaiting the pool.
    @Test("an async waiter at a synchronous build that fails with requiresAsync builds it itself")
    func asyncWaiterDoesNotInheritRequiresAsync() async throws {
        let hold = H21ASyncHold()
        let pools = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H21APool.self).to { _ async in H21APool(serial: pools.increment()) }.in(.singleton)
                binder.bind(H21AService.self).to(dependencies: [BindingKey(H21APool.self)]) { resolver in
                    hold.run()
                    return H21AService(pool: try resolver.get(H21APool.self))
                }.in(.singleton)
            })
        let thread = Hunt5.Request { () throws(ProvisionError) in try injector.get(H21AService.self) }
        let entered = await Hunt5.wait(for: hold.entered, seconds: 10)
        #expect(entered, "the synchronous build never ran the closure")
        let task = Task { try await injector.get(H21AService.self) }
        let waits = await Hunt5.until { injector.gateWaiters(of: H21AService.self)?.tasks == 1 }
        hold.release.signal()
        #expect(waits)
        let threadResult = try #require(await thread.result(seconds: 20))
        #expect(threadResult.hunt5Error?.code == .requiresAsync, "\(threadResult)")
        let service = try await task.value
        #expect(service.pool === (try await injector.get(H21APool.self)))
        #expect(pools.value == 1)
    }

    /// A scoped service over the async pool: an async request in scope one holds its gate (the pool's
    /// factory held); a synchronous request in the same scope throws requiresAsync at once, so does one in
    /// scope two; after the pool is built each scope builds its service once, and closing each disposes
    /// its service exactly once (the pool stays, disposed once at shutdown).
    @Test("scoped over async: requiresAsync while an async request builds, once per scope, disposed once")
    func scopedOverAsync() async throws {
        let hold = H21AAsyncHold()
        let services = Counter()
        let injector = try Injector(h21APoolModule(hold, services: services, scope: .scoped))
        let one = injector.makeScope()
        let two = injector.makeScope()
        let builder = Task { try await one.get(H21AService.self) }
        #expect(await Hunt5.wait(for: hold.entered, seconds: 10))
        let same = Hunt5.Request { () throws(ProvisionError) in try one.get(H21AService.self) }
        let other = Hunt5.Request { () throws(ProvisionError) in try two.get(H21AHandler.self) }
        let sameResult = await same.result(seconds: 10)
        let otherResult = await other.result(seconds: 10)
        hold.release.signal()
        #expect(sameResult?.hunt5Error?.code == .requiresAsync, "\(String(describing: sameResult))")
        #expect(otherResult?.hunt5Error?.code == .requiresAsync, "\(String(describing: otherResult))")
        let built = try await builder.value
        #expect(try Hunt5.result { () throws(ProvisionError) in try one.get(H21AService.self) }.get() === built)
        let inTwo = try Hunt5.result { () throws(ProvisionError) in try two.get(H21AHandler.self) }.get().service
        #expect(try Hunt5.result { () throws(ProvisionError) in try two.get(H21AService.self) }.get() === inTwo)
        #expect(inTwo !== built)
        #expect(services.value == 2)
        try await one.close()
        try await two.close()
        #expect(built.disposals.value == 1)
        #expect(inTwo.disposals.value == 1)
        #expect(built.pool.disposals.value == 0)
        try await injector.shutdown()
        #expect(built.pool.disposals.value == 1)
        #expect(built.disposals.value == 1)
    }

    /// While start() builds the async pool (held), a synchronous request for the service throws
    /// requiresAsync without waiting; start() then builds the service once, and the synchronous API
    /// serves that instance. Shutdown disposes service and pool once each.
    @Test("during start(): requiresAsync without waiting; after it, start()'s instance")
    func duringStart() async throws {
        let hold = H21AAsyncHold()
        let services = Counter()
        let injector = try Injector(h21APoolModule(hold, services: services))
        let start = Task { try await injector.start() }
        #expect(await Hunt5.wait(for: hold.entered, seconds: 10))
        let during = Hunt5.Request { () throws(ProvisionError) in try injector.get(H21AHandler.self) }
        let duringResult = await during.result(seconds: 10)
        hold.release.signal()
        #expect(duringResult?.hunt5Error?.code == .requiresAsync, "\(String(describing: duringResult))")
        try await start.value
        #expect(services.value == 1)
        let service = try Hunt5.result { () throws(ProvisionError) in try injector.get(H21AService.self) }.get()
        #expect(
            try Hunt5.result { () throws(ProvisionError) in try injector.get(H21AHandler.self) }.get().service
                === service)
        #expect(services.value == 1)
        try await injector.shutdown()
        #expect(service.disposals.value == 1)
        #expect(service.pool.disposals.value == 1)
    }

    /// Shutdown begins while an async request builds the service (suspended in the pool's factory): the
    /// request ends (built or shutDown), a synchronous request meanwhile gets an error without waiting,
    /// and whatever was built is disposed exactly once.
    @Test("shutdown while an async request builds: bounded, every instance built disposed once")
    func shutdownDuringAsyncBuild() async throws {
        let hold = H21AAsyncHold()
        let services = Counter()
        let injector = try Injector(h21APoolModule(hold, services: services))
        let builder = Task { () async -> Result<H21AService, ProvisionError> in
            do throws(ProvisionError) {
                return .success(try await injector.get(H21AService.self))
            } catch {
                return .failure(error)
            }
        }
        #expect(await Hunt5.wait(for: hold.entered, seconds: 10))
        let shutdown = Task { () async -> ProvisionError? in
            await Hunt5.error { () async throws(ProvisionError) in try await injector.shutdown() }
        }
        let closing = await Hunt5.until { injector.isShuttingDown }
        #expect(closing)
        let during = Hunt5.Request { () throws(ProvisionError) in try injector.get(H21AService.self) }
        let duringResult = await during.result(seconds: 10)
        hold.release.signal()
        #expect(duringResult != nil, "the synchronous request waited")
        #expect(duringResult?.hunt5Error != nil, "\(String(describing: duringResult))")
        let built = await builder.value
        let shutdownError = await shutdown.value
        #expect(shutdownError == nil, "\(String(describing: shutdownError))")
        if case .success(let service) = built {
            #expect(service.disposals.value == 1)
            #expect(service.pool.disposals.value == 1)
        }
        #expect(services.value <= 1)
        #expect(hold.builds.value == 1)
    }

    /// A task waiting for the pool's build (held by another task) through the service is cancelled: it
    /// fails with the cancellation at once, and builds nothing; a synchronous request still gets
    /// requiresAsync; once the pool is built the service is built exactly once.
    @Test("a task cancelled while it waits below the service: cancelled, nothing built, then once")
    func cancelledWaiterBelowService() async throws {
        let hold = H21AAsyncHold()
        let services = Counter()
        let injector = try Injector(h21APoolModule(hold, services: services))
        let poolBuilder = Task { try await injector.get(H21APool.self) }
        #expect(await Hunt5.wait(for: hold.entered, seconds: 10))
        let waiter = Task { () async -> ProvisionError? in
            await Hunt5.error { () async throws(ProvisionError) in try await injector.get(H21AService.self) }
        }
        #expect(await Hunt5.until { injector.gateWaiters(of: H21APool.self)?.tasks == 1 })
        waiter.cancel()
        let error = await waiter.value
        #expect(error?.code == .cancelled, "\(String(describing: error))")
        #expect(services.value == 0)
        let sync = Hunt5.result { () throws(ProvisionError) in try injector.get(H21AService.self) }
        #expect(sync.hunt5Error?.code == .requiresAsync, "\(sync)")
        hold.release.signal()
        let pool = try await poolBuilder.value
        let service = try Hunt5.result { () throws(ProvisionError) in try injector.get(H21AService.self) }.get()
        #expect(service.pool === pool)
        #expect(try await injector.get(H21AService.self) === service)
        #expect(services.value == 1)
    }

    /// Eight threads and eight tasks ask for the handler at once, the pool unbuilt and its factory held
    /// until every one of them asked: the threads end with requiresAsync or the service (never a hang),
    /// the tasks with the service; pool and service are built once.
    @Test("eight threads and eight tasks race for the service over the held async pool: built once")
    func raceThreadsAndTasks() async throws {
        let hold = H21AAsyncHold()
        let services = Counter()
        let injector = try Injector(h21APoolModule(hold, services: services))
        let tasks = (0..<8).map { _ in Task { try await injector.get(H21AHandler.self) } }
        #expect(await Hunt5.wait(for: hold.entered, seconds: 10))
        let threads = (0..<8).map { _ in
            Hunt5.Request { () throws(ProvisionError) in try injector.get(H21AHandler.self).service }
        }
        var threadResults: [Result<H21AService, ProvisionError>] = []
        for thread in threads {
            if let result = await thread.result(seconds: 10) { threadResults.append(result) }
        }
        hold.release.signal()
        #expect(threadResults.count == 8, "a synchronous request waited for the async build")
        var served: [H21AService] = []
        for task in tasks { served.append(try await task.value.service) }
        let first = try #require(served.first)
        #expect(served.allSatisfy { $0 === first })
        for result in threadResults {
            switch result {
            case .success(let service): #expect(service === first)
            case .failure(let error): #expect(error.code == .requiresAsync, "\(error)")
            }
        }
        #expect(services.value == 1)
        #expect(hold.builds.value == 1)
    }

    /// A service over a provider, and one over a lazy handle, of the unbuilt async pool need nothing
    /// built to be constructed: a synchronous request builds them; reading the handle synchronously
    /// throws requiresAsync until the pool is built, then gives that pool.
    @Test("over Provider and Lazy of an unbuilt async singleton: built synchronously; the read waits for the pool")
    func handlesOverAsync() async throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H21APool.self).to { _ async in H21APool(serial: 1) }.in(.singleton)
                binder.bind(H21AProviderUser.self).to(H21AProviderUser.init(pools:)).in(.singleton)
                binder.bind(H21ALazyUser.self).to(H21ALazyUser.init(pool:)).in(.singleton)
            })
        let providerUser = Hunt5.result { () throws(ProvisionError) in try injector.get(H21AProviderUser.self) }
        let lazyUser = Hunt5.result { () throws(ProvisionError) in try injector.get(H21ALazyUser.self) }
        #expect(providerUser.hunt5Error == nil, "\(providerUser)")
        #expect(lazyUser.hunt5Error == nil, "\(lazyUser)")
        let early = Hunt5.result { () throws(ProvisionError) in try providerUser.get().pools.get() }
        #expect(early.hunt5Error?.code == .requiresAsync, "\(early)")
        let earlyLazy = Hunt5.result { () throws(ProvisionError) in try lazyUser.get().pool.value }
        #expect(earlyLazy.hunt5Error?.code == .requiresAsync, "\(earlyLazy)")
        let pool = try await injector.get(H21APool.self)
        #expect(try Hunt5.result { () throws(ProvisionError) in try providerUser.get().pools.get() }.get() === pool)
        #expect(try Hunt5.result { () throws(ProvisionError) in try lazyUser.get().pool.value }.get() === pool)
    }

    /// An eager singleton over an async singleton: creating the injector is a synchronous request, so it
    /// throws requiresAsync (path: the eager singleton down to the async one) and builds nothing;
    /// validation finds no problem in the same graph.
    @Test("an eager singleton over an async singleton: creation throws requiresAsync; validate() is clean")
    func eagerOverAsync() throws {
        let pools = Counter()
        let module = ClosureModule { binder in
            binder.bind(H21APool.self).to { _ async in H21APool(serial: pools.increment()) }.in(.singleton)
            binder.bind(H21AService.self).to(H21AService.init(pool:)).asEagerSingleton()
        }
        let creation = Hunt5.result { () throws(ProvisionError) in try Injector(module) }
        let error = try #require(creation.hunt5Error)
        #expect(error.code == .requiresAsync, "\(error)")
        #expect(error.path == [BindingKey(H21AService.self), BindingKey(H21APool.self)], "\(error)")
        #expect(pools.value == 0)
        let lazy = try Injector(
            ClosureModule { binder in
                binder.bind(H21APool.self).to { _ async in H21APool(serial: pools.increment()) }.in(.singleton)
                binder.bind(H21AService.self).to(H21AService.init(pool:)).in(.singleton)
                binder.bind(H21AHandler.self).to(H21AHandler.init(service:))
                binder.bind(H21ARepository.self).to(H21ARepository.init(pool:)).in(.scoped)
            })
        let report = try lazy.validate()
        #expect(report.isValid, "\(report)")
    }

    /// An undeclared synchronous closure singleton between the service and the pool: an async request
    /// for it before the pool is built throws requiresAsync (documented: its resolver is a synchronous
    /// request); once the pool is built, a synchronous request builds it, once.
    @Test("an undeclared closure singleton over the pool: requiresAsync even async, then built once")
    func undeclaredClosureInTheMiddle() async throws {
        let services = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H21APool.self).to { _ async in H21APool(serial: 1) }.in(.singleton)
                binder.bind(H21AService.self).to { resolver in
                    services.increment()
                    return H21AService(pool: try resolver.get(H21APool.self))
                }.in(.singleton)
                binder.bind(H21AHandler.self).to(H21AHandler.init(service:))
            })
        let early = await Hunt5.error { () async throws(ProvisionError) in try await injector.get(H21AHandler.self) }
        #expect(early?.code == .requiresAsync, "\(String(describing: early))")
        let pool = try await injector.get(H21APool.self)
        let handler = try Hunt5.result { () throws(ProvisionError) in try injector.get(H21AHandler.self) }.get()
        #expect(handler.service.pool === pool)
        #expect(try await injector.get(H21AHandler.self).service === handler.service)
        #expect(services.value == 2)
    }

    /// The scoped variant of an async waiter at a failing synchronous build: a thread's build of a
    /// declared closure scoped service (the pool unbuilt) fails with requiresAsync while a task of the
    /// same scope waits at its gate; the task builds it itself, once; closing the scope disposes it once.
    @Test("scoped: an async waiter at a synchronous build failing with requiresAsync builds it itself")
    func scopedAsyncWaiterDoesNotInherit() async throws {
        let hold = H21ASyncHold()
        let services = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H21APool.self).to { _ async in H21APool(serial: 1) }.in(.singleton)
                binder.bind(H21AService.self).to(dependencies: [BindingKey(H21APool.self)]) { resolver in
                    hold.run()
                    let pool = try resolver.get(H21APool.self)
                    services.increment()
                    return H21AService(pool: pool)
                }.in(.scoped)
            })
        let scope = injector.makeScope()
        let thread = Hunt5.Request { () throws(ProvisionError) in try scope.get(H21AService.self) }
        #expect(await Hunt5.wait(for: hold.entered, seconds: 10))
        let task = Task { try await scope.get(H21AService.self) }
        let waits = await Hunt5.until { scope.hunt21ASuspendedTasks == 1 }
        hold.release.signal()
        #expect(waits)
        let threadResult = try #require(await thread.result(seconds: 20))
        #expect(threadResult.hunt5Error?.code == .requiresAsync, "\(threadResult)")
        let service = try await task.value
        #expect(try Hunt5.result { () throws(ProvisionError) in try scope.get(H21AService.self) }.get() === service)
        #expect(services.value == 1)
        try await scope.close()
        #expect(service.disposals.value == 1)
    }

    /// A child's eager singleton over its parent's async singleton: with the parent's built, the child is
    /// created and its eager singleton uses it; with it unbuilt, the child's creation throws requiresAsync
    /// and the parent is untouched (its pool is built later, once, and disposed once).
    @Test("a child's eager singleton over the parent's async singleton: built once it is, requiresAsync before")
    func childEagerOverParentAsync() async throws {
        let pools = Counter()
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(H21APool.self).to { _ async in H21APool(serial: pools.increment()) }.in(.singleton)
            })
        let eager = ClosureModule { binder in
            binder.bind(H21AService.self).to(H21AService.init(pool:)).asEagerSingleton()
        }
        let early = Hunt5.result { () throws(ProvisionError) in try parent.makeChild(eager) }
        #expect(early.hunt5Error?.code == .requiresAsync, "\(early)")
        #expect(pools.value == 0)
        let pool = try await parent.get(H21APool.self)
        let child = try Hunt5.result { () throws(ProvisionError) in try parent.makeChild(eager) }.get()
        let service = try Hunt5.result { () throws(ProvisionError) in try child.get(H21AService.self) }.get()
        #expect(service.pool === pool)
        try await child.shutdown()
        #expect(service.disposals.value == 1)
        #expect(pool.disposals.value == 0)
        try await parent.shutdown()
        #expect(pool.disposals.value == 1)
        #expect(pools.value == 1)
    }

    /// After start(), a plugin module installed at run time whose eager singleton depends on the async
    /// pool: the install builds it synchronously over the pool start() built.
    @Test("install(_:) after start(): an eager singleton over the async pool is built synchronously")
    func installEagerAfterStart() async throws {
        let hold = H21AAsyncHold()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H21APool.self).to { _ async in H21APool(serial: await hold.run()) }.in(.singleton)
            })
        hold.release.signal()
        try await injector.start()
        let pool = try await injector.get(H21APool.self)
        let install = Hunt5.result { () throws(ProvisionError) in
            try injector.install(
                ClosureModule { binder in binder.bind(H21AService.self).to(H21AService.init(pool:)).asEagerSingleton() }
            )
        }
        #expect(install.hunt5Error == nil, "\(install)")
        let service = try Hunt5.result { () throws(ProvisionError) in try injector.get(H21AService.self) }.get()
        #expect(service.pool === pool)
        try await injector.shutdown()
        #expect(service.disposals.value == 1)
        #expect(pool.disposals.value == 1)
    }

    /// Two synchronous singletons stacked over the async pool. While an async request builds the inner
    /// one (held in the pool's factory), a synchronous request for the outer one throws requiresAsync at
    /// once with the path outer -> inner; afterwards each is built exactly once.
    @Test("outer singleton -> inner singleton -> async pool: requiresAsync while the inner is built async")
    func stackedSingletons() async throws {
        let hold = H21AAsyncHold()
        let services = Counter()
        let handlers = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H21APool.self).to { _ async in H21APool(serial: await hold.run()) }.in(.singleton)
                binder.bind(H21AService.self).to { (pool: H21APool) in
                    services.increment()
                    return H21AService(pool: pool)
                }.in(.singleton)
                binder.bind(H21AHandler.self).to { (service: H21AService) in
                    handlers.increment()
                    return H21AHandler(service: service)
                }.in(.singleton)
            })
        let inner = Task { try await injector.get(H21AService.self) }
        #expect(await Hunt5.wait(for: hold.entered, seconds: 10))
        let outer = Hunt5.Request { () throws(ProvisionError) in try injector.get(H21AHandler.self) }
        let outerResult = await outer.result(seconds: 10)
        hold.release.signal()
        #expect(outerResult?.hunt5Error?.code == .requiresAsync, "\(String(describing: outerResult))")
        #expect(outerResult?.hunt5Error?.path.first == BindingKey(H21AHandler.self))
        let service = try await inner.value
        let handler = try Hunt5.result { () throws(ProvisionError) in try injector.get(H21AHandler.self) }.get()
        #expect(handler.service === service)
        #expect(try await injector.get(H21AHandler.self) === handler)
        #expect(services.value == 1)
        #expect(handlers.value == 1)
    }

    /// Four threads ask synchronously, again and again, for the handler while a task builds the pool: each
    /// gets requiresAsync until the pool is built, then the one service, built exactly once.
    @Test("four threads retrying while a task builds the pool: the service built once")
    func threadsRetryUntilBuilt() async throws {
        let hold = H21AAsyncHold()
        let services = Counter()
        let injector = try Injector(h21APoolModule(hold, services: services))
        let failures = Counter()
        let seen = Locked<[ObjectIdentifier]>([])
        let unexpected = Locked<[String]>([])
        let started = Barrier(count: 5)
        let threads = Task {
            try await offPool {
                runThreads(4, timeout: 30) { _ in
                    started.arriveAndWait()
                    let deadline = DispatchTime.now() + 20
                    while DispatchTime.now() < deadline {
                        do throws(ProvisionError) {
                            let service = try injector.get(H21AHandler.self).service
                            seen.withLock { $0.append(ObjectIdentifier(service)) }
                            return
                        } catch {
                            if error.code != .requiresAsync { unexpected.withLock { $0.append("\(error)") } }
                            failures.increment()
                            sched_yield()
                        }
                    }
                }
            }
        }
        let builder = Task { try await injector.get(H21APool.self) }
        #expect(await Hunt5.wait(for: hold.entered, seconds: 10))
        _ = try await offPool { started.arriveAndWait() }
        _ = await Hunt5.until { failures.value >= 4 }
        hold.release.signal()
        _ = try await builder.value
        let finished = try await threads.value
        #expect(finished)
        #expect(unexpected.withLock { $0 }.isEmpty, "\(unexpected.withLock { $0 })")
        let identities = seen.withLock { $0 }
        #expect(identities.count == 4)
        #expect(Set(identities).count == 1)
        #expect(services.value == 1)
    }

    /// Found by hunt 21A, fixed: a synchronous request for a singleton whose own factory is synchronous, made
    /// while an async request builds it (awaiting the async pool below it), throws requiresAsync whose
    /// message says "its factory is async", which is false (`InstanceCell.build`'s `builtAsynchronously`
    /// names the singleton itself as the async dependency).
    @Test("requiresAsync while an async request builds a synchronous factory: the message doesn't call it async")
    func builtAsynchronouslyMessage() async throws {
        let hold = H21AAsyncHold()
        let injector = try Injector(h21APoolModule(hold, services: Counter()))
        let builder = Task { try await injector.get(H21AService.self) }
        #expect(await Hunt5.wait(for: hold.entered, seconds: 10))
        let during = Hunt5.result { () throws(ProvisionError) in try injector.get(H21AService.self) }
        hold.release.signal()
        _ = try await builder.value
        let error = try #require(during.hunt5Error)
        #expect(error.code == .requiresAsync)
        #expect(!error.message.contains("its factory is async"), "\(error.message)")
    }
}
