import Provision
import Swinject

/// The graph of the "validate, 10k bindings" scenario: 10,000 named bindings, each of the later ones
/// declaring three dependencies among the hundred bindings before it (a deterministic pseudo-random
/// choice), about a third of them singletons. Made at run time, so it is the same for every column.
struct ValidationGraph: Sendable {
    static let bindingCount = 10_000

    let names: [String]
    /// For each binding, the indices of its dependencies.
    let dependencies: [[Int]]
    let isSingleton: [Bool]

    init(count: Int = ValidationGraph.bindingCount) {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var dependencies: [[Int]] = []
        var isSingleton: [Bool] = []
        for index in 0..<count {
            var chosen: [Int] = []
            if index >= 3 {
                let window = min(index, 100)
                while chosen.count < 3 {
                    let candidate = index - 1 - next(window)
                    if !chosen.contains(candidate) { chosen.append(candidate) }
                }
            }
            dependencies.append(chosen)
            isSingleton.append(next(3) == 0)
        }
        self.names = (0..<count).map { "binding \($0)" }
        self.dependencies = dependencies
        self.isSingleton = isSingleton
    }

    /// The Provision module: closures that declare (and resolve) their dependencies.
    struct ProvisionModule: Module {
        let graph: ValidationGraph

        func configure(_ binder: Binder) {
            for (index, name) in graph.names.enumerated() {
                let keys = graph.dependencies[index].map { BindingKey(BenchLeaf.self, named: graph.names[$0]) }
                let builder = binder.bind(BenchLeaf.self, named: name).to(dependencies: keys) { resolver in
                    for key in keys { _ = try resolver.get(BenchLeaf.self, named: key.name) }
                    return BenchLeaf()
                }
                if graph.isSingleton[index] { builder.in(.singleton) }
            }
        }
    }

    /// The hand-wired equivalent of the bindings' declarations: each key's dependency keys.
    var table: [HandKey: [HandKey]] {
        var table: [HandKey: [HandKey]] = [:]
        table.reserveCapacity(names.count)
        for (index, name) in names.enumerated() {
            table[HandKey(BenchLeaf.self, name)] = dependencies[index].map { HandKey(BenchLeaf.self, names[$0]) }
        }
        return table
    }

    /// What validation checks, written by hand over the table: every dependency exists, and a depth-first
    /// walk finds no edge back onto its stack. Returns the number of keys checked.
    static func check(_ table: [HandKey: [HandKey]], order: [HandKey]) -> Int {
        // 0: not visited, 1: on the stack, 2: done.
        var state: [HandKey: UInt8] = [:]
        state.reserveCapacity(table.count)
        var checked = 0
        for root in order where state[root] == nil {
            var stack: [(HandKey, Int)] = [(root, 0)]
            state[root] = 1
            while let (key, next) = stack.last {
                let dependencies = table[key] ?? []
                guard next < dependencies.count else {
                    state[key] = 2
                    checked += 1
                    stack.removeLast()
                    continue
                }
                stack[stack.count - 1].1 += 1
                let dependency = dependencies[next]
                guard table[dependency] != nil else { preconditionFailure("di-bench: missing \(dependency)") }
                switch state[dependency] {
                case nil:
                    state[dependency] = 1
                    stack.append((dependency, 0))
                case 1:
                    preconditionFailure("di-bench: the validation graph has a cycle")
                default:
                    break
                }
            }
        }
        return checked
    }

    /// The Swinject container: each registration resolves its dependencies by name. Every registration
    /// is container-scoped, so that resolving each one once builds each object once (transient
    /// registrations would rebuild shared dependencies along every path of the graph).
    func container() -> Container {
        let container = Container()
        for (index, name) in names.enumerated() {
            let dependencyNames = dependencies[index].map { names[$0] }
            container.register(BenchLeaf.self, name: name) { resolver in
                for dependency in dependencyNames { _ = resolved(resolver, BenchLeaf.self, named: dependency) }
                return BenchLeaf()
            }
            .inObjectScope(.container)
        }
        return container
    }
}
