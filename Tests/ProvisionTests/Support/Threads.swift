import Dispatch
import Foundation
import Synchronization

/// Runs `body(index)` on `count` new threads (real threads, not a pool capped at the core count) and
/// waits for all of them, failing instead of hanging when they don't finish within `timeout` seconds.
///
/// - Returns: `true` when every thread finished in time.
func runThreads(_ count: Int, timeout: Double = 120, _ body: @escaping @Sendable (Int) -> Void) -> Bool {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            body(index)
            group.leave()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    return group.wait(timeout: .now() + timeout) == .success
}

/// Waits until `condition` holds, yielding the processor between checks; gives up after `timeout`
/// seconds. For waiting on a state another thread reaches (not for passing time).
func waitUntil(timeout: Double = 30, _ condition: () -> Bool) -> Bool {
    let deadline = DispatchTime.now() + timeout
    while !condition() {
        if DispatchTime.now() > deadline { return false }
        sched_yield()
    }
    return true
}

/// Runs `body` on a thread of its own and suspends until it returns: for a test whose body blocks for a
/// long time (barriers, semaphores, joining threads), so that it doesn't hold one of the few threads of
/// Swift's cooperative pool that every other test running in parallel needs.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            do {
                continuation.resume(returning: try body())
            } catch {
                continuation.resume(throwing: error)
            }
        }
        thread.stackSize = 1 << 21
        thread.start()
    }
}

/// A flag that one thread raises and others read: what was written before `raise()` is visible to a
/// reader that finds it raised.
final class Flag: Sendable {
    private let raised = Atomic(false)

    func raise() {
        raised.store(true, ordering: .releasing)
    }

    var isRaised: Bool {
        raised.load(ordering: .acquiring)
    }
}
