import Dispatch
import Synchronization

@testable import Provision

/// A reusable barrier: `arriveAndWait()` returns once `count` threads have arrived, then resets.
///
/// Each generation has its own semaphore, so a fast thread that reaches the next generation's barrier
/// can't take a wake-up meant for a thread still leaving the previous one.
final class Barrier: Sendable {
    private struct State {
        var arrived = 0
        var semaphore = DispatchSemaphore(value: 0)
    }

    let count: Int
    private let state = Locked(State())

    init(count: Int) {
        precondition(count > 0, "a barrier needs at least one thread")
        self.count = count
    }

    func arriveAndWait() {
        let (semaphore, isLast) = state.withLock { state in
            state.arrived += 1
            let semaphore = state.semaphore
            guard state.arrived == count else { return (semaphore, false) }
            state.arrived = 0
            state.semaphore = DispatchSemaphore(value: 0)
            return (semaphore, true)
        }
        if isLast {
            for _ in 1..<count { semaphore.signal() }
        } else {
            semaphore.wait()
        }
    }
}
