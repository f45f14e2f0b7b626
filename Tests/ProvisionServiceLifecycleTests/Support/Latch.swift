@testable import Provision

/// A one-shot signal between tasks: `wait()` returns once `open()` has been called, at once if it has.
final class Latch: Sendable {
    private enum State {
        case closed([CheckedContinuation<Void, Never>])
        case open
    }

    private let state = Locked(State.closed([]))

    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard case .closed(let waiters) = state else { return [] }
            state = .open
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = state.withLock { state -> Bool in
                guard case .closed(var waiters) = state else { return true }
                waiters.append(continuation)
                state = .closed(waiters)
                return false
            }
            if isOpen { continuation.resume() }
        }
    }
}
