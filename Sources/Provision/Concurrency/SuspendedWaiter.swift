/// An async caller suspended on a singleton gate: resumed once, either by the builder when the build
/// ends or by its timer when ``Injector/Configuration/singletonWaitTimeout`` passes first.
final class SuspendedWaiter: Sendable {
    private struct State: Sendable {
        var continuation: CheckedContinuation<Void, Never>?
        var timer: Task<Void, Never>?
        var isResumed = false
        var timedOut = false
    }

    /// Protects the continuation and the outcome; held for bookkeeping only (the continuation is
    /// resumed and the timer cancelled after it is released).
    private let state = Locked(State())

    /// Whether the timer resumed the waiter before the build ended.
    var timedOut: Bool {
        state.withLock { $0.timedOut }
    }

    /// Suspends until ``resume(timedOut:)``, which may already have been called.
    func wait(timeout: Duration?, register: (SuspendedWaiter) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            state.withLock { $0.continuation = continuation }
            guard register(self) else {
                resume(timedOut: false)
                return
            }
            guard let timeout else { return }
            let timer = Task { [self] in
                do {
                    try await Task.sleep(for: timeout)
                    resume(timedOut: true)
                } catch {
                    // Cancelled: the build ended first.
                }
            }
            let alreadyResumed = state.withLock { state in
                state.timer = timer
                return state.isResumed
            }
            if alreadyResumed { timer.cancel() }
        }
    }

    /// Resumes the waiter, once; later calls do nothing.
    func resume(timedOut: Bool) {
        let (continuation, timer) = state.withLock { state -> (CheckedContinuation<Void, Never>?, Task<Void, Never>?) in
            guard !state.isResumed, let continuation = state.continuation else { return (nil, nil) }
            state.isResumed = true
            state.timedOut = timedOut
            state.continuation = nil
            return (continuation, state.timer)
        }
        continuation?.resume()
        if !timedOut { timer?.cancel() }
    }
}
