import Testing

@testable import Provision

/// A level of a deep chain: its index.
private final class DeepLevel: Sendable {
    let index: Int
    init(index: Int) { self.index = index }
}

/// A chain of async closure bindings `c0 -> c1 -> ... -> c(depth - 1)`, whose last level asks for
/// `c(target)` again: a cycle that closes `depth - target` levels below where it starts. Async, so that
/// a chain thousands deep needs no big stack.
private func cyclicChain(depth: Int, target: Int, scope: Scope) -> ClosureModule {
    ClosureModule { binder in
        for index in 0..<depth {
            let next = index == depth - 1 ? "c\(target)" : "c\(index + 1)"
            binder.bind(DeepLevel.self, named: "c\(index)").to { (resolver: Resolver) async throws -> DeepLevel in
                _ = try await resolver.get(DeepLevel.self, named: next)
                return DeepLevel(index: index)
            }.in(scope)
        }
    }
}

/// The membership test on a resolution path summarizes every 32nd frame (``PathSummary``): these tests
/// close cycles above, inside and below the summarized runs, and check that each is found exactly where
/// it closes, with the whole path.
@Suite("Resolution paths thousands of frames deep: cycles found wherever they close")
struct DeepPathTests {
    @Test(
        "a closure chain re-entering a key far above, above or inside a summarized run: cycle, whole path",
        arguments: [
            (40, 1), (100, 31), (100, 64), (1_100, 3), (1_100, 1_050), (2_100, 1_023), (2_100, 1_024), (2_100, 0),
        ]
    )
    func closureCycle(depth: Int, target: Int) async throws {
        for scope in [Scope.transient, .singleton] {
            let injector = try Injector(cyclicChain(depth: depth, target: target, scope: scope))
            let error = await #expect(throws: ProvisionError.self) {
                _ = try await injector.get(DeepLevel.self, named: "c0")
            }
            #expect(error?.code == .cycle, "\(scope): \(String(describing: error?.code))")
            let path = error?.path ?? []
            // c0 ... c(depth - 1), then c(target) once more: found on its first return, not a lap later.
            #expect(path.count == depth + 1, "\(scope)")
            #expect(path.first == BindingKey(DeepLevel.self, named: "c0"))
            #expect(path.last == BindingKey(DeepLevel.self, named: "c\(target)"))
        }
    }

    @Test("a path exactly at the summaries' sizes (32, 1,024) and one past them: resolves whole, no false cycle")
    func noFalseCycleAtBoundaries() async throws {
        for depth in [31, 32, 33, 1_023, 1_024, 1_025, 2_049] {
            let module = ClosureModule { binder in
                for index in 0..<depth {
                    binder.bind(DeepLevel.self, named: "n\(index)").to {
                        (resolver: Resolver) async throws -> DeepLevel in
                        if index == depth - 1 { return DeepLevel(index: index) }
                        _ = try await resolver.get(DeepLevel.self, named: "n\(index + 1)")
                        return DeepLevel(index: index)
                    }
                }
            }
            let injector = try Injector(module)
            #expect(try await injector.get(DeepLevel.self, named: "n0").index == 0, "depth \(depth)")
        }
    }

    @Test("a frame's depth counts the frames above it, and every 32nd frame summarizes the run above it")
    func frameSummaries() {
        var frame: PathFrame?
        var keys: [BindingKey] = []
        for index in 0..<1_100 {
            let key = BindingKey(DeepLevel.self, named: "f\(index)")
            keys.append(key)
            frame = PathFrame(key: key, parent: frame, isSingleton: false)
        }
        #expect(frame?.depth == 1_100)
        let context = ResolutionContext(frame: frame)
        for key in keys { #expect(context.contains(key)) }
        #expect(!context.contains(BindingKey(DeepLevel.self, named: "f1100")))
        #expect(!context.contains(BindingKey(DeepLevel.self)))
        // The frame at depth 1,024 covers all 1,024 frames; the one at 1,056 the 32 below 1,024.
        var current = frame
        while let node = current, node.depth > 1_024 { current = node.parent }
        #expect(current?.summary?.keys.count == 1_024)
        #expect(current?.summary?.above == nil)
        #expect(current?.parent?.summary == nil)
        var upper = frame
        while let node = upper, node.depth > 1_056 { upper = node.parent }
        #expect(upper?.summary?.keys.count == 32)
        #expect(upper?.summary?.above?.depth == 1_024)
    }
}

/// Validation's problems share the paths it walked (``PathForest``); each still reads whole.
@Suite("Validation problems deep in a graph: whole paths, shared, described short")
struct SharedValidationPathTests {
    /// `q0 -> q1 -> ... -> q(depth - 1)`, where every level also needs its own missing key.
    private func module(depth: Int) -> ClosureModule {
        ClosureModule { binder in
            for index in 0..<depth {
                let next = BindingKey(DeepLevel.self, named: "q\(index + 1)")
                let missing = BindingKey(DeepLevel.self, named: "missing\(index)")
                binder.bind(DeepLevel.self, named: "q\(index)").to(
                    dependencies: index == depth - 1 ? [missing] : [next, missing]
                ) { _ in DeepLevel(index: index) }
            }
        }
    }

    @Test("each problem's path runs from the root to its missing key; a long one is described by its ends")
    func wholePaths() throws {
        let depth = 40
        let error = #expect(throws: ProvisionError.self) { _ = try Injector(module(depth: depth)) }
        let problems = error?.underlyingErrors ?? []
        #expect(problems.count == depth)
        for (index, problem) in problems.enumerated() {
            let expected =
                (0...index).map { BindingKey(DeepLevel.self, named: "q\($0)") }
                + [BindingKey(DeepLevel.self, named: "missing\(index)")]
            #expect(problem.path == expected, "problem \(index)")
            #expect(problem.pathCount == expected.count)
        }
        let description = error?.description ?? ""
        // Problem 2's path is short: whole. Problem 39's: its root, how many it leaves out, its last 6.
        #expect(
            description.contains(
                "path: DeepLevel named \"q0\" -> DeepLevel named \"q1\" -> "
                    + "DeepLevel named \"q2\" -> DeepLevel named \"missing2\"\n"))
        #expect(description.contains("path: DeepLevel named \"q0\" -> ... (34 more) -> DeepLevel named \"q35\" -> "))
        #expect(description.contains("-> DeepLevel named \"q39\" -> DeepLevel named \"missing39\"\n"))
        // The top-level description of one problem spells its whole path.
        #expect(problems.last?.description.contains("DeepLevel named \"q20\" -> DeepLevel named \"q21\"") == true)
    }

    @Test("prepending to a problem's shared path spells it out first, and leaves the other problems alone")
    func prependingSpellsOut() throws {
        let error = #expect(throws: ProvisionError.self) { _ = try Injector(module(depth: 10)) }
        let problems = error?.underlyingErrors ?? []
        try #require(problems.count == 10)
        let outer = BindingKey(DeepLevel.self, named: "outer")
        let prepended = problems[5].prepending(outer)
        #expect(prepended.path == [outer] + problems[5].path)
        #expect(prepended.storage.branch == nil)
        #expect(problems[5].path.first == BindingKey(DeepLevel.self, named: "q0"))
        #expect(problems[6].path.count == 8)
    }
}

/// Cycles' paths share the validation walk's routes (``PathForest``); a cycle's description reads
/// only the cycle.
@Suite("Cycles deep in a graph: whole paths, shared, each cycle described by itself")
struct SharedCyclePathTests {
    @Test("every level of a chain closing its own 2-cycle: each path runs from the root, each cycle is its own")
    func cycleLadder() throws {
        let depth = 40
        let module = ClosureModule { binder in
            for index in 0..<depth {
                let level = BindingKey(DeepLevel.self, named: "q\(index)")
                let next = BindingKey(DeepLevel.self, named: "q\(index + 1)")
                let loop = BindingKey(DeepLevel.self, named: "c\(index)")
                binder.bind(DeepLevel.self, named: "q\(index)").to(
                    dependencies: index == depth - 1 ? [loop] : [next, loop]
                ) { _ in DeepLevel(index: index) }
                binder.bind(DeepLevel.self, named: "c\(index)").to(dependencies: [level]) { _ in DeepLevel(index: index)
                }
            }
        }
        let error = #expect(throws: ProvisionError.self) { _ = try Injector(module) }
        let cycles = (error?.underlyingErrors ?? []).filter { $0.code == .cycle }
        #expect(cycles.count == depth)
        for index in 0..<depth {
            let level = BindingKey(DeepLevel.self, named: "q\(index)")
            let cycle = cycles.first { $0.key == level }
            let expected =
                (0...index).map { BindingKey(DeepLevel.self, named: "q\($0)") }
                + [BindingKey(DeepLevel.self, named: "c\(index)"), level]
            #expect(cycle?.path == expected, "level \(index)")
            #expect(
                cycle?.cycleDescription == "DeepLevel named \"q\(index)\" -> DeepLevel named \"c\(index)\" -> \(level)")
        }
    }

    @Test("a cycle's description: the keys from the innermost back to its earlier request, or the key alone")
    func cycleDescriptions() {
        let a = BindingKey(DeepLevel.self, named: "a")
        let b = BindingKey(DeepLevel.self, named: "b")
        let c = BindingKey(DeepLevel.self, named: "c")
        #expect(ProvisionError.cycle(a, path: [c, a, b, a]).cycleDescription == "\(a) -> \(b) -> \(a)")
        #expect(ProvisionError.cycle(a, path: [a]).cycleDescription == "\(a)")
        #expect(ProvisionError.cycle(a, path: [b, a]).cycleDescription == "\(a)")
        #expect(ProvisionError.cycle(a, path: [a, a]).cycleDescription == "\(a) -> \(a)")
        #expect(ProvisionError.notBound(a, path: [a, a]).cycleDescription == nil)
    }
}

/// Captive dependencies' paths share the routes transients take to the captive (``PathForest``, going
/// ``PathBranch/Direction/towardRoot``).
@Suite("Captive dependencies over one long transient route: whole paths, shared, described short, drawn")
struct SharedCaptivePathTests {
    /// `s(i)` (singleton) -> `t(i)` -> `t(i + 1)` -> ... -> `t(depth - 1)` -> `scoped`: every singleton
    /// captures the scoped binding at the end of the transients' chain.
    private func module(depth: Int) -> ClosureModule {
        ClosureModule { binder in
            binder.bind(DeepLevel.self, named: "scoped").to(dependencies: []) { _ in DeepLevel(index: -1) }.in(.scoped)
            for index in 0..<depth {
                let next = index == depth - 1 ? "scoped" : "t\(index + 1)"
                binder.bind(DeepLevel.self, named: "t\(index)").to(
                    dependencies: [BindingKey(DeepLevel.self, named: next)]
                ) { _ in DeepLevel(index: index) }
                binder.bind(DeepLevel.self, named: "s\(index)").to(
                    dependencies: [BindingKey(DeepLevel.self, named: "t\(index)")]
                ) { _ in DeepLevel(index: index) }.in(.singleton)
            }
        }
    }

    @Test("each holder's path runs down the whole route to the captive; a long one shows its start and the captive")
    func wholeRoutes() throws {
        let depth = 30
        let error = #expect(throws: ProvisionError.self) { _ = try Injector(module(depth: depth)) }
        let problems = (error?.underlyingErrors ?? []).filter { $0.code == .captiveDependency }
        #expect(problems.count == depth)
        for index in 0..<depth {
            let problem = problems.first { $0.path.first == BindingKey(DeepLevel.self, named: "s\(index)") }
            let expected =
                [BindingKey(DeepLevel.self, named: "s\(index)")]
                + (index..<depth).map { BindingKey(DeepLevel.self, named: "t\($0)") }
                + [BindingKey(DeepLevel.self, named: "scoped")]
            #expect(problem?.path == expected, "holder s\(index)")
            #expect(problem?.key == BindingKey(DeepLevel.self, named: "scoped"))
        }
        // s0's path holds 32 keys: its first 6, how many it leaves out, and the captive.
        let description = error?.description ?? ""
        #expect(
            description.contains(
                "path: DeepLevel named \"s0\" -> DeepLevel named \"t0\" -> DeepLevel named \"t1\" -> "
                    + "DeepLevel named \"t2\" -> DeepLevel named \"t3\" -> DeepLevel named \"t4\" -> ... (25 more) -> "
                    + "DeepLevel named \"scoped\"\n"))
        // Prepending goes above the holder, the shared route staying below it.
        let outer = BindingKey(DeepLevel.self, named: "outer")
        let first = try #require(problems.first)
        #expect(first.prepending(outer).path == [outer] + first.path)
    }

    @Test("the diagram marks every holder, every transient on the route and every edge between them")
    func diagramMarksWholeRoute() throws {
        let depth = 12
        let injector = try Injector(
            modules: [module(depth: depth)], configuration: Injector.Configuration(validatesOnCreation: false))
        let graph = injector.graph()
        let marked = Set(graph.vertices.filter(\.hasProblem).compactMap(\.key.name))
        let expected = Set((0..<depth).flatMap { ["s\($0)", "t\($0)"] } + ["scoped"])
        #expect(marked == expected)
        // s(i) -> t(i), t(i) -> t(i + 1), t(last) -> scoped.
        #expect(graph.edges.filter(\.hasProblem).count == 2 * depth)
    }
}
