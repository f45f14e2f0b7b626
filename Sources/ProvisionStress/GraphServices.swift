import Provision
import Synchronization

// The services of the random graphs (see RandomGraph.swift): one class per node index, ports (protocols
// that delegate to a node), the cyclic pair, child-injector and plugin services. Every object counts
// itself alive, knows which binding built it, and checks at its deinit that it was disposed as often as
// its lifetime says.

/// Counts live objects of the random graphs: back to zero once a round's injector is dropped.
enum GraphLive {
    static let count = Atomic<Int>(0)
    static let created = Atomic<Int>(0)
}

/// What a factory chosen to fail throws.
struct InjectedFailure: Error {
    let label: String
}

/// The ports: protocol keys bound with `to(binding:)` to a node, injected as properties or requested.
protocol Port0: AnyObject, Sendable {}
protocol Port1: AnyObject, Sendable {}
protocol Port2: AnyObject, Sendable {}
protocol Port3: AnyObject, Sendable {}

/// Gives each node class of the graph its index.
protocol NodeTag: SendableMetatype {
    static var index: Int { get }
}

/// The base of every graph object: lifetime and disposal accounting.
class GraphObject: Disposable, @unchecked Sendable {
    /// The counters of the binding that built the object.
    let counters: FactoryCounters
    let round: RoundState
    /// What the factory was given.
    let dependencies: [AnyObject]
    private let complete = Atomic<Bool>(false)
    private let disposals = Atomic<Int>(0)

    init(_ counters: FactoryCounters, _ round: RoundState, _ dependencies: [AnyObject]) {
        self.counters = counters
        self.round = round
        self.dependencies = dependencies
        GraphLive.count.add(1, ordering: .relaxed)
        GraphLive.created.add(1, ordering: .relaxed)
    }

    deinit {
        round.ended(
            counters, complete: complete.load(ordering: .acquiring), disposals: disposals.load(ordering: .acquiring))
        GraphLive.count.subtract(1, ordering: .relaxed)
    }

    var lifetime: NodeLifetime { counters.lifetime }

    /// Whether construction finished (for a constructor node: after its properties were injected).
    var isComplete: Bool { complete.load(ordering: .acquiring) }

    var disposalCount: Int { disposals.load(ordering: .acquiring) }

    /// Marks construction finished; returns whether it was already.
    func markComplete() -> Bool {
        complete.exchange(true, ordering: .acquiringAndReleasing)
    }

    /// The objects this one holds: its dependencies, and its injected properties.
    var held: [AnyObject] { dependencies }

    func dispose() throws {
        round.disposing(self)
        disposals.add(1, ordering: .acquiringAndReleasing)
    }
}

/// The class of node `Tag.index`: its ports are set by property injection when the round's graph says
/// so.
final class GraphNode<Tag: NodeTag>: GraphObject, Port0, Port1, Port2, Port3, PropertyInjectable, @unchecked Sendable {
    var port0: (any Port0)?
    var port1: (any Port1)?
    var port2: (any Port2)?
    var port3: (any Port3)?

    static var injectedProperties: [InjectedProperty] {
        activeGraph.withLock { $0?.nodes[Tag.index].properties ?? [] }.map { port in
            switch port {
            case 0: .inject(\GraphNode<Tag>.port0)
            case 1: .inject(\GraphNode<Tag>.port1)
            case 2: .inject(\GraphNode<Tag>.port2)
            default: .inject(\GraphNode<Tag>.port3)
            }
        }
    }

    func didInjectDependencies() {
        round.injected(self, node: Tag.index)
    }

    override var held: [AnyObject] {
        let ports: [AnyObject?] = [port0, port1, port2, port3]
        return dependencies + ports.compactMap { $0 }
    }
}

/// The graph the node classes read their injected properties from: the current round's.
let activeGraph = Locked<GraphSpec?>(nil)

/// The two singletons of a cyclic round, which need each other through closures.
enum CycleA: NodeTag { static var index: Int { -1 } }
enum CycleB: NodeTag { static var index: Int { -2 } }
final class CycleNode<Tag: NodeTag>: GraphObject, @unchecked Sendable {}

/// A child injector's own service.
final class ChildService: GraphObject, @unchecked Sendable {}

/// A service installed at run time.
final class Plugin: GraphObject, @unchecked Sendable {}

// MARK: - Type-erased keys

/// Sees a type as a generic parameter: how a constructor binding is made with typed parameters chosen at
/// run time.
protocol TypeVisitor {
    associatedtype Output
    func visit<Value>(_ type: Value.Type) -> Output
}

/// A key the graph requests, type-erased.
protocol GraphKeyRef: Sendable {
    func get(from injector: Injector) throws(ProvisionError) -> AnyObject
    func get(from injector: Injector) async throws(ProvisionError) -> AnyObject
    func get(from scope: ServiceScope) throws(ProvisionError) -> AnyObject
    func get(from scope: ServiceScope) async throws(ProvisionError) -> AnyObject
    func get(from resolver: Resolver) throws(ProvisionError) -> AnyObject
    func get(from resolver: Resolver) async throws(ProvisionError) -> AnyObject
    func open<Visitor: TypeVisitor>(_ visitor: Visitor) -> Visitor.Output
    var bindingKey: BindingKey { get }
}

struct KeyRef<Value>: GraphKeyRef {
    var name: String?

    var bindingKey: BindingKey { BindingKey(Value.self, named: name) }

    func get(from injector: Injector) throws(ProvisionError) -> AnyObject {
        try injector.get(Value.self, named: name) as AnyObject
    }

    func get(from injector: Injector) async throws(ProvisionError) -> AnyObject {
        try await injector.get(Value.self, named: name) as AnyObject
    }

    func get(from scope: ServiceScope) throws(ProvisionError) -> AnyObject {
        try scope.get(Value.self, named: name) as AnyObject
    }

    func get(from scope: ServiceScope) async throws(ProvisionError) -> AnyObject {
        try await scope.get(Value.self, named: name) as AnyObject
    }

    func get(from resolver: Resolver) throws(ProvisionError) -> AnyObject {
        try resolver.get(Value.self, named: name) as AnyObject
    }

    func get(from resolver: Resolver) async throws(ProvisionError) -> AnyObject {
        try await resolver.get(Value.self, named: name) as AnyObject
    }

    func open<Visitor: TypeVisitor>(_ visitor: Visitor) -> Visitor.Output {
        visitor.visit(Value.self)
    }
}

let portRefs: [any GraphKeyRef] = [
    KeyRef<any Port0>(), KeyRef<any Port1>(), KeyRef<any Port2>(), KeyRef<any Port3>(),
]

let cycleRefs: [any GraphKeyRef] = [KeyRef<CycleNode<CycleA>>(), KeyRef<CycleNode<CycleB>>()]

// MARK: - Constructor bindings with run-time parameter types

/// Binds `builder` to a constructor whose parameters are the types of `dependencies` (up to three), so
/// that the injector resolves them as it resolves an initializer's parameters.
@discardableResult
func construct<N>(
    _ builder: BindingBuilder<N>,
    _ dependencies: [any GraphKeyRef],
    _ make: @escaping @Sendable ([AnyObject]) throws -> N
) -> ScopeBuilder<N> {
    switch dependencies.count {
    case 0: builder.to { () throws -> N in try make([]) }
    case 1: dependencies[0].open(Construct1(builder: builder, make: make))
    case 2: dependencies[0].open(Construct2(builder: builder, second: dependencies[1], make: make))
    default:
        dependencies[0].open(
            Construct3(builder: builder, second: dependencies[1], third: dependencies[2], make: make))
    }
}

private struct Construct1<N>: TypeVisitor {
    let builder: BindingBuilder<N>
    let make: @Sendable ([AnyObject]) throws -> N

    func visit<A>(_ type: A.Type) -> ScopeBuilder<N> {
        builder.to { [make] (a: A) throws -> N in try make([a as AnyObject]) }
    }
}

private struct Construct2<N>: TypeVisitor {
    let builder: BindingBuilder<N>
    let second: any GraphKeyRef
    let make: @Sendable ([AnyObject]) throws -> N

    func visit<A>(_ type: A.Type) -> ScopeBuilder<N> {
        second.open(Construct2B<N, A>(builder: builder, make: make))
    }
}

private struct Construct2B<N, A>: TypeVisitor {
    let builder: BindingBuilder<N>
    let make: @Sendable ([AnyObject]) throws -> N

    func visit<B>(_ type: B.Type) -> ScopeBuilder<N> {
        builder.to { [make] (a: A, b: B) throws -> N in try make([a as AnyObject, b as AnyObject]) }
    }
}

private struct Construct3<N>: TypeVisitor {
    let builder: BindingBuilder<N>
    let second: any GraphKeyRef
    let third: any GraphKeyRef
    let make: @Sendable ([AnyObject]) throws -> N

    func visit<A>(_ type: A.Type) -> ScopeBuilder<N> {
        second.open(Construct3B<N, A>(builder: builder, third: third, make: make))
    }
}

private struct Construct3B<N, A>: TypeVisitor {
    let builder: BindingBuilder<N>
    let third: any GraphKeyRef
    let make: @Sendable ([AnyObject]) throws -> N

    func visit<B>(_ type: B.Type) -> ScopeBuilder<N> {
        third.open(Construct3C<N, A, B>(builder: builder, make: make))
    }
}

private struct Construct3C<N, A, B>: TypeVisitor {
    let builder: BindingBuilder<N>
    let make: @Sendable ([AnyObject]) throws -> N

    func visit<C>(_ type: C.Type) -> ScopeBuilder<N> {
        builder.to { [make] (a: A, b: B, c: C) throws -> N in
            try make([a as AnyObject, b as AnyObject, c as AnyObject])
        }
    }
}

/// Binds a port to a node with `to(binding:)`.
private struct PortDelegation: TypeVisitor {
    let binder: Binder
    let target: any GraphNodeRef

    func visit<Port>(_ type: Port.Type) {
        target.delegate(binder, as: type)
    }
}

// MARK: - Nodes and modules

/// A node class, type-erased.
protocol GraphNodeRef: Sendable {
    var key: any GraphKeyRef { get }
    func bind(_ binder: Binder, _ node: NodeSpec, _ round: RoundState)
    func delegate<Port>(_ binder: Binder, as port: Port.Type)
}

struct NodeRef<Tag: NodeTag>: GraphNodeRef {
    var key: any GraphKeyRef { KeyRef<GraphNode<Tag>>() }

    func delegate<Port>(_ binder: Binder, as port: Port.Type) {
        binder.bind(port).to(binding: GraphNode<Tag>.self)
    }

    func bind(_ binder: Binder, _ node: NodeSpec, _ round: RoundState) {
        let counters = round.counters[node.index]
        let dependencies = node.edges.map(round.keyRef)
        let cycle = node.requestsCycle ? cycleRefs[0] : nil
        let builder = binder.bind(GraphNode<Tag>.self)
        let scope: ScopeBuilder<GraphNode<Tag>>
        switch node.recipe {
        case .constructor:
            // Complete once its properties are injected (didInjectDependencies).
            scope = construct(builder, dependencies) { values in
                try round.build(counters, marksComplete: false) { GraphNode<Tag>(counters, round, values) }
            }
        case .closure:
            scope = builder.to { (resolver: Resolver) throws -> GraphNode<Tag> in
                var values: [AnyObject] = []
                if let cycle { values.append(try cycle.get(from: resolver)) }
                for dependency in dependencies { values.append(try dependency.get(from: resolver)) }
                return try round.build(counters, marksComplete: true) { GraphNode<Tag>(counters, round, values) }
            }
        case .asyncClosure:
            scope = builder.to { (resolver: Resolver) async throws -> GraphNode<Tag> in
                await Task.yield()
                var values: [AnyObject] = []
                for dependency in dependencies { values.append(try await dependency.get(from: resolver)) }
                return try round.build(counters, marksComplete: true) { GraphNode<Tag>(counters, round, values) }
            }
        }
        switch node.lifetime {
        case .transient:
            break
        case .scoped:
            scope.in(.scoped)
        case .singleton:
            let lifecycle = scope.in(.singleton)
            if node.hooks {
                let index = node.index
                lifecycle.onStart { instance in try await round.startHook(index, instance) }
                    .onStop { instance in try await round.stopHook(index, instance) }
            }
        }
    }
}

/// The round's graph: its nodes, its ports, and in a cyclic round the cyclic pair.
struct GraphModule: Module {
    let round: RoundState

    func configure(_ binder: Binder) {
        let round = self.round
        for node in round.spec.nodes {
            nodeRefs[node.index].bind(binder, node, round)
        }
        for (port, target) in round.spec.ports.enumerated() {
            portRefs[port].open(PortDelegation(binder: binder, target: nodeRefs[target]))
        }
        guard round.spec.cyclic else { return }
        let first = round.cycleCounters[0]
        let second = round.cycleCounters[1]
        binder.bind(CycleNode<CycleA>.self).to { (resolver: Resolver) throws -> CycleNode<CycleA> in
            let other = try resolver.get(CycleNode<CycleB>.self)
            return try round.build(first, marksComplete: true) { CycleNode<CycleA>(first, round, [other]) }
        }.in(.singleton)
        binder.bind(CycleNode<CycleB>.self).to { (resolver: Resolver) throws -> CycleNode<CycleB> in
            let other = try resolver.get(CycleNode<CycleA>.self)
            return try round.build(second, marksComplete: true) { CycleNode<CycleB>(second, round, [other]) }
        }.in(.singleton)
    }
}

/// A child injector's own bindings: a singleton closure and a transient constructor over the parent's
/// keys.
struct ChildModule: Module {
    let round: RoundState
    let child: ChildBox

    func configure(_ binder: Binder) {
        let round = self.round
        let child = self.child
        let singleton = child.singletonCounters
        let dependencies = child.singletonDependencies.map(\.ref)
        binder.bind(ChildService.self, named: "singleton").to { (resolver: Resolver) throws -> ChildService in
            var values: [AnyObject] = []
            for dependency in dependencies { values.append(try dependency.get(from: resolver)) }
            return try round.build(singleton, marksComplete: true) { ChildService(singleton, round, values) }
        }.in(.singleton)
        let transient = child.transientCounters
        construct(binder.bind(ChildService.self, named: "transient"), [child.transientDependency.ref]) { values in
            try round.build(transient, marksComplete: true) { ChildService(transient, round, values) }
        }
    }
}

/// A plugin installed into the running injector: one named binding over one of the graph's keys.
struct PluginModule: Module {
    let round: RoundState
    let plugin: PluginSpec

    func configure(_ binder: Binder) {
        let round = self.round
        let counters = plugin.counters
        let dependency = plugin.dependency.ref
        let builder = binder.bind(Plugin.self, named: plugin.name)
        if plugin.isSingleton {
            builder.to { (resolver: Resolver) throws -> Plugin in
                let value = try dependency.get(from: resolver)
                return try round.build(counters, marksComplete: true) { Plugin(counters, round, [value]) }
            }.in(.singleton)
        } else {
            construct(builder, [dependency]) { values in
                try round.build(counters, marksComplete: true) { Plugin(counters, round, values) }
            }
        }
    }
}

enum N0: NodeTag { static var index: Int { 0 } }
enum N1: NodeTag { static var index: Int { 1 } }
enum N2: NodeTag { static var index: Int { 2 } }
enum N3: NodeTag { static var index: Int { 3 } }
enum N4: NodeTag { static var index: Int { 4 } }
enum N5: NodeTag { static var index: Int { 5 } }
enum N6: NodeTag { static var index: Int { 6 } }
enum N7: NodeTag { static var index: Int { 7 } }
enum N8: NodeTag { static var index: Int { 8 } }
enum N9: NodeTag { static var index: Int { 9 } }
enum N10: NodeTag { static var index: Int { 10 } }
enum N11: NodeTag { static var index: Int { 11 } }
enum N12: NodeTag { static var index: Int { 12 } }
enum N13: NodeTag { static var index: Int { 13 } }
enum N14: NodeTag { static var index: Int { 14 } }
enum N15: NodeTag { static var index: Int { 15 } }
enum N16: NodeTag { static var index: Int { 16 } }
enum N17: NodeTag { static var index: Int { 17 } }
enum N18: NodeTag { static var index: Int { 18 } }
enum N19: NodeTag { static var index: Int { 19 } }
enum N20: NodeTag { static var index: Int { 20 } }
enum N21: NodeTag { static var index: Int { 21 } }
enum N22: NodeTag { static var index: Int { 22 } }
enum N23: NodeTag { static var index: Int { 23 } }
enum N24: NodeTag { static var index: Int { 24 } }
enum N25: NodeTag { static var index: Int { 25 } }
enum N26: NodeTag { static var index: Int { 26 } }
enum N27: NodeTag { static var index: Int { 27 } }
enum N28: NodeTag { static var index: Int { 28 } }
enum N29: NodeTag { static var index: Int { 29 } }
enum N30: NodeTag { static var index: Int { 30 } }
enum N31: NodeTag { static var index: Int { 31 } }
enum N32: NodeTag { static var index: Int { 32 } }
enum N33: NodeTag { static var index: Int { 33 } }
enum N34: NodeTag { static var index: Int { 34 } }
enum N35: NodeTag { static var index: Int { 35 } }
enum N36: NodeTag { static var index: Int { 36 } }
enum N37: NodeTag { static var index: Int { 37 } }
enum N38: NodeTag { static var index: Int { 38 } }
enum N39: NodeTag { static var index: Int { 39 } }

/// One reference per node type, by index.
let nodeRefs: [any GraphNodeRef] = [
    NodeRef<N0>(),
    NodeRef<N1>(),
    NodeRef<N2>(),
    NodeRef<N3>(),
    NodeRef<N4>(),
    NodeRef<N5>(),
    NodeRef<N6>(),
    NodeRef<N7>(),
    NodeRef<N8>(),
    NodeRef<N9>(),
    NodeRef<N10>(),
    NodeRef<N11>(),
    NodeRef<N12>(),
    NodeRef<N13>(),
    NodeRef<N14>(),
    NodeRef<N15>(),
    NodeRef<N16>(),
    NodeRef<N17>(),
    NodeRef<N18>(),
    NodeRef<N19>(),
    NodeRef<N20>(),
    NodeRef<N21>(),
    NodeRef<N22>(),
    NodeRef<N23>(),
    NodeRef<N24>(),
    NodeRef<N25>(),
    NodeRef<N26>(),
    NodeRef<N27>(),
    NodeRef<N28>(),
    NodeRef<N29>(),
    NodeRef<N30>(),
    NodeRef<N31>(),
    NodeRef<N32>(),
    NodeRef<N33>(),
    NodeRef<N34>(),
    NodeRef<N35>(),
    NodeRef<N36>(),
    NodeRef<N37>(),
    NodeRef<N38>(),
    NodeRef<N39>(),
]
