internal import Synchronization

/// The bindings of one injector, spread over a power-of-two number of ``RegistryStripe``s by key hash,
/// so that threads installing or building singletons for unrelated keys don't contend on one lock.
///
/// Lookups take no lock at all (see ``RegistryStripe``). Installing a batch of bindings locks every
/// stripe the batch touches, in ascending stripe order (so two concurrent installs cannot deadlock),
/// checks that the registry is open and that none of the keys is bound yet, and only then adds all of
/// them before unlocking: an install adds all of its bindings or none, and no registration is ever
/// lost. A lock-free reader may see some of an install's bindings before others; a miss is confirmed
/// with ``lockedNode(for:)`` before anything acts on it.
@usableFromInline
final class Registry: Sendable {
    private let stripes: [RegistryStripe]
    /// The lock-free read side: every stripe's current table (see ``RegistryLookup``). Its memory is
    /// owned here and freed in `deinit`.
    @usableFromInline let lookup: RegistryLookup

    init(stripeCount: Int) {
        // A power of two between 1 and 1024.
        var count = 1
        while count < min(max(stripeCount, 1), 1024) { count <<= 1 }
        let tables = UnsafeMutablePointer<Atomic<UInt>>.allocate(capacity: count)
        for index in 0..<count {
            (tables + index).initialize(to: Atomic(0))
        }
        self.stripes = (0..<count).map { RegistryStripe(lookupEntry: tables + $0) }
        // With one stripe the shift is 64, and Swift's `>>` then yields 0: every key in stripe 0.
        self.lookup = RegistryLookup(tables: tables, stripeShift: UInt(64 - count.trailingZeroBitCount))
    }

    deinit {
        lookup.tables.deinitialize(count: stripes.count)
        lookup.tables.deallocate()
    }

    var stripeCount: Int { stripes.count }

    /// The index of the stripe that holds `key`.
    func stripeIndex(for key: BindingKey) -> Int {
        lookup.stripeIndex(for: key)
    }

    @usableFromInline
    func stripe(for key: BindingKey) -> RegistryStripe {
        stripes[stripeIndex(for: key)]
    }

    /// The node bound to `key`, unretained (the registry keeps every node alive), without a lock.
    ///
    /// A miss is not final while an install may be running: see ``lockedNode(for:)``.
    @inlinable @inline(__always)
    func node(for key: BindingKey) -> Unmanaged<AnyObject>? {
        lookup.node(for: key)
    }

    /// The node bound to `key`, looked up with its stripe's mutex held: an install in progress on the
    /// stripe has either not begun adding (and then this waits for it) or has ended, so unlike a
    /// lock-free miss, a miss here means the key was not bound when the lock was taken. The slow paths
    /// call it before they report a key as not bound or create a just-in-time binding for it.
    @usableFromInline
    func lockedNode(for key: BindingKey) -> Unmanaged<AnyObject>? {
        // The lock orders this lookup after every write of the stripe's earlier lock holders.
        stripe(for: key).withState { _ in lookup.node(for: key) }
    }

    /// The node bound to `key`, retained.
    func retainedNode(for key: BindingKey) -> (any AnyNode)? {
        // Every node in a table is a `Node<T>`, which conforms to AnyNode.
        (lookup.node(for: key) ?? lockedNode(for: key))?.takeUnretainedValue() as? any AnyNode
    }

    /// Whether `key` was bound when the registry was closed (by a shutdown, which emptied the tables):
    /// so that a child's install can't shadow a key its shut-down parent held. A scan of the key's
    /// stripe, for that rare path only.
    func wasBound(atClose key: BindingKey) -> Bool {
        stripe(for: key).withState { state in state.isClosed && state.nodes.contains { $0.key == key } }
    }

    /// Every node of the injector, in no particular order (none once the registry is closed).
    var nodes: [any AnyNode] {
        stripes.flatMap(\.nodes)
    }

    /// How many nodes ``nodes`` would list, without listing them.
    var count: Int {
        stripes.reduce(0) { $0 + $1.nodes.count }
    }

    /// Adds `node` unless its key is bound already. Used for just-in-time bindings, which two threads
    /// may create at once: both get the same node.
    ///
    /// - Returns: The node bound to the key afterwards, unretained (the registry keeps it alive), or
    ///   `nil` when the registry is closed: a shut-down injector adds nothing.
    func installIfAbsent(_ node: any AnyNode) -> Unmanaged<AnyObject>? {
        let stripe = self.stripe(for: node.key)
        return stripe.withState { state in
            if state.isClosed { return nil }
            if let existing = state.table.node(for: node.key) { return existing }
            switch stripe.prepare([node], in: state) {
            case .success(let room):
                stripe.add([node], into: room, in: &state)
                return Unmanaged.passUnretained(node)
            case .failure(let duplicate):
                // Not reached: the key was not bound a moment ago, under the same lock.
                return Unmanaged.passUnretained(duplicate.first)
            }
        }
    }

    /// Closes the registry, for a shut-down injector: every stripe, one by one in ascending order, is
    /// marked closed and emptied under its mutex, so every later lookup misses and ends in the slow
    /// path, which reports the shutdown, and no install or just-in-time binding adds anything once its
    /// stripe is closed. The nodes stay alive for requests still running on them.
    ///
    /// An install racing `close()` adds all of its bindings before `close()` empties any of its
    /// stripes, or none: it holds all of its stripes' mutexes from its check of the closed flags to its
    /// last addition. If it locked its first stripe before `close()` reached that stripe, `close()`
    /// waits there until the install is done (and then empties every stripe of it); otherwise the
    /// install finds that first stripe closed and throws. Either way no binding of it is resolvable
    /// once `close()` has returned.
    func close() {
        for stripe in stripes {
            stripe.withState { state in stripe.close(in: &state) }
        }
    }

    /// Removes `nodes`, which an ``install(_:)`` added, undoing it: later lookups miss their keys. Requests
    /// that found them, and plans linked to them, keep them (the stripes keep them alive).
    func uninstall(_ nodes: [any AnyNode]) {
        var byStripe = [[any AnyNode]](repeating: [], count: stripes.count)
        for node in nodes {
            byStripe[stripeIndex(for: node.key)].append(node)
        }
        for index in byStripe.indices where !byStripe[index].isEmpty {
            stripes[index].withState { state in stripes[index].remove(byStripe[index], in: &state) }
        }
    }

    /// Adds `nodes`, whose keys are distinct.
    ///
    /// - Throws: `duplicateBinding`, adding nothing, when one of the keys is bound already (or two of
    ///   `nodes` share a key); `shutDown`, adding nothing, when the registry is closed.
    func install(_ nodes: [any AnyNode]) throws(ProvisionError) {
        var byStripe = [[any AnyNode]](repeating: [], count: stripes.count)
        // Each stripe's share, reserved up front once there are enough nodes to spread: keys hash
        // evenly, so a quarter over the mean holds a stripe's share (one growth if not). Appending
        // without it grew every stripe's array about eight times for an injector of 10k bindings.
        if nodes.count >= stripes.count * 8 {
            let share = nodes.count / stripes.count
            for index in byStripe.indices {
                byStripe[index].reserveCapacity(share + share / 4 + 8)
            }
        }
        for node in nodes {
            byStripe[stripeIndex(for: node.key)].append(node)
        }
        let order = byStripe.indices.filter { !byStripe[$0].isEmpty }
        try installLocked(order[...], byStripe)
    }

    /// Locks the stripes in `order` one inside the other (ascending), then checks and adds.
    private func installLocked(
        _ order: ArraySlice<Int>,
        _ byStripe: [[any AnyNode]]
    ) throws(ProvisionError) {
        guard let index = order.first else { return }
        let stripe = stripes[index]
        try stripe.withState { state throws(ProvisionError) in
            // Checked under the lock `close()` sets it under (see `close()`).
            if state.isClosed { throw ProvisionError.shutDown(nil) }
            let room: RegistryStripe.Room
            switch stripe.prepare(byStripe[index], in: state) {
            case .success(let prepared):
                room = prepared
            case .failure(let duplicate):
                let first = duplicate.first.location
                let second = duplicate.second.location
                throw ProvisionError.duplicateBinding(
                    duplicate.second.key,
                    at: second,
                    reason: duplicate.firstWasInstalled
                        ? "the injector already has a binding declared at \(first)"
                        : "the same module binds it at \(first) and at \(second)"
                )
            }
            // Check the remaining stripes (and add to them) before adding to this one, so a failure
            // anywhere leaves every stripe unchanged.
            try installLocked(order.dropFirst(), byStripe)
            stripe.add(byStripe[index], into: room, in: &state)
        }
    }
}
