import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Provision

// Diamond-shaped graphs of singletons raced from every node at once, from threads and tasks, through
// handles, child injectors and scopes.

final class HDTop: Sendable {
    let left: HDLeft
    let right: HDRight
    init(left: HDLeft, right: HDRight) {
        self.left = left
        self.right = right
    }
}
final class HDLeft: Sendable {
    let bottom: HDBottom
    init(bottom: HDBottom) { self.bottom = bottom }
}
final class HDRight: Sendable {
    let bottom: HDBottom
    init(bottom: HDBottom) { self.bottom = bottom }
}
final class HDBottom: Sendable {}

final class HDCounts: Sendable {
    let top = Counter()
    let left = Counter()
    let right = Counter()
    let bottom = Counter()
}

/// Holds handles to the bottom singleton.
final class HDHandles: Sendable {
    let lazy: Lazy<HDBottom>
    let provider: Provider<HDBottom>
    let factory: ObjectFactory
    init(lazy: Lazy<HDBottom>, provider: Provider<HDBottom>, factory: ObjectFactory) {
        self.lazy = lazy
        self.provider = provider
        self.factory = factory
    }
}

/// A scoped unit of work and two scoped repositories sharing it, disposed on close.
final class HDUnit: Disposable {
    let log: EventLog
    let disposed = Counter()
    init(log: EventLog) { self.log = log }
    func dispose() {
        disposed.increment()
        log.append("unit")
    }
}
final class HDRepoA: Disposable {
    let unit: HDUnit
    let log: EventLog
    init(unit: HDUnit, log: EventLog) {
        self.unit = unit
        self.log = log
    }
    func dispose() { log.append("repoA") }
}
final class HDRepoB: Disposable {
    let unit: HDUnit
    let log: EventLog
    init(unit: HDUnit, log: EventLog) {
        self.unit = unit
        self.log = log
    }
    func dispose() { log.append("repoB") }
}
final class HDHandler: Sendable {
    let a: HDRepoA
    let b: HDRepoB
    init(a: HDRepoA, b: HDRepoB) {
        self.a = a
        self.b = b
    }
}

/// A child's own singleton over the parent's.
final class HDChildService: Sendable {
    let bottom: HDBottom
    init(bottom: HDBottom) { self.bottom = bottom }
}

@Suite("Hunt: concurrency on diamonds", .timeLimit(.minutes(3)))
struct HuntConcurrencyTests {
    /// A diamond of singletons: closures (which push path frames) over constructor bindings.
    static func diamond(_ counts: HDCounts, closures: Bool) -> ClosureModule {
        ClosureModule { binder in
            binder.bind(HDBottom.self).to { _ in
                counts.bottom.increment()
                return HDBottom()
            }.in(.singleton)
            if closures {
                binder.bind(HDLeft.self).to { resolver in
                    counts.left.increment()
                    // Resolves the same dependency twice: not a cycle.
                    let first: HDBottom = try resolver.get()
                    let second: HDBottom = try resolver.get()
                    precondition(first === second)
                    return HDLeft(bottom: first)
                }.in(.singleton)
                binder.bind(HDRight.self).to { resolver in
                    counts.right.increment()
                    return HDRight(bottom: try resolver.get())
                }.in(.singleton)
                binder.bind(HDTop.self).to { resolver in
                    counts.top.increment()
                    return HDTop(left: try resolver.get(), right: try resolver.get())
                }.in(.singleton)
            } else {
                binder.bind(HDLeft.self).to { (bottom: HDBottom) in
                    counts.left.increment()
                    return HDLeft(bottom: bottom)
                }.in(.singleton)
                binder.bind(HDRight.self).to { (bottom: HDBottom) in
                    counts.right.increment()
                    return HDRight(bottom: bottom)
                }.in(.singleton)
                binder.bind(HDTop.self).to { (left: HDLeft, right: HDRight) in
                    counts.top.increment()
                    return HDTop(left: left, right: right)
                }.in(.singleton)
            }
        }
    }

    @Test(
        "16 threads race every node of a singleton diamond at once: one build each, one graph, no error",
        arguments: [false, true])
    func diamondFromEveryNode(closures: Bool) async throws {
        let rounds = 300
        let threads = 16
        let setups = try (0..<rounds).map { _ -> (Injector, HDCounts) in
            let counts = HDCounts()
            return (try Injector(Self.diamond(counts, closures: closures)), counts)
        }
        let errors = Locked<[String]>([])
        let bottoms = Locked<[[ObjectIdentifier]]>(Array(repeating: [], count: rounds))
        let barrier = Barrier(count: threads)
        let finished = try await offPool {
            runThreads(threads) { index in
                for (round, (injector, _)) in setups.enumerated() {
                    barrier.arriveAndWait()
                    do {
                        let bottom: HDBottom
                        switch (index + round) % 4 {
                        case 0:
                            let top = try injector.get(HDTop.self)
                            guard top.left.bottom === top.right.bottom else { throw HuntBoom(id: 1) }
                            bottom = top.left.bottom
                        case 1: bottom = try injector.get(HDLeft.self).bottom
                        case 2: bottom = try injector.get(HDRight.self).bottom
                        default: bottom = try injector.get(HDBottom.self)
                        }
                        bottoms.withLock { $0[round].append(ObjectIdentifier(bottom)) }
                    } catch {
                        errors.withLock { $0.append("round \(round): \(error)") }
                    }
                }
            }
        }
        #expect(finished)
        #expect(errors.withLock { $0 }.isEmpty, "\(errors.withLock { $0.prefix(3) })")
        var bad = 0
        for (round, (_, counts)) in setups.enumerated() {
            let ids = bottoms.withLock { $0[round] }
            let topBuilt = counts.top.value
            if counts.bottom.value != 1 || counts.left.value != 1 || counts.right.value != 1 || topBuilt != 1
                || Set(ids).count != 1
            {
                bad += 1
            }
        }
        #expect(bad == 0, "\(bad) rounds built a node other than once")
    }

    @Test("a Lazy, a Provider and an ObjectFactory of an unbuilt singleton, read by 16 threads at once: one build")
    func handlesFromManyThreads() async throws {
        for kind in 0..<3 {
            let counts = HDCounts()
            let injector = try Injector(
                Self.diamond(counts, closures: false),
                ClosureModule { binder in
                    binder.bind(HDHandles.self).to(HDHandles.init(lazy:provider:factory:)).in(.singleton)
                }
            )
            let handles = try injector.syncGet(HDHandles.self)
            #expect(counts.bottom.value == 0)
            let ids = Locked<Set<ObjectIdentifier>>([])
            let failures = Counter()
            let barrier = Barrier(count: 16)
            let finished = try await offPool {
                runThreads(16) { _ in
                    barrier.arriveAndWait()
                    do {
                        let bottom: HDBottom
                        switch kind {
                        case 0: bottom = try handles.lazy.value
                        case 1: bottom = try handles.provider.get()
                        default: bottom = try handles.factory.get(HDBottom.self)
                        }
                        ids.withLock { _ = $0.insert(ObjectIdentifier(bottom)) }
                    } catch {
                        failures.increment()
                    }
                }
            }
            #expect(finished)
            #expect(failures.value == 0)
            #expect(counts.bottom.value == 1, "kind \(kind)")
            #expect(ids.withLock { $0.count } == 1)
            #expect(try ObjectIdentifier(injector.syncGet(HDBottom.self)) == ids.withLock { $0.first })
        }
    }

    @Test("16 child injectors made at once resolve their parent's unbuilt singleton: built once, shared")
    func childrenShareParentSingleton() async throws {
        for _ in 0..<50 {
            let counts = HDCounts()
            let parent = try Injector(Self.diamond(counts, closures: true))
            let seen = Locked<[ObjectIdentifier]>([])
            let failures = Locked<[String]>([])
            let barrier = Barrier(count: 16)
            let finished = try await offPool {
                runThreads(16) { index in
                    barrier.arriveAndWait()
                    do {
                        let child = try parent.makeChild(
                            ClosureModule { binder in
                                binder.bind(HDChildService.self).to(HDChildService.init(bottom:)).in(.singleton)
                            }
                        )
                        let service = try child.get(HDChildService.self)
                        let top = try child.get(HDTop.self)
                        guard top.left.bottom === service.bottom else { throw HuntBoom(id: index) }
                        seen.withLock { $0.append(ObjectIdentifier(service.bottom)) }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
            #expect(finished)
            #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(2) })")
            #expect(counts.bottom.value == 1)
            #expect(counts.top.value == 1)
            #expect(Set(seen.withLock { $0 }).count == 1)
            #expect(try ObjectIdentifier(parent.syncGet(HDBottom.self)) == seen.withLock { $0.first })
        }
    }

    @Test(
        "16 threads build a diamond of scoped services in one scope: one instance each, disposed once, dependents first"
    )
    func scopedDiamond() async throws {
        for _ in 0..<100 {
            let log = EventLog()
            let units = Counter()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(EventLog.self).toInstance(log)
                    binder.bind(HDUnit.self).to { resolver in
                        units.increment()
                        return HDUnit(log: try resolver.get())
                    }.in(.scoped)
                    binder.bind(HDRepoA.self).to(HDRepoA.init(unit:log:)).in(.scoped)
                    binder.bind(HDRepoB.self).to(HDRepoB.init(unit:log:)).in(.scoped)
                    binder.bind(HDHandler.self).to(HDHandler.init(a:b:))
                }
            )
            let scope = injector.makeScope()
            let handlers = Locked<[HDHandler]>([])
            let failures = Counter()
            let barrier = Barrier(count: 16)
            let finished = try await offPool {
                runThreads(16) { index in
                    barrier.arriveAndWait()
                    do {
                        switch index % 3 {
                        case 0:
                            let handler = try scope.syncGet(HDHandler.self)
                            handlers.withLock { $0.append(handler) }
                        case 1: _ = try scope.syncGet(HDRepoA.self)
                        default: _ = try scope.syncGet(HDRepoB.self)
                        }
                    } catch {
                        failures.increment()
                    }
                }
            }
            #expect(finished)
            #expect(failures.value == 0)
            #expect(units.value == 1)
            let all = handlers.withLock { $0 }
            #expect(Set(all.map { ObjectIdentifier($0.a) }).count == 1)
            #expect(Set(all.map { ObjectIdentifier($0.b.unit) }).count == 1)
            #expect(all.allSatisfy { $0.a.unit === $0.b.unit })
            try scope.syncClose()
            let events = log.all
            #expect(events.count == 3, "\(events)")
            #expect(events.last == "unit", "\(events)")
            try scope.syncClose()
            #expect(log.all.count == 3)
        }
    }

    @Test(
        "a singleton's factory builds other singletons in parallel (concurrentPerform) while threads race them: no false cycle"
    )
    func parallelBuildInsideFactory() async throws {
        final class Aggregate: Sendable {
            let parts: [HDLeft]
            init(parts: [HDLeft]) { self.parts = parts }
        }
        for round in 0..<100 {
            let slot = HuntInjectorSlot()
            let counts = HDCounts()
            let partRuns = Counter()
            let injector = try Injector(
                Self.diamond(counts, closures: true),
                ClosureModule { binder in
                    for index in 0..<8 {
                        binder.bind(HDLeft.self, named: "part \(index)").to { resolver in
                            partRuns.increment()
                            return HDLeft(bottom: try resolver.get())
                        }.in(.singleton)
                    }
                    binder.bind(Aggregate.self).to { _ in
                        let parts = Locked<[Int: HDLeft]>([:])
                        let errors = Locked<[String]>([])
                        DispatchQueue.concurrentPerform(iterations: 8) { index in
                            do {
                                let part = try slot.injector.get(HDLeft.self, named: "part \(index)")
                                parts.withLock { $0[index] = part }
                            } catch {
                                errors.withLock { $0.append("\(error)") }
                            }
                        }
                        if let first = errors.withLock({ $0.first }) { throw HuntBoomMessage(message: first) }
                        return Aggregate(parts: (0..<8).map { index in parts.withLock { $0[index]! } })
                    }.in(.singleton)
                }
            )
            slot.injector = injector
            let failures = Locked<[String]>([])
            let barrier = Barrier(count: 6)
            let finished = try await offPool {
                runThreads(6) { index in
                    barrier.arriveAndWait()
                    do {
                        switch (index + round) % 6 {
                        case 0, 1: _ = try injector.get(Aggregate.self)
                        case 2: _ = try injector.get(HDTop.self)
                        case 3: _ = try injector.get(HDBottom.self)
                        default: _ = try injector.get(HDLeft.self, named: "part \((index + round) % 8)")
                        }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
            #expect(finished)
            #expect(failures.withLock { $0 }.isEmpty, "round \(round): \(failures.withLock { $0.prefix(2) })")
            #expect(counts.bottom.value == 1)
            #expect(partRuns.value == 8)
            if !failures.withLock({ $0 }).isEmpty { break }
        }
    }

    @Test(
        "an async singleton whose factory builds two constructor singletons with async let, both over one shared singleton, while tasks race them: no cycle"
    )
    func asyncLetChildren() async throws {
        final class Pair: Sendable {
            let left: HDLeft
            let right: HDRight
            init(left: HDLeft, right: HDRight) {
                self.left = left
                self.right = right
            }
        }
        for round in 0..<100 {
            let slot = HuntInjectorSlot()
            let counts = HDCounts()
            let injector = try Injector(
                // Constructors: their async plans suspend where they wait. (A synchronous closure's own
                // requests are synchronous code: inside a task they don't wait for an instance an async
                // request is building, see ThreadSafety.md.)
                Self.diamond(counts, closures: false),
                ClosureModule { binder in
                    binder.bind(Pair.self).to { _ async throws in
                        let injector = slot.injector
                        async let left = injector.get(HDLeft.self)
                        async let right = injector.get(HDRight.self)
                        return Pair(left: try await left, right: try await right)
                    }.in(.singleton)
                }
            )
            slot.injector = injector
            let failures = Locked<[String]>([])
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        do {
                            switch (index + round) % 4 {
                            case 0, 1: _ = try await injector.get(Pair.self)
                            case 2: _ = try await injector.get(HDTop.self)
                            default: _ = try await injector.get(HDBottom.self)
                            }
                        } catch {
                            failures.withLock { $0.append("\(error)") }
                        }
                    }
                }
            }
            #expect(failures.withLock { $0 }.isEmpty, "round \(round): \(failures.withLock { $0.prefix(2) })")
            #expect(counts.bottom.value == 1 && counts.left.value == 1 && counts.right.value == 1)
            if !failures.withLock({ $0 }).isEmpty { break }
        }
    }
}

struct HuntBoomMessage: Error {
    let message: String
}
