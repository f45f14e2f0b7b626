#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// State behind a mutex: the only lock type Provision uses.
///
/// A thin wrapper over `pthread_mutex_t` rather than `Synchronization.Mutex`, for two measured reasons:
/// on Linux, ThreadSanitizer does not see the happens-before edge of a *contended*
/// `Synchronization.Mutex` (its slow path runs in the uninstrumented runtime), so a correct program
/// produces false race reports and the TSan pass of `Scripts/test.sh` would be useless; and an
/// uncontended `pthread_mutex` lock and unlock costs about 4 ns on this hardware, against about 11 ns.
/// ThreadSanitizer intercepts the pthread calls, so every edge through this lock is seen.
///
/// The lock is not recursive. `body` must not call back into anything that takes the same lock.
///
/// Provision's integrations (`ProvisionServiceLifecycle`, `ProvisionHummingbird`) use it too, for the
/// same reasons: it has `package` access, visible to this package's modules only, not public API.
package final class Locked<State> {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Reached only inside `withLock`, with the mutex held: the mutex makes every access exclusive, so
    /// the run-time exclusivity check (a call and a thread-local lookup per access, about 100
    /// instructions) is turned off. A body that called `withLock` on the same lock again would deadlock
    /// on the mutex before it could overlap an access.
    @exclusivity(unchecked) private var state: State

    /// Creates the lock around `state`.
    package init(_ state: State) {
        self.state = state
        self.mutex = UnsafeMutablePointer.allocate(capacity: 1)
        let result = pthread_mutex_init(mutex, nil)
        precondition(result == 0, "pthread_mutex_init failed with \(result)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the lock held and exclusive access to the state.
    package func withLock<R, E: Error>(_ body: (inout State) throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }
}

// The state is only reached through `withLock`, which holds the mutex for the whole access; the
// mutex pointer itself is immutable. State values cross threads, so they must be Sendable.
extension Locked: @unchecked Sendable where State: Sendable {}
