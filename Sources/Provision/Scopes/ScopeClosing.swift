/// Which close of a ``ServiceScope`` disposes its instances, and the closes that wait for it: a close
/// that returns has seen everything the scope built disposed, also when another thread's close began
/// first and is still disposing. Kept in the scope's state, under its lock.
struct ScopeClosing: Sendable {
    /// What a call to `close()` does.
    enum Role {
        /// The first close: it waits for the builds in flight and disposes.
        case disposer
        /// The scope was closed and disposed already, or this close runs inside the disposer's own
        /// disposal (a disposal closing its own scope), which must not wait for itself.
        case done
        /// Another close is disposing: wait for it.
        case waiter
    }

    /// Who runs the first close (see ``ExecutionIdentity``); `nil` before any close.
    private var disposer: UInt?
    /// Whether the first close has disposed everything.
    private(set) var isFinished = false
    /// The closes waiting for the first one.
    private var waiters: [@Sendable () -> Void] = []

    /// The role of a close made by `caller`.
    mutating func enter(_ caller: UInt) -> Role {
        guard let disposer else {
            self.disposer = caller
            return .disposer
        }
        return isFinished || disposer == caller ? .done : .waiter
    }

    /// Registers a waiting close, unless the disposal has finished meanwhile.
    ///
    /// - Returns: Whether the close must wait to be woken.
    mutating func wait(_ wake: @escaping @Sendable () -> Void) -> Bool {
        guard !isFinished else { return false }
        waiters.append(wake)
        return true
    }

    /// Ends the first close's disposal. Returns the waiting closes to wake, with no lock held.
    mutating func finish() -> [@Sendable () -> Void] {
        isFinished = true
        defer { waiters = [] }
        return waiters
    }
}
