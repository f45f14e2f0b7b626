import Dispatch
import Foundation
import Testing

@testable import Provision

/// A synchronous singleton whose factory honours its task's cancellation (`Task.checkCancellation()`
/// works in synchronous code run by a task).
private final class Hunt8Polite: Sendable {
    let attempt: Int
    init(attempt: Int) { self.attempt = attempt }
}

@Suite("Hunt8: waiters of a build whose factory threw CancellationError", .timeLimit(.minutes(1)))
struct Hunt8CancelledFactoryTests {
    /// Found by the eighth hunt, fixed (`InstanceCell.builderOutcome`, for synchronous builds too). CHANGELOG.md (Unreleased): "A task waiting for a singleton whose builder's factory threw
    /// `CancellationError` because the builder's task was cancelled no longer inherits that failure: it
    /// builds the singleton itself". ThreadSafety.md: "A waiter gets the builder's outcome, except for
    /// two failures that are the builder's own: its task was cancelled". A *synchronous* factory run by an
    /// async request (the async request builds a synchronous binding with its synchronous plan) can honour
    /// cancellation too; its waiters, a task and a thread, were not cancelled.
    @Test("a synchronous factory that threw CancellationError in a cancelled task: the waiters build it")
    func synchronousFactoryCancelled() async throws {
        let hold = Hunt5.Hold()
        let attempts = Counter()
        let observer = RecordingObserver()
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt8Polite.self).to { () throws -> Hunt8Polite in
                        let attempt = attempts.increment()
                        if attempt == 1 {
                            hold.run()
                            try Task.checkCancellation()
                        }
                        return Hunt8Polite(attempt: attempt)
                    }.in(.singleton)
                }
            ],
            configuration: Injector.Configuration(observer: observer)
        )
        let builder = Task { () async -> ProvisionError? in
            await Hunt5.error { () async throws(ProvisionError) in try await injector.get(Hunt8Polite.self) }
        }
        #expect(await Hunt5.wait(for: hold.entered))
        let waiter = Task { () async -> Result<Hunt8Polite, ProvisionError> in
            do throws(ProvisionError) { return .success(try await injector.get(Hunt8Polite.self)) } catch {
                return .failure(error)
            }
        }
        #expect(await Hunt5.until { injector.gateWaiters(of: Hunt8Polite.self)?.tasks == 1 })
        let thread = Hunt5.Request { () throws(ProvisionError) in try injector.get(Hunt8Polite.self) }
        #expect(await Hunt5.until { injector.gateWaiters(of: Hunt8Polite.self)?.threads == 1 })
        builder.cancel()
        hold.release.signal()
        let builderError = await builder.value
        #expect(builderError?.cause is CancellationError)
        let waited = await waiter.value
        #expect(waited.hunt5Error == nil, "\(String(describing: waited.hunt5Error))")
        let threaded = await thread.result()
        #expect(threaded?.hunt5Error == nil, "\(String(describing: threaded?.hunt5Error))")
        #expect(attempts.value == 2)
        // Each waiter's wait for the cancelled build, and, when the other one rebuilds first, one more
        // wait for that rebuild: none makes a request fail.
        let waits = observer.recorded.filter { $0.kind == .waitedForSingleton }
        #expect((2...3).contains(waits.count), "\(waits.count) waits")
        #expect(waits.allSatisfy { $0.error == nil }, "\(waits.map { String(describing: $0.error?.code) })")
    }

    /// Control: an async factory that throws `CancellationError` although its task was not cancelled
    /// fails for the binding's own reason: the waiter inherits it (one attempt), and its
    /// `waitedForSingleton` event carries that failure.
    @Test("an async factory's CancellationError in a task that was not cancelled: the waiter inherits it")
    func notCancelledTask() async throws {
        let hold = Hunt5.Hold()
        let attempts = Counter()
        let observer = RecordingObserver()
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt8Polite.self).to { (_: Resolver) async throws -> Hunt8Polite in
                        let attempt = attempts.increment()
                        if attempt == 1 {
                            await hold.runAsync()
                            throw CancellationError()
                        }
                        return Hunt8Polite(attempt: attempt)
                    }.in(.singleton)
                }
            ],
            configuration: Injector.Configuration(observer: observer)
        )
        let builder = Task { () async -> ProvisionError? in
            await Hunt5.error { () async throws(ProvisionError) in try await injector.get(Hunt8Polite.self) }
        }
        #expect(await Hunt5.wait(for: hold.entered))
        let waiter = Task { () async -> ProvisionError? in
            await Hunt5.error { () async throws(ProvisionError) in try await injector.get(Hunt8Polite.self) }
        }
        #expect(await Hunt5.until { injector.gateWaiters(of: Hunt8Polite.self)?.tasks == 1 })
        hold.release.signal()
        #expect(await builder.value?.cause is CancellationError)
        let inherited = await waiter.value
        #expect(inherited?.code == .factoryFailed)
        #expect(inherited?.cause is CancellationError)
        #expect(attempts.value == 1)
        let waits = observer.recorded.filter { $0.kind == .waitedForSingleton }
        #expect(waits.map { $0.error?.code } == [.factoryFailed])
    }
}
