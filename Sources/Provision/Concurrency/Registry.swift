internal import Synchronization

/// The bindings of one injector, spread over a power-of-two number of ``RegistryStripe``s by key hash,
/// so that threads installing or building singletons for unrelated keys don't contend on one lock.
///
/// Lookups take no lock at all (see ``RegistryStripe``). Installing a batch of bindings locks every
/// stripe the batch touches, in ascending stripe order (so two concurrent installs cannot deadlock),
/// checks that none of the keys is bound yet, and publishes all of them before unlocking: a concurrent
/// reader sees either none or all of a stripe's new bindings, and no registration is ever lost.
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

    func stripe(for key: BindingKey) -> RegistryStripe {
        stripes[stripeIndex(for: key)]
    }

    /// The node bound to `key`, unretained (the registry keeps every node alive), without a lock.
    @inlinable @inline(__always)
    func node(for key: BindingKey) -> Unmanaged<AnyObject>? {
        lookup.node(for: key)
    }

    /// The node bound to `key`, retained.
    func retainedNode(for key: BindingKey) -> (any AnyNode)? {
        // Every node in a table is a `Node<T>`, which conforms to AnyNode.
        lookup.node(for: key)?.takeUnretainedValue() as? any AnyNode
    }

    /// Every node of the injector, in no particular order.
    var nodes: [any AnyNode] {
        stripes.flatMap(\.nodes)
    }

    /// Adds `node` unless its key is bound already; returns the node bound to the key afterwards.
    /// Used for just-in-time bindings, which two threads may create at once: both get the same node.
    func installIfAbsent(_ node: any AnyNode) -> any AnyNode {
        let stripe = self.stripe(for: node.key)
        return stripe.withState { state in
            switch state.current.adding([node]) {
            case .success(let table):
                stripe.publish(table, in: &state)
                return node
            case .failure(let duplicate):
                return duplicate.first
            }
        }
    }

    /// Empties every stripe's table, for a shut-down injector: every later lookup misses and ends in the
    /// slow path, which reports the shutdown. The nodes stay alive (in the retired snapshots) for
    /// requests still running on them.
    func close() {
        for stripe in stripes {
            stripe.withState { state in stripe.publish(Snapshot(), in: &state) }
        }
    }

    /// Adds `nodes`, whose keys are distinct. Throws `duplicateBinding`, adding nothing, when one of
    /// the keys is bound already.
    func install(_ nodes: [any AnyNode]) throws(ProvisionError) {
        var byStripe = [[any AnyNode]](repeating: [], count: stripes.count)
        for node in nodes {
            byStripe[stripeIndex(for: node.key)].append(node)
        }
        let order = byStripe.indices.filter { !byStripe[$0].isEmpty }
        try installLocked(order[...], byStripe)
    }

    /// Locks the stripes in `order` one inside the other (ascending), then checks and publishes.
    private func installLocked(
        _ order: ArraySlice<Int>,
        _ byStripe: [[any AnyNode]]
    ) throws(ProvisionError) {
        guard let index = order.first else { return }
        let stripe = stripes[index]
        try stripe.withState { state throws(ProvisionError) in
            // Building the new table finds a key bound twice.
            let table: Snapshot
            switch state.current.adding(byStripe[index]) {
            case .success(let built):
                table = built
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
            // Check the remaining stripes (and publish them) before publishing this one, so a failure
            // anywhere leaves every stripe unchanged.
            try installLocked(order.dropFirst(), byStripe)
            stripe.publish(table, in: &state)
        }
    }
}
