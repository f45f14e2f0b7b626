import Testing

@testable import Provision

/// An unstructured task started inside an async factory inherits the factory's task-locals, among them
/// the ambient path of the build (`ResolutionContext.ambientFrame`). Once the factory has returned,
/// that path is over: a request the task makes later is a new one, not a re-entry into the build.
@Suite("Stale ambient path")
struct StaleAmbientPathTests {
    /// A scoped service whose async factory starts a background task.
    private final class Session: Sendable {}
    /// A singleton whose async factory starts a background task, then fails.
    private final class Flaky: Sendable {}

    /// A request that an unstructured task, started inside a factory, makes once the test lets it: after
    /// the factory returned.
    private final class LaterRequest<Value: Sendable>: Sendable {
        /// The injector the request goes to, set once it exists.
        let injector = Locked<Injector?>(nil)
        private let factoryReturned = AsyncLatch()
        private let task = Locked<Task<Result<Value, ProvisionError>, Never>?>(nil)

        /// Starts the task (inside a factory): it waits for ``run()``, then makes `request`.
        func start(_ request: @escaping @Sendable (Injector) async throws(ProvisionError) -> Value) {
            let started = Task { [injector, factoryReturned] () async -> Result<Value, ProvisionError> in
                await factoryReturned.wait()
                guard let injector = injector.withLock({ $0 }) else { return .failure(.shutDown(nil)) }
                do throws(ProvisionError) {
                    return .success(try await request(injector))
                } catch {
                    return .failure(error)
                }
            }
            task.withLock { $0 = started }
        }

        /// Lets the task make its request and returns what it got; `nil` when no task was started.
        func run() async -> Result<Value, ProvisionError>? {
            factoryReturned.open()
            guard let started = task.withLock({ $0 }) else { return nil }
            return await started.value
        }
    }

    @Test(
        "a task started by a scoped factory resolves the binding in another scope after the factory returned: an instance, not a cycle",
        .timeLimit(.minutes(1))
    )
    func scopedBindingInAnotherScope() async throws {
        let later = LaterRequest<Session>()
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Session.self).to { _ async throws -> Session in
                    // Only the first build starts the background task.
                    if builds.increment() == 1 {
                        later.start { injector async throws(ProvisionError) in
                            try await injector.makeScope().get(Session.self)
                        }
                    }
                    return Session()
                }.in(.scoped)
            })
        later.injector.withLock { $0 = injector }
        let first = try await injector.makeScope().get(Session.self)
        switch await later.run() {
        case .success(let other):
            #expect(other !== first, "another scope's instance")
        case .failure(let error):
            Issue.record("the background task's request failed: \(error)")
        case nil:
            Issue.record("no background task was started")
        }
        #expect(builds.value == 2)
    }

    @Test(
        "a task started by a singleton's factory that then failed builds the singleton again later: no cycle",
        .timeLimit(.minutes(1))
    )
    func failedSingletonBuiltAgain() async throws {
        let later = LaterRequest<Flaky>()
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Flaky.self).to { _ async throws -> Flaky in
                    guard builds.increment() == 1 else { return Flaky() }
                    later.start { injector async throws(ProvisionError) in try await injector.get(Flaky.self) }
                    throw ExpectedFailure()
                }.in(.singleton)
            })
        later.injector.withLock { $0 = injector }
        await #expect(throws: ProvisionError.self) { _ = try await injector.get(Flaky.self) }
        switch await later.run() {
        case .success: break
        case .failure(let error): Issue.record("the background task's request failed: \(error)")
        case nil: Issue.record("no background task was started")
        }
        #expect(builds.value == 2)
    }
}
