@testable import Provision

/// A one-shot barrier for tasks: `arriveAndWait()` suspends (never blocks a thread) until `count`
/// tasks have arrived.
final class AsyncCountdown: Sendable {
    private struct State {
        var remaining: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Locked<State>

    init(_ count: Int) {
        state = Locked(State(remaining: count))
    }

    func arriveAndWait() async {
        await withCheckedContinuation { continuation in
            let released = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.remaining -= 1
                state.waiters.append(continuation)
                guard state.remaining <= 0 else { return [] }
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in released { waiter.resume() }
        }
    }
}
