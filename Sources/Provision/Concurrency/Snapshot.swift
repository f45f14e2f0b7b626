/// An immutable table of one registry stripe's bindings, built once and then only read.
///
/// Lookups are the first step of every top-level request, so the table avoids `Dictionary`'s costs:
/// the hash of an unnamed key is one multiplication of the type's identity (named keys add the name's
/// hash), probing compares machine words, and the node is returned unretained (the snapshot keeps it
/// alive). It is an open-addressing table at most half full, with linear probing.
@usableFromInline
final class Snapshot {
    /// The same bindings as a dictionary, for writers that copy and extend the table.
    let nodes: [BindingKey: any AnyNode]

    @usableFromInline let mask: Int
    @usableFromInline let shift: UInt
    /// Slot `i` is empty when `ids[i] == 0`.
    @usableFromInline let ids: UnsafeMutablePointer<UInt>
    @usableFromInline let names: UnsafeMutablePointer<String?>
    @usableFromInline let entries: UnsafeMutablePointer<Unmanaged<AnyObject>?>

    init(nodes: [BindingKey: any AnyNode]) {
        self.nodes = nodes
        var capacity = 4
        while capacity < nodes.count * 2 { capacity <<= 1 }
        let mask = capacity - 1
        let shift = UInt(64 - capacity.trailingZeroBitCount)
        self.mask = mask
        self.shift = shift
        ids = .allocate(capacity: capacity)
        ids.initialize(repeating: 0, count: capacity)
        names = .allocate(capacity: capacity)
        names.initialize(repeating: nil, count: capacity)
        entries = .allocate(capacity: capacity)
        entries.initialize(repeating: nil, count: capacity)
        for (key, node) in nodes {
            var index = Snapshot.slot(for: key, shift: shift)
            while ids[index] != 0 { index = (index &+ 1) & mask }
            ids[index] = UInt(bitPattern: key.id)
            names[index] = key.name
            entries[index] = Unmanaged.passUnretained(node)
        }
    }

    deinit {
        let capacity = mask + 1
        ids.deallocate()
        names.deinitialize(count: capacity)
        names.deallocate()
        entries.deallocate()
    }

    /// The first slot to probe for `key`: the top bits of a multiplicative hash.
    ///
    /// The multiplier differs from the one that picks the key's stripe (``Registry/stripeIndex(for:)``):
    /// with the same one, every key of a stripe would share the hash's top bits, so its keys could only
    /// start in 1/stripeCount of the slots, and linear probing would walk long clusters (a singleton hit
    /// measured 45–55 ns instead of 18 in the runs where ASLR put the key at a cluster's end).
    @inlinable
    static func slot(for key: BindingKey, shift: UInt) -> Int {
        var hash = UInt(bitPattern: key.id) &* 0xC2B2_AE3D_27D4_EB4F
        if let name = key.name {
            hash = (hash ^ UInt(bitPattern: name.hashValue)) &* 0xC2B2_AE3D_27D4_EB4F
        }
        return Int(bitPattern: hash >> shift)
    }

    /// The node bound to `key`, unretained: valid while this snapshot is alive.
    @inlinable
    func node(for key: BindingKey) -> Unmanaged<AnyObject>? {
        let id = UInt(bitPattern: key.id)
        var index = Snapshot.slot(for: key, shift: shift)
        while true {
            let candidate = ids[index]
            if candidate == 0 { return nil }
            if candidate == id && names[index] == key.name { return entries[index] }
            index = (index &+ 1) & mask
        }
    }
}

// The table's storage is written only in `init`, before the snapshot is published to other threads
// (through an atomic store with release ordering), and never written again.
extension Snapshot: @unchecked Sendable {}
