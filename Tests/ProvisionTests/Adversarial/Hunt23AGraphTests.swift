import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

/// A node of a lattice: its layer and column. Holds no object.
final class Hunt23ANode: Sendable {
    let layer: Int
    let column: Int
    init(layer: Int, column: Int) {
        self.layer = layer
        self.column = column
    }
}

/// A disposable node of a scoped lattice: records its disposal in a shared log.
final class Hunt23ADisposableNode: Disposable {
    let id: Int
    let log: Locked<[Int]>
    init(id: Int, log: Locked<[Int]>) {
        self.id = id
        self.log = log
    }
    func dispose() { log.withLock { $0.append(id) } }
}

/// Builders and timers shared by the hunt 23A suites.
enum Hunt23A {
    /// The name of the node at `layer`, `column`.
    static func name(_ prefix: String, _ layer: Int, _ column: Int) -> String { "\(prefix)\(layer)_\(column)" }

    /// The columns of layer `layer - 1` that node `column` of `layer` depends on.
    static func below(_ column: Int, width: Int, fan: Int) -> [Int] {
        Array(Set((0..<fan).map { (column + $0) % width })).sorted()
    }

    /// A lattice of `layers` x `width` declared closures: each node of a layer above 0 resolves `fan`
    /// nodes of the layer below. Node keys are `Hunt23ANode` named `prefix<layer>_<column>`. With
    /// `hooks`, every node gets start and stop hooks that append its id (`layer * width + column`) to
    /// `log`, negated for a stop. `bottomScope`, when given, is the scope of layer 0.
    static func lattice(
        _ prefix: String, layers: Int, width: Int, fan: Int, scope: Scope, bottomScope: Scope? = nil,
        hooks log: Locked<[Int]>? = nil
    ) -> ClosureModule {
        ClosureModule { binder in
            for layer in 0..<layers {
                for column in 0..<width {
                    let keys =
                        layer == 0
                        ? []
                        : below(column, width: width, fan: fan).map {
                            BindingKey(Hunt23ANode.self, named: name(prefix, layer - 1, $0))
                        }
                    let built = binder.bind(Hunt23ANode.self, named: name(prefix, layer, column)).to(
                        dependencies: keys
                    ) { resolver in
                        for key in keys { _ = try resolver.get(Hunt23ANode.self, named: key.name) }
                        return Hunt23ANode(layer: layer, column: column)
                    }.in(layer == 0 ? (bottomScope ?? scope) : scope)
                    if let log {
                        let id = layer * width + column
                        built.onStart { _ in log.withLock { $0.append(id) } }
                            .onStop { _ in log.withLock { $0.append(-id - 1) } }
                    }
                }
            }
        }
    }

    /// Runs `body`, logging how long it took under `label` (the log shows when a test fails).
    static func timed<T>(_ label: String, _ body: () throws -> T) rethrows -> T {
        let clock = ContinuousClock()
        let start = clock.now
        let value = try body()
        note("\(label): \(clock.now - start)")
        return value
    }

    /// Runs the async `body`, logging how long it took under `label`.
    static func timedAsync<T>(_ label: String, _ body: () async throws -> T) async rethrows -> T {
        let clock = ContinuousClock()
        let start = clock.now
        let value = try await body()
        note("\(label): \(clock.now - start)")
        return value
    }

    /// Logs `text` to standard error, and appends it to the file `HUNT23A_LOG` names, if any (for
    /// measuring by hand: a failed exit test may not show its standard error).
    static func note(_ text: String) {
        Hunt22A.log(text)
        guard let path = ProcessInfo.processInfo.environment["HUNT23A_LOG"],
            let handle = FileHandle(forWritingAtPath: path)
        else { return }
        handle.seekToEndOfFile()
        handle.write(Data("\(text)\n".utf8))
        handle.closeFile()
    }

    /// A size multiplier from the environment (`HUNT23A_SCALE`, 1 by default), for measuring scaling by
    /// hand.
    static var scale: Int {
        Int(ProcessInfo.processInfo.environment["HUNT23A_SCALE"] ?? "") ?? 1
    }
}

// MARK: - Tests

@Suite("Hunt 23A: wide lattices, many captives and cycles", .timeLimit(.minutes(5)))
struct Hunt23AGraphTests {
    @Test("a 100 x 100 lattice of declared singletons, each over 3 below: validated, drawn, resolved, fast")
    func latticeValidateAndDraw() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let layers = 100 * Hunt23A.scale
            let width = 100
            let module = Hunt23A.lattice("n", layers: layers, width: width, fan: 3, scope: .singleton)
            Hunt22A.exitAfter {
                do {
                    let injector = try Hunt23A.timed("create") { try Injector(module) }
                    let report = try Hunt23A.timed("validate") { try injector.validate() }
                    guard report.isValid else { return 4 }
                    _ = Hunt23A.timed("description") { report.description }
                    let graph = Hunt23A.timed("graph") { injector.graph() }
                    guard graph.vertices.count >= layers * width, graph.edges.count >= (layers - 1) * width * 3 else {
                        Hunt22A.log("vertices \(graph.vertices.count), edges \(graph.edges.count)")
                        return 5
                    }
                    let text = Hunt23A.timed("dot+mermaid") { graph.dot().count + graph.mermaid().count }
                    guard text > 0 else { return 6 }
                    let top = try Hunt23A.timed("get") {
                        try injector.get(Hunt23ANode.self, named: Hunt23A.name("n", layers - 1, 0))
                    }
                    guard top.layer == layers - 1 else { return 7 }
                    return 0
                } catch {
                    Hunt22A.log("\(String(describing: error).prefix(2_000))")
                    return 3
                }
            }
        }
        Hunt22A.report(result)
    }

    @Test("start() and shutdown() of a 60 x 60 lattice of services, 3 below each: dependencies first, fast")
    func latticeLifecycle() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let layers = 60 * Hunt23A.scale
            let width = 60
            let fan = 3
            let log = Locked<[Int]>([])
            let module = Hunt23A.lattice(
                "s", layers: layers, width: width, fan: fan, scope: .singleton, hooks: log)
            await Hunt22A.exitAfterAsync {
                do {
                    let injector = try Injector(module)
                    try await Hunt23A.timedAsync("start") { try await injector.start() }
                    let started = log.withLock { $0 }
                    guard started.count == layers * width else {
                        Hunt22A.log("started \(started.count)")
                        return 4
                    }
                    var position: [Int: Int] = [:]
                    for (index, id) in started.enumerated() { position[id] = index }
                    for layer in 1..<layers {
                        for column in 0..<width {
                            let id = layer * width + column
                            for below in Hunt23A.below(column, width: width, fan: fan) {
                                let dependency = (layer - 1) * width + below
                                guard let mine = position[id], let theirs = position[dependency], theirs < mine else {
                                    Hunt22A.log("\(id) started before its dependency \(dependency)")
                                    return 5
                                }
                            }
                        }
                    }
                    try await Hunt23A.timedAsync("shutdown") { try await injector.shutdown() }
                    let stopped = log.withLock { Array($0.dropFirst(layers * width)) }
                    // Started services that don't depend on each other start concurrently, so the hooks'
                    // log needn't be the order the injector recorded: check dependents stop first.
                    var stopPosition: [Int: Int] = [:]
                    for (index, id) in stopped.enumerated() { stopPosition[-id - 1] = index }
                    guard stopPosition.count == layers * width else {
                        Hunt22A.log("stops \(stopped.prefix(5)) ... (\(stopped.count))")
                        return 6
                    }
                    for layer in 1..<layers {
                        for column in 0..<width {
                            let id = layer * width + column
                            for below in Hunt23A.below(column, width: width, fan: fan) {
                                let dependency = (layer - 1) * width + below
                                guard let mine = stopPosition[id], let theirs = stopPosition[dependency],
                                    mine < theirs
                                else {
                                    Hunt22A.log("\(dependency) stopped before its dependent \(id)")
                                    return 7
                                }
                            }
                        }
                    }
                    return 0
                } catch {
                    Hunt22A.log("\(String(describing: error).prefix(2_000))")
                    return 3
                }
            }
        }
        Hunt22A.report(result)
    }

    /// 2^layers paths from the top to the bottom: validation must not walk them one by one.
    @Test(
        "a 2-wide lattice of 60 transient layers, each node over both below: validated fast (no path explosion)",
        arguments: [false, true])
    func transientLatticeValidation(captive: Bool) async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) { [captive] in
            let layers = 60
            let module = Hunt23A.lattice(
                "t", layers: layers, width: 2, fan: 2, scope: .transient,
                bottomScope: captive ? .scoped : .transient)
            let top = ClosureModule { binder in
                let key = BindingKey(Hunt23ANode.self, named: Hunt23A.name("t", layers - 1, 0))
                binder.bind(Hunt23ANode.self, named: "top").to(dependencies: [key]) { resolver in
                    try resolver.get(Hunt23ANode.self, named: key.name)
                }.in(.singleton)
            }
            Hunt22A.exitAfter {
                let configuration = Injector.Configuration(validatesOnCreation: false)
                do {
                    let injector = try Hunt23A.timed("create") {
                        try Injector(modules: [module, top], configuration: configuration)
                    }
                    let report = Hunt23A.timed("validationReport") { injector.validationReport() }
                    _ = Hunt23A.timed("description") { report.description }
                    if captive {
                        guard report.problems.contains(where: { $0.code == .captiveDependency }) else {
                            Hunt22A.log("codes \(report.problems.map(\.code).prefix(10))")
                            return 4
                        }
                        guard report.problems.count < 1_000 else {
                            Hunt22A.log("\(report.problems.count) problems")
                            return 5
                        }
                    } else {
                        guard report.isValid else { return 6 }
                    }
                    _ = Hunt23A.timed("graph") { injector.graph().dot().count }
                    return 0
                } catch {
                    Hunt22A.log("\(String(describing: error).prefix(2_000))")
                    return 3
                }
            }
        }
        Hunt22A.report(result)
    }

    /// Found by hunt 23A, fixed: the same copying as `captiveLadder`, here holders x depth: each
    /// singleton's captive finding copied the whole transient chain (4,000 over 2,000 levels, 8 million
    /// keys: over 20 s; 2.6 s now). Fixed as `captiveLadder` is.
    @Test("4,000 singletons over one 2,000-level transient chain that ends in a scoped binding: captives, fast")
    func manyCaptives() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let depth = 2_000
            let singletons = 4_000 * Hunt23A.scale
            let module = ClosureModule { binder in
                for index in 0..<depth {
                    let next = BindingKey(Hunt23ANode.self, named: "c\(index + 1)")
                    binder.bind(Hunt23ANode.self, named: "c\(index)").to(
                        dependencies: index == depth - 1 ? [] : [next]
                    ) { _ in Hunt23ANode(layer: index, column: 0) }
                    .in(index == depth - 1 ? .scoped : .transient)
                }
                let chainTop = BindingKey(Hunt23ANode.self, named: "c0")
                for index in 0..<singletons {
                    binder.bind(Hunt23ANode.self, named: "singleton\(index)").to(dependencies: [chainTop]) { _ in
                        Hunt23ANode(layer: -1, column: index)
                    }.in(.singleton)
                }
            }
            Hunt22A.exitAfter {
                let configuration = Injector.Configuration(validatesOnCreation: false)
                do {
                    let injector = try Hunt23A.timed("create") {
                        try Injector(modules: [module], configuration: configuration)
                    }
                    let report = Hunt23A.timed("validationReport") { injector.validationReport() }
                    let captives = report.problems.filter { $0.code == .captiveDependency }.count
                    guard captives >= 1 else {
                        Hunt22A.log("codes \(report.problems.map(\.code).prefix(10))")
                        return 4
                    }
                    Hunt22A.log("\(captives) captives, \(report.problems.count) problems")
                    let text = Hunt23A.timed("description") { report.description }
                    Hunt22A.log("description: \(text.utf8.count) bytes")
                    _ = Hunt23A.timed("error description") { report.error?.description.count ?? 0 }
                    do {
                        _ = try Hunt23A.timed("validate") { try injector.validate() }
                        return 5
                    } catch {
                        guard
                            (error as? ProvisionError)?.code == .validationFailed
                                || (error as? ProvisionError)?.code == .captiveDependency
                        else {
                            Hunt22A.log("validate: \(String(describing: error).prefix(300))")
                            return 6
                        }
                    }
                    _ = Hunt23A.timed("graph") { injector.graph().mermaid().count }
                    return 0
                } catch {
                    Hunt22A.log("\(String(describing: error).prefix(2_000))")
                    return 3
                }
            }
        }
        Hunt22A.report(result)
    }

    @Test("3,000 disjoint 2-cycles and a 12-node clique of cycles in one graph: reported and described fast")
    func manyCycles() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let pairs = 3_000 * Hunt23A.scale
            let clique = 12
            let module = ClosureModule { binder in
                for index in 0..<pairs {
                    for side in 0..<2 {
                        let other = BindingKey(Hunt23ANode.self, named: "p\(index)_\(1 - side)")
                        binder.bind(Hunt23ANode.self, named: "p\(index)_\(side)").to(dependencies: [other]) { _ in
                            Hunt23ANode(layer: index, column: side)
                        }
                    }
                }
                for index in 0..<clique {
                    let others = (0..<clique).filter { $0 != index }.map {
                        BindingKey(Hunt23ANode.self, named: "k\($0)")
                    }
                    binder.bind(Hunt23ANode.self, named: "k\(index)").to(dependencies: others) { resolver in
                        for key in others { _ = try resolver.get(Hunt23ANode.self, named: key.name) }
                        return Hunt23ANode(layer: -1, column: index)
                    }
                }
            }
            Hunt22A.exitAfter {
                let configuration = Injector.Configuration(validatesOnCreation: false)
                do {
                    let injector = try Injector(modules: [module], configuration: configuration)
                    let report = Hunt23A.timed("validationReport") { injector.validationReport() }
                    let cycles = report.problems.filter { $0.code == .cycle }.count
                    Hunt22A.log("\(cycles) cycles, \(report.problems.count) problems")
                    guard cycles >= pairs else { return 4 }
                    _ = Hunt23A.timed("description") { report.description.count }
                    _ = Hunt23A.timed("graph") { injector.graph().dot().count }
                    do {
                        _ = try injector.get(Hunt23ANode.self, named: "k0")
                        return 5
                    } catch {
                        guard (error as? ProvisionError)?.code == .cycle else { return 6 }
                    }
                    return 0
                } catch {
                    Hunt22A.log("\(String(describing: error).prefix(2_000))")
                    return 3
                }
            }
        }
        Hunt22A.report(result)
    }

    /// Found by hunt 23A, fixed: quadratic. Every level of the chain closes its own 2-cycle, found with
    /// the whole chain above it on the walk's stack, and `GraphValidator.cycles()` copied that stack into
    /// each cycle's path (4.5 million keys at 3,000 levels; 6,000 levels took 18-23 s), and spelled it
    /// out again for each cycle's description. The cycles' paths now share the walk's routes
    /// (`PathForest`), a cycle's description reads only the cycle, and the stack position of each vertex
    /// is kept rather than searched (3.5 s in all now).
    @Test("an 8,000-level declared chain where every level also closes a 2-cycle: 8,000 cycles, reported fast")
    func cycleLadder() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let depth = 8_000 * Hunt23A.scale
            let module = ClosureModule { binder in
                for index in 0..<depth {
                    let back = BindingKey(Hunt23ANode.self, named: "back\(index)")
                    let next = BindingKey(Hunt23ANode.self, named: "r\(index + 1)")
                    let me = BindingKey(Hunt23ANode.self, named: "r\(index)")
                    binder.bind(Hunt23ANode.self, named: me.name).to(
                        dependencies: index == depth - 1 ? [back] : [back, next]
                    ) { _ in Hunt23ANode(layer: index, column: 0) }
                    binder.bind(Hunt23ANode.self, named: back.name).to(dependencies: [me]) { _ in
                        Hunt23ANode(layer: index, column: 1)
                    }
                }
            }
            Hunt22A.exitAfter {
                let configuration = Injector.Configuration(validatesOnCreation: false)
                do {
                    let injector = try Injector(modules: [module], configuration: configuration)
                    let report = Hunt23A.timed("validationReport") { injector.validationReport() }
                    let cycles = report.problems.filter { $0.code == .cycle }.count
                    Hunt22A.log("\(cycles) cycles, \(report.problems.count) problems")
                    guard cycles >= depth else { return 4 }
                    let text = Hunt23A.timed("description") { report.description }
                    Hunt22A.log("description: \(text.utf8.count) bytes")
                    _ = Hunt23A.timed("error description") { report.error?.description.count ?? 0 }
                    _ = Hunt23A.timed("graph") { injector.graph().dot().count }
                    return 0
                } catch {
                    Hunt22A.log("\(String(describing: error).prefix(2_000))")
                    return 3
                }
            }
        }
        Hunt22A.report(result)
    }

    /// Found by hunt 23A, fixed: quadratic. Every level of a transient chain that ends in a scoped binding
    /// has its own singleton holder, and `GraphValidator.captiveDependencies()` copied the whole transient
    /// chain into each finding, its keys and its edges (6,000 levels: 34-44 s). The holders' paths now
    /// share the transients' routes (`PathForest`, read toward the captive), and each finding marks
    /// route vertices and edges for diagrams only down to where an earlier finding's route begins
    /// (3.4 s in all now).
    @Test("a 6,000-level transient chain over a scoped binding, a singleton over every level: 6,000 captives, fast")
    func captiveLadder() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let depth = 6_000 * Hunt23A.scale
            let module = ClosureModule { binder in
                for index in 0..<depth {
                    let next = BindingKey(Hunt23ANode.self, named: "l\(index + 1)")
                    let me = BindingKey(Hunt23ANode.self, named: "l\(index)")
                    binder.bind(Hunt23ANode.self, named: me.name).to(dependencies: index == depth - 1 ? [] : [next]) {
                        _ in Hunt23ANode(layer: index, column: 0)
                    }.in(index == depth - 1 ? .scoped : .transient)
                    binder.bind(Hunt23ANode.self, named: "holder\(index)").to(dependencies: [me]) { _ in
                        Hunt23ANode(layer: index, column: 1)
                    }.in(.singleton)
                }
            }
            Hunt22A.exitAfter {
                let configuration = Injector.Configuration(validatesOnCreation: false)
                do {
                    let injector = try Injector(modules: [module], configuration: configuration)
                    let report = Hunt23A.timed("validationReport") { injector.validationReport() }
                    let captives = report.problems.filter { $0.code == .captiveDependency }.count
                    Hunt22A.log("\(captives) captives, \(report.problems.count) problems")
                    guard captives >= depth - 1 else { return 4 }
                    let text = Hunt23A.timed("description") { report.description }
                    Hunt22A.log("description: \(text.utf8.count) bytes")
                    _ = Hunt23A.timed("error description") { report.error?.description.count ?? 0 }
                    _ = Hunt23A.timed("graph") { injector.graph().dot().count }
                    return 0
                } catch {
                    Hunt22A.log("\(String(describing: error).prefix(2_000))")
                    return 3
                }
            }
        }
        Hunt22A.report(result)
    }

    @Test("closing a scope of a 40 x 40 scoped lattice, 3 below each: every dependent disposed before its dependencies")
    func scopedLatticeDisposal() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let layers = 40 * Hunt23A.scale
            let width = 40
            let fan = 3
            let log = Locked<[Int]>([])
            let module = ClosureModule { binder in
                for layer in 0..<layers {
                    for column in 0..<width {
                        let keys =
                            layer == 0
                            ? []
                            : Hunt23A.below(column, width: width, fan: fan).map {
                                BindingKey(Hunt23ADisposableNode.self, named: Hunt23A.name("d", layer - 1, $0))
                            }
                        let id = layer * width + column
                        binder.bind(Hunt23ADisposableNode.self, named: Hunt23A.name("d", layer, column)).to(
                            dependencies: keys
                        ) { resolver in
                            for key in keys { _ = try resolver.get(Hunt23ADisposableNode.self, named: key.name) }
                            return Hunt23ADisposableNode(id: id, log: log)
                        }.in(.scoped)
                    }
                }
            }
            await Hunt22A.exitAfterAsync {
                do {
                    let injector = try Injector(module)
                    let scope = injector.makeScope()
                    try await Hunt23A.timedAsync("get") {
                        for column in 0..<width {
                            _ = try await scope.get(
                                Hunt23ADisposableNode.self, named: Hunt23A.name("d", layers - 1, column))
                        }
                    }
                    try await Hunt23A.timedAsync("close") { try await scope.close() }
                    let disposed = log.withLock { $0 }
                    guard disposed.count == layers * width else {
                        Hunt22A.log("disposed \(disposed.count)")
                        return 4
                    }
                    var position: [Int: Int] = [:]
                    for (index, id) in disposed.enumerated() { position[id] = index }
                    for layer in 1..<layers {
                        for column in 0..<width {
                            let id = layer * width + column
                            for below in Hunt23A.below(column, width: width, fan: fan) {
                                let dependency = (layer - 1) * width + below
                                guard let mine = position[id], let theirs = position[dependency], mine < theirs else {
                                    Hunt22A.log("\(dependency) disposed before its dependent \(id)")
                                    return 5
                                }
                            }
                        }
                    }
                    return 0
                } catch {
                    Hunt22A.log("\(String(describing: error).prefix(2_000))")
                    return 3
                }
            }
        }
        Hunt22A.report(result)
    }
}
