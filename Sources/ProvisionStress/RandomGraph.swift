/// How a node of a random graph builds its instance.
enum NodeRecipe: Sendable {
    /// `to { (a: A, b: B) in ... }`: typed parameters, resolved by the injector (the initializer form).
    case constructor
    /// `to { (resolver: Resolver) in ... }`: synchronous requests through the resolver.
    case closure
    /// `to { (resolver: Resolver) async throws in ... }`: awaited requests through the resolver.
    case asyncClosure
}

/// How long a node's instances live.
enum NodeLifetime: Sendable {
    case transient
    case singleton
    case scoped
}

/// A dependency of a node: another node, or a port (a protocol key delegating to a node with
/// `to(binding:)`).
enum Edge: Sendable, Hashable {
    case node(Int)
    case port(Int)
}

/// What a request for a key may run into, given the graph below it: the errors that are legitimate for
/// it apart from the moment's (shutdown, a closed scope, cancellation).
struct Reach: Sendable {
    /// A failing factory is below: `factoryFailed` caused by ``InjectedFailure``.
    var mayFail = false
    /// The cyclic pair is below: `cycle`.
    var reachesCycle = false
    /// A scoped instance is below, through transients only: `outsideScope` outside any scope.
    var needsScope = false
    /// An async factory is below.
    var needsAsync = false
    /// A synchronous request may meet a singleton or scoped build that an async request owns, or an
    /// async factory: `requiresAsync`.
    var syncHazard = false
    /// An async request may reach a synchronous request (in a closure or an injected property) that
    /// has a ``syncHazard``: `requiresAsync`.
    var asyncHazard = false

    /// What the cyclic pair's singletons reach: the cycle, and (being singletons requested from
    /// synchronous closures) the hazards of a build owned by an async request.
    static let cyclicPair = Reach(reachesCycle: true, syncHazard: true, asyncHazard: true)

    /// The reach of a binding with `lifetime` and `recipe` whose requests reach `edges`; `syncOnly`
    /// tells, per edge, whether it is requested synchronously even in an async request (a closure's
    /// request, an injected property).
    static func of(
        lifetime: NodeLifetime,
        recipe: NodeRecipe,
        fails: Bool,
        edges: [(reach: Reach, syncOnly: Bool)]
    ) -> Reach {
        var reach = Reach()
        reach.mayFail = fails || edges.contains { $0.reach.mayFail }
        reach.reachesCycle = edges.contains { $0.reach.reachesCycle }
        reach.needsAsync = recipe == .asyncClosure || edges.contains { $0.reach.needsAsync }
        reach.needsScope = lifetime == .scoped || (lifetime == .transient && edges.contains { $0.reach.needsScope })
        reach.syncHazard = lifetime != .transient || recipe == .asyncClosure || edges.contains { $0.reach.syncHazard }
        reach.asyncHazard = edges.contains { $0.syncOnly ? $0.reach.syncHazard : $0.reach.asyncHazard }
        return reach
    }
}

/// One node of a random graph.
struct NodeSpec: Sendable {
    let index: Int
    var recipe: NodeRecipe
    var lifetime: NodeLifetime
    /// Constructor parameters or closure requests, in order.
    var edges: [Edge]
    /// Ports injected as properties (constructor nodes only: the injector injects the properties of
    /// what it constructs, not of closure results).
    var properties: [Int]
    /// The factory fails at random (a third of its runs) with ``InjectedFailure``.
    var fails: Bool
    /// A singleton with `onStart` and `onStop` hooks.
    var hooks: Bool
    var startHookFails: Bool
    var stopHookFails: Bool
    /// A transient closure that first requests the cyclic pair (cyclic rounds only).
    var requestsCycle: Bool
}

/// A random acyclic service graph: nodes `0..<count`, each depending only on lower nodes (directly or
/// through a port whose target is lower), so the graph has no cycle; in a cyclic round, two more
/// singletons that need each other through closures.
struct GraphSpec: Sendable {
    let seed: UInt64
    var nodes: [NodeSpec] = []
    /// The node each port delegates to.
    var ports: [Int] = []
    var cyclic = false
    /// Per node, what a request for it may run into.
    var reach: [Reach] = []
    /// Per node, every node it reaches (through any edge, property and port).
    var below: [Set<Int>] = []
    /// Per node, every node it reaches through its bindings' declared dependencies: constructor
    /// parameters and ports, not injected properties, not closures' requests.
    var declaredBelow: [Set<Int>] = []
    /// Per node, every node it reaches without injected properties.
    var requestedBelow: [Set<Int>] = []

    /// The most nodes a graph has (the number of node types).
    static let maxNodes = 40

    /// The node an edge leads to.
    func target(_ edge: Edge) -> Int {
        switch edge {
        case .node(let index): index
        case .port(let port): ports[port]
        }
    }

    /// The services (singletons with hooks).
    var services: [Int] { nodes.filter(\.hooks).map(\.index) }

    /// Generates the graph of `seed`: 10-40 nodes, 0-4 ports, cyclic one time in four.
    static func generate(seed: UInt64) -> GraphSpec {
        var random = SeededGenerator(seed: seed)
        var spec = GraphSpec(seed: seed)
        let count = 10 + Int(random.next() % UInt64(maxNodes - 9))
        spec.cyclic = random.next() % 4 == 0
        spec.ports = (0..<Int(random.next() % 5)).map { _ in Int(random.next() % UInt64(count / 2)) }
        var cost: [Int] = []
        var placedCycleUser = false
        for index in 0..<count {
            var node = randomNode(index, &random)
            node.edges = spec.pickEdges(for: node, count: Int(random.next() % 4), &random)
            if node.recipe == .constructor && random.next() % 3 == 0 {
                node.properties = spec.pickProperties(for: node, count: 1 + Int(random.next() % 2), &random)
            }
            // Transients below a transient are built once per request: keep a request's instances few.
            func weight(_ target: Int) -> Int { spec.nodes[target].lifetime == .transient ? cost[target] : 1 }
            func total() -> Int {
                1 + node.edges.map { weight(spec.target($0)) }.reduce(0, +)
                    + node.properties.map { weight(spec.ports[$0]) }.reduce(0, +)
            }
            while total() > 40 {
                if !node.properties.isEmpty { node.properties.removeLast() } else { node.edges.removeLast() }
            }
            cost.append(total())
            if spec.cyclic && !placedCycleUser && node.lifetime == .transient && node.recipe == .closure
                && random.next() % 2 == 0
            {
                node.requestsCycle = true
                placedCycleUser = true
            }
            spec.nodes.append(node)
            spec.reach.append(spec.computeReach(of: node))
            var below: Set<Int> = []
            for target in node.edges.map(spec.target) + node.properties.map({ spec.ports[$0] }) {
                below.insert(target)
                below.formUnion(spec.below[target])
            }
            spec.below.append(below)
            var declared: Set<Int> = []
            if node.recipe == .constructor {
                for target in node.edges.map(spec.target) {
                    declared.insert(target)
                    declared.formUnion(spec.declaredBelow[target])
                }
            }
            spec.declaredBelow.append(declared)
            var requested: Set<Int> = []
            for target in node.edges.map(spec.target) {
                requested.insert(target)
                requested.formUnion(spec.requestedBelow[target])
            }
            spec.requestedBelow.append(requested)
        }
        return spec
    }

    private static func randomNode(_ index: Int, _ random: inout SeededGenerator) -> NodeSpec {
        let lifetime: NodeLifetime =
            switch random.next() % 20 {
            case 0..<9: .transient
            case 9..<16: .singleton
            default: .scoped
            }
        let recipe: NodeRecipe =
            switch random.next() % 10 {
            case 0..<5: .constructor
            case 5..<8: .closure
            default: .asyncClosure
            }
        let hooks = lifetime == .singleton && random.next() % 2 == 0
        return NodeSpec(
            index: index,
            recipe: recipe,
            lifetime: lifetime,
            edges: [],
            properties: [],
            fails: random.next() % 7 == 0,
            hooks: hooks,
            startHookFails: hooks && random.next() % 25 == 0,
            stopHookFails: hooks && random.next() % 25 == 0,
            requestsCycle: false
        )
    }

    /// Whether `node` may depend on `target` (requested synchronously when `syncOnly`): never on a
    /// scoped instance from a singleton (a captive dependency), never on an async factory from a
    /// synchronous request.
    private func allows(_ node: NodeSpec, _ target: Int, syncOnly: Bool) -> Bool {
        guard target < node.index else { return false }
        if node.lifetime == .singleton && reach[target].needsScope { return false }
        if syncOnly && reach[target].needsAsync { return false }
        return true
    }

    private func pickEdges(for node: NodeSpec, count: Int, _ random: inout SeededGenerator) -> [Edge] {
        let syncOnly = node.recipe == .closure
        var candidates = (0..<node.index).map(Edge.node) + ports.indices.map(Edge.port)
        candidates.removeAll { !allows(node, target($0), syncOnly: syncOnly) }
        return Array(candidates.shuffled(using: &random).prefix(count))
    }

    private func pickProperties(for node: NodeSpec, count: Int, _ random: inout SeededGenerator) -> [Int] {
        let candidates = ports.indices.filter { allows(node, ports[$0], syncOnly: true) }
        return Array(candidates.shuffled(using: &random).prefix(count))
    }

    private func computeReach(of node: NodeSpec) -> Reach {
        var edges = node.edges.map { (reach: reach[target($0)], syncOnly: node.recipe == .closure) }
        edges += node.properties.map { (reach: reach[ports[$0]], syncOnly: true) }
        if node.requestsCycle { edges.append((reach: .cyclicPair, syncOnly: true)) }
        return Reach.of(lifetime: node.lifetime, recipe: node.recipe, fails: node.fails, edges: edges)
    }

    /// One line describing the graph, for a failure report.
    var summary: String {
        let counts = [NodeLifetime.transient, .singleton, .scoped].map { lifetime in
            nodes.filter { $0.lifetime == lifetime }.count
        }
        let edges = nodes.map { $0.edges.count + $0.properties.count }.reduce(0, +)
        return "\(nodes.count) nodes (transient \(counts[0]), singleton \(counts[1]), scoped \(counts[2])), "
            + "\(edges) edges, \(ports.count) ports, \(services.count) services, "
            + "\(nodes.filter(\.fails).count) failing, " + (cyclic ? "cyclic pair" : "acyclic")
    }
}
