public import Synchronization

/// The lock-free read side of a ``Registry``: one word per stripe, the address of that stripe's current
/// table, in one contiguous array.
///
/// Every top-level request starts with a lookup, and a lookup is a chain of dependent loads, each of
/// which can miss the cache when the request is one of many (a closure resolving a thousand leaves, a
/// daemon between bursts). Going from the injector through the registry, its stripe list, the stripe,
/// its published snapshot and the snapshot's slot array took six such loads to reach the first slot;
/// this way takes three. The injector keeps this struct inline, so a lookup loads the stripe's word from this array and
/// then probes the slots directly: the word is the slots' address with the table's size in its low
/// bits (see ``StripeTable/lookupWord``).
///
/// The words are written by each stripe when it publishes a new table (a bigger one, or the empty one
/// of a closed registry), with the stripe's mutex held, and read with acquiring loads. A table stays
/// alive as long as its stripe (retired tables are kept, and take less memory than the current one:
/// see ``StripeTable``), so a reader holding an old address still probes valid memory. The registry
/// owns the array and frees it in its deinitializer; the injector that copies this struct owns the
/// registry.
@usableFromInline
struct RegistryLookup: Sendable {
    /// Each stripe's current table, by stripe index (see ``StripeTable/lookupWord``). Unsafe only in name:
    /// the pointer never changes, and its memory is accessed through the atomics alone (see above).
    @usableFromInline nonisolated(unsafe) let tables: UnsafeMutablePointer<Atomic<UInt>>
    /// How far a key's hash is shifted right to give its stripe index.
    @usableFromInline let stripeShift: UInt

    /// The stripe that holds `key`: Fibonacci hashing of the type's identity, cheap, and spreads the
    /// aligned metadata pointers evenly. Names do not take part, so all names of a type share a stripe.
    @inlinable
    func stripeIndex(for key: BindingKey) -> Int {
        // With one stripe the shift is 64, and Swift's `>>` then yields 0: every key in stripe 0.
        Int(bitPattern: (UInt(bitPattern: key.id) &* 0x9E37_79B9_7F4A_7C15) >> stripeShift)
    }

    /// The node bound to `key`, unretained (the registry keeps every node alive), without a lock.
    @inlinable @inline(__always)
    func node(for key: BindingKey) -> Unmanaged<AnyObject>? {
        StripeTable.node(for: key, inTable: tables[stripeIndex(for: key)].load(ordering: .acquiring))
    }
}
