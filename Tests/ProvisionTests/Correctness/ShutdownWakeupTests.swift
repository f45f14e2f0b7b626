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

    @Test("shutdownLostWakeup: 100,000 shutdowns raced by child injectors' requests never wait out the timeout")
    func shutdownLostWakeup() async throws {
        let rounds = stressRounds(100_000)
        // Two threads live across rounds; each round they request the parent's singleton through child
        // injectors until they see `shutDown`. The singleton's factory fails, so every request counts a
        // build in the parent: the requests keep arriving at the parent's gate while it shuts down.
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
                    while true {
                        do {
                            _ = try child.get(Flaky.self)
                        } catch let error as ProvisionError where error.code == .shutDown {
                            refusedAfterClose.add(1, ordering: .relaxed)
                            break
                        } catch {
                            // The factory's own failure: ask again.
                        }
                    }
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
                    TestModule { binder in
                        binder.bind(Flaky.self).to { _ -> Flaky in throw ExpectedFailure(id: 1) }.in(.singleton)
                    }
                ],
                configuration: Injector.Configuration(lifecycleHookTimeout: .seconds(2))
            )
            let children = [try parent.makeChild(), try parent.makeChild()]
            current.withLock { $0 = (parent, children) }
            start.arriveAndWait()
            try await parent.shutdown()
            timeouts += parent.lifecycle.drainTimeouts.load(ordering: .relaxed)
            done.arriveAndWait()
        }
        stop.store(true, ordering: .relaxed)
        start.arriveAndWait()
        threads.wait()
        #expect(timeouts == 0, "shutdown waited out its timeout \(timeouts) times with no build in flight")
        #expect(refusedAfterClose.load(ordering: .relaxed) == 2 * rounds)
    }
}
