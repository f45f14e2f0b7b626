/// An async caller suspended on a singleton gate: resumed exactly once, by whichever comes first of the
/// builder (the build ended), its timer (``Injector/Configuration/singletonWaitTimeout`` passed), or the
/// cancellation of its task.
final class SuspendedWaiter: Sendable {
    /// Why the wait ended.
    enum Outcome: Sendable {
        /// The build ended: read its outcome from the gate.
        case woken
        case timedOut
        case cancelled
    }

    private struct State: Sendable {
        var continuation: CheckedContinuation<Void, Never>?
        var timer: Task<Void, Never>?
        /// Set by the first resume; later resumes do nothing.
        var outcome: Outcome?
    }

    /// Protects the continuation and the outcome; held for bookkeeping only (the continuation is
    /// resumed and the timer cancelled after it is released).
    private let state = Locked(State())

    /// Why the wait ended; `.woken` before it ended.
    var outcome: Outcome {
        state.withLock { $0.outcome ?? .woken }
    }

    /// Suspends until ``resume(_:)``, which may already have been called (by the builder, or by a
    /// cancellation that came before the continuation existed).
    ///
    /// `register` adds the waiter to the gate, under the gate's stripe lock, and returns `false` when the
    /// gate has ended already (the waiter then resumes at once).
    func wait(timeout: Duration?, register: (SuspendedWaiter) -> Bool) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let alreadyResumed = state.withLock { state -> Bool in
                    guard state.outcome == nil else { return true }
                    state.continuation = continuation
                    return false
                }
                if alreadyResumed {
                    // Cancelled before the continuation existed: never registered, nothing to undo.
                    continuation.resume()
                    return
                }
                guard register(self) else {
                    resume(.woken)
                    return
                }
                guard let timeout else { return }
                let timer = Task { [self] in
                    do {
                        try await Task.sleep(for: timeout)
                        resume(.timedOut)
                    } catch {
                        // Cancelled: the wait ended first.
                    }
                }
                let ended = state.withLock { state in
                    state.timer = timer
                    return state.outcome != nil
                }
                if ended { timer.cancel() }
            }
        } onCancel: {
            resume(.cancelled)
        }
    }

    /// Ends the wait with `outcome`, once; later calls do nothing. Before the continuation exists, the
    /// outcome is kept and the wait ends as soon as it starts.
    func resume(_ outcome: Outcome) {
        let (continuation, timer) = state.withLock { state -> (CheckedContinuation<Void, Never>?, Task<Void, Never>?) in
            guard state.outcome == nil else { return (nil, nil) }
            state.outcome = outcome
            defer {
                state.continuation = nil
                state.timer = nil
            }
            return (state.continuation, state.timer)
        }
        continuation?.resume()
        if outcome != .timedOut { timer?.cancel() }
    }
}
