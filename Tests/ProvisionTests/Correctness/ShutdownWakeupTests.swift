import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Provision

/// Defect 2 of the correctness issue: a build refused because the injector was closing decremented the
/// in-flight count without the "last one out wakes shutdown" step, so shutdown could wait out its whole
/// timeout with no build in flight.
@Suite("Correctness: shutdown is never left waiting")
struct ShutdownWakeupTests {
    final class Flaky: Sendable {}
    /// Bound in the child injectors: its plan calls the parent's singleton plan directly, so a request
    /// for it reaches the parent's gate (and its in-flight count) even after the parent closed.
    final class Job: Sendable {
        init(flaky: Flaky) {}
    }

    @Test(
        "shutdownLostWakeup: a build refused after shutdown looked at the count wakes shutdown",
        .timeLimit(.minutes(1))
    )
    func refusedBuildWakesShutdown() async throws {
        let lifecycle = InjectorLifecycle()
        // A request counts its build (the first half of beginBuild)...
        lifecycle.countBuild()
        // ...shutdown closes, sees one build in flight and waits for it...
        lifecycle.close()
        let drained = Task { await lifecycle.waitForBuildsToDrain() }
        while lifecycle.drainWaiterCount == 0 { await Task.yield() }
        #expect(lifecycle.hasBuildsInFlight)
        // ...and the request, finding the injector closed, is refused: that uncounts it, and wakes shutdown
        // (before the fix it only decremented, and shutdown slept until its timeout).
        #expect(!lifecycle.admitCountedBuild())
        await drained.value
        #expect(!lifecycle.hasBuildsInFlight)
        #expect(lifecycle.drainWaiterCount == 0)
    }

    @Test("shutdownLostWakeup: 10,000 shutdowns raced by child injectors' requests never wait out the timeout")
    func shutdownLostWakeup() async throws {
        // The rounds block on barriers: they run off Swift's cooperative pool.
        try await offPool { try self.shutdownLostWakeupRounds() }
    }

    private func shutdownLostWakeupRounds() throws {
        // 100,000 with PROVISION_STRESS_SCALE=10.
        let rounds = stressRounds(10_000)
        // Two threads live across rounds; each round they request a `Job` from their child injector until
        // they have seen `shutDown` 20 times. The parent singleton's factory fails, so every request
        // counts a build in the parent, and keeps doing so after the parent closed: the requests keep
        // arriving at the parent's gate while it shuts down.
        let start = Barrier(count: 3)
        let done = Barrier(count: 3)
        let current = Locked<(parent: Injector, children: [Injector])?>(nil)
        let stop = Atomic<Bool>(false)
        let refusedAfterClose = Atomic<Int>(0)
        let threads = DispatchGroup()
        for index in 0..<2 {
            threads.enter()
            let thread = Thread {
                while true {
                    start.arriveAndWait()
                    if stop.load(ordering: .relaxed) { break }
                    guard let injectors = current.withLock({ $0 }) else { break }
                    let child = injectors.children[index]
                    var refusals = 0
                    while refusals < 20 {
                        do {
                            _ = try child.get(Job.self)
                        } catch let error as ProvisionError where error.code == .shutDown {
                            refusals += 1
                        } catch let error as ProvisionError where error.code == .factoryFailed {
                            // The factory's own failure: ask again.
                        } catch {
                            // Anything else ends the round for this thread (and fails the count below).
                            break
                        }
                    }
                    refusedAfterClose.add(refusals, ordering: .relaxed)
                    done.arriveAndWait()
                }
                threads.leave()
            }
            thread.start()
        }
        var timeouts = 0
        for _ in 0..<rounds {
            let parent = try Injector(
                modules: [
                    ClosureModule { binder in
                        binder.bind(Flaky.self).to { _ -> Flaky in throw ExpectedFailure(id: 1) }.in(.singleton)
                    }
                ],
                configuration: Injector.Configuration(lifecycleHookTimeout: .seconds(1))
            )
            let jobs = ClosureModule { binder in binder.bind(Job.self).to(Job.init(flaky:)) }
            let children = [try parent.makeChild(jobs), try parent.makeChild(jobs)]
            // Linked before the race: a request that links `Job` after the parent closed is refused at
            // link time, without reaching the gate.
            for child in children { _ = try? child.syncGet(Job.self) }
            current.withLock { $0 = (parent, children) }
            start.arriveAndWait()
            let shutDown = DispatchSemaphore(value: 0)
            Task {
                try? await parent.shutdown()
                shutDown.signal()
            }
            shutDown.wait()
            timeouts += parent.lifecycle.drainTimeouts.load(ordering: .relaxed)
            done.arriveAndWait()
            // One lost wake-up is a failure: no need to wait out more timeouts.
            if timeouts > 0 { break }
        }
        stop.store(true, ordering: .relaxed)
        start.arriveAndWait()
        threads.wait()
        #expect(timeouts == 0, "shutdown waited out its timeout \(timeouts) times with no build in flight")
        if timeouts == 0 { #expect(refusedAfterClose.load(ordering: .relaxed) == 2 * 20 * rounds) }
    }
}
