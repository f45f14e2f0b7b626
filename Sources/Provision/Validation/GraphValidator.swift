/// One problem validation found, with the parts of the graph it involves (for diagrams).
struct ValidationFinding {
    /// Identifies one edge: the dependent vertex and the position of the dependency in its edges.
    struct EdgeID: Hashable {
        let vertex: Int
        let index: Int
    }

    let error: ProvisionError
    var vertices: [Int] = []
    var edges: [EdgeID] = []
    var missing: [Int] = []
}

/// Checks a ``BindingGraph`` against every validation rule, without constructing anything.
///
/// The rules: every dependency is bound (a `[T]` needs multibinding elements; a single `T` that only has
/// multibinding elements is ambiguous); no cycle through construction edges (an edge through a
/// `Provider` or `Lazy` handle may close one); no binding captures a shorter-lived one (see
/// ``Lifetime``); every eager binding is a singleton. Each problem is reported once, with a path from a
/// root binding (one that nothing depends on) to the problem.
struct GraphValidator {
    let graph: BindingGraph
    /// Vertices nothing depends on, in declaration order, then every other vertex: the order walks
    /// start from, so that reported paths begin at a root where there is one.
    private var startOrder: [Int]
    /// For each vertex, the vertex it was first reached from (breadth first from the roots), or -1.
    private var parent: [Int]

    init(_ graph: BindingGraph) {
        self.graph = graph
        let count = graph.vertices.count
        var hasDependents = [Bool](repeating: false, count: count)
        for vertex in graph.vertices {
            for edge in vertex.edges {
                if case .vertex(let target) = edge.target { hasDependents[target] = true }
            }
        }
        startOrder = (0..<count).filter { !hasDependents[$0] } + (0..<count).filter { hasDependents[$0] }
        parent = [Int](repeating: -2, count: count)
        var queue: [Int] = []
        queue.reserveCapacity(count)
        var head = 0
        for start in startOrder where parent[start] == -2 {
            parent[start] = -1
            queue.append(start)
            while head < queue.count {
                let vertex = queue[head]
                head += 1
                for edge in graph.vertices[vertex].edges {
                    if case .vertex(let target) = edge.target, parent[target] == -2 {
                        parent[target] = vertex
                        queue.append(target)
                    }
                }
            }
        }
    }

    /// Every problem, in rule order: missing bindings, cycles, captive dependencies, eager bindings.
    ///
    /// - Parameters:
    ///   - eager: Keys marked eager in the injector's own modules, checked only when the injector is
    ///     being created (afterwards, creation itself guarantees they are singletons).
    ///   - justInTimeScope: The scope of the just-in-time binding the injector would create for a key.
    func findings(
        eager: [(BindingKey, SourceLocation)] = [],
        justInTimeScope: (BindingKey) -> Scope? = { _ in nil }
    ) -> [ValidationFinding] {
        missingBindings() + cycles() + captiveDependencies() + eagerBindings(eager, justInTimeScope: justInTimeScope)
    }

    /// The keys of bindings whose dependencies are not known (closures that declared none).
    var uncheckedKeys: [BindingKey] {
        graph.vertices.compactMap { vertex in
            if case .unknown = vertex.shape.dependencies { return vertex.key }
            return nil
        }
    }

    // MARK: Missing bindings

    private func missingBindings() -> [ValidationFinding] {
        guard !graph.missing.isEmpty else { return [] }
        // The keys from a root down to each vertex: the outer parts of the problems' paths, shared by
        // them all. Made only for a graph with a missing binding.
        let paths = PathForest(keys: graph.vertices.map(\.key), parents: parent)
        var dependents = [[ValidationFinding.EdgeID]](repeating: [], count: graph.missing.count)
        for (index, vertex) in graph.vertices.enumerated() {
            for (position, edge) in vertex.edges.enumerated() {
                if case .missing(let missing) = edge.target {
                    dependents[missing].append(ValidationFinding.EdgeID(vertex: index, index: position))
                }
            }
        }
        return graph.missing.enumerated().compactMap { index, missing in
            guard let first = dependents[index].first else { return nil }
            var neededBy: [BindingKey] = []
            for edge in dependents[index] where neededBy.last != graph.vertices[edge.vertex].key {
                neededBy.append(graph.vertices[edge.vertex].key)
            }
            let error = ProvisionError.unsatisfied(missing, path: [missing.key], neededBy: neededBy, in: graph)
                .sharing(PathBranch(forest: paths, vertex: first.vertex, direction: .fromRoot))
            return ValidationFinding(
                error: error,
                vertices: dependents[index].map(\.vertex),
                edges: dependents[index],
                missing: [index]
            )
        }
    }

    // MARK: Cycles

    /// Depth first over construction edges; every edge back to a vertex on the walk's stack closes a
    /// cycle, reported once per set of bindings with the stack as its path.
    ///
    /// A cycle's path is the stack: the walk's route from its start down to the edge that closes the
    /// cycle. The routes are read from one forest of the walk's steps (each vertex linked to the vertex
    /// it was pushed from) rather than copied per cycle, so that many cycles deep in a graph cost their
    /// own lengths, not the depth each.
    private func cycles() -> [ValidationFinding] {
        let count = graph.vertices.count
        var closing: [(vertex: Int, target: Int, members: [Int], edges: [ValidationFinding.EdgeID])] = []
        var reported: Set<[Int]> = []
        // 0: not visited, 1: on the stack, 2: done.
        var state = [UInt8](repeating: 0, count: count)
        // Where each vertex on the stack is on it, and the vertex it was pushed from (-1 for a start).
        var position = [Int](repeating: -1, count: count)
        var pushedFrom = [Int](repeating: -1, count: count)
        var stack: [(vertex: Int, next: Int)] = []
        for start in startOrder where state[start] == 0 {
            state[start] = 1
            position[start] = 0
            stack.append((start, 0))
            while let (vertex, next) = stack.last {
                let edges = graph.vertices[vertex].edges
                guard next < edges.count else {
                    state[vertex] = 2
                    stack.removeLast()
                    continue
                }
                stack[stack.count - 1].next += 1
                let edge = edges[next]
                guard edge.kind != .deferred, case .vertex(let target) = edge.target else { continue }
                switch state[target] {
                case 0:
                    state[target] = 1
                    position[target] = stack.count
                    pushedFrom[target] = vertex
                    stack.append((target, 0))
                case 1:
                    let loop = stack[position[target]...]
                    let members = loop.map(\.vertex)
                    guard reported.insert(members.sorted()).inserted else { continue }
                    let loopEdges = loop.map { ValidationFinding.EdgeID(vertex: $0.vertex, index: $0.next - 1) }
                    closing.append((vertex, target, members, loopEdges))
                default:
                    break
                }
            }
        }
        guard !closing.isEmpty else { return [] }
        let routes = PathForest(keys: graph.vertices.map(\.key), parents: pushedFrom)
        return closing.map { vertex, target, members, edges in
            let key = graph.vertices[target].key
            return ValidationFinding(
                error: ProvisionError.cycle(key, path: [key])
                    .sharing(PathBranch(forest: routes, vertex: vertex, direction: .fromRoot)),
                vertices: members,
                edges: edges
            )
        }
    }

    // MARK: Captive dependencies

    /// For every binding with a lifetime, the shortest lifetime it reaches through construction edges
    /// and transient bindings; shorter than its own is captive.
    ///
    /// A transient binding's reach is computed once and shared (it doesn't depend on who asks), so the
    /// rule is linear in the graph's size.
    private func captiveDependencies() -> [ValidationFinding] {
        let ranks = Set(graph.vertices.compactMap(\.lifetime.rank))
        // With a single ranked lifetime (today: singleton), nothing can be captive.
        guard ranks.count > 1 else { return [] }
        var reach = TransientReach(graph: graph)
        var findings: [ValidationFinding] = []
        // Each holder of a shorter-lived binding, and the dependency it reaches it through.
        var captures: [(holder: Int, via: Int)] = []
        for (index, holder) in graph.vertices.enumerated() {
            guard let holderRank = holder.lifetime.rank else { continue }
            var shortest: (rank: Int, via: Int)?
            for edge in holder.edges where edge.kind != .deferred {
                guard case .vertex(let target) = edge.target else { continue }
                if graph.vertices[target].shape.kind == .handle {
                    // A handle (Provider, Lazy) resolves later, in the scope it was made in: a singleton's
                    // handles belong to no scope, so one of a scoped binding or a seed fails every time, as
                    // does one of a transient, list or optional that reaches one. (Found by hunt 18: only
                    // a handle of the scoped binding itself was reported.)
                    guard holder.lifetime == .singleton else { continue }
                    for deferred in graph.vertices[target].edges {
                        guard case .vertex(let resolved) = deferred.target,
                            let rank = graph.vertices[resolved].lifetime.rank ?? reach.shortestRank(from: resolved),
                            rank < holderRank, rank < shortest?.rank ?? Int.max
                        else { continue }
                        shortest = (rank, resolved)
                    }
                    continue
                }
                guard let rank = graph.vertices[target].lifetime.rank ?? reach.shortestRank(from: target) else {
                    continue
                }
                if rank < shortest?.rank ?? Int.max { shortest = (rank, target) }
            }
            guard let shortest, shortest.rank < holderRank else { continue }
            captures.append((index, shortest.via))
        }
        guard !captures.isEmpty else { return [] }
        // Each holder's path runs down a route of transients to the captive: routes many holders share
        // (singletons over one long chain of transients), read from one forest rather than copied.
        let routes = reach.routes()
        var marked = [Bool](repeating: false, count: graph.vertices.count)
        for (index, via) in captures {
            let holder = graph.vertices[index]
            let captive = graph.vertices[routes.roots[via]]
            // The route's vertices and edges, for diagrams, down to the first vertex an earlier finding
            // marked: the rest of the route is that finding's too.
            var vertices = [index]
            var edges: [ValidationFinding.EdgeID] = []
            var from = index
            var current = via
            while current >= 0 {
                if let position = graph.vertices[from].edges.firstIndex(where: { $0.target == .vertex(current) }) {
                    edges.append(ValidationFinding.EdgeID(vertex: from, index: position))
                }
                if marked[current] { break }
                marked[current] = true
                vertices.append(current)
                from = current
                current = routes.parents[current]
            }
            findings.append(
                ValidationFinding(
                    error: ProvisionError.captiveDependency(
                        holder: holder.key,
                        holderLifetime: holder.lifetime,
                        captive: captive.key,
                        captiveLifetime: captive.lifetime,
                        path: [holder.key],
                        captiveIsSeed: captive.shape.kind == .seed
                    ).sharing(PathBranch(forest: routes, vertex: via, direction: .towardRoot)),
                    vertices: vertices,
                    edges: edges
                )
            )
        }
        return findings
    }

    /// The keys of the injector's own transient bindings (depth 0) that reach a scoped binding through
    /// construction edges and other transients: what its ``ValidationSeal`` records, so that a child's
    /// singleton depending on one is still found captive. Empty, without a walk, when the graph has no
    /// scoped binding.
    func transientsReachingScoped() -> Set<BindingKey> {
        guard let scopedRank = Lifetime.scoped.rank,
            graph.vertices.contains(where: { $0.lifetime == .scoped })
        else {
            return []
        }
        var reach = TransientReach(graph: graph)
        var keys: Set<BindingKey> = []
        for (index, vertex) in graph.vertices.enumerated()
        where vertex.depth == 0 && vertex.lifetime == .transient && !vertex.isJustInTime {
            if let rank = reach.shortestRank(from: index), rank <= scopedRank { keys.insert(vertex.key) }
        }
        return keys
    }

    // MARK: Eager bindings

    /// Each eager key is looked up as a request finds it (the same order as `Injector.lookup`): the
    /// nearest injector's binding, own or an ancestor's, then the just-in-time declaration that
    /// `justInTimeScope` reports.
    private func eagerBindings(
        _ eager: [(BindingKey, SourceLocation)],
        justInTimeScope: (BindingKey) -> Scope?
    ) -> [ValidationFinding] {
        guard !eager.isEmpty else { return [] }
        var nearest: [BindingKey: Int] = [:]
        for (index, vertex) in graph.vertices.enumerated() where !vertex.isJustInTime {
            if let known = nearest[vertex.key], graph.vertices[known].depth <= vertex.depth { continue }
            nearest[vertex.key] = index
        }
        return eager.compactMap { key, location in
            let vertex = nearest[key]
            guard let scope = vertex.map({ graph.vertices[$0].scope }) ?? justInTimeScope(key) else {
                return ValidationFinding(error: ProvisionError.notBound(key, path: [key]))
            }
            guard !scope.isSingleton else { return nil }
            return ValidationFinding(
                error: ProvisionError.eagerNotSingleton(key, scope: scope, at: location),
                vertices: vertex.map { [$0] } ?? []
            )
        }
    }
}

/// The shortest lifetime each transient binding reaches through construction edges and other
/// transients, memoized: what a longer-lived binding depending on it would capture.
private struct TransientReach {
    let graph: BindingGraph
    /// 0: not computed, 1: being computed (a cycle, reported elsewhere), 2: done.
    private var state: [UInt8]
    private var best: [Int?]
    /// The dependency through which `best` is reached.
    private var via: [Int]

    init(graph: BindingGraph) {
        self.graph = graph
        state = [UInt8](repeating: 0, count: graph.vertices.count)
        best = [Int?](repeating: nil, count: graph.vertices.count)
        via = [Int](repeating: -1, count: graph.vertices.count)
    }

    /// The shortest lifetime rank reachable from the transient `start`, or `nil` when it only reaches
    /// transients. Iterative, so that a long chain of transients can't overflow the stack.
    mutating func shortestRank(from start: Int) -> Int? {
        if state[start] == 0 {
            state[start] = 1
            var stack: [(vertex: Int, next: Int)] = [(start, 0)]
            while let (vertex, next) = stack.last {
                let edges = graph.vertices[vertex].edges
                guard next < edges.count else {
                    state[vertex] = 2
                    stack.removeLast()
                    if let dependent = stack.last?.vertex, let rank = best[vertex] {
                        relax(dependent, rank: rank, via: vertex)
                    }
                    continue
                }
                stack[stack.count - 1].next += 1
                guard edges[next].kind != .deferred, case .vertex(let target) = edges[next].target else { continue }
                if let rank = graph.vertices[target].lifetime.rank {
                    relax(vertex, rank: rank, via: target)
                } else if state[target] == 0 {
                    state[target] = 1
                    stack.append((target, 0))
                } else if state[target] == 2, let rank = best[target] {
                    relax(vertex, rank: rank, via: target)
                }
            }
        }
        return best[start]
    }

    /// The routes from each transient down to the shortest-lived binding it reaches: each transient is
    /// linked to the dependency it reaches that binding through, and every other vertex is a root. The
    /// route from a vertex to its root is the chain a captive dependency's path follows.
    func routes() -> PathForest {
        PathForest(
            keys: graph.vertices.map(\.key),
            parents: graph.vertices.indices.map { graph.vertices[$0].lifetime.rank == nil ? via[$0] : -1 }
        )
    }

    private mutating func relax(_ vertex: Int, rank: Int, via target: Int) {
        if rank < best[vertex] ?? Int.max {
            best[vertex] = rank
            via[vertex] = target
        }
    }
}
