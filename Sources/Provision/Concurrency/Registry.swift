/// The bindings of one injector, spread over a power-of-two number of ``RegistryStripe``s by key hash,
/// so that threads installing or building singletons for unrelated keys don't contend on one lock.
///
/// Lookups take no lock at all (see ``RegistryStripe``). Installing a batch of bindings locks every
/// stripe the batch touches, in ascending stripe order (so two concurrent installs cannot deadlock),
/// checks that none of the keys is bound yet, and publishes all of them before unlocking: a concurrent
/// reader sees either none or all of a stripe's new bindings, and no registration is ever lost.
final class Registry: Sendable {
    private let stripes: [RegistryStripe]
    private let shift: UInt64

    init(stripeCount: Int) {
        // A power of two between 1 and 1024.
        var count = 1
        while count < min(max(stripeCount, 1), 1024) { count <<= 1 }
        self.stripes = (0..<count).map { _ in RegistryStripe() }
        self.shift = UInt64(64 - count.trailingZeroBitCount)
    }

    var stripeCount: Int { stripes.count }

    /// The stripe that holds `key`. Fibonacci hashing of the type's identity: cheap, and spreads the
    /// aligned metadata pointers evenly. Names do not take part, so all names of a type share a stripe.
    func stripeIndex(for key: BindingKey) -> Int {
        guard stripes.count > 1 else { return 0 }
        let bits = UInt64(UInt(bitPattern: key.id))
        return Int(truncatingIfNeeded: (bits &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    func stripe(for key: BindingKey) -> RegistryStripe {
        stripes[stripeIndex(for: key)]
    }

    func node(for key: BindingKey) -> (any AnyNode)? {
        stripe(for: key).node(for: key)
    }

    /// Every node of the injector, in no particular order.
    var nodes: [any AnyNode] {
        stripes.flatMap(\.nodes)
    }

    /// Adds `nodes`, whose keys are distinct. Throws `duplicateBinding`, adding nothing, when one of
    /// the keys is bound already.
    func install(_ nodes: [any AnyNode]) throws(ProvisionError) {
        var byStripe: [Int: [any AnyNode]] = [:]
        for node in nodes {
            byStripe[stripeIndex(for: node.key), default: []].append(node)
        }
        let order = byStripe.keys.sorted()
        try installLocked(order[...], byStripe)
    }

    /// Locks the stripes in `order` one inside the other (ascending), then checks and publishes.
    private func installLocked(
        _ order: ArraySlice<Int>,
        _ byStripe: [Int: [any AnyNode]]
    ) throws(ProvisionError) {
        guard let index = order.first else { return }
        let stripe = stripes[index]
        try stripe.withState { state throws(ProvisionError) in
            let added = byStripe[index] ?? []
            for node in added {
                if let existing = state.current.nodes[node.key] {
                    throw ProvisionError.duplicateBinding(
                        node.key,
                        at: node.location,
                        reason: "the injector already has a binding declared at \(existing.location)"
                    )
                }
            }
            // Check the remaining stripes (and publish them) before publishing this one, so a failure
            // anywhere leaves every stripe unchanged.
            try installLocked(order.dropFirst(), byStripe)
            var table = state.current.nodes
            for node in added {
                table[node.key] = node
            }
            stripe.publish(table, in: &state)
        }
    }
}
