import Foundation
import Testing

@testable import Provision

/// A level of a test graph: its index.
final class Hunt23BValue: Sendable {
    let index: Int
    init(index: Int) { self.index = index }
}

/// A start hook's failure.
struct Hunt23BFailure: Error {}

/// An object whose identity serves as a frame's cell.
final class Hunt23BCell: Sendable {}

@Suite("Hunt 23B: deep resolution paths, shared validation paths, start order")
struct Hunt23BTests {
    private static func key(_ name: String) -> BindingKey { BindingKey(Hunt23BValue.self, named: name) }

    /// Builds a 70,000-frame path directly (past every summary size, the 32,768 cap twice) and checks
    /// `contains(_:)` and `contains(cell:)` against a plain walk at frames around every boundary.
    @Test("PathFrame summaries past 32, 1,024 and twice 32,768 frames: contains agrees with a plain walk")
    func summariesAgreeWithWalk() {
        let done = DispatchSemaphore(value: 0)
        let mismatches = Locked<[String]>([])
        let thread = Thread {
            let cells = (0..<7).map { _ in Hunt23BCell() }
            var frames: [PathFrame] = []
            var frame: PathFrame?
            let total = 70_000
            frames.reserveCapacity(total)
            for index in 0..<total {
                // Keys repeat every 40,000 frames (a key may be on the path twice); every 5th frame has a cell.
                let cell = index % 5 == 0 ? ObjectIdentifier(cells[index % 7]) : nil
                frame = PathFrame(key: Self.key("f\(index % 40_000)"), parent: frame, isSingleton: false, cell: cell)
                frames.append(frame!)
            }
            let probes = [
                0, 1, 30, 31, 32, 33, 63, 64, 1_022, 1_023, 1_024, 1_025, 1_056, 2_047, 2_048, 32_766, 32_767, 32_768,
                32_769, 33_792, 39_999, 40_000, 40_031, 65_535, 65_536, 65_537, 69_999,
            ]
            for position in probes {
                let context = ResolutionContext(frame: frames[position])
                var walkedKeys: Set<BindingKey> = []
                var walkedCells: Set<ObjectIdentifier> = []
                var node: PathFrame? = frames[position]
                while let current = node {
                    walkedKeys.insert(current.key)
                    if let cell = current.cell { walkedCells.insert(cell) }
                    node = current.parent
                }
                for probe in probes + [position + 1, position + 2, 39_998] {
                    let key = Self.key("f\(probe % 40_000)")
                    if context.contains(key) != walkedKeys.contains(key) {
                        mismatches.withLock { $0.append("depth \(position + 1): key f\(probe % 40_000)") }
                    }
                }
                for cell in cells
                where context.contains(cell: ObjectIdentifier(cell)) != walkedCells.contains(ObjectIdentifier(cell)) {
                    mismatches.withLock { $0.append("depth \(position + 1): a cell") }
                }
            }
            // Release the 70,000 frames a thousand at a time from the top, so no release recurses deeply.
            frame = nil
            while !frames.isEmpty { frames.removeLast(min(1_000, frames.count)) }
            done.signal()
        }
        thread.stackSize = 64 << 20
        thread.start()
        #expect(done.wait(timeout: .now() + 60) == .success, "hung")
        #expect(mismatches.withLock { $0 }.isEmpty, "\(mismatches.withLock { $0.prefix(10) })")
    }

    /// `d0 -> d1 -> ... -> d(depth - 1)`, async singletons; the last one starts `async let` children and a
    /// task group that ask for `targets` while it is being built.
    private static func deepAsyncChain(
        depth: Int, targets: [String], slot: Hunt18BSlot, builds: Hunt18BBuilds,
        outcomes: Locked<[String: ProvisionError.Code?]>
    ) -> ClosureModule {
        ClosureModule { binder in
            binder.bind(Hunt23BValue.self, named: "fresh").to { (_: Resolver) async throws -> Hunt23BValue in
                builds.bump("fresh")
                return Hunt23BValue(index: -1)
            }.in(.singleton)
            binder.bind(Hunt23BValue.self, named: "freshTransient").to {
                (resolver: Resolver) async throws -> Hunt23BValue in
                _ = try await resolver.get(Hunt23BValue.self, named: "fresh")
                return Hunt23BValue(index: -2)
            }
            for index in 0..<depth {
                binder.bind(Hunt23BValue.self, named: "d\(index)").to {
                    (resolver: Resolver) async throws -> Hunt23BValue in
                    builds.bump("d\(index)")
                    if index < depth - 1 {
                        _ = try await resolver.get(Hunt23BValue.self, named: "d\(index + 1)")
                        return Hunt23BValue(index: index)
                    }
                    guard let injector = slot.injector else { throw Hunt23BFailure() }
                    await withTaskGroup(of: (String, ProvisionError.Code?).self) { group in
                        for target in targets {
                            group.addTask {
                                do throws(ProvisionError) {
                                    _ = try await injector.get(Hunt23BValue.self, named: target)
                                    return (target, nil)
                                } catch {
                                    return (target, error.code)
                                }
                            }
                        }
                        for await (target, code) in group {
                            outcomes.withLock { $0[target] = code }
                        }
                    }
                    async let viaAsyncLet = injector.get(Hunt23BValue.self, named: "freshTransient")
                    _ = try await viaAsyncLet
                    return Hunt23BValue(index: index)
                }.in(.singleton)
            }
        }
    }

    @Test(
        "a 1,100-level async singleton chain whose bottom asks task group children for keys on its path: cycles",
        arguments: [45, 1_100])
    func deepTaskGroupCycles(depth: Int) async throws {
        let slot = Hunt18BSlot()
        let builds = Hunt18BBuilds()
        let outcomes = Locked<[String: ProvisionError.Code?]>([:])
        let onPath = [
            0, 1, 31, 32, 33, depth / 2, depth - 34, depth - 33, depth - 32, depth - 31, depth - 2, depth - 1,
        ]
        .filter { $0 >= 0 && $0 < depth }
        let targets = Array(Set(onPath.map { "d\($0)" })) + ["fresh"]
        let injector = try Injector(
            Self.deepAsyncChain(depth: depth, targets: targets, slot: slot, builds: builds, outcomes: outcomes))
        slot.injector = injector
        let request = Hunt18BOutcome<Hunt23BValue>()
        #expect(
            await hunt18BWithin(seconds: 20) {
                await request.recordAsync { () async throws(ProvisionError) in
                    try await injector.get(Hunt23BValue.self, named: "d0")
                }
            }, "hung")
        #expect(request.error == nil, "\(String(describing: request.error))")
        let seen = outcomes.withLock { $0 }
        for target in targets where target != "fresh" {
            #expect(seen[target] == .some(.cycle), "\(target): \(String(describing: seen[target]))")
        }
        #expect(seen["fresh"] == .some(nil), "fresh: \(String(describing: seen["fresh"]))")
        #expect(builds["fresh"] == 1)
        for index in 0..<depth where builds["d\(index)"] != 1 {
            Issue.record("d\(index) built \(builds["d\(index)"]) times")
        }
        slot.injector = nil
    }

    @Test("150-level transient chains over one singleton, from 8 threads at once: the singleton built once")
    func deepChainsShareSingleton() async throws {
        let builds = Hunt18BBuilds()
        let barrier = Barrier(count: 8)
        let depth = 150
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt23BValue.self, named: "shared").to { (_: Resolver) in
                    builds.bump("shared")
                    return Hunt23BValue(index: -1)
                }.in(.singleton)
                for thread in 0..<8 {
                    for index in 0..<depth {
                        let next = index == depth - 1 ? "shared" : "t\(thread)-\(index + 1)"
                        binder.bind(Hunt23BValue.self, named: "t\(thread)-\(index)").to { (resolver: Resolver) in
                            if index == depth - 1 { barrier.arriveAndWait() }
                            return Hunt23BValue(index: try resolver.get(Hunt23BValue.self, named: next).index)
                        }
                    }
                }
            })
        let failures = Locked<[String]>([])
        let finished = runThreads(8, timeout: 30) { thread in
            do {
                _ = try injector.get(Hunt23BValue.self, named: "t\(thread)-0")
            } catch {
                failures.withLock { $0.append("\(thread): \(error)") }
            }
        }
        #expect(finished, "hung")
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(2) })")
        #expect(builds["shared"] == 1)
    }

    /// `a` declares `d` (and does not use it when built); `x` and `d` are closures that declare nothing,
    /// and `d`'s closure resolves `x`. Built a, x, d: `x` (created before `d`, and used by it) starts
    /// before `d`, even though `StartOrder` places `d` early as `a`'s declared dependency.
    @Test("a declared dependency on a later-built closure service that uses an earlier one: that one starts first")
    func dynamicServicePlacedEarlyByDeclaredDependent() async throws {
        let log = Locked<[String]>([])
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt23BValue.self, named: "a").to(dependencies: [Self.key("d")]) { _ in
                    Hunt23BValue(index: 0)
                }.in(.singleton).onStart { _ in log.withLock { $0.append("start a") } }
                binder.bind(Hunt23BValue.self, named: "x").to { (_: Resolver) in Hunt23BValue(index: 1) }
                    .in(.singleton).onStart { _ in log.withLock { $0.append("start x") } }
                binder.bind(Hunt23BValue.self, named: "d").to { (resolver: Resolver) in
                    Hunt23BValue(index: try resolver.get(Hunt23BValue.self, named: "x").index)
                }.in(.singleton).onStart { _ in log.withLock { $0.append("start d") } }
            })
        try await injector.start()
        let starts = log.withLock { $0 }
        let x = starts.firstIndex(of: "start x") ?? -1
        let d = starts.firstIndex(of: "start d") ?? -1
        #expect(x >= 0 && d >= 0 && x < d, "\(starts)")
        try await injector.shutdown()
    }

    @Test("mixed declared and undeclared services, a failure in the third batch: what started stops, reversed")
    func failureInLaterBatch() async throws {
        let log = Locked<[String]>([])
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt23BValue.self, named: "base").to(dependencies: []) { _ in Hunt23BValue(index: 0) }
                    .in(.singleton)
                    .onStart { _ in log.withLock { $0.append("start base") } }
                    .onStop { _ in log.withLock { $0.append("stop base") } }
                binder.bind(Hunt23BValue.self, named: "mid").to { (resolver: Resolver) in
                    Hunt23BValue(index: try resolver.get(Hunt23BValue.self, named: "base").index + 1)
                }.in(.singleton)
                    .onStart { _ in log.withLock { $0.append("start mid") } }
                    .onStop { _ in log.withLock { $0.append("stop mid") } }
                binder.bind(Hunt23BValue.self, named: "top").to(dependencies: [Self.key("mid")]) { resolver in
                    Hunt23BValue(index: try resolver.get(Hunt23BValue.self, named: "mid").index + 1)
                }.in(.singleton)
                    .onStart { _ in
                        log.withLock { $0.append("start top") }
                        throw Hunt23BFailure()
                    }
                    .onStop { _ in log.withLock { $0.append("stop top") } }
            })
        let error = await #expect(throws: ProvisionError.self) { try await injector.start() }
        #expect(error?.code == .startFailed)
        #expect(
            log.withLock { $0 } == ["start base", "start mid", "start top", "stop mid", "stop base"],
            "\(log.withLock { $0 })")
        try? await injector.shutdown()
    }

    @Test("validation paths: a diamond over a missing key and a self-loop, prepended twice")
    func validationPaths() throws {
        let module = ClosureModule { binder in
            // r1 -> l -> m (missing), r1 -> r -> m: one missing key under a diamond.
            binder.bind(Hunt23BValue.self, named: "r1").to(dependencies: [Self.key("l"), Self.key("r")]) { _ in
                Hunt23BValue(index: 0)
            }
            binder.bind(Hunt23BValue.self, named: "l").to(dependencies: [Self.key("m")]) { _ in Hunt23BValue(index: 0) }
            binder.bind(Hunt23BValue.self, named: "r").to(dependencies: [Self.key("m")]) { _ in Hunt23BValue(index: 0) }
            // s -> s: a self-loop.
            binder.bind(Hunt23BValue.self, named: "s").to(dependencies: [Self.key("s")]) { _ in Hunt23BValue(index: 0) }
        }
        let error = #expect(throws: ProvisionError.self) {
            _ = try Injector(modules: [module], configuration: Injector.Configuration())
        }
        let problems = error?.underlyingErrors ?? []
        let missing = problems.filter { $0.code == .notBound }
        let cycles = problems.filter { $0.code == .cycle }
        #expect(
            missing.map(\.path) == [[Self.key("r1"), Self.key("l"), Self.key("m")]],
            "\(missing.map(\.pathDescription))")
        #expect(cycles.map(\.path) == [[Self.key("s"), Self.key("s")]], "\(cycles.map(\.pathDescription))")
        #expect(cycles.first?.cycleDescription == "\(Self.key("s")) -> \(Self.key("s"))")
        let outer = Self.key("outer")
        for problem in problems {
            #expect(problem.prepending(outer).path == [outer] + problem.path)
            #expect(problem.prepending(outer).prepending(outer).path == [outer, outer] + problem.path)
        }
    }

    /// A child with 200 dependencies on keys its ancestors bind (50 each at two levels, past the weighing
    /// threshold): the nearest binding wins, as a request resolves it.
    @Test("a child of 200 dependencies on 100 ancestor bindings: validation takes the nearest (a broken one shadowed)")
    func childValidationNearestWins() throws {
        let grandparent = try Injector(
            modules: [
                ClosureModule { binder in
                    for index in 0..<50 {
                        // Broken, but shadowed by the parent's k(i): a child's validation must not reach it.
                        binder.bind(Hunt23BValue.self, named: "k\(index)").to(dependencies: [Self.key("absent")]) { _ in
                            Hunt23BValue(index: 1_000 + index)
                        }
                        // Shadowed below: the grandparent's g(i) needs nothing; the parent's needs a missing key.
                        binder.bind(Hunt23BValue.self, named: "g\(index)").to(dependencies: []) { _ in
                            Hunt23BValue(index: 2_000 + index)
                        }
                    }
                }
            ], configuration: Injector.Configuration(validatesOnCreation: false))
        let parent = try grandparent.makeChild(
            ClosureModule { binder in
                for index in 0..<50 {
                    binder.bind(Hunt23BValue.self, named: "k\(index)").to(dependencies: []) { _ in
                        Hunt23BValue(index: index)
                    }
                }
            })
        let child = try parent.makeChild(
            ClosureModule { binder in
                for index in 0..<200 {
                    let target = index % 2 == 0 ? "k\(index % 50)" : "g\(index % 50)"
                    binder.bind(Hunt23BValue.self, named: "c\(index)").to(dependencies: [Self.key(target)]) {
                        resolver in
                        Hunt23BValue(index: try resolver.get(Hunt23BValue.self, named: target).index)
                    }
                }
            })
        #expect(try child.get(Hunt23BValue.self, named: "c0").index == 0)
        #expect(try child.get(Hunt23BValue.self, named: "c1").index == 2_001)
    }
}
