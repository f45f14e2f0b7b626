import Dispatch
import Foundation
import Testing

@testable import Provision

/// Found by the random-graph stress run (`Scripts/stress.sh --perturb`): a request that waited for
/// another request's build of a singleton got that request's own failure. A task cancelled while its
/// build waited for a dependency failed with `cancelled`, and every task waiting for that build got
/// `cancelled` too, though nobody had cancelled them. The waiter now decides again, and builds the
/// instance itself. (The same finding had a second case: async requests waiting for a thread that failed
/// with `requiresAsync` at an async request's build of a synchronous singleton. A thread now waits for
/// such a build: see `SyncWaitsForAsyncBuildTests`.)
@Suite("Correctness: a waiter doesn't inherit its builder's own failure", .timeLimit(.minutes(1)))
struct InheritedFailureTests {
    final class Slow: Sendable {}
    final class Service: Sendable {
        init(slow: Slow) {}
    }

    /// Suspends until `condition` holds (an observed state of the injector, not a sleep).
    private func until(_ condition: () -> Bool) async {
        while !condition() { await Task.yield() }
    }

    /// Runs a request in a task of its own; its outcome is the error's code, or `nil` for an instance.
    private func request<T>(_ injector: Injector, _ type: T.Type) -> Task<ProvisionError.Code?, Never> {
        Task.detached {
            do throws(ProvisionError) {
                _ = try await injector.get(type)
                return nil
            } catch {
                return error.code
            }
        }
    }

    @Test("cancelledBuilder: the builder's cancellation fails the builder only; its waiter builds the singleton")
    func cancelledBuilder() async throws {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let serviceRuns = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Slow.self).to { _ -> Slow in
                    entered.signal()
                    _ = release.wait(timeout: .now() + 30)
                    return Slow()
                }.in(.singleton)
                binder.bind(Service.self).to { (resolver: Resolver) async throws -> Service in
                    serviceRuns.increment()
                    return Service(slow: try await resolver.get(Slow.self))
                }.in(.singleton)
            }
        )
        // A thread builds Slow and holds its gate until released.
        Thread { _ = try? injector.syncGet(Slow.self) }.start()
        await wait(for: entered)
        // The builder of Service waits for Slow; a second request waits for Service.
        let builder = request(injector, Service.self)
        await until { injector.gateWaiters(of: Slow.self)?.tasks == 1 }
        let waiter = request(injector, Service.self)
        await until { injector.gateWaiters(of: Service.self)?.tasks == 1 }

        builder.cancel()
        #expect(await builder.value == .cancelled, "the cancelled builder stops waiting")
        release.signal()
        #expect(await waiter.value == nil, "the waiter, not cancelled, gets the instance")
        #expect(serviceRuns.value == 2, "the waiter ran the factory again after the cancelled run")
    }

    /// Suspends until `semaphore` is signalled, waiting on a thread outside Swift's cooperative pool.
    private func wait(for semaphore: DispatchSemaphore) async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                semaphore.wait()
                continuation.resume()
            }
        }
    }
}
