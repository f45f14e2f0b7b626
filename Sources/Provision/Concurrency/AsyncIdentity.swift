import Synchronization

/// Identities of async resolutions, for the waits-for graph of singleton gates.
///
/// A task may run on a different thread after each suspension, so an async resolution can't be
/// identified by its thread. Each async request that needs to build or wait for an instance gets a
/// number instead, with the top bit set so that it never equals a thread's identity (a `pthread_t`,
/// which is an address in the lower half of the address space).
enum AsyncIdentity {
    private static let counter = Atomic<UInt>(0)

    static func next() -> UInt {
        counter.add(1, ordering: .relaxed).newValue | (1 << 63)
    }
}
