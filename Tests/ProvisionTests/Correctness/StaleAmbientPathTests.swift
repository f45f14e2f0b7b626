import Testing

@testable import Provision

/// An unstructured task started inside an async factory inherits the factory's task-locals, among them
/// the ambient path of the build (`ResolutionContext.ambientFrame`). Once the factory has returned,
/// that path is over: a request the task makes later is a new one, not a re-entry into the build.
@Suite("Stale ambient path")
struct StaleAmbientPathTests {
    /// A scoped service whose async factory starts a background task.
    private final class Session: Sendable {}
    /// A singleton whose async factory starts a background task and may fail.
    private final class Flaky: Sendable {}

    @Test(
        "a task started by a scoped factory resolves the binding in another scope after the factory returned: an instance, not a cycle",
        .timeLimit(.minutes(1))
    )
    func scopedBindingInAnotherScope() async throws {
        let slot = Locked<Injector?>(nil)
        let factoryReturned = AsyncLatch()
        let background = Locked<Task<Result<Session, ProvisionError>, Never>?>(nil)
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Session.self).to { _ async throws -> Session in
                    // Only the first build starts the background task.
                    if builds.increment() == 1 {
                        let task = Task { () async -> Result<Session, ProvisionError> in
                            await factoryReturned.wait()
                            guard let injector = slot.withLock({ $0 }) else {
                                return .failure(.shutDown(BindingKey(Session.self)))
                            }
                            let scope = injector.makeScope()
                            do throws(ProvisionError) {
                                return .success(try await scope.get(Session.self))
                            } catch {
                                return .failure(error)
                            }
                        }
                        background.withLock { $0 = task }
                    }
                    return Session()
                }.in(.scoped)
            })
        slot.withLock { $0 = injector }
        let first = try await injector.makeScope().get(Session.self)
        factoryReturned.open()
        let task = try #require(background.withLock { $0 })
        let result = await task.value
        switch result {
        case .success(let later):
            #expect(later !== first, "another scope's instance")
        case .failure(let error):
            Issue.record("the background task's request failed: \(error)")
        }
        #expect(builds.value == 2)
    }

    @Test(
        "a task started by a singleton's factory that then failed builds the singleton again later: no cycle",
        .timeLimit(.minutes(1))
    )
    func failedSingletonBuiltAgain() async throws {
        let slot = Locked<Injector?>(nil)
        let factoryReturned = AsyncLatch()
        let background = Locked<Task<Result<Flaky, ProvisionError>, Never>?>(nil)
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Flaky.self).to { _ async throws -> Flaky in
                    guard builds.increment() == 1 else { return Flaky() }
                    let task = Task { () async -> Result<Flaky, ProvisionError> in
                        await factoryReturned.wait()
                        guard let injector = slot.withLock({ $0 }) else {
                            return .failure(.shutDown(BindingKey(Flaky.self)))
                        }
                        do throws(ProvisionError) {
                            return .success(try await injector.get(Flaky.self))
                        } catch {
                            return .failure(error)
                        }
                    }
                    background.withLock { $0 = task }
                    throw ExpectedFailure()
                }.in(.singleton)
            })
        slot.withLock { $0 = injector }
        await #expect(throws: ProvisionError.self) { _ = try await injector.get(Flaky.self) }
        factoryReturned.open()
        let task = try #require(background.withLock { $0 })
        if case .failure(let error) = await task.value {
            Issue.record("the background task's request failed: \(error)")
        }
        #expect(builds.value == 2)
    }
}
