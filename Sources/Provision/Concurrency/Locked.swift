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
/// The state and the mutex are one allocation (a `ManagedBuffer` whose header is the state and whose
/// one element is the mutex): a lock made per scope or per request costs one `malloc`, not two.
///
/// The lock is not recursive. `body` must not call back into anything that takes the same lock.
///
/// Every other module of this package (the integrations, the examples, the stress tool, the tests) uses
/// it too, for the same reasons (`Scripts/test.sh` refuses a `Mutex`): it has `package` access, visible to
/// this package's modules only, not public API.
package struct Locked<State> {
    private let storage: LockedStorage<State>

    /// Creates the lock around `state`.
    ///
    /// `state` is an autoclosure evaluated in place, into the lock's storage: a state passed by value
    /// would be copied in and the original destroyed (about 500 instructions for a scope's state, whose
    /// tables are retained and released once each).
    package init(_ state: @autoclosure () -> State) {
        storage = LockedStorage.make(state)
    }

    /// Runs `body` with the lock held and exclusive access to the state.
    package func withLock<R, E: Error>(_ body: (inout State) throws(E) -> R) throws(E) -> R {
        try storage.withLock(body)
    }
}

/// The allocation behind a ``Locked``: the state as the buffer's header, the mutex as its one element,
/// at an address that never changes (a mutex must not move once initialized).
final class LockedStorage<State>: ManagedBuffer<State, pthread_mutex_t> {
    /// A storage holding `state`, its mutex initialized.
    static func make(_ state: () -> State) -> LockedStorage {
        let buffer = create(minimumCapacity: 1) { _ in state() }
        // `create` called on this class makes an instance of this class.
        let storage = unsafeDowncast(buffer, to: LockedStorage.self)
        let result = storage.withUnsafeMutablePointerToElements { pthread_mutex_init($0, nil) }
        precondition(result == 0, "pthread_mutex_init failed with \(result)")
        return storage
    }

    deinit {
        // The header (the state) is destroyed by ManagedBuffer; the mutex is a plain C value.
        _ = withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
    }

    /// Runs `body` with the mutex held. The state is reached through the header's pointer, only here:
    /// the mutex makes every access exclusive, and a pointer access has no run-time exclusivity check.
    /// A body that called `withLock` on the same lock again would deadlock on the mutex before it could
    /// overlap an access.
    func withLock<R, E: Error>(_ body: (inout State) throws(E) -> R) throws(E) -> R {
        try withUnsafeMutablePointers { state, mutex throws(E) -> R in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&state.pointee)
        }
    }
}

// The state is only reached through `withLock`, which holds the mutex for the whole access; the
// storage reference itself is immutable. State values cross threads, so they must be Sendable.
extension Locked: @unchecked Sendable where State: Sendable {}
