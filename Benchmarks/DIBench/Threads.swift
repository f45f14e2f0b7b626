import Dispatch
import Foundation
import Synchronization

/// Starts `count` real threads, releases them together, and waits until all have finished.
/// `body(index)` runs on each; the threads get an 8 MiB stack for the deep graphs. Each thread releases the
/// object it kept last (see ``fold(_:into:)``) before it ends.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    let start = DispatchSemaphore(value: 0)
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            start.wait()
            body(index)
            releaseKeptResult()
            group.leave()
        }
        thread.stackSize = 8 << 20
        thread.start()
    }
    for _ in 0..<count { start.signal() }
    group.wait()
}

/// A one-shot barrier: `arriveAndWait()` returns once `count` threads have arrived.
final class StartLine: Sendable {
    private let remaining: Atomic<Int>
    private let gate = DispatchSemaphore(value: 0)
    private let count: Int

    init(count: Int) {
        self.count = count
        remaining = Atomic(count)
    }

    func arriveAndWait() {
        if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
            for _ in 1..<count { gate.signal() }
        } else {
            gate.wait()
        }
    }
}
