public import Synchronization

/// One registry stripe's table of bindings: an open-addressing hash table that readers probe without a
/// lock while the stripe's writer, holding the stripe's mutex, adds to it in place.
///
/// Lookups are the first step of every top-level request, so the table avoids `Dictionary`'s costs:
/// the hash of an unnamed key is one multiplication of the type's identity (named keys add the name's
/// hash), probing compares machine words, and the node is returned unretained (the stripe keeps it
/// alive). It is at most three quarters full, with linear probing, and its slots hold the key's
/// identity, the node and the key's name side by side: a probe reads one cache line. (At most half
/// full, an injector of 10,000 bindings kept 105 bytes of slots per binding; three quarters halves
/// that, and a probe that finds its key reads two slots on average at the fullest, 1.5 at half.)
///
/// Adding in place, with readers probing: a slot is only ever filled, once, and never changed or
/// emptied afterwards. The writer fills a free slot's node and name first and stores the key's identity
/// word last, with release ordering; a reader loads the identity word with acquire ordering and reads
/// the node and name only when the word is its key's, so it never sees them half written. A reader
/// stops at the first empty slot it meets, and that is never before its key: the key's insertion
/// walked from its first slot to its own over slots that were all filled, and filled slots stay
/// filled. On x86-64 an acquiring load is the same plain `mov` as an ordinary one, so a probe costs what
/// it cost when tables were immutable.
///
/// Growing: a batch that would fill the table more than three quarters goes into a new table of at least twice
/// the size, built privately (see ``growing(toHold:)``) and then published. The replaced table is never
/// written again and stays alive (``RegistryStripe/State/retired``), because a reader may still be
/// probing it. Since each table is at least twice the one it replaces, a stripe's retired tables
/// together have fewer slots than its current one: the memory stays linear in the number of bindings
/// without any protocol for freeing tables, and a reader never probes freed memory.
@usableFromInline
final class StripeTable: Sendable {
    /// One slot of the table; empty while its `id` is 0.
    @usableFromInline
    struct Slot: ~Copyable {
        /// The key's type identity, or 0. Written once, last, with release ordering (see above).
        @usableFromInline let id: Atomic<UInt>
        /// The node, unretained. Written before `id`, never after.
        @usableFromInline var node: Unmanaged<AnyObject>?
        /// The key's name. Written before `id`, never after.
        @usableFromInline var name: String?
    }

    @usableFromInline let mask: Int
    @usableFromInline let shift: UInt
    /// The slots, aligned to a 64-byte cache line so that no 32-byte slot straddles two lines. Unsafe
    /// only in name: a slot's `node` and `name` are written once, by the stripe's writer (mutex held),
    /// before its `id` is stored with release ordering, and read only after `id` was loaded with
    /// acquire ordering and found filled.
    @usableFromInline nonisolated(unsafe) let slots: UnsafeMutablePointer<Slot>

    /// The number of slots: a power of two, at least 4.
    var capacity: Int { mask + 1 }

    /// The word a stripe publishes for lock-free lookups (see ``RegistryLookup``): the slots' address,
    /// whose low six bits (zero, by the alignment) carry the table's ``shift``, so that a lookup needs
    /// no second load to know the table's size.
    var lookupWord: UInt {
        UInt(bitPattern: slots) | shift
    }

    /// The slots' alignment: a cache line, which also leaves the address's low six bits free.
    @inlinable static var slotAlignment: Int { 64 }

    /// An empty table with room for `count` keys.
    init(roomFor count: Int = 0) {
        var capacity = 4
        while capacity * 3 < count * 4 { capacity <<= 1 }
        mask = capacity - 1
        shift = UInt(64 - capacity.trailingZeroBitCount)
        slots = UnsafeMutableRawPointer.allocate(
            byteCount: capacity * MemoryLayout<Slot>.stride,
            alignment: StripeTable.slotAlignment
        ).bindMemory(to: Slot.self, capacity: capacity)
        for index in 0..<capacity {
            (slots + index).initialize(to: Slot(id: Atomic(0), node: nil, name: nil))
        }
    }

    deinit {
        slots.deinitialize(count: capacity)
        UnsafeMutableRawPointer(slots).deallocate()
    }

    /// Whether the table holds `count` keys without being more than three quarters full (so that a
    /// probe always ends at an empty slot).
    func hasRoom(for count: Int) -> Bool {
        count * 4 <= capacity * 3
    }

    /// The node bound to `key`. Any thread.
    func node(for key: BindingKey) -> Unmanaged<AnyObject>? {
        StripeTable.node(for: key, in: slots, mask: mask, shift: shift)
    }

    /// Fills the first free slot of `key`'s probe sequence, or returns the node already bound to `key`.
    ///
    /// Only the stripe's writer (mutex held) calls it. `publishes` is `true` for the published table,
    /// whose readers must see the slot complete; a table being built is not visible to readers yet.
    @discardableResult
    func insert(_ node: Unmanaged<AnyObject>, for key: BindingKey, publishes: Bool) -> Unmanaged<AnyObject>? {
        insert(node, id: UInt(bitPattern: key.id), name: key.name, publishes: publishes)
    }

    @discardableResult
    private func insert(_ node: Unmanaged<AnyObject>, id: UInt, name: String?, publishes: Bool)
        -> Unmanaged<AnyObject>?
    {
        var index = StripeTable.slot(id: id, name: name, shift: shift)
        while true {
            // The writer is the only thread that stores ids, so a relaxed load sees every id it stored.
            let candidate = slots[index].id.load(ordering: .relaxed)
            if candidate == 0 { break }
            if candidate == id && slots[index].name == name { return slots[index].node }
            index = (index &+ 1) & mask
        }
        slots[index].node = node
        slots[index].name = name
        if publishes {
            slots[index].id.store(id, ordering: .releasing)
        } else {
            slots[index].id.store(id, ordering: .relaxed)
        }
        return nil
    }

    /// A new, unpublished table with this one's bindings and room for `count` bindings in all: at
    /// least twice this one's capacity, so that the tables a stripe replaces form a geometric series.
    func growing(toHold count: Int) -> StripeTable {
        let table = StripeTable(roomFor: max(count, capacity))
        for index in 0..<capacity {
            let id = slots[index].id.load(ordering: .relaxed)
            guard id != 0, let node = slots[index].node else { continue }
            // This table's keys are distinct, so each insertion fills a slot.
            table.insert(node, id: id, name: slots[index].name, publishes: false)
        }
        return table
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
            hash = (hash ^ nameHash(name)) &* multiplier
        }
        // A table has at least four slots, so `shift` is below 64.
        return Int(bitPattern: hash &>> shift)
    }

    /// A binding name's hash: FNV-1a over its UTF-8 bytes when they are all ASCII (names are short and
    /// chosen by the program, not by its input: about 40 instructions where `String.hashValue`'s seeded
    /// SipHash took about 200, once per named binding installed and per named request).
    ///
    /// Names equal as Swift strings (canonically equivalent Unicode) must hash alike. A name with other
    /// scalars is hashed by ``nonASCIINameHash(_:)``, which gives a name equal to an ASCII string that
    /// string's hash.
    ///
    /// The bytes are read from the string's contiguous UTF-8 storage (a native string's, or a small
    /// string's, copied to the stack): iterating the `utf8` view instead decoded each byte through the
    /// view's index (callgrind: 257 instructions for the 6-byte name of a binding, 77 now).
    @inlinable
    static func nameHash(_ name: String) -> UInt {
        let contiguous = name.utf8.withContiguousStorageIfAvailable { bytes -> UInt? in
            var hash = fnvBasis
            for byte in bytes {
                guard byte < 0x80 else { return nil }
                hash = (hash ^ UInt(byte)) &* fnvPrime
            }
            return hash
        }
        if case .some(.some(let hash)) = contiguous { return hash }
        return nonASCIINameHash(name)
    }

    /// ``nameHash(_:)`` of a name that is not all ASCII, or has no contiguous UTF-8 storage: FNV-1a over
    /// its scalars when each is ASCII or one of the three scalars whose canonical decomposition is an
    /// ASCII character (U+212A KELVIN SIGN is `K`, U+037E GREEK QUESTION MARK is `;`, U+1FEF GREEK VARIA
    /// is a backtick), so that a name equal to an ASCII string hashes as that string does; the string's
    /// own hash otherwise. No other scalar or sequence normalizes to ASCII (composition only makes
    /// non-ASCII characters), so two equal names always take the same branch.
    @usableFromInline
    static func nonASCIINameHash(_ name: String) -> UInt {
        var hash = fnvBasis
        for scalar in name.unicodeScalars {
            let byte: UInt
            switch scalar.value {
            case 0..<0x80: byte = UInt(scalar.value)
            case 0x212A: byte = 0x4B // K
            case 0x037E: byte = 0x3B // ;
            case 0x1FEF: byte = 0x60 // `
            default: return UInt(bitPattern: name.hashValue)
            }
            hash = (hash ^ byte) &* fnvPrime
        }
        return hash
    }

    /// FNV-1a's 64-bit offset basis and prime.
    @inlinable static var fnvBasis: UInt { 0xCBF2_9CE4_8422_2325 }
    @inlinable static var fnvPrime: UInt { 0x0000_0100_0000_01B3 }

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
    /// that compares one word and the slot name's presence per probe and never touches a string. A
    /// slot's `id` is loaded with acquire ordering, and its other fields read only when it matches.
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
                let candidate = slot.pointee.id.load(ordering: .acquiring)
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
            let candidate = slots[index].id.load(ordering: .acquiring)
            if candidate == 0 { return nil }
            if candidate == id && slots[index].name == name { return slots[index].node }
            index = (index &+ 1) & mask
        }
    }
}
