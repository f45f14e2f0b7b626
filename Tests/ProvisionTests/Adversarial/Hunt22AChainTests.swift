import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

/// A flat value: it names its level and the level below, and holds no object, so dropping a deep
/// chain's values never recurses in the runtime's release.
final class Hunt22AValue: Sendable {
    let index: Int
    let below: Int
    init(index: Int, below: Int) {
        self.index = index
        self.below = below
    }
}

/// Builders and runners shared by the hunt 22A suites.
enum Hunt22A {
    /// The key of level `index` of a chain named `prefix`.
    static func key(_ prefix: String, _ index: Int) -> BindingKey {
        BindingKey(Hunt22AValue.self, named: "\(prefix)\(index)")
    }

    /// Levels `prefix`0 ..< `prefix`depth; each closure resolves the next level through its resolver;
    /// the last one is a leaf, or (with `missingLeaf`) asks for the unbound `prefix`depth.
    static func closureChain(
        _ prefix: String, depth: Int, scope: Scope, declared: Bool = false, missingLeaf: Bool = false
    ) -> ClosureModule {
        ClosureModule { binder in
            for index in 0..<depth {
                let next = "\(prefix)\(index + 1)"
                let isLeaf = index == depth - 1 && !missingLeaf
                if isLeaf {
                    binder.bind(Hunt22AValue.self, named: "\(prefix)\(index)").to(dependencies: []) { _ in
                        Hunt22AValue(index: index, below: -1)
                    }.in(scope)
                } else if declared {
                    binder.bind(Hunt22AValue.self, named: "\(prefix)\(index)").to(
                        dependencies: [BindingKey(Hunt22AValue.self, named: next)]
                    ) { resolver in
                        Hunt22AValue(index: index, below: try resolver.get(Hunt22AValue.self, named: next).index)
                    }.in(scope)
                } else {
                    binder.bind(Hunt22AValue.self, named: "\(prefix)\(index)").to { resolver in
                        Hunt22AValue(index: index, below: try resolver.get(Hunt22AValue.self, named: next).index)
                    }.in(scope)
                }
            }
        }
    }

    /// Records the child's standard error when it failed.
    static func report(_ result: ExitTest.Result?) {
        if let result, result.exitStatus != .exitCode(0) {
            Issue.record("stderr: \(String(decoding: result.standardErrorContent, as: UTF8.self).suffix(1_500))")
        }
    }

    /// Writes a line to standard error (a failing exit test shows it).
    static func log(_ text: String) {
        FileHandle.standardError.write(Data("\(text)\n".utf8))
    }

    /// How long a test's work may take: 20 s, ten times that under a sanitizer (which slows everything
    /// several times over; `Scripts/test.sh` sets its options in the environment). Every test here takes
    /// at most a few seconds without one: the bound catches work that grows quadratically with the
    /// depth (the defects found took 30 s to minutes), not a busy machine.
    static var timeBound: Int {
        let environment = ProcessInfo.processInfo.environment
        let sanitized = environment["TSAN_OPTIONS"] != nil || environment["ASAN_OPTIONS"] != nil
        return sanitized ? 200 : 20
    }

    /// Runs `body` on a thread of `stack` bytes, then exits the process: with `body`'s code, or 9 when it
    /// took longer than `seconds`.
    static func exitAfter(
        stack: Int = 8 << 20, seconds: Int = timeBound, _ body: @escaping @Sendable () -> Int32
    ) -> Never {
        let clock = ContinuousClock()
        let start = clock.now
        let code = HuntChain.run(stackSize: stack, body)
        let elapsed = clock.now - start
        if code == 0 && elapsed > .seconds(seconds) {
            log("too slow: \(elapsed)")
            exit(9)
        }
        exit(code)
    }

    /// Exits the process after the async `body`: with its code, or 9 when it took longer than `seconds`.
    static func exitAfterAsync(seconds: Int = timeBound, _ body: @Sendable () async -> Int32) async -> Never {
        let clock = ContinuousClock()
        let start = clock.now
        let code = await body()
        let elapsed = clock.now - start
        if code == 0 && elapsed > .seconds(seconds) {
            log("too slow: \(elapsed)")
            exit(9)
        }
        exit(code)
    }

    /// 0 when `value` is level 0 of a whole chain, or the error is depthExceeded; otherwise a code.
    static func outcome(_ body: () throws -> Hunt22AValue) -> Int32 {
        do {
            let value = try body()
            guard value.index == 0, value.below == 1 else {
                log("wrong value \(value.index) over \(value.below)")
                return 4
            }
            return 0
        } catch let error as ProvisionError where error.code == .depthExceeded {
            log("depthExceeded, path \(error.path.count)")
            return 0
        } catch {
            log("unexpected: \(String(describing: error).prefix(2_000))")
            return 3
        }
    }

    /// The async counterpart of ``outcome(_:)``.
    static func outcomeAsync(_ body: () async throws -> Hunt22AValue) async -> Int32 {
        do {
            let value = try await body()
            guard value.index == 0, value.below == 1 else {
                log("wrong value \(value.index) over \(value.below)")
                return 4
            }
            return 0
        } catch let error as ProvisionError where error.code == .depthExceeded {
            log("depthExceeded, path \(error.path.count)")
            return 0
        } catch {
            log("unexpected: \(String(describing: error).prefix(2_000))")
            return 3
        }
    }
}

// MARK: - Tests

@Suite("Hunt 22A: deep chains of closures, named keys, handles and async closures", .timeLimit(.minutes(5)))
struct Hunt22AChainTests {
    @Test(
        "a chain of closure bindings over named keys resolves whole (or depthExceeded), twice, fast",
        arguments: [5_000, 20_000], [false, true]
    )
    func closureChain(depth: Int, singleton: Bool) async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            [depth, singleton] in
            let module = Hunt22A.closureChain("n", depth: depth, scope: singleton ? .singleton : .transient)
            Hunt22A.exitAfter {
                do {
                    let injector = try Injector(module)
                    for _ in 0..<2 {
                        let code = Hunt22A.outcome { try injector.get(Hunt22AValue.self, named: "n0") }
                        if code != 0 { return code }
                    }
                    return 0
                } catch {
                    Hunt22A.log("creation: \(error)")
                    return 2
                }
            }
        }
        Hunt22A.report(result)
    }

    /// Found by hunt 22A, fixed: the 20,000-level transient case took over 10 s (exit code 9, "too slow").
    /// Each closure checked its key against the whole resolution path above it, a walk of the path per
    /// level: quadratic in the depth, sync and async alike (the async path has no stack to stop it
    /// early). Every 32nd frame of the path now summarizes the frames above it (`PathSummary`).
    @Test(
        "a chain of async closure bindings resolved with the async API works or stops with depthExceeded",
        arguments: [5_000, 20_000], [false, true]
    )
    func asyncClosureChain(depth: Int, singleton: Bool) async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            [depth, singleton] in
            let module = ClosureModule { binder in
                for index in 0..<depth {
                    let next = "a\(index + 1)"
                    let builder = binder.bind(Hunt22AValue.self, named: "a\(index)").to {
                        (resolver: Resolver) async throws -> Hunt22AValue in
                        if index == depth - 1 { return Hunt22AValue(index: index, below: -1) }
                        return Hunt22AValue(
                            index: index, below: try await resolver.get(Hunt22AValue.self, named: next).index)
                    }
                    if singleton { builder.in(.singleton) }
                }
            }
            await Hunt22A.exitAfterAsync {
                do {
                    let injector = try Injector(module)
                    for _ in 0..<2 {
                        let code = await Hunt22A.outcomeAsync {
                            try await injector.get(Hunt22AValue.self, named: "a0")
                        }
                        if code != 0 { return code }
                    }
                    return 0
                } catch {
                    Hunt22A.log("creation: \(error)")
                    return 2
                }
            }
        }
        Hunt22A.report(result)
    }

    @Test("a chain of synchronous closures asked for with the async API works or stops with depthExceeded")
    func syncChainAsyncRequest() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let module = Hunt22A.closureChain("s", depth: 20_000, scope: .transient)
            await Hunt22A.exitAfterAsync {
                do {
                    let injector = try Injector(module)
                    return await Hunt22A.outcomeAsync { try await injector.get(Hunt22AValue.self, named: "s0") }
                } catch {
                    Hunt22A.log("creation: \(error)")
                    return 2
                }
            }
        }
        Hunt22A.report(result)
    }

    @Test(
        "each level's closure reads a Provider (or a Lazy) of the next level: works or depthExceeded",
        arguments: [5_000, 20_000], [false, true]
    )
    func handleChain(depth: Int, lazy: Bool) async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) { [depth, lazy] in
            let module = ClosureModule { binder in
                for index in 0..<depth {
                    let next = "h\(index + 1)"
                    binder.bind(Hunt22AValue.self, named: "h\(index)").to { resolver in
                        if index == depth - 1 { return Hunt22AValue(index: index, below: -1) }
                        let below: Hunt22AValue
                        if lazy {
                            below = try resolver.get(Lazy<Hunt22AValue>.self, named: next).value
                        } else {
                            below = try resolver.get(Provider<Hunt22AValue>.self, named: next).get()
                        }
                        return Hunt22AValue(index: index, below: below.index)
                    }
                }
            }
            Hunt22A.exitAfter {
                do {
                    let injector = try Injector(module)
                    return Hunt22A.outcome { try injector.get(Hunt22AValue.self, named: "h0") }
                } catch {
                    Hunt22A.log("creation: \(error)")
                    return 2
                }
            }
        }
        Hunt22A.report(result)
    }

    /// The failure is notBound (or depthExceeded); its path holds every level, and its description is
    /// made in a few seconds even though it spells thousands of keys.
    @Test(
        "a missing key at the bottom of a 5,000-level closure chain: notBound with the whole path, described fast",
        arguments: [false, true])
    func missingAtBottom(async: Bool) async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) { [async] in
            let depth = 5_000
            let module = Hunt22A.closureChain("m", depth: depth, scope: .transient, missingLeaf: true)
            let check: @Sendable (any Error) -> Int32 = { error in
                guard let error = error as? ProvisionError else { return 3 }
                let description = error.description
                if error.code == .depthExceeded {
                    return description.count < 10_000 ? 0 : 6
                }
                guard error.code == .notBound else {
                    Hunt22A.log("code \(error.code)")
                    return 4
                }
                guard error.key == Hunt22A.key("m", depth), error.path.count == depth + 1 else {
                    Hunt22A.log("key \(String(describing: error.key)), path \(error.path.count)")
                    return 5
                }
                guard description.contains("m4999") else { return 7 }
                _ = error.pathDescription
                return 0
            }
            if async {
                await Hunt22A.exitAfterAsync {
                    do {
                        let injector = try Injector(module)
                        _ = try await injector.get(Hunt22AValue.self, named: "m0")
                        return 8
                    } catch {
                        return check(error)
                    }
                }
            } else {
                Hunt22A.exitAfter {
                    do {
                        let injector = try Injector(module)
                        _ = try injector.get(Hunt22AValue.self, named: "m0")
                        return 8
                    } catch {
                        return check(error)
                    }
                }
            }
        }
        Hunt22A.report(result)
    }

    @Test("a 20,000-level closure chain that fails at the bottom: an error, never a crash, described fast")
    func failureAt20k() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let module = Hunt22A.closureChain("f", depth: 20_000, scope: .singleton, missingLeaf: true)
            Hunt22A.exitAfter {
                do {
                    let injector = try Injector(module)
                    _ = try injector.get(Hunt22AValue.self, named: "f0")
                    return 8
                } catch {
                    guard let error = error as? ProvisionError,
                        error.code == .notBound || error.code == .depthExceeded
                    else { return 3 }
                    _ = error.description
                    _ = error.pathDescription
                    return 0
                }
            }
        }
        Hunt22A.report(result)
    }
}
