import Dispatch
import Foundation
import Testing

@testable import Provision

/// Found by the random-graph stress run (`Scripts/stress.sh --perturb`): a request that waited for
/// another request's build of a singleton got that request's own failure. A task cancelled while its
/// build waited for a dependency failed with `cancelled`, and every task waiting for that build got
/// `cancelled` too, though nobody had cancelled them; a synchronous request that could not build an async
/// dependency failed with `requiresAsync`, and the async requests waiting for it got `requiresAsync`,
/// which an async request never gets for a graph without synchronous closures. The waiter now decides
/// again, and builds the instance itself.
@Suite("Correctness: a waiter doesn't inherit its builder's own failure", .timeLimit(.minutes(1)))
struct InheritedFailureTests {
    final class Slow: Sendable {}
    final class Pause: Sendable {}
    final class Remote: Sendable {
        init(slow: Slow) {}
    }
    final class Service: Sendable {
        init(slow: Slow) {}
    }
    final class Client: Sendable {
        init(pause: Pause, remote: Remote) {}
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

    @Test("synchronousBuilder: an async waiter doesn't inherit requiresAsync from a synchronous builder")
    func synchronousBuilder() async throws {
        let slowEntered = DispatchSemaphore(value: 0)
        let releaseSlow = DispatchSemaphore(value: 0)
        let pauseEntered = DispatchSemaphore(value: 0)
        let releasePause = DispatchSemaphore(value: 0)
        let pauses = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Slow.self).to { _ -> Slow in
                    slowEntered.signal()
                    _ = releaseSlow.wait(timeout: .now() + 30)
                    return Slow()
                }.in(.singleton)
                binder.bind(Remote.self).to(Remote.init(slow:)).in(.singleton)
                // Only the first one (the synchronous builder's) holds until released.
                binder.bind(Pause.self).to { _ -> Pause in
                    if pauses.increment() == 1 {
                        pauseEntered.signal()
                        _ = releasePause.wait(timeout: .now() + 30)
                    }
                    return Pause()
                }
                binder.bind(Client.self).to(Client.init(pause:remote:)).in(.singleton)
            }
        )
        // An async request builds Remote, and waits in it for Slow, which a thread builds.
        Thread { _ = try? injector.syncGet(Slow.self) }.start()
        await wait(for: slowEntered)
        let remote = request(injector, Remote.self)
        await until { injector.gateWaiters(of: Slow.self)?.tasks == 1 }
        // A thread builds Client; it holds Client's gate in Pause while an async request waits for it.
        let synchronous = Locked<ProvisionError.Code?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            do throws(ProvisionError) {
                _ = try injector.syncGet(Client.self)
            } catch {
                synchronous.withLock { $0 = error.code }
            }
            done.signal()
        }.start()
        await wait(for: pauseEntered)
        let waiter = request(injector, Client.self)
        await until { injector.gateWaiters(of: Client.self)?.tasks == 1 }
        // The thread meets Remote's async build and fails; then Slow, Remote and Client are built.
        releasePause.signal()
        await wait(for: done)
        releaseSlow.signal()

        #expect(synchronous.withLock { $0 } == .requiresAsync, "a thread doesn't wait for an async build")
        #expect(await remote.value == nil)
        #expect(await waiter.value == nil, "the async waiter builds Client itself")
        #expect(pauses.value == 2)
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
