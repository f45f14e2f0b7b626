import Dispatch
import Synchronization
import Testing

@testable import Provision

private final class AsyncDatabase: Sendable {
    let id: Int

    init(id: Int) {
        self.id = id
    }
}

private final class AsyncRepository: Sendable {
    let database: AsyncDatabase

    init(database: AsyncDatabase) {
        self.database = database
    }
}

private final class AsyncService: Sendable {
    let repository: AsyncRepository

    init(repository: AsyncRepository) {
        self.repository = repository
    }
}

@Suite("Async factories")
struct AsyncFactoryTests {
    @Test("1,000 concurrent tasks get one async singleton, built by one factory run, while they suspend")
    func asyncSingletonIsBuiltOnce() async throws {
        let runs = Counter()
        let release = AsyncLatch()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(AsyncDatabase.self).to { _ async throws in
                    let run = runs.increment()
                    await release.wait()
                    return AsyncDatabase(id: run)
                }.in(.singleton)
            }
        )
        let node = try #require(injector.lookup(BindingKey(AsyncDatabase.self), as: AsyncDatabase.self))
        let cell = try #require(node.cell)
        let stripe = injector.registry.stripe(for: BindingKey(AsyncDatabase.self))
        let suspended = {
            stripe.withState { $0.gates[ObjectIdentifier(cell)]?.suspended.count ?? 0 }
        }
        let ids = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<1_000 {
                group.addTask { try await injector.get(AsyncDatabase.self).id }
            }
            // Every caller but the builder suspends on the gate (no thread is blocked meanwhile: the
            // cooperative pool has 2 threads here, and 999 waiters).
            while suspended() < 999 { await Task.yield() }
            release.open()
            var ids: [Int] = []
            for try await id in group { ids.append(id) }
            return ids
        }
        #expect(runs.value == 1)
        #expect(ids.count == 1_000)
        #expect(Set(ids) == [1])
    }

    @Test("a synchronous request for an unbuilt async binding is a requiresAsync error; once built it is served")
    func synchronousRequestBeforeAndAfterTheBuild() async throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(AsyncDatabase.self).to { _ async in AsyncDatabase(id: 7) }.in(.singleton)
                binder.bind(AsyncRepository.self).to(AsyncRepository.init(database:))
            }
        )
        let error = #expect(throws: ProvisionError.self) { try injector.syncGet(AsyncRepository.self) }
        #expect(error?.code == .requiresAsync)
        #expect(error?.pathDescription == "AsyncRepository -> AsyncDatabase")
        #expect(error?.hint.contains("try await injector.get(AsyncDatabase.self)") == true)

        let repository = try await injector.get(AsyncRepository.self)
        #expect(repository.database.id == 7)
        // Built now: the synchronous API serves it (and what depends on it) without awaiting.
        #expect(try injector.syncGet(AsyncDatabase.self) === repository.database)
        #expect(try injector.syncGet(AsyncRepository.self).database === repository.database)
    }

    @Test("a transient async binding can never be built synchronously")
    func transientAsyncBinding() async throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(AsyncDatabase.self).to { _ async in AsyncDatabase(id: 1) }
            }
        )
        #expect(try await injector.get(AsyncDatabase.self) !== injector.get(AsyncDatabase.self))
        #expect(throws: ProvisionError.requiresAsyncError) { try injector.syncGet(AsyncDatabase.self) }
    }

    @Test("constructors above an async singleton build asynchronously, through every arity and a collection")
    func constructorsAboveAnAsyncBinding() async throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(AsyncDatabase.self).to { _ async in AsyncDatabase(id: 3) }.in(.singleton)
                binder.bind(AsyncRepository.self).to(AsyncRepository.init(database:)).in(.singleton)
                binder.bind(AsyncService.self).to(AsyncService.init(repository:))
                binder.multibind(AsyncRepository.self).to(AsyncRepository.init(database:))
            }
        )
        let service = try await injector.get(AsyncService.self)
        #expect(service.repository.database.id == 3)
        #expect(try await injector.get(AsyncService.self).repository === service.repository)
        let all = try await injector.getAll(AsyncRepository.self)
        #expect(all.count == 1)
        #expect(all.first?.database === service.repository.database)
    }

    @Test("an async closure awaits its dependencies through the resolver; the async API resolves sync graphs too")
    func asyncClosureResolvesThroughTheResolver() async throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Config.self).toInstance(Config(port: 5432))
                binder.bind(AsyncDatabase.self).to { resolver async throws in
                    AsyncDatabase(id: try await resolver.get(Config.self).port)
                }
                binder.bind(Engine.self).to(Engine.init).in(.singleton)
            }
        )
        #expect(try await injector.get(AsyncDatabase.self).id == 5432)
        #expect(try await injector.get(Engine.self) === injector.get(Engine.self))
    }

    @Test("a failing async singleton is not cached: the error reaches every caller, the next request builds")
    func failingAsyncSingleton() async throws {
        let runs = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(AsyncDatabase.self).to { _ async throws in
                    if runs.increment() == 1 { throw ExpectedFailure(id: 1) }
                    return AsyncDatabase(id: 2)
                }.in(.singleton)
                binder.bind(AsyncRepository.self).to(AsyncRepository.init(database:))
            }
        )
        let error = await #expect(throws: ProvisionError.self) { try await injector.get(AsyncRepository.self) }
        #expect(error?.code == .factoryFailed)
        #expect(error?.cause as? ExpectedFailure == ExpectedFailure(id: 1))
        #expect(error?.pathDescription == "AsyncRepository -> AsyncDatabase")
        #expect(try await injector.get(AsyncRepository.self).database.id == 2)
        #expect(runs.value == 2)
    }

    @Test("a cycle through async closures is a cycle error with its path, not a hang")
    func asyncCycle() async throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(AsyncDatabase.self).to { resolver async throws in
                    _ = try await resolver.get(AsyncRepository.self)
                    return AsyncDatabase(id: 0)
                }.in(.singleton)
                binder.bind(AsyncRepository.self).to(AsyncRepository.init(database:))
            }
        )
        let error = await #expect(throws: ProvisionError.self) { try await injector.get(AsyncDatabase.self) }
        #expect(error?.code == .cycle)
        #expect(error?.pathDescription == "AsyncDatabase -> AsyncRepository -> AsyncDatabase")
    }

    @Test("two async singletons built by two tasks that wait for each other end in a cycle error, not a hang")
    func crossTaskCycle() async throws {
        let bothEntered = AsyncBarrier(count: 2)
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(AsyncDatabase.self).to { resolver async throws in
                    await bothEntered.arrive()
                    _ = try await resolver.get(AsyncRepository.self)
                    return AsyncDatabase(id: 0)
                }.in(.singleton)
                binder.bind(AsyncRepository.self).to { resolver async throws in
                    await bothEntered.arrive()
                    return AsyncRepository(database: try await resolver.get(AsyncDatabase.self))
                }.in(.singleton)
            }
        )
        let codes = await withTaskGroup(of: ProvisionError.Code?.self) { group in
            group.addTask {
                do throws(ProvisionError) {
                    _ = try await injector.get(AsyncDatabase.self)
                    return nil
                } catch {
                    return error.code
                }
            }
            group.addTask {
                do throws(ProvisionError) {
                    _ = try await injector.get(AsyncRepository.self)
                    return nil
                } catch {
                    return error.code
                }
            }
            var codes: [ProvisionError.Code?] = []
            for await code in group { codes.append(code) }
            return codes
        }
        // One task finds the cycle of waits; the other gets that failure through the gate it waited on.
        #expect(codes == [.cycle, .cycle])
    }
}

extension ProvisionError {
    /// Matches any `requiresAsync` error in `#expect(throws:)`.
    static let requiresAsyncError = ProvisionError.requiresAsync(BindingKey(Void.self), dependency: nil, path: [])
}

@Suite("Async factories: observation")
struct AsyncObservationTests {
    @Test("an observer sees async builds like synchronous ones: built, failed, once per singleton")
    func observerSeesAsyncBuilds() async throws {
        let observer = RecordingObserver()
        let runs = Counter()
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(AsyncDatabase.self).to { _ async throws in
                        if runs.increment() == 1 { throw ExpectedFailure(id: 9) }
                        return AsyncDatabase(id: 1)
                    }.in(.singleton)
                    binder.bind(AsyncRepository.self).to(AsyncRepository.init(database:))
                }
            ],
            configuration: Injector.Configuration(observer: observer)
        )
        await #expect(throws: ProvisionError.self) { try await injector.get(AsyncRepository.self) }
        _ = try await injector.get(AsyncRepository.self)
        _ = try await injector.get(AsyncRepository.self)
        // The failure is reported where it happened and by the binding it failed, as for synchronous
        // builds; the singleton is then built once and served from its cell.
        #expect(
            observer.lines() == [
                "failed AsyncDatabase", "failed AsyncRepository",
                "built AsyncDatabase", "built AsyncRepository", "built AsyncRepository",
            ]
        )
    }
}

@Suite("Async factories: waiting for another task's build")
struct AsyncWaitTimeoutTests {
    @Test(
        "a task waiting longer than singletonWaitTimeout for another task's build gets timedOut; the build still completes"
    )
    func asyncWaiterTimesOut() async throws {
        let building = AsyncLatch()
        let release = AsyncLatch()
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(AsyncDatabase.self).to { _ async in
                        building.open()
                        await release.wait()
                        return AsyncDatabase(id: 5)
                    }.in(.singleton)
                }
            ],
            configuration: Injector.Configuration(singletonWaitTimeout: .milliseconds(50))
        )
        let builder = Task { try await injector.get(AsyncDatabase.self) }
        await building.wait()
        // The builder holds the gate until released: this request waits, then gives up.
        let error = await #expect(throws: ProvisionError.self) { try await injector.get(AsyncDatabase.self) }
        #expect(error?.code == .timedOut)
        #expect(error?.key == BindingKey(AsyncDatabase.self))
        release.open()
        #expect(try await builder.value.id == 5)
        #expect(try await injector.get(AsyncDatabase.self).id == 5)
    }
}
