/// Parts of many errors' paths at once: a forest of keys given by parent links.
///
/// A validation report of a graph thousands of bindings deep can hold thousands of problems, each with a
/// path thousands of keys long. Copying every path would take time and memory quadratic in the depth;
/// each error instead keeps a ``PathBranch`` into a shared forest, and spells its path out only when
/// asked (``ProvisionError/path``). Validation makes three: the breadth-first walk from the root
/// bindings (a missing binding's path runs from a root down to its dependent), the depth-first walk that
/// finds cycles (a cycle's path is the walk's route down to the edge that closes it), and the routes by
/// which transient bindings reach a shorter-lived one (a captive dependency's path runs from its holder
/// down to the captive).
final class PathForest: Sendable {
    /// The key of each vertex.
    let keys: [BindingKey]
    /// The vertex each vertex is linked to, or -1 for a root.
    let parents: [Int]
    /// How many vertices lie between each vertex and its root, the root included (0 for a root).
    let depths: [Int]
    /// The root each vertex is linked to.
    let roots: [Int]

    /// The forest of `keys`, linked by `parents` (each vertex's parent, or a negative number for a
    /// root). A link that would close a loop is dropped: the vertex it leaves becomes a root.
    init(keys: [BindingKey], parents: [Int]) {
        var parents = parents.map { max($0, -1) }
        // -1: not known yet, -2: on the current walk.
        var depths = [Int](repeating: -1, count: keys.count)
        var roots = Array(keys.indices)
        var walk: [Int] = []
        for start in keys.indices where depths[start] == -1 {
            // Up to a vertex already placed (or a root), then back down, each from its parent.
            var current = start
            while current >= 0, depths[current] == -1 {
                depths[current] = -2
                walk.append(current)
                current = parents[current]
            }
            if current >= 0, depths[current] == -2, let last = walk.last {
                parents[last] = -1
            }
            while let vertex = walk.popLast() {
                let parent = parents[vertex]
                if parent >= 0, depths[parent] >= 0 {
                    depths[vertex] = depths[parent] + 1
                    roots[vertex] = roots[parent]
                } else {
                    parents[vertex] = -1
                    depths[vertex] = 0
                }
            }
        }
        self.keys = keys
        self.parents = parents
        self.depths = depths
        self.roots = roots
    }
}

/// Part of one error's path: the keys between one vertex of a ``PathForest`` and its root.
struct PathBranch: Sendable {
    /// Which way the path runs along the branch.
    enum Direction: Sendable {
        /// From the root down to the vertex: the outer part of the path, above the error's own keys.
        case fromRoot
        /// From the vertex up to the root: the inner part of the path, below the error's own keys.
        case towardRoot
    }

    let forest: PathForest
    let vertex: Int
    let direction: Direction

    /// How many keys the branch holds.
    var count: Int { forest.depths[vertex] + 1 }

    /// The root's key: the branch's outermost key going ``Direction/fromRoot``, its innermost going
    /// ``Direction/towardRoot``.
    var rootKey: BindingKey { forest.keys[forest.roots[vertex]] }

    /// Up to `limit` keys from the vertex toward the root.
    func fromVertex(_ limit: Int) -> [BindingKey] {
        var keys: [BindingKey] = []
        var current = vertex
        while current >= 0, keys.count < limit {
            keys.append(forest.keys[current])
            current = forest.parents[current]
        }
        return keys
    }

    /// Every key, innermost first.
    var reversedKeys: [BindingKey] {
        let keys = fromVertex(count)
        return direction == .fromRoot ? keys : keys.reversed()
    }
}
