import Dispatch
import Testing

@testable import Provision

// `to(Pool.init(config:))` for an `async` initializer: the shapes server code writes (a pool that
// connects, a client that fetches its settings), reported by hunt 28B as a gap. The binding declares its
// parameters as dependencies, like a synchronous constructor binding, and is built by the async path
// only, like an async closure binding.

private struct AsyncConfig: Sendable {
    let url: String
    init() { url = "postgres://localhost" }
}

private final class AsyncClock: Sendable {
    init() {}
}

/// Counts the builds of the pool, shared by every test that binds it.
private final class AsyncBuildCount: Sendable {
    let count = Locked(0)
    func bump() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

private final class AsyncPool: Sendable {
    let config: AsyncConfig
    let clock: AsyncClock
    init(config: AsyncConfig, clock: AsyncClock, builds: AsyncBuildCount) async throws {
        builds.bump()
        await Task.yield()
        self.config = config
        self.clock = clock
    }
}

private final class AsyncRepository: Sendable {
    let pool: AsyncPool
    init(pool: AsyncPool) { self.pool = pool }
}

/// Async, throwing, no parameters.
private final class AsyncWarmup: Sendable {
    init() async throws { await Task.yield() }
}

/// Async and not throwing, one parameter, through a static function.
private struct AsyncToken: Sendable {
    let clock: AsyncClock
    static func fetch(clock: AsyncClock) async -> AsyncToken {
        await Task.yield()
        return AsyncToken(clock: clock)
    }
}

private struct AsyncRefused: Error, CustomStringConvertible {
    var description: String { "the database refused the connection" }
}

private final class AsyncBroken: Sendable {
    init(config: AsyncConfig) async throws {
        await Task.yield()
        throw AsyncRefused()
    }
}

private final class AsyncNeedsMissing: Sendable {
    init(clock: AsyncClock, missing: AsyncMissingService) async {}
}

private final class AsyncMissingService: Sendable {}

/// Thirteen parameters: more than the synchronous fixed arities take.
private final class AsyncWide: Sendable {
    let count: Int
    init(
        a: AsyncClock, b: AsyncClock, c: AsyncClock, d: AsyncClock, e: AsyncClock, f: AsyncClock,
        g: AsyncClock, h: AsyncClock, i: AsyncClock, j: AsyncClock, k: AsyncClock, l: AsyncClock,
        m: AsyncConfig
    ) async {
        await Task.yield()
        count = 13
    }
}

/// A cycle through an async initializer.
private final class AsyncLeft: Sendable {
    init(right: AsyncRight) async {}
}

private final class AsyncRight: Sendable {
    init(left: AsyncLeft) {}
}

@Suite("Bindings to async initializers")
struct AsyncConstructorBindingTests {
    private func poolModule(_ builds: AsyncBuildCount, scope: Scope = .singleton) -> ClosureModule {
        ClosureModule { binder in
            binder.bind(AsyncConfig.self).to(AsyncConfig.init)
            binder.bind(AsyncClock.self).to(AsyncClock.init).in(.singleton)
            binder.bind(AsyncBuildCount.self).toInstance(builds)
            binder.bind(AsyncPool.self).to(AsyncPool.init(config:clock:builds:)).in(scope)
            binder.bind(AsyncRepository.self).to(AsyncRepository.init(pool:))
        }
    }

    @Test("an async initializer's parameters are resolved, and an async request builds it")
    func buildsThroughTheAsyncPath() async throws {
        let builds = AsyncBuildCount()
        let injector = try Injector(poolModule(builds))
        let repository = try await injector.get(AsyncRepository.self)
        #expect(repository.pool.config.url == "postgres://localhost")
        #expect(repository.pool.clock === (try await injector.get(AsyncClock.self)))
        #expect(repository.pool === (try await injector.get(AsyncPool.self)))
        #expect(builds.value == 1)
    }

    @Test("its parameter types are its declared dependencies, in the graph")
    func declaresItsParameters() throws {
        let injector = try Injector(poolModule(AsyncBuildCount()))
        let graph = injector.graph()
        let pool = BindingKey(AsyncPool.self)
        let edges = graph.edges.filter { graph.vertices[$0.from].key == pool }.map { graph.vertices[$0.to].key }
        #expect(
            edges == [BindingKey(AsyncConfig.self), BindingKey(AsyncClock.self), BindingKey(AsyncBuildCount.self)])
    }

    @Test("200 concurrent async requests build the singleton exactly once")
    func concurrentRequestsBuildOnce() async throws {
        let builds = AsyncBuildCount()
        let injector = try Injector(poolModule(builds))
        let pools = try await withThrowingTaskGroup(of: AsyncPool.self) { group in
            for _ in 0..<200 {
                group.addTask { try await injector.get(AsyncRepository.self).pool }
            }
            var pools: [AsyncPool] = []
            for try await pool in group { pools.append(pool) }
            return pools
        }
        #expect(pools.count == 200)
        #expect(pools.allSatisfy { $0 === pools[0] })
        #expect(builds.value == 1)
    }

    @Test("a transient async constructor builds anew for each request")
    func transientBuildsEachTime() async throws {
        let builds = AsyncBuildCount()
        let injector = try Injector(poolModule(builds, scope: .transient))
        let first = try await injector.get(AsyncPool.self)
        let second = try await injector.get(AsyncPool.self)
        #expect(first !== second)
        #expect(builds.value == 2)
    }

    @Test("a synchronous request throws requiresAsync until start() built the singleton")
    func synchronousRequestsAfterStart() async throws {
        let builds = AsyncBuildCount()
        let injector = try Injector(poolModule(builds))
        let before = #expect(throws: ProvisionError.self) { try syncGet(injector, AsyncRepository.self) }
        #expect(before?.code == .requiresAsync)
        #expect(before?.path == [BindingKey(AsyncRepository.self), BindingKey(AsyncPool.self)])
        #expect(builds.value == 0)
        try await injector.start()
        let repository = try syncGet(injector, AsyncRepository.self)
        #expect(repository.pool === (try syncGet(injector, AsyncPool.self)))
        #expect(builds.value == 1)
        try await injector.shutdown()
    }

    @Test("a transient one can't be built synchronously, even after start()")
    func transientNeverSynchronous() async throws {
        let injector = try Injector(poolModule(AsyncBuildCount(), scope: .transient))
        try await injector.start()
        let error = #expect(throws: ProvisionError.self) { try syncGet(injector, AsyncPool.self) }
        #expect(error?.code == .requiresAsync)
        try await injector.shutdown()
    }

    @Test("no parameters, a static function, a function that doesn't throw")
    func otherShapes() async throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(AsyncClock.self).to(AsyncClock.init).in(.singleton)
                binder.bind(AsyncWarmup.self).to(AsyncWarmup.init)
                binder.bind(AsyncToken.self).to(AsyncToken.fetch(clock:))
                binder.bind(AsyncConfig.self).to(AsyncConfig.init)
                binder.bind(AsyncWide.self).to(AsyncWide.init(a:b:c:d:e:f:g:h:i:j:k:l:m:))
            })
        _ = try await injector.get(AsyncWarmup.self)
        #expect((try await injector.get(AsyncToken.self)).clock === (try await injector.get(AsyncClock.self)))
        #expect((try await injector.get(AsyncWide.self)).count == 13)
        let graph = injector.graph()
        let wide = BindingKey(AsyncWide.self)
        #expect(graph.edges.filter { graph.vertices[$0.from].key == wide }.count == 13)
    }

    @Test("what the initializer throws is factoryFailed, with the path and the cause")
    func throwingInitializer() async throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(AsyncConfig.self).to(AsyncConfig.init)
                binder.bind(AsyncBroken.self).to(AsyncBroken.init(config:)).in(.singleton)
                binder.bind(AsyncRepository.self).to { (resolver: Resolver) async throws -> AsyncRepository in
                    _ = try await resolver.get(AsyncBroken.self)
                    throw AsyncRefused()
                }
            })
        let error = await #expect(throws: ProvisionError.self) { try await injector.get(AsyncRepository.self) }
        #expect(error?.code == .factoryFailed)
        #expect(error?.path == [BindingKey(AsyncRepository.self), BindingKey(AsyncBroken.self)])
        #expect(error?.cause is AsyncRefused)
        // A failed singleton build is not kept: the next request builds again, and fails again.
        let again = await #expect(throws: ProvisionError.self) { try await injector.get(AsyncBroken.self) }
        #expect(again?.code == .factoryFailed)
    }

    @Test("a missing parameter binding fails the injector's creation, and a request without validation")
    func missingParameter() async throws {
        let builds = AsyncBuildCount()
        let module = ClosureModule { binder in
            binder.bind(AsyncClock.self).to { _ in
                builds.bump()
                return AsyncClock()
            }
            binder.bind(AsyncNeedsMissing.self).to(AsyncNeedsMissing.init(clock:missing:))
        }
        let creation = #expect(throws: ProvisionError.self) { try Injector(module) }
        #expect(creation?.code == .validationFailed)
        #expect(creation?.description.contains("AsyncNeedsMissing -> AsyncMissingService") == true)
        var configuration = Injector.Configuration()
        configuration.validatesOnCreation = false
        let injector = try Injector(modules: [module], configuration: configuration)
        let error = await #expect(throws: ProvisionError.self) { try await injector.get(AsyncNeedsMissing.self) }
        #expect(error?.code == .notBound)
        #expect(error?.path == [BindingKey(AsyncNeedsMissing.self), BindingKey(AsyncMissingService.self)])
        // Found by the link, before anything was built.
        #expect(builds.value == 0)
    }

    @Test("a cycle through an async initializer is a cycle error, not a hang")
    func cycle() async throws {
        let module = ClosureModule { binder in
            binder.bind(AsyncLeft.self).to(AsyncLeft.init(right:)).in(.singleton)
            binder.bind(AsyncRight.self).to(AsyncRight.init(left:))
        }
        let creation = #expect(throws: ProvisionError.self) { try Injector(module) }
        #expect(creation?.code == .validationFailed)
        var configuration = Injector.Configuration()
        configuration.validatesOnCreation = false
        let injector = try Injector(modules: [module], configuration: configuration)
        let error = await #expect(throws: ProvisionError.self) { try await injector.get(AsyncLeft.self) }
        #expect(error?.code == .cycle)
        #expect(
            error?.path == [BindingKey(AsyncLeft.self), BindingKey(AsyncRight.self), BindingKey(AsyncLeft.self)])
    }

    @Test("a synchronous initializer and closures still take their synchronous forms")
    func synchronousFormsUnchanged() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(AsyncClock.self).to(AsyncClock.init)
                binder.bind(AsyncConfig.self).to { _ in AsyncConfig() }
                binder.bind(AsyncToken.self).to { (resolver: Resolver) in AsyncToken(clock: try resolver.get()) }
            })
        // Each is built by a synchronous request: none took an async form.
        _ = try injector.get(AsyncClock.self)
        #expect(try injector.get(AsyncConfig.self).url == "postgres://localhost")
        _ = try injector.get(AsyncToken.self)
    }
}

/// A synchronous request from an async test (where `get` would pick the async overload).
private func syncGet<T>(_ injector: Injector, _ type: T.Type) throws(ProvisionError) -> T {
    try injector.get(type)
}
