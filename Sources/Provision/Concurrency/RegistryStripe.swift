import Synchronization

/// One stripe of the registry: the bindings whose keys hash to it, and the gates of its singletons
/// under construction.
///
/// Reads take no lock: the stripe's bindings are published as an immutable ``Snapshot`` through one
/// atomic word in the registry's ``RegistryLookup``, and a lookup is one acquiring load plus a probe of
/// the snapshot's table. Writers (installing
/// bindings, installing or removing a singleton gate) take the stripe's mutex; a binding write copies
/// the stripe's table, publishes the copy, and keeps the old snapshot alive until the stripe is freed,
/// because a reader on another thread may still be probing it.
///
/// The mutex protects the current snapshot, the retired snapshots and the gate table. It is held only
/// for table updates: never while a factory runs, never while waiting on a semaphore, and never while
/// another stripe's mutex is taken (except by `Registry.install`, which takes stripes in ascending
/// index order), so it cannot take part in a deadlock.
@usableFromInline
final class RegistryStripe: Sendable {
    struct State: Sendable {
        var current: Snapshot
        var retired: [Snapshot] = []
        /// The gates of the cells being built, by cell (a singleton's, or a scoped instance's in one
        /// scope: every scope has its own cell for a key).
        var gates: [ObjectIdentifier: GateEntry] = [:]
    }

    private let state: Locked<State>

    /// This stripe's word in the registry's ``RegistryLookup``: the current snapshot's
    /// ``Snapshot/lookupWord``, the only way readers reach it (`state.current` or `state.retired` keeps
    /// every snapshot alive for the stripe's whole life). The registry owns the memory and outlives the
    /// stripe. Unsafe only in name: the pointer never changes, and its memory is accessed through the
    /// atomic alone.
    private nonisolated(unsafe) let lookupEntry: UnsafeMutablePointer<Atomic<UInt>>

    init(lookupEntry: UnsafeMutablePointer<Atomic<UInt>>) {
        let empty = Snapshot()
        self.state = Locked(State(current: empty))
        self.lookupEntry = lookupEntry
        lookupEntry.pointee.store(empty.lookupWord, ordering: .releasing)
    }

    /// Every node in this stripe (the current snapshot's, read under the mutex).
    var nodes: [any AnyNode] {
        state.withLock { $0.current.nodes }
    }

    /// Runs `body` with the stripe's state locked. `body` must not run user code or block.
    func withState<R, E: Error>(_ body: (inout State) throws(E) -> R) throws(E) -> R {
        try state.withLock(body)
    }

    /// Publishes a new table for this stripe. Call with the state locked (from `withState`).
    func publish(_ snapshot: Snapshot, in state: inout State) {
        state.retired.append(state.current)
        state.current = snapshot
        lookupEntry.pointee.store(snapshot.lookupWord, ordering: .releasing)
    }
}
