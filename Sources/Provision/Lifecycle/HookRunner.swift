/// Runs one lifecycle hook (a start or stop hook, an async disposal) with a time limit.
///
/// The hook runs in a task of its own, raced against a timer: whichever ends first decides the outcome,
/// and the other is cancelled. A hook that ignores cancellation keeps running on its own, but no longer
/// holds up its caller: that is what bounds a daemon's start and shutdown.
enum HookRunner {
    /// Runs `hook` for `key`; returns its failure (what it threw, or a timeout), or `nil`.
    ///
    /// - Parameter action: What the hook does, in words for errors ("starting", "stopping").
    static func run(
        _ hook: @escaping @Sendable () async throws -> Void,
        for key: BindingKey,
        _ action: String,
        timeout: Duration
    ) async -> ProvisionError? {
        await withCheckedContinuation { continuation in
            let race = Race(continuation)
            let work = Task {
                do {
                    try await hook()
                    race.finish(nil)
                } catch {
                    race.finish(ProvisionError.hookFailed(key, action, cause: error))
                }
            }
            let timer = Task {
                do {
                    try await Task.sleep(for: timeout)
                    race.finish(ProvisionError.hookTimedOut(key, action, after: timeout))
                } catch {
                    // Cancelled: the hook finished first.
                }
            }
            race.track(work: work, timer: timer)
        }
    }

    /// The continuation both tasks race to resume, and the tasks to cancel once one has.
    private final class Race: Sendable {
        private struct State: Sendable {
            var continuation: CheckedContinuation<ProvisionError?, Never>?
            var tasks: [Task<Void, Never>] = []
        }

        /// Protects the continuation and the tasks; held for bookkeeping only (resuming and cancelling
        /// happen after it is released).
        private let state: Locked<State>

        init(_ continuation: CheckedContinuation<ProvisionError?, Never>) {
            state = Locked(State(continuation: continuation))
        }

        func track(work: Task<Void, Never>, timer: Task<Void, Never>) {
            let finished = state.withLock { state in
                state.tasks = [work, timer]
                return state.continuation == nil
            }
            if finished { timer.cancel() }
        }

        func finish(_ outcome: ProvisionError?) {
            let (continuation, tasks) = state.withLock { state in
                defer { state.continuation = nil }
                return (state.continuation, state.tasks)
            }
            guard let continuation else { return }
            continuation.resume(returning: outcome)
            for task in tasks { task.cancel() }
        }
    }
}
