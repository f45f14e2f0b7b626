/// A small table keyed by object identity: a scope's cells (by the identity of their binding's node), and
/// the gates of the instances being built (by the identity of their cell) that a registry stripe or a
/// scope keeps (see ``GateHost``).
///
/// Both hold a few entries as a rule (a request uses a handful of scoped bindings; a stripe sees a few
/// builds at a time), so the entries are kept in an array and found by comparing identities: a
/// `Dictionary` cost an allocation of its storage per scope and a seeded hash per lookup, insert and
/// removal, about 180 instructions each. The first entry is kept inline, so a table with one entry (a
/// request's unit of work, the one build in flight in a stripe) allocates nothing. Past ``arrayLimit``
/// entries a dictionary takes over, so a table with many entries (thousands of requests building their
/// scoped instances at once) keeps constant-time operations.
struct IdentityTable<Value> {
    /// The most entries searched linearly.
    static var arrayLimit: Int { 16 }

    private var first: (id: ObjectIdentifier, value: Value)?
    /// The other entries, in no particular order, while there are at most ``arrayLimit`` in all.
    private var few: [(id: ObjectIdentifier, value: Value)] = []
    /// All the entries, once there were more than ``arrayLimit``; `first` and `few` are empty then.
    private var many: [ObjectIdentifier: Value]?

    /// The value stored under `id`; setting `nil` removes it.
    subscript(id: ObjectIdentifier) -> Value? {
        get {
            if let many { return many[id] }
            if let first, first.id == id { return first.value }
            for entry in few where entry.id == id { return entry.value }
            return nil
        }
        set {
            if let newValue {
                set(newValue, for: id)
            } else {
                removeValue(forKey: id)
            }
        }
    }

    /// Every value, in no particular order.
    var values: [Value] {
        if let many { return Array(many.values) }
        return (first.map { [$0.value] } ?? []) + few.map(\.value)
    }

    /// Stores `value` under `id`, replacing the value stored there, if any.
    private mutating func set(_ value: Value, for id: ObjectIdentifier) {
        if many != nil {
            many?[id] = value
        } else if first?.id == id {
            first?.value = value
        } else if let index = few.firstIndex(where: { $0.id == id }) {
            few[index].value = value
        } else if first == nil {
            first = (id, value)
        } else if few.count + 1 < Self.arrayLimit {
            few.append((id, value))
        } else {
            var table = [ObjectIdentifier: Value](minimumCapacity: Self.arrayLimit * 2)
            if let first { table[first.id] = first.value }
            for entry in few { table[entry.id] = entry.value }
            table[id] = value
            many = table
            first = nil
            few = []
        }
    }

    /// Removes the value stored under `id` and returns it, or returns `nil` when there is none.
    @discardableResult
    mutating func removeValue(forKey id: ObjectIdentifier) -> Value? {
        if many != nil {
            let removed = many?.removeValue(forKey: id)
            // Back to the array once the table is empty (a burst of builds is over).
            if many?.isEmpty == true { many = nil }
            return removed
        }
        if let entry = first, entry.id == id {
            first = nil
            return entry.value
        }
        guard let index = few.firstIndex(where: { $0.id == id }) else { return nil }
        // The order of `few` doesn't matter: the last entry takes the removed one's place.
        few.swapAt(index, few.count - 1)
        return few.removeLast().value
    }
}

extension IdentityTable: Sendable where Value: Sendable {}
