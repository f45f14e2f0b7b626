import Dispatch
import Synchronization
import Testing

@testable import Provision

/// An async request settles what a synchronous closure binding declared (`to(dependencies:_:)`) before
/// the closure runs: the async singletons below are built, awaited, so the closure's synchronous requests
/// find them built. Before, such a request threw `requiresAsync` (found by hunt 16).
@Suite("Declared closure dependencies in async requests")
struct DeclaredClosureSettlingTests {
    final class Pool: Sendable {}

    final class Repository: Sendable {
        let pool: Pool
        init(pool: Pool) { self.pool = pool }
    }

    final class Service: Sendable {
        let repository: Repository
        init(repository: Repository) { self.repository = repository }
    }

    /// `Pool` is an async singleton; `Repository` and `Service` synchronous closures declaring what they
    /// request.
    static func module(poolBuilds: Counter, repositoryScope: Scope = .transient, declares: Bool = true) -> ClosureModule
    {
        ClosureModule { binder in
            binder.bind(Pool.self).to { _ async throws -> Pool in
                poolBuilds.increment()
                await Task.yield()
                return Pool()
            }.in(.singleton)
            if declares {
                binder.bind(Repository.self).to(dependencies: [BindingKey(Pool.self)]) { resolver in
                    Repository(pool: try resolver.get())
                }.in(repositoryScope)
                binder.bind(Service.self).to(dependencies: [BindingKey(Repository.self)]) { resolver in
                    Service(repository: try resolver.get())
                }
            } else {
                binder.bind(Repository.self).to { resolver in Repository(pool: try resolver.get()) }.in(repositoryScope)
                binder.bind(Service.self).to { resolver in Service(repository: try resolver.get()) }
            }
        }
    }

    @Test("transient closures above an async singleton: the async request builds it once, first")
    func transientClosures() async throws {
        let builds = Counter()
        let injector = try Injector(Self.module(poolBuilds: builds))
        let first = try await injector.get(Service.self)
        let second = try await injector.get(Service.self)
        #expect(builds.value == 1)
        #expect(first !== second)
        #expect(first.repository.pool === second.repository.pool)
        // Built now: the synchronous API serves it too.
        #expect(try Self.synchronousService(injector).repository.pool === first.repository.pool)
    }

    @Test(
        "a singleton closure and a scoped closure declaring an async singleton", arguments: [Scope.singleton, .scoped])
    func scopedAndSingletonClosures(scope: Scope) async throws {
        let builds = Counter()
        let injector = try Injector(Self.module(poolBuilds: builds, repositoryScope: scope))
        let service: Service
        if scope == .scoped {
            let requestScope = injector.makeScope()
            service = try await requestScope.get(Service.self)
            let again = try await requestScope.get(Service.self)
            #expect(again.repository === service.repository)
            try await requestScope.close()
        } else {
            service = try await injector.get(Service.self)
            #expect(try await injector.get(Service.self).repository === service.repository)
        }
        #expect(builds.value == 1)
        #expect(service.repository.pool === (try await injector.get(Pool.self)))
    }

    @Test("50 tasks at once onto the unbuilt async singleton below declared closures: one build, one instance")
    func concurrentFirstRequests() async throws {
        let tasks = 50
        let builds = Counter()
        let arrived = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Pool.self).to { _ async throws -> Pool in
                    builds.increment()
                    // Hold the build until every task has made its request (a barrier, not a sleep).
                    while arrived.value < tasks { await Task.yield() }
                    return Pool()
                }.in(.singleton)
                binder.bind(Repository.self).to(dependencies: [BindingKey(Pool.self)]) { resolver in
                    Repository(pool: try resolver.get())
                }
            })
        let pools = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    arrived.increment()
                    return ObjectIdentifier(try await injector.get(Repository.self).pool)
                }
            }
            var pools: Set<ObjectIdentifier> = []
            for try await pool in group { pools.insert(pool) }
            return pools
        }
        #expect(builds.value == 1)
        #expect(pools.count == 1)
    }

    @Test("a cycle of declared closures, requested asynchronously: a cycle error with its path, no hang")
    func declaredCycle() async throws {
        final class A: Sendable {}
        final class B: Sendable {}
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(A.self).to(dependencies: [BindingKey(B.self)]) { resolver in
                        _ = try resolver.get(B.self)
                        return A()
                    }
                    binder.bind(B.self).to(dependencies: [BindingKey(A.self)]) { resolver in
                        _ = try resolver.get(A.self)
                        return B()
                    }
                }
            ],
            configuration: Injector.Configuration(validatesOnCreation: false)
        )
        let error = await Self.error { () async throws(ProvisionError) in try await injector.get(A.self) }
        #expect(error?.code == .cycle)
        #expect(error?.path == [BindingKey(A.self), BindingKey(B.self), BindingKey(A.self)])
    }

    @Test("a declared key that isn't bound: the closure's own request reports it, as before")
    func declaredMissing() async throws {
        final class Missing: Sendable {}
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Repository.self).to(dependencies: [BindingKey(Missing.self)]) { resolver in
                        _ = try resolver.get(Missing.self)
                        return Repository(pool: Pool())
                    }
                }
            ],
            configuration: Injector.Configuration(validatesOnCreation: false)
        )
        let asyncError = await Self.error { () async throws(ProvisionError) in try await injector.get(Repository.self) }
        let syncError = Self.syncError { () throws(ProvisionError) in try injector.get(Repository.self) }
        #expect(asyncError?.code == .notBound)
        #expect(asyncError?.code == syncError?.code)
        #expect(asyncError?.path == syncError?.path)
    }

    @Test("a declared async singleton whose factory throws: the async request fails with the path through the closure")
    func declaredFailure() async throws {
        struct Refused: Error {}
        let attempts = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Pool.self).to { _ async throws -> Pool in
                    attempts.increment()
                    throw Refused()
                }.in(.singleton)
                binder.bind(Repository.self).to(dependencies: [BindingKey(Pool.self)]) { resolver in
                    Repository(pool: try resolver.get())
                }
            })
        let error = await Self.error { () async throws(ProvisionError) in try await injector.get(Repository.self) }
        #expect(error?.code == .factoryFailed)
        #expect(error?.key == BindingKey(Pool.self))
        #expect(error?.path == [BindingKey(Repository.self), BindingKey(Pool.self)])
        // The failed build isn't retried by the closure's synchronous request in the same async request.
        #expect(attempts.value == 1)
    }

    @Test("an undeclared closure still throws requiresAsync, and the hint says how to declare it")
    func undeclaredClosure() async throws {
        let builds = Counter()
        let injector = try Injector(Self.module(poolBuilds: builds, declares: false))
        let error = await Self.error { () async throws(ProvisionError) in try await injector.get(Service.self) }
        #expect(error?.code == .requiresAsync)
        #expect(error?.hint.contains("to(dependencies:)") == true)
        #expect(builds.value == 0)
    }

    @Test("a child's declared closure above its parent's async singleton: built once, in the parent")
    func childClosureAboveParent() async throws {
        let builds = Counter()
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(Pool.self).to { _ async throws -> Pool in
                    builds.increment()
                    return Pool()
                }.in(.singleton)
            })
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(Repository.self).to(dependencies: [BindingKey(Pool.self)]) { resolver in
                    Repository(pool: try resolver.get())
                }
            })
        let repository = try await child.get(Repository.self)
        #expect(builds.value == 1)
        #expect(repository.pool === (try await parent.get(Pool.self)))
    }

    /// A synchronous request (in an async test, `get` is the async overload).
    static func synchronousService(_ injector: Injector) throws -> Service {
        try injector.get(Service.self)
    }

    static func error<T>(_ body: () async throws(ProvisionError) -> T) async -> ProvisionError? {
        do {
            _ = try await body()
            return nil
        } catch { return error }
    }

    static func syncError<T>(_ body: () throws(ProvisionError) -> T) -> ProvisionError? {
        do {
            _ = try body()
            return nil
        } catch { return error }
    }
}
