import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Provision

// Hunt 20A, part 2: a throwing initializer at depth k of long chains of transient constructor bindings
// (5, 50, 500 and 5,000 levels: past 32 levels a top-level request runs a program of at most 4,096
// instructions, and a longer chain nests programs), and mixed levels whose instruction takes a value
// built below and then fails on a dependency it resolves itself. For each: the error's code, key and
// whole path, that every value built before the failure is released, and that a later request works.

// MARK: - Fixtures

/// A type identity per level: the level's number in binary, so that 5,000 levels need 13 nested types.
protocol Hunt20AID: SendableMetatype {}
enum Hunt20AEnd: Hunt20AID {}
enum Hunt20ABit0<Rest: Hunt20AID>: Hunt20AID {}
enum Hunt20ABit1<Rest: Hunt20AID>: Hunt20AID {}

/// Live links and the failures to throw, per chain.
final class Hunt20AChainState: Sendable {
    let built = Atomic(0)
    let alive = Atomic(0)
    /// The level whose initializer throws; -1 for none.
    let failingLevel = Atomic(-1)
    /// The side dependency's builds left before one throws (the mixed chains); -1 for never.
    let sideCountdown = Atomic(-1)
    /// Builds per level.
    let levelBuilds = Locked<[Int: Int]>([:])

    var counts: (built: Int, alive: Int) {
        (built.load(ordering: .sequentiallyConsistent), alive.load(ordering: .sequentiallyConsistent))
    }
}

struct Hunt20AChainFailure: Error, Equatable {
    let level: Int
}

/// One level of a chain. It holds nothing below it, so freeing never recurses.
final class Hunt20ALink<ID>: Sendable {
    let state: Hunt20AChainState
    init(_ state: Hunt20AChainState) {
        self.state = state
        state.built.add(1, ordering: .sequentiallyConsistent)
        state.alive.add(1, ordering: .sequentiallyConsistent)
    }
    deinit { state.alive.subtract(1, ordering: .sequentiallyConsistent) }
}

/// A transient closure binding (not programmable) that every mixed level resolves after the level below.
final class Hunt20ASide: Sendable {
    let state: Hunt20AChainState
    init(_ state: Hunt20AChainState) {
        self.state = state
        state.built.add(1, ordering: .sequentiallyConsistent)
        state.alive.add(1, ordering: .sequentiallyConsistent)
    }
    deinit { state.alive.subtract(1, ordering: .sequentiallyConsistent) }
}

/// A singleton each mixed level resolves before the level below (a pushed value in a program).
final class Hunt20AChainSingleton: Sendable {}

/// How each level of a chain is built.
enum Hunt20AChainShape: Sendable, CustomStringConvertible {
    /// `(Link<Next>)`.
    case plain
    /// `(Hunt20AChainSingleton, Link<Next>, Hunt20ASide)`: the side is resolved by the level's own
    /// instruction after it took the level below (bottom-up).
    case side
    /// `(Hunt20ASide, Link<Next>)`: the side is pushed on the value stack before the level below is
    /// built (top-down).
    case pushed

    var description: String {
        switch self {
        case .plain: "plain"
        case .side: "side"
        case .pushed: "pushed"
        }
    }
}

extension Hunt20AID {
    static var linkKey: BindingKey { BindingKey(Hunt20ALink<Self>.self) }

    /// Binds this level (number `level`) over the next one.
    static func link(
        _ binder: Binder, level: Int, to next: (any Hunt20AID.Type)?, state: Hunt20AChainState,
        shape: Hunt20AChainShape, scope: Scope
    ) {
        guard let next else {
            switch shape {
            case .side:
                binder.bind(Hunt20ALink<Self>.self).to { (_: Hunt20AChainSingleton, _: Hunt20ASide) throws in
                    try Hunt20AChain.check(state, level)
                    return Hunt20ALink<Self>(state)
                }.in(scope)
            case .pushed:
                binder.bind(Hunt20ALink<Self>.self).to { (_: Hunt20ASide) throws in
                    try Hunt20AChain.check(state, level)
                    return Hunt20ALink<Self>(state)
                }.in(scope)
            case .plain:
                binder.bind(Hunt20ALink<Self>.self).to { () throws in
                    try Hunt20AChain.check(state, level)
                    return Hunt20ALink<Self>(state)
                }.in(scope)
            }
            return
        }
        func open<Next: Hunt20AID>(_: Next.Type) {
            switch shape {
            case .side:
                binder.bind(Hunt20ALink<Self>.self).to {
                    (_: Hunt20AChainSingleton, _: Hunt20ALink<Next>, _: Hunt20ASide) throws in
                    try Hunt20AChain.check(state, level)
                    return Hunt20ALink<Self>(state)
                }.in(scope)
            case .pushed:
                binder.bind(Hunt20ALink<Self>.self).to { (_: Hunt20ASide, _: Hunt20ALink<Next>) throws in
                    try Hunt20AChain.check(state, level)
                    return Hunt20ALink<Self>(state)
                }.in(scope)
            case .plain:
                binder.bind(Hunt20ALink<Self>.self).to { (_: Hunt20ALink<Next>) throws in
                    try Hunt20AChain.check(state, level)
                    return Hunt20ALink<Self>(state)
                }.in(scope)
            }
        }
        open(next)
    }

    static func resolve(_ injector: Injector) throws(ProvisionError) -> AnyObject {
        try injector.get(Hunt20ALink<Self>.self)
    }

    static func resolveAsync(_ injector: Injector) async throws(ProvisionError) -> AnyObject {
        try await injector.get(Hunt20ALink<Self>.self)
    }
}

enum Hunt20AChain {
    /// Throws when `level` is the chain's failing level.
    static func check(_ state: Hunt20AChainState, _ level: Int) throws {
        state.levelBuilds.withLock { $0[level, default: 0] += 1 }
        if state.failingLevel.load(ordering: .sequentiallyConsistent) == level {
            throw Hunt20AChainFailure(level: level)
        }
    }

    static func id(_ number: Int) -> any Hunt20AID.Type {
        var type: any Hunt20AID.Type = Hunt20AEnd.self
        var rest = number
        repeat {
            type = rest & 1 == 0 ? bit0(type) : bit1(type)
            rest >>= 1
        } while rest > 0
        return type
    }

    static func bit0<T: Hunt20AID>(_: T.Type) -> any Hunt20AID.Type { Hunt20ABit0<T>.self }
    static func bit1<T: Hunt20AID>(_: T.Type) -> any Hunt20AID.Type { Hunt20ABit1<T>.self }

    /// A chain of `depth` levels (level 0 on top), and its level types.
    static func make(
        depth: Int, shape: Hunt20AChainShape = .plain, scope: @escaping @Sendable (Int) -> Scope = { _ in .transient }
    ) -> (ClosureModule, [any Hunt20AID.Type], Hunt20AChainState) {
        let ids = (0..<depth).map(id)
        let state = Hunt20AChainState()
        let module = ClosureModule { binder in
            for level in 0..<depth {
                ids[level].link(
                    binder, level: level, to: level + 1 < depth ? ids[level + 1] : nil, state: state, shape: shape,
                    scope: scope(level))
            }
            if shape == .side {
                binder.bind(Hunt20AChainSingleton.self).to(Hunt20AChainSingleton.init).in(.singleton)
            }
            if shape != .plain {
                binder.bind(Hunt20ASide.self).to { (_: Resolver) throws -> Hunt20ASide in
                    if state.sideCountdown.subtract(1, ordering: .sequentiallyConsistent).newValue == 0 {
                        throw Hunt20AChainFailure(level: -2)
                    }
                    return Hunt20ASide(state)
                }
            }
        }
        return (module, ids, state)
    }

    /// The error of a synchronous request for the top, or nil (the value released at once).
    static func topError(_ injector: Injector, _ ids: [any Hunt20AID.Type]) -> ProvisionError? {
        do {
            _ = try ids[0].resolve(injector)
            return nil
        } catch {
            return error
        }
    }

    static func topErrorAsync(_ injector: Injector, _ ids: [any Hunt20AID.Type]) async -> ProvisionError? {
        do {
            _ = try await ids[0].resolveAsync(injector)
            return nil
        } catch {
            return error
        }
    }

    /// Runs `body` on a thread with a stack of `stack` bytes; nil when it didn't end within 5 minutes.
    static func onThread<T: Sendable>(stack: Int = 256 << 20, _ body: @escaping @Sendable () -> T) -> T? {
        let result = Locked<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let value = body()
            result.withLock { $0 = value }
            done.signal()
        }
        thread.stackSize = stack
        thread.start()
        guard done.wait(timeout: .now() + 300) == .success else { return nil }
        return result.withLock { $0 }
    }
}

/// One request's outcome, summarised for a check made off the resolving thread.
struct Hunt20AChainOutcome: Sendable {
    let code: ProvisionError.Code?
    let key: BindingKey?
    let path: [BindingKey]
    let cause: Hunt20AChainFailure?
    let counts: (built: Int, alive: Int)
    let description: String

    init(_ error: ProvisionError?, _ state: Hunt20AChainState) {
        code = error?.code
        key = error?.key
        path = error?.path ?? []
        cause = error?.cause as? Hunt20AChainFailure
        counts = state.counts
        description = error.map { String($0.description.prefix(1_000)) } ?? "no error"
    }
}

// MARK: - Tests

@Suite("Hunt 20A: a failure at every depth of long constructor chains", .serialized, .timeLimit(.minutes(10)))
struct Hunt20AChainTests {
    static func expectFailure(
        _ outcome: Hunt20AChainOutcome, at level: Int, _ ids: [any Hunt20AID.Type],
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        #expect(outcome.code == .factoryFailed, "\(outcome.description)", sourceLocation: sourceLocation)
        #expect(outcome.cause == Hunt20AChainFailure(level: level), sourceLocation: sourceLocation)
        #expect(outcome.key == ids[level].linkKey, sourceLocation: sourceLocation)
        let expected = ids[0...level].map { $0.linkKey }
        #expect(
            outcome.path == expected,
            "path of \(outcome.path.count) keys, expected \(expected.count): first \(String(describing: outcome.path.first)), last \(String(describing: outcome.path.last))",
            sourceLocation: sourceLocation)
        #expect(
            outcome.counts.alive == 0, "every link built before the failure was released",
            sourceLocation: sourceLocation)
    }

    /// Fails at `level` (first request: linking, and the program made), succeeds, fails again (the
    /// published plans or program), and succeeds again; on a thread with a big stack.
    static func failAtDepth(_ depth: Int, level: Int, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        let (module, ids, state) = Hunt20AChain.make(depth: depth)
        let outcomes = Hunt20AChain.onThread { () -> [Hunt20AChainOutcome] in
            let injector: Injector
            do throws(ProvisionError) {
                injector = try Injector(module)
            } catch {
                return [Hunt20AChainOutcome(error, state)]
            }
            var outcomes: [Hunt20AChainOutcome] = []
            state.failingLevel.store(level, ordering: .sequentiallyConsistent)
            outcomes.append(Hunt20AChainOutcome(Hunt20AChain.topError(injector, ids), state))
            state.failingLevel.store(-1, ordering: .sequentiallyConsistent)
            outcomes.append(Hunt20AChainOutcome(Hunt20AChain.topError(injector, ids), state))
            state.failingLevel.store(level, ordering: .sequentiallyConsistent)
            outcomes.append(Hunt20AChainOutcome(Hunt20AChain.topError(injector, ids), state))
            state.failingLevel.store(-1, ordering: .sequentiallyConsistent)
            outcomes.append(Hunt20AChainOutcome(Hunt20AChain.topError(injector, ids), state))
            return outcomes
        }
        guard let outcomes, outcomes.count == 4 else {
            Issue.record(
                "the requests didn't end (or the injector failed): \(String(describing: outcomes?.first?.description))",
                sourceLocation: sourceLocation)
            return
        }
        expectFailure(outcomes[0], at: level, ids, sourceLocation: sourceLocation)
        let second = outcomes[1]
        #expect(second.code == nil, "\(second.description)", sourceLocation: sourceLocation)
        expectFailure(outcomes[2], at: level, ids, sourceLocation: sourceLocation)
        let fourth = outcomes[3]
        #expect(fourth.code == nil, "\(fourth.description)", sourceLocation: sourceLocation)
        // Built: the levels at and below the failure, twice, and the whole chain twice.
        let failed = depth - level - 1
        #expect(outcomes[3].counts.built == 2 * failed + 2 * depth, sourceLocation: sourceLocation)
        #expect(outcomes[3].counts.alive == 0, sourceLocation: sourceLocation)
    }

    @Test("chains of 5 and 50: a throwing initializer at every level", arguments: [5, 50])
    func everyLevel(depth: Int) {
        for level in 0..<depth {
            Self.failAtDepth(depth, level: level)
        }
    }

    @Test(
        "a chain of 500: a throwing initializer at the top, levels 1, 31, 32, 33, 250, 467, 468 and the bottom",
        arguments: [0, 1, 31, 32, 33, 250, 467, 468, 499])
    func chainOf500(level: Int) {
        Self.failAtDepth(500, level: level)
    }

    @Test(
        "a chain of 5,000 (nested programs): a throwing initializer on either side of the 4,096-instruction limit",
        arguments: [0, 903, 904, 905, 2_500, 4_095, 4_096, 4_097, 4_999])
    func chainOf5000(level: Int) {
        Self.failAtDepth(5_000, level: level)
    }

    @Test("a chain of 50 failing at depth k, async: the same error and path, nothing kept", arguments: [0, 17, 49])
    func asyncFailure(level: Int) async throws {
        let (module, ids, state) = Hunt20AChain.make(depth: 50)
        let injector = try Injector(module)
        _ = try await ids[0].resolveAsync(injector)
        state.failingLevel.store(level, ordering: .sequentiallyConsistent)
        Self.expectFailure(Hunt20AChainOutcome(await Hunt20AChain.topErrorAsync(injector, ids), state), at: level, ids)
        state.failingLevel.store(-1, ordering: .sequentiallyConsistent)
        #expect(await Hunt20AChain.topErrorAsync(injector, ids) == nil)
        #expect(state.counts.alive == 0)
    }

    @Test(
        "mixed levels (a singleton, the level below, a closure side): the side failing at every level of 40 releases everything",
        arguments: [0, 1, 2, 20, 38, 39])
    func mixedSideFailure(sideBuild: Int) throws {
        let depth = 40
        let (module, ids, state) = Hunt20AChain.make(depth: depth, shape: .side)
        let injector = try Injector(module)
        // Warm up: the program is made by the first top-level request.
        #expect(Hunt20AChain.topError(injector, ids) == nil)
        #expect(state.counts.alive == 0)
        // Sides are built bottom-up: the side build number `sideBuild` is the one of level depth-1-sideBuild.
        state.sideCountdown.store(sideBuild + 1, ordering: .sequentiallyConsistent)
        let error = Hunt20AChain.topError(injector, ids)
        let level = depth - 1 - sideBuild
        #expect(error?.code == .factoryFailed, "\(String(describing: error))")
        #expect(error?.key == BindingKey(Hunt20ASide.self))
        #expect(
            error?.path == ids[0...level].map { $0.linkKey } + [BindingKey(Hunt20ASide.self)],
            "\(error?.pathDescription.suffix(300) ?? "")")
        #expect(state.counts.alive == 0, "the links and sides built before the failure were released: \(state.counts)")
        state.sideCountdown.store(-1, ordering: .sequentiallyConsistent)
        #expect(Hunt20AChain.topError(injector, ids) == nil)
        #expect(state.counts.alive == 0)
    }
}

@Suite(
    "Hunt 20A: a failing dependency beside the level below, across the instruction limit", .serialized,
    .timeLimit(.minutes(10)))
struct Hunt20AChainSideTests {
    @Test(
        "chains of 3,000 levels whose side (pushed before, or resolved after, the level below) fails at build k: path and release",
        arguments: [Hunt20AChainShape.pushed, .side], [0, 1, 2_047, 2_048, 2_049, 2_999])
    func sideAcrossTheLimit(shape: Hunt20AChainShape, sideBuild: Int) {
        let depth = 3_000
        let (module, ids, state) = Hunt20AChain.make(depth: depth, shape: shape)
        // Pushed sides are built top-down, sides resolved after the level below bottom-up.
        let level = shape == .pushed ? sideBuild : depth - 1 - sideBuild
        let outcomes = Hunt20AChain.onThread { () -> [Hunt20AChainOutcome] in
            let injector: Injector
            do throws(ProvisionError) {
                injector = try Injector(module)
            } catch {
                return [Hunt20AChainOutcome(error, state)]
            }
            var outcomes: [Hunt20AChainOutcome] = []
            // First without failure (the program is made), then failing at build `sideBuild`, then again.
            outcomes.append(Hunt20AChainOutcome(Hunt20AChain.topError(injector, ids), state))
            state.sideCountdown.store(sideBuild + 1, ordering: .sequentiallyConsistent)
            outcomes.append(Hunt20AChainOutcome(Hunt20AChain.topError(injector, ids), state))
            state.sideCountdown.store(-1, ordering: .sequentiallyConsistent)
            outcomes.append(Hunt20AChainOutcome(Hunt20AChain.topError(injector, ids), state))
            return outcomes
        }
        guard let outcomes, outcomes.count == 3 else {
            Issue.record(
                "the requests didn't end (or the injector failed): \(String(describing: outcomes?.first?.description))")
            return
        }
        let first = outcomes[0]
        #expect(first.code == nil, "\(first.description)")
        let failure = outcomes[1]
        #expect(failure.code == .factoryFailed, "\(failure.description)")
        #expect(failure.key == BindingKey(Hunt20ASide.self))
        let expected = ids[0...level].map { $0.linkKey } + [BindingKey(Hunt20ASide.self)]
        #expect(
            failure.path == expected,
            "path of \(failure.path.count) keys, expected \(expected.count); last: \(failure.path.suffix(3).map(\.description))"
        )
        #expect(
            failure.counts.alive == 0, "every link and side built before the failure was released: \(failure.counts)")
        let last = outcomes[2]
        #expect(last.code == nil, "\(last.description)")
        #expect(last.counts.alive == 0)
    }
}
