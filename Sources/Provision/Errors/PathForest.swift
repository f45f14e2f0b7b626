/// The outer parts of many errors' paths at once: a forest of keys given by parent links, as
/// validation's breadth-first walk from the root bindings finds it.
///
/// A validation report of a graph thousands of bindings deep can hold thousands of problems, each with a
/// path thousands of keys long from its root. Copying every path would take time and memory quadratic in
/// the depth; each error instead keeps a ``PathBranch`` into this shared forest, and spells its path
/// out only when asked (``ProvisionError/path``).
final class PathForest: Sendable {
    /// The key of each vertex.
    let keys: [BindingKey]
    /// The vertex each vertex was reached from, or -1 for a root.
    let parents: [Int]
    /// How many vertices lie above each vertex (0 for a root).
    let depths: [Int]
    /// The root each vertex was reached from.
    let roots: [Int]

    /// The forest of `keys`, linked by `parents` (each vertex's parent, or a negative number for a
    /// root), whose parents are listed before their children in `order`.
    init(keys: [BindingKey], parents: [Int], order: [Int]) {
        var depths = [Int](repeating: 0, count: keys.count)
        var roots = Array(keys.indices)
        for vertex in order where parents[vertex] >= 0 {
            depths[vertex] = depths[parents[vertex]] + 1
            roots[vertex] = roots[parents[vertex]]
        }
        self.keys = keys
        self.parents = parents.map { max($0, -1) }
        self.depths = depths
        self.roots = roots
    }
}

/// The outer part of one error's path: the keys from a root of a ``PathForest`` down to one of its
/// vertices, outermost first.
struct PathBranch: Sendable {
    let forest: PathForest
    let vertex: Int

    /// How many keys the branch holds.
    var count: Int { forest.depths[vertex] + 1 }

    /// The outermost key.
    var outermost: BindingKey { forest.keys[forest.roots[vertex]] }

    /// Up to `limit` of the innermost keys, innermost first.
    func innermost(_ limit: Int) -> [BindingKey] {
        var keys: [BindingKey] = []
        var current = vertex
        while current >= 0, keys.count < limit {
            keys.append(forest.keys[current])
            current = forest.parents[current]
        }
        return keys
    }

    /// Every key, innermost first.
    var reversedKeys: [BindingKey] { innermost(count) }
}
