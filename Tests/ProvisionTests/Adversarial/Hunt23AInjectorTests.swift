import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

/// Counts the instances of a child's own binding that have been freed.
let hunt23AFreed = Locked(0)

/// An object a child injector binds: counts its deinit, so that dropping children can be checked.
final class Hunt23AChildOwned: Sendable {
    let index: Int
    init(index: Int) { self.index = index }
    deinit { hunt23AFreed.withLock { $0 += 1 } }
}

/// The request data each child binds.
struct Hunt23ARequest: Sendable {
    let index: Int
}

/// A self-declaring singleton that depends on what each child binds: each child has its own.
final class Hunt23APerChild: Injectable, Sendable {
    static let injection = Injection(Hunt23APerChild.init(request:)).in(.singleton)
    let request: Hunt23ARequest
    init(request: Hunt23ARequest) { self.request = request }
}

/// A self-declaring singleton that depends on nothing: shared by the parent and every child.
final class Hunt23AShared: Injectable, Sendable {
    static let injection = Injection(Hunt23AShared.init).in(.singleton)
    init() {}
}

/// A value at one level of a derivation chain.
struct Hunt23ALevel: Sendable {
    let level: Int
}

/// A scoped disposable that records its disposal.
final class Hunt23AScoped: Disposable {
    let counter: Locked<Int>
    init(counter: Locked<Int>) { self.counter = counter }
    func dispose() { counter.withLock { $0 += 1 } }
}

/// A start or stop hook's failure.
struct Hunt23AFailure: Error, CustomStringConvertible {
    let index: Int
    var description: String { "service \(index) failed" }
}

/// An argument type per number (`Hunt23ATag<Hunt22ABit1<...>>`), for many argument lists of one type.
struct Hunt23ATag<N: Hunt22ANumber>: Sendable {}

extension Hunt22ANumber {
    /// Binds `Hunt23ANode` with one argument of type `Hunt23ATag<Self>`.
    static func bindTaggedVariant(_ binder: Binder) {
        let index = value
        binder.bind(Hunt23ANode.self).withArguments(Hunt23ATag<Self>.self).to { _, _ in
            Hunt23ANode(layer: index, column: 0)
        }
    }

    /// Resolves `Hunt23ANode` with a `Hunt23ATag<Self>` argument.
    static func getTaggedVariant(_ injector: Injector) throws(ProvisionError) -> Hunt23ANode {
        try injector.get(Hunt23ANode.self, arguments: Hunt23ATag<Self>())
    }
}

// MARK: - Tests

@Suite("Hunt 23A: derivation chains, many children, scopes, failures, variants", .timeLimit(.minutes(5)))
struct Hunt23AInjectorTests {
    @Test("300 chained overriding() derivations, each replacing the key a base singleton depends on: fast")
    func overridingChain() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let depth = 300 * Hunt23A.scale
            let base = ClosureModule { binder in
                binder.bind(Hunt23ALevel.self, named: "o").toInstance(Hunt23ALevel(level: 0))
                binder.bind(Hunt23ALevel.self, named: "dependent").to(
                    dependencies: [BindingKey(Hunt23ALevel.self, named: "o")]
                ) { resolver in try resolver.get(Hunt23ALevel.self, named: "o") }.in(.singleton)
                binder.bind(Hunt23ALevel.self, named: "untouched").to { Hunt23ALevel(level: -1) }.in(.singleton)
            }
            await Hunt22A.exitAfterAsync {
                do {
                    var injector = try Injector(base)
                    let untouched = try await injector.get(Hunt23ALevel.self, named: "untouched").level
                    try Hunt23A.timed("derive") {
                        for level in 1...depth {
                            injector = try injector.overriding { binder in
                                binder.bind(Hunt23ALevel.self, named: "o").toInstance(Hunt23ALevel(level: level))
                            }
                            if level % 50 == 0 {
                                guard try injector.get(Hunt23ALevel.self, named: "dependent").level == level else {
                                    throw Hunt23AFailure(index: level)
                                }
                            }
                        }
                    }
                    let leaf = injector
                    guard try await leaf.get(Hunt23ALevel.self, named: "dependent").level == depth,
                        try await leaf.get(Hunt23ALevel.self, named: "untouched").level == untouched
                    else { return 4 }
                    _ = Hunt23A.timed("validationReport") { leaf.validationReport() }
                    _ = Hunt23A.timed("graph") { leaf.graph().dot().count }
                    let with = try Hunt23A.timed("with") {
                        try leaf.with(
                            ClosureModule { binder in
                                binder.bind(Hunt23ALevel.self, named: "extra").toInstance(Hunt23ALevel(level: 1))
                            })
                    }
                    guard try await with.get(Hunt23ALevel.self, named: "dependent").level == depth else { return 5 }
                    try await Hunt23A.timedAsync("start") { try await leaf.start() }
                    try await Hunt23A.timedAsync("shutdown") { try await leaf.shutdown() }
                    return 0
                } catch {
                    Hunt22A.log("\(String(describing: error).prefix(2_000))")
                    return 3
                }
            }
        }
        Hunt22A.report(result)
    }

    @Test("300 chained with() derivations, each adding a module: fast (each configures every module once)")
    func withChain() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let depth = 300 * Hunt23A.scale
            Hunt22A.exitAfter {
                do {
                    var injector = try Injector(
                        ClosureModule { binder in
                            binder.multibind(Int.self).toInstance(0)
                        })
                    try Hunt23A.timed("with") {
                        for level in 1..<depth {
                            injector = try injector.with(
                                ClosureModule { binder in
                                    binder.multibind(Int.self).toInstance(level)
                                    binder.bind(Hunt23ALevel.self, named: "w\(level)").toInstance(
                                        Hunt23ALevel(level: level))
                                })
                        }
                    }
                    guard try injector.getAll(Int.self) as [Int] == Array(0..<depth) else { return 4 }
                    let without = try Hunt23A.timed("without") { try injector.without(ClosureModule.self) }
                    guard without.validationReport().isValid else { return 5 }
                    return 0
                } catch {
                    Hunt22A.log("\(String(describing: error).prefix(2_000))")
                    return 3
                }
            }
        }
        Hunt22A.report(result)
    }

    @Test("20,000 sibling children of one parent made, used and dropped: every child's objects freed, no slowdown")
    func siblingChildren() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let count = 20_000 * Hunt23A.scale
            let batch = count / 10
            Hunt22A.exitAfter {
                do {
                    let parent = try Injector(
                        ClosureModule { binder in
                            binder.bind(Hunt23ALevel.self).to { Hunt23ALevel(level: -1) }.in(.singleton)
                        })
                    let shared = try parent.get(Hunt23AShared.self)
                    let clock = ContinuousClock()
                    var times: [Duration] = []
                    var start = clock.now
                    for index in 0..<count {
                        do {
                            let child = try parent.makeChild(
                                ClosureModule { binder in
                                    binder.bind(Hunt23ARequest.self).toInstance(Hunt23ARequest(index: index))
                                    binder.bind(Hunt23AChildOwned.self).to { resolver in
                                        _ = try resolver.get(Hunt23ALevel.self)
                                        return Hunt23AChildOwned(index: index)
                                    }.in(.singleton)
                                })
                            guard try child.get(Hunt23AChildOwned.self).index == index,
                                try child.get(Hunt23APerChild.self).request.index == index,
                                try child.get(Hunt23AShared.self) === shared
                            else { throw Hunt23AFailure(index: index) }
                            _ = child.makeScope()
                        }
                        if (index + 1) % batch == 0 {
                            times.append(clock.now - start)
                            start = clock.now
                        }
                    }
                    Hunt22A.log("batches of \(batch): \(times)")
                    let freed = hunt23AFreed.withLock { $0 }
                    guard freed == count else {
                        Hunt22A.log("freed \(freed) of \(count)")
                        return 4
                    }
                    // The last batch may be slower than the first by noise, not by 5 times.
                    if let first = times.first, let last = times.last, last > first * 5 + .milliseconds(200) {
                        Hunt22A.log("slowdown: first \(first), last \(last)")
                        return 5
                    }
                    guard parent.validationReport().isValid else { return 6 }
                    return 0
                } catch {
                    Hunt22A.log("\(String(describing: error).prefix(2_000))")
                    return 3
                }
            }
        }
        Hunt22A.report(result)
    }

    @Test("10,000 overriding() derivations of one injector made and dropped: each freed, no slowdown")
    func siblingDerivations() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let count = 10_000 * Hunt23A.scale
            let batch = count / 10
            Hunt22A.exitAfter {
                do {
                    let original = try Injector(
                        ClosureModule { binder in
                            binder.bind(Hunt23ALevel.self, named: "o").toInstance(Hunt23ALevel(level: 0))
                            binder.bind(Hunt23ALevel.self, named: "dependent").to(
                                dependencies: [BindingKey(Hunt23ALevel.self, named: "o")]
                            ) { resolver in try resolver.get(Hunt23ALevel.self, named: "o") }.in(.singleton)
                        })
                    let clock = ContinuousClock()
                    var times: [Duration] = []
                    var start = clock.now
                    var alive = 0
                    var weakOnes: [Hunt23AWeak] = []
                    for index in 0..<count {
                        let derived = try original.overriding { binder in
                            binder.bind(Hunt23ALevel.self, named: "o").toInstance(Hunt23ALevel(level: index))
                        }
                        guard try derived.get(Hunt23ALevel.self, named: "dependent").level == index else {
                            throw Hunt23AFailure(index: index)
                        }
                        if index % 100 == 0 { weakOnes.append(Hunt23AWeak(derived)) }
                        if (index + 1) % batch == 0 {
                            times.append(clock.now - start)
                            start = clock.now
                        }
                    }
                    alive = weakOnes.filter { $0.injector != nil }.count
                    Hunt22A.log("batches of \(batch): \(times)")
                    guard alive == 0 else {
                        Hunt22A.log("\(alive) of \(weakOnes.count) sampled derived injectors still alive")
                        return 4
                    }
                    if let first = times.first, let last = times.last, last > first * 5 + .milliseconds(200) {
                        Hunt22A.log("slowdown: first \(first), last \(last)")
                        return 5
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

    @Test("10,000 scopes open at once, closed in random order (sync and async): every scoped instance disposed")
    func manyOpenScopes() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let count = 10_000 * Hunt23A.scale
            let disposed = Locked(0)
            let module = ClosureModule { binder in
                binder.bind(Hunt23AScoped.self).to { Hunt23AScoped(counter: disposed) }.in(.scoped)
                binder.bind(Hunt23ALevel.self).to { Hunt23ALevel(level: 1) }.in(.singleton)
            }
            await Hunt22A.exitAfterAsync {
                do {
                    let injector = try Injector(module)
                    var scopes: [ServiceScope] = []
                    try await Hunt23A.timedAsync("open") {
                        for index in 0..<count {
                            let scope = injector.makeScope()
                            if index % 2 == 0 {
                                _ = try hunt23ASyncGet(scope, Hunt23AScoped.self)
                            } else {
                                _ = try await scope.get(Hunt23AScoped.self)
                            }
                            scopes.append(scope)
                        }
                    }
                    var generator = Hunt23ARandom(seed: 23)
                    scopes.shuffle(using: &generator)
                    try await Hunt23A.timedAsync("close") {
                        for (index, scope) in scopes.enumerated() {
                            if index % 2 == 0 { try hunt23ASyncClose(scope) } else { try await scope.close() }
                        }
                    }
                    guard disposed.withLock({ $0 }) == count else {
                        Hunt22A.log("disposed \(disposed.withLock { $0 }) of \(count)")
                        return 4
                    }
                    try await injector.shutdown()
                    return 0
                } catch {
                    Hunt22A.log("\(String(describing: error).prefix(2_000))")
                    return 3
                }
            }
        }
        Hunt22A.report(result)
    }

    @Test("start() where 2,000 services' onStart throw, and shutdown() where 2,000 onStop throw: errors made fast")
    func manyHookFailures() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let count = 2_000 * Hunt23A.scale
            let module = ClosureModule { binder in
                for index in 0..<count {
                    binder.bind(Hunt23ALevel.self, named: "f\(index)").to { Hunt23ALevel(level: index) }
                        .in(.singleton)
                        .onStart { _ in throw Hunt23AFailure(index: index) }
                    binder.bind(Hunt23ALevel.self, named: "g\(index)").to { Hunt23ALevel(level: index) }
                        .in(.singleton)
                        .onStop { _ in throw Hunt23AFailure(index: index) }
                }
            }
            await Hunt22A.exitAfterAsync {
                do {
                    let injector = try Injector(module)
                    do {
                        try await Hunt23A.timedAsync("start") { try await injector.start() }
                        return 4
                    } catch {
                        guard (error as? ProvisionError)?.code == .startFailed else {
                            Hunt22A.log("start: \(String(describing: error).prefix(300))")
                            return 5
                        }
                        Hunt22A.log("start: \(((error as? ProvisionError)?.underlyingErrors.count ?? 0)) underlying")
                        _ = Hunt23A.timed("start description") { String(describing: error).count }
                    }
                    let second = try Injector(module)
                    for index in 0..<count { _ = try await second.get(Hunt23ALevel.self, named: "g\(index)") }
                    do {
                        try await Hunt23A.timedAsync("shutdown") { try await second.shutdown() }
                        Hunt22A.log("shutdown threw nothing (the stop hooks of unstarted services don't run)")
                    } catch {
                        guard (error as? ProvisionError)?.code == .stopFailed else {
                            Hunt22A.log("shutdown: \(String(describing: error).prefix(300))")
                            return 6
                        }
                        _ = Hunt23A.timed("stop description") { String(describing: error).count }
                    }
                    let third = try Injector(
                        ClosureModule { binder in
                            for index in 0..<count {
                                binder.bind(Hunt23ALevel.self, named: "h\(index)").to { Hunt23ALevel(level: index) }
                                    .in(.singleton)
                                    .onStop { _ in throw Hunt23AFailure(index: index) }
                            }
                        })
                    try await Hunt23A.timedAsync("third start") { try await third.start() }
                    do {
                        try await Hunt23A.timedAsync("third shutdown") { try await third.shutdown() }
                        return 7
                    } catch {
                        guard (error as? ProvisionError)?.code == .stopFailed,
                            ((error as? ProvisionError)?.underlyingErrors.count ?? 0) >= count
                        else {
                            Hunt22A.log(
                                "shutdown: \(String(describing: error).prefix(300)), \(((error as? ProvisionError)?.underlyingErrors.count ?? 0)) underlying"
                            )
                            return 8
                        }
                        _ = Hunt23A.timed("third stop description") { String(describing: error).count }
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

    @Test("a collection of 10,000 async elements, each resolving a singleton, got async: in order, fast")
    func asyncCollection() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let count = 10_000 * Hunt23A.scale
            let module = ClosureModule { binder in
                binder.bind(Hunt23ALevel.self).to { Hunt23ALevel(level: -1) }.in(.singleton)
                for index in 0..<count {
                    binder.multibind(Hunt23ANode.self).to { (resolver: Resolver) async throws -> Hunt23ANode in
                        _ = try await resolver.get(Hunt23ALevel.self)
                        return Hunt23ANode(layer: index, column: 0)
                    }.in(index % 2 == 0 ? .singleton : .transient)
                }
            }
            await Hunt22A.exitAfterAsync {
                do {
                    let injector = try Hunt23A.timed("create") { try Injector(module) }
                    for round in 0..<2 {
                        let all = try await Hunt23A.timedAsync("getAll \(round)") {
                            try await injector.getAll(Hunt23ANode.self)
                        }
                        guard all.map(\.layer) == Array(0..<count) else { return 4 }
                    }
                    _ = Hunt23A.timed("validationReport") { injector.validationReport() }
                    return 0
                } catch {
                    Hunt22A.log("\(String(describing: error).prefix(2_000))")
                    return 3
                }
            }
        }
        Hunt22A.report(result)
    }

    @Test("one type bound with 1,000 argument lists: each resolved with its own, a mismatch described, fast")
    func manyArgumentVariants() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let count = 1_000 * Hunt23A.scale
            let numbers = (0..<count).map { Hunt22ANumbers.type($0) }
            let module = ClosureModule { binder in
                for number in numbers { number.bindTaggedVariant(binder) }
            }
            Hunt22A.exitAfter {
                do {
                    let injector = try Hunt23A.timed("create") { try Injector(module) }
                    try Hunt23A.timed("get each") {
                        for round in 0..<3 {
                            for (index, number) in numbers.enumerated() {
                                guard try number.getTaggedVariant(injector).layer == index else {
                                    throw Hunt23AFailure(index: round * count + index)
                                }
                            }
                        }
                    }
                    do {
                        _ = try injector.get(Hunt23ANode.self, arguments: "no such list")
                        return 4
                    } catch {
                        guard (error as? ProvisionError)?.code == .argumentMismatch else { return 5 }
                        _ = Hunt23A.timed("mismatch description") { String(describing: error).count }
                    }
                    _ = Hunt23A.timed("validationReport") { injector.validationReport() }
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

/// A weak reference to an injector.
struct Hunt23AWeak {
    weak var injector: Injector?
    init(_ injector: Injector) { self.injector = injector }
}

/// A seeded random number generator (SplitMix64), so the closing order is the same every run.
struct Hunt23ARandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

/// `scope.get(type)` on the synchronous path.
private func hunt23ASyncGet<T>(_ scope: ServiceScope, _ type: T.Type) throws(ProvisionError) -> T {
    try scope.get(type)
}

/// `scope.close()` on the synchronous path.
private func hunt23ASyncClose(_ scope: ServiceScope) throws(ProvisionError) {
    try scope.close()
}
