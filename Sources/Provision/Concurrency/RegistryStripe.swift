import Synchronization

/// One stripe of the registry: the bindings whose keys hash to it, and the gates of its singletons
/// under construction.
///
/// Reads take no lock: the stripe's table is published through one atomic word in the registry's
/// ``RegistryLookup``, and a lookup is one acquiring load of that word plus a probe of the table (see
/// ``StripeTable``). Writers (installing bindings, closing the registry, installing or removing a
/// singleton gate) take the stripe's mutex. A binding write fills slots of the current table in place,
/// or, when the table would be more than three quarters full, publishes a table of twice the size and keeps the
/// old one alive until the stripe is freed, because a reader on another thread may still be probing it.
///
/// In-place writes mean a lock-free reader can see some of a batch's new bindings in a stripe before
/// others. A miss is therefore not final: before a request reports a key as not bound or creates a
/// just-in-time binding for it, it looks again with the mutex held (``Registry/lockedNode(for:)``),
/// which waits for an install in progress on the stripe and then sees all of it.
///
/// The mutex protects the current table's writes, the retired tables, the node list, the closed flag
/// and the gate table. It is held only for table updates: never while a factory runs, never while
/// waiting on a semaphore, and never while another stripe's mutex is taken (except by
/// `Registry.install`, which takes stripes in ascending index order), so it cannot take part in a
/// deadlock.
@usableFromInline
final class RegistryStripe: Sendable {
    struct State: Sendable {
        /// The table readers probe: the one published in the stripe's lookup word.
        var table: StripeTable
        /// Tables replaced by a bigger one (or by the empty one of ``Registry/close()``): never written
        /// again, kept alive for readers still probing them. Each replacement at least doubles the
        /// capacity, so these together have fewer slots than `table`.
        var retired: [StripeTable] = []
        /// Every node added to the stripe, in order: the tables hold nodes unretained, this keeps them
        /// alive for the stripe's whole life (also after ``Registry/close()``, for requests still
        /// running on them).
        var nodes: [any AnyNode] = []
        /// Nodes removed again (see ``remove(_:in:)``): no longer found, but kept alive for the stripe's
        /// whole life, for requests and linked plans that reached them before they were removed.
        var removed: [any AnyNode] = []
        /// Whether the registry was closed (see ``Registry/close()``). Set and read with the mutex held,
        /// the same mutex under which bindings are added, so no binding is added after it is set.
        var isClosed = false
        /// The gates of the singletons' cells being built, by cell (a scoped instance's gate is kept by
        /// its scope; see ``GateHost``).
        var gates = IdentityTable<GateEntry>()
    }

    /// Where a checked batch of bindings goes (see ``prepare(_:in:)``).
    enum Room {
        /// Into the current table, which has room for it.
        case inPlace
        /// Into this new table, which already holds the batch and the current table's bindings.
        case grown(StripeTable)
    }

    private let state: Locked<State>

    /// This stripe's word in the registry's ``RegistryLookup``: the current table's
    /// ``StripeTable/lookupWord``, the only way readers reach it (`state.table` or `state.retired` keeps
    /// every table alive for the stripe's whole life). The registry owns the memory and outlives the
    /// stripe. Unsafe only in name: the pointer never changes, and its memory is accessed through the
    /// atomic alone.
    private nonisolated(unsafe) let lookupEntry: UnsafeMutablePointer<Atomic<UInt>>

    init(lookupEntry: UnsafeMutablePointer<Atomic<UInt>>) {
        let empty = StripeTable()
        self.state = Locked(State(table: empty))
        self.lookupEntry = lookupEntry
        lookupEntry.pointee.store(empty.lookupWord, ordering: .releasing)
    }

    /// Every node in this stripe (none once the registry is closed), read under the mutex.
    var nodes: [any AnyNode] {
        state.withLock { $0.isClosed ? [] : $0.nodes }
    }

    /// Runs `body` with the stripe's state locked. `body` must not run user code or block.
    func withState<R, E: Error>(_ body: (inout State) throws(E) -> R) throws(E) -> R {
        try state.withLock(body)
    }

    /// Checks that none of `added`'s keys is bound in this stripe and that no two of them are equal,
    /// and finds room for them, changing nothing readers can see. Call with the state locked, and pass
    /// the result to ``add(_:into:in:)`` before unlocking.
    func prepare(_ added: [any AnyNode], in state: State) -> Result<Room, Duplicate> {
        let count = state.nodes.count + added.count
        if !state.table.hasRoom(for: count) {
            // A private table: inserting finds the duplicates.
            let table = state.table.growing(toHold: count)
            for (index, node) in added.enumerated() {
                if let first = table.insert(Unmanaged.passUnretained(node), for: node.key, publishes: false) {
                    return .failure(duplicate(first, of: node, in: state, before: added[..<index]))
                }
            }
            return .success(.grown(table))
        }
        // The published table can't be written before every stripe of the batch is checked. A small
        // batch is checked for repeated keys pair by pair, a larger one with a set.
        let checksPairs = added.count <= 16
        var keys = Set<BindingKey>()
        for (index, node) in added.enumerated() {
            let key = node.key
            if let first = state.table.node(for: key) {
                return .failure(duplicate(first, of: node, in: state, before: added[..<index]))
            }
            let repeated = checksPairs ? added[..<index].contains { $0.key == key } : !keys.insert(key).inserted
            if repeated, let first = added[..<index].first(where: { $0.key == key }) {
                return .failure(Duplicate(first: first, second: node, firstWasInstalled: false))
            }
        }
        return .success(.inPlace)
    }

    /// The duplicate of `second` whose node is `first`: a node of the stripe or of `earlier`.
    private func duplicate(
        _ first: Unmanaged<AnyObject>,
        of second: any AnyNode,
        in state: State,
        before earlier: ArraySlice<any AnyNode>
    ) -> Duplicate {
        let identity = ObjectIdentifier(first.takeUnretainedValue())
        if let installed = state.nodes.first(where: { ObjectIdentifier($0) == identity }) {
            return Duplicate(first: installed, second: second, firstWasInstalled: true)
        }
        // Not installed, so added earlier in the same batch.
        let sibling = earlier.first { ObjectIdentifier($0) == identity } ?? second
        return Duplicate(first: sibling, second: second, firstWasInstalled: false)
    }

    /// Adds `added`, checked by ``prepare(_:in:)``, which returned `room`; the state has stayed locked
    /// since. Readers find the new bindings as soon as their slots (or the grown table) are published.
    func add(_ added: [any AnyNode], into room: Room, in state: inout State) {
        // Retained before any reader can find them.
        state.nodes.append(contentsOf: added)
        switch room {
        case .inPlace:
            for node in added {
                state.table.insert(Unmanaged.passUnretained(node), for: node.key, publishes: true)
            }
        case .grown(let table):
            publish(table, in: &state)
        }
    }

    /// Removes `nodes` (added by the install being undone), publishing a table without them; keeps them
    /// alive (see ``State/removed``). Call with the state locked.
    func remove(_ nodes: [any AnyNode], in state: inout State) {
        let identities = Set(nodes.map { ObjectIdentifier($0) })
        state.removed.append(contentsOf: nodes)
        state.nodes.removeAll { identities.contains(ObjectIdentifier($0)) }
        guard !state.isClosed else { return }
        let table = StripeTable().growing(toHold: state.nodes.count)
        for node in state.nodes {
            _ = table.insert(Unmanaged.passUnretained(node), for: node.key, publishes: false)
        }
        publish(table, in: &state)
    }

    /// Marks the stripe closed and publishes an empty table: every later lookup misses. Call with the
    /// state locked.
    func close(in state: inout State) {
        guard !state.isClosed else { return }
        state.isClosed = true
        publish(StripeTable(), in: &state)
    }

    /// Publishes `table` in place of the current one, which retires.
    private func publish(_ table: StripeTable, in state: inout State) {
        state.retired.append(state.table)
        state.table = table
        lookupEntry.pointee.store(table.lookupWord, ordering: .releasing)
    }

    /// Two nodes bound to one key.
    struct Duplicate: Error {
        let first: any AnyNode
        let second: any AnyNode
        /// Whether the first was in the stripe already (rather than added with the second).
        let firstWasInstalled: Bool
    }
}
