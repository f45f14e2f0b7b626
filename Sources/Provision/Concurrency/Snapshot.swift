/// An immutable table of one registry stripe's bindings, built once and then only read.
///
/// Lookups are the first step of every top-level request, so the table avoids `Dictionary`'s costs:
/// the hash of an unnamed key is one multiplication of the type's identity (named keys add the name's
/// hash), probing compares machine words, and the node is returned unretained (the snapshot keeps it
/// alive). It is an open-addressing table at most half full, with linear probing, whose slots hold the
/// key's identity, the node and the key's name side by side: a probe reads one cache line.
///
/// Writers don't edit a snapshot: they build a new one from ``nodes`` and the added nodes (see
/// ``adding(_:)``), which also finds keys bound twice.
@usableFromInline
final class Snapshot: Sendable {
    /// One slot of the table; empty when `id == 0`.
    @usableFromInline
    struct Slot {
        @usableFromInline var id: UInt
        @usableFromInline var node: Unmanaged<AnyObject>?
        @usableFromInline var name: String?
    }

    /// The bindings, in the order they were added: they keep the nodes alive, and list them.
    let nodes: [any AnyNode]

    @usableFromInline let mask: Int
    @usableFromInline let shift: UInt
    /// The slots, aligned to a 64-byte cache line so that no 32-byte slot straddles two lines. Unsafe
    /// only in name: they are written only in `adding(_:)`, before the snapshot is published to other
    /// threads (through an atomic store with release ordering), and never written again.
    @usableFromInline nonisolated(unsafe) let slots: UnsafeMutablePointer<Slot>

    /// The word a stripe publishes for lock-free lookups (see ``RegistryLookup``): the slots' address,
    /// whose low six bits (zero, by the alignment) carry the table's ``shift``, so that a lookup needs
    /// no second load to know the table's size.
    var lookupWord: UInt {
        UInt(bitPattern: slots) | shift
    }

    /// The slots' alignment: a cache line, which also leaves the address's low six bits free.
    @inlinable static var slotAlignment: Int { 64 }

    /// An empty table.
    convenience init() {
        // An empty table has no duplicates.
        self.init(uncheckedNodes: [])
    }

    /// A table of `nodes`, whose keys must be distinct (see ``adding(_:)``).
    private init(uncheckedNodes nodes: [any AnyNode]) {
        self.nodes = nodes
        var capacity = 4
        while capacity < nodes.count * 2 { capacity <<= 1 }
        mask = capacity - 1
        shift = UInt(64 - capacity.trailingZeroBitCount)
        slots = UnsafeMutableRawPointer.allocate(
            byteCount: capacity * MemoryLayout<Slot>.stride,
            alignment: Snapshot.slotAlignment
        ).bindMemory(to: Slot.self, capacity: capacity)
        slots.initialize(repeating: Slot(id: 0, node: nil, name: nil), count: capacity)
    }

    /// A new table with this one's bindings and `added`, or the two nodes bound to one key when a key
    /// is bound twice (the first of them already in the table, or added earlier in `added`).
    func adding(_ added: [any AnyNode]) -> Result<Snapshot, Duplicate> {
        let table = Snapshot(uncheckedNodes: nodes + added)
        for (index, node) in table.nodes.enumerated() {
            let key = node.key
            var slot = Snapshot.slot(for: key, shift: table.shift)
            while table.slots[slot].id != 0 {
                if table.slots[slot].id == UInt(bitPattern: key.id) && table.slots[slot].name == key.name {
                    let first = table.nodes[..<index].firstIndex { $0.key == key } ?? index
                    return .failure(
                        Duplicate(first: table.nodes[first], second: node, firstWasInstalled: first < nodes.count)
                    )
                }
                slot = (slot &+ 1) & table.mask
            }
            table.slots[slot] = Slot(id: UInt(bitPattern: key.id), node: Unmanaged.passUnretained(node), name: key.name)
        }
        return .success(table)
    }

    /// Two nodes bound to one key.
    struct Duplicate: Error {
        let first: any AnyNode
        let second: any AnyNode
        /// Whether the first was in the table already (rather than added with the second).
        let firstWasInstalled: Bool
    }

    deinit {
        slots.deinitialize(count: mask + 1)
        UnsafeMutableRawPointer(slots).deallocate()
    }

    /// The first slot to probe for `key`: the top bits of a multiplicative hash.
    ///
    /// The multiplier differs from the one that picks the key's stripe (``Registry/stripeIndex(for:)``):
    /// with the same one, every key of a stripe would share the hash's top bits, so its keys could only
    /// start in 1/stripeCount of the slots, and linear probing would walk long clusters (a singleton hit
    /// measured 45–55 ns instead of 18 in the runs where ASLR put the key at a cluster's end).
    @inlinable
    static func slot(for key: BindingKey, shift: UInt) -> Int {
        slot(id: UInt(bitPattern: key.id), name: key.name, shift: shift)
    }

    /// The first slot to probe for the type `id` under `name` (see ``slot(for:shift:)``).
    @inlinable
    static func slot(id: UInt, name: String?, shift: UInt) -> Int {
        var hash = id &* multiplier
        if let name {
            hash = (hash ^ UInt(bitPattern: name.hashValue)) &* multiplier
        }
        // A table has at least four slots, so `shift` is below 64.
        return Int(bitPattern: hash &>> shift)
    }

    /// The multiplier of the slot hash.
    @inlinable static var multiplier: UInt { 0xC2B2_AE3D_27D4_EB4F }

    /// The node bound to `key` in the table published as `word` (see ``lookupWord``), unretained.
    @inlinable @inline(__always)
    static func node(for key: BindingKey, inTable word: UInt) -> Unmanaged<AnyObject>? {
        let shift = word & UInt(slotAlignment - 1)
        guard let slots = UnsafeMutablePointer<Slot>(bitPattern: word & ~UInt(slotAlignment - 1)) else { return nil }
        // A table of 2^k slots has the shift 64 - k and the mask 2^k - 1.
        return node(for: key, in: slots, mask: Int(bitPattern: UInt.max &>> shift), shift: shift)
    }

    /// The node bound to `key` in the table whose slots are `slots`, unretained.
    ///
    /// Always inlined into the request path (``Injector/resolve(_:as:context:)``): as a call it spilled
    /// the request's registers around it on every lookup. Unnamed keys, the common case, take a path
    /// that compares one word and the slot name's presence per probe and never touches a string.
    @inlinable @inline(__always)
    static func node(
        for key: BindingKey,
        in slots: UnsafeMutablePointer<Slot>,
        mask: Int,
        shift: UInt
    ) -> Unmanaged<AnyObject>? {
        let id = UInt(bitPattern: key.id)
        guard let name = key.name else {
            var index = Int(bitPattern: (id &* multiplier) &>> shift)
            while true {
                let slot = slots + index
                let candidate = slot.pointee.id
                if candidate == id, slot.pointee.name == nil { return slot.pointee.node }
                if candidate == 0 { return nil }
                index = (index &+ 1) & mask
            }
        }
        return node(for: id, named: name, in: slots, mask: mask, shift: shift)
    }

    /// The node bound to the type `id` under `name`: the path of named keys.
    @usableFromInline
    static func node(
        for id: UInt,
        named name: String,
        in slots: UnsafeMutablePointer<Slot>,
        mask: Int,
        shift: UInt
    ) -> Unmanaged<AnyObject>? {
        var index = slot(id: id, name: name, shift: shift)
        while true {
            let candidate = slots[index].id
            if candidate == 0 { return nil }
            if candidate == id && slots[index].name == name { return slots[index].node }
            index = (index &+ 1) & mask
        }
    }
}
