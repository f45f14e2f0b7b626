/// The cells of a ``ServiceScope``'s scoped instances, by the identity of their binding's node.
///
/// A scope holds a few as a rule (a request uses a handful of scoped bindings), so they are kept in an
/// array and found by comparing identities: a `Dictionary` cost an allocation of its storage per scope
/// and a seeded hash per lookup and per insert, about 180 instructions each. Past ``arrayLimit`` cells a
/// dictionary takes over, so a scope with many scoped instances keeps constant-time lookups. The first
/// cell is kept inline, so a scope with one scoped instance (a request's unit of work) allocates no
/// table at all.
struct ScopeCells: Sendable {
    typealias Cell = any AnyObject & Sendable

    /// The most cells searched linearly.
    static var arrayLimit: Int { 16 }

    /// The first cell inserted; `nil` only while the table is empty, or once `many` took over.
    private var first: (id: ObjectIdentifier, cell: Cell)?
    /// The cells inserted after the first, while there are at most ``arrayLimit`` in all.
    private var few: [(id: ObjectIdentifier, cell: Cell)] = []
    private var many: [ObjectIdentifier: Cell]?

    /// The cell stored under `id`, if any.
    subscript(id: ObjectIdentifier) -> Cell? {
        if let many { return many[id] }
        if let first, first.id == id { return first.cell }
        for entry in few where entry.id == id { return entry.cell }
        return nil
    }

    /// Stores `cell` under `id`, which holds no cell yet.
    mutating func insert(_ cell: Cell, for id: ObjectIdentifier) {
        if many != nil {
            many?[id] = cell
        } else if first == nil {
            first = (id, cell)
        } else if few.count + 1 < Self.arrayLimit {
            few.append((id, cell))
        } else {
            var table = [ObjectIdentifier: Cell](minimumCapacity: Self.arrayLimit * 2)
            if let first { table[first.id] = first.cell }
            for entry in few { table[entry.id] = entry.cell }
            table[id] = cell
            many = table
            first = nil
            few = []
        }
    }
}
