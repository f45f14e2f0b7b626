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
    /// The vertices in the order the breadth-first walk reached them (each after its ``parent``).
    private var reachOrder: [Int]

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
        reachOrder = queue
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
        let paths = PathForest(keys: graph.vertices.map(\.key), parents: parent, order: reachOrder)
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
                .under(PathBranch(forest: paths, vertex: first.vertex))
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
    private func cycles() -> [ValidationFinding] {
        var findings: [ValidationFinding] = []
        var reported: Set<[Int]> = []
        // 0: not visited, 1: on the stack, 2: done.
        var state = [UInt8](repeating: 0, count: graph.vertices.count)
        var stack: [(vertex: Int, next: Int)] = []
        for start in startOrder where state[start] == 0 {
            state[start] = 1
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
                    stack.append((target, 0))
                case 1:
                    guard let loopStart = stack.firstIndex(where: { $0.vertex == target }) else { continue }
                    let members = stack[loopStart...].map(\.vertex)
                    guard reported.insert(members.sorted()).inserted else { continue }
                    let keys = stack.map { graph.vertices[$0.vertex].key } + [graph.vertices[target].key]
                    findings.append(
                        ValidationFinding(
                            error: ProvisionError.cycle(graph.vertices[target].key, path: keys),
                            vertices: members,
                            edges: stack[loopStart...].map {
                                ValidationFinding.EdgeID(vertex: $0.vertex, index: $0.next - 1)
                            }
                        )
                    )
                default:
                    break
                }
            }
        }
        return findings
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
            let chain = [index] + reach.chain(from: shortest.via)
            let keys = chain.map { graph.vertices[$0].key }
            guard let captive = chain.last else { continue }
            findings.append(
                ValidationFinding(
                    error: ProvisionError.captiveDependency(
                        holder: holder.key,
                        holderLifetime: holder.lifetime,
                        captive: graph.vertices[captive].key,
                        captiveLifetime: graph.vertices[captive].lifetime,
                        path: keys,
                        captiveIsSeed: graph.vertices[captive].shape.kind == .seed
                    ),
                    vertices: chain,
                    edges: zip(chain, chain.dropFirst()).compactMap { from, to in
                        graph.vertices[from].edges.firstIndex { $0.target == .vertex(to) }.map {
                            ValidationFinding.EdgeID(vertex: from, index: $0)
                        }
                    }
                )
            )
        }
        return findings
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

    /// The vertices from `start` (transient or not) down to the captured binding.
    func chain(from start: Int) -> [Int] {
        var chain = [start]
        var current = start
        while graph.vertices[current].lifetime.rank == nil, via[current] >= 0, chain.count <= graph.vertices.count {
            current = via[current]
            chain.append(current)
        }
        return chain
    }

    private mutating func relax(_ vertex: Int, rank: Int, via target: Int) {
        if rank < best[vertex] ?? Int.max {
            best[vertex] = rank
            via[vertex] = target
        }
    }
}
