// How a child's validation walk stops at the bindings of sealed ancestors (see ``ValidationSeal``).
extension BindingGraph.Builder {
    /// The transients reaching a scoped binding of the ancestor at `level`, if its seal holds;
    /// looked up once per ancestor, when the walk first reaches it.
    mutating func seal(at level: Int) -> Set<BindingKey>? {
        if let known = seals[level] { return known }
        let reachingScoped = chain[level].currentSeal?.transientsReachingScoped
        seals[level] = .some(reachingScoped)
        return reachingScoped
    }

    /// Whether the walk may stop at `vertex`, a binding of a sealed ancestor (see ``ValidationSeal``):
    /// one the ancestor's modules declared (a just-in-time binding it made since wasn't validated
    /// with it), not a handle (which a singleton's check follows to its target), and not a transient
    /// (a collection is one) through which a child's singleton would capture a scoped binding.
    func isSealable(_ vertex: BindingGraph.Vertex, reachingScoped: Set<BindingKey>) -> Bool {
        guard !vertex.isJustInTime, vertex.shape.kind != .handle else { return false }
        return vertex.lifetime != .transient || !reachingScoped.contains(vertex.key)
    }

    /// For a collection of the injector itself whose first elements are those of the nearest
    /// ancestor's collection (a child's collection adds to its parent's, see `Multibinding`), when that
    /// collection is sealed: one edge to it, standing for the elements it shares, then the injector's
    /// own elements. Without it, each child of a chain that adds an element looked up every element
    /// of every ancestor again. `nil` when the collection inherits nothing sealed.
    mutating func inheritedCollectionEdges(of index: Int, keys: [BindingKey]) -> [BindingGraph.Edge]? {
        let key = vertices[index].key
        var inherited: Int?
        var level = 1
        while inherited == nil, hasLevel(level) {
            inherited = registeredIndex(of: key, at: level)
            level += 1
        }
        guard let inherited, sealedVertices.contains(inherited),
            vertices[inherited].shape.kind == .multibinding
        else {
            return nil
        }
        let shared = vertices[inherited].shape.keys
        guard shared.count <= keys.count, keys.starts(with: shared) else { return nil }
        var edges = [BindingGraph.Edge(target: .vertex(inherited), kind: .construction)]
        edges.reserveCapacity(1 + keys.count - shared.count)
        for key in keys[shared.count...] {
            edges.append(BindingGraph.Edge(target: target(of: key, from: 0), kind: .construction))
        }
        return edges
    }
}
