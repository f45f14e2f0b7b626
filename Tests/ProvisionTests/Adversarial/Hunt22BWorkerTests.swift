import Dispatch
import Foundation
import Testing

@testable import Provision

// Hunt 22B, part 1: synchronous singleton and scoped factories that hand a request to a worker (a
// dispatch queue's job, a Thread) and block until it answers, as code that opens a connection on a
// queue does. Requests for *other* keys from those workers are no cycle: each must resolve, every
// factory run exactly once, while other threads build or wait for the same keys. A real cycle split
// across the factory's thread and its worker, and a worker asking for the very key being built, must
// end (an error, or the instance once the factory returns), never hang. Every wait is bounded.

enum Hunt22BTagA {}
enum Hunt22BTagB {}
enum Hunt22BTagC {}
enum Hunt22BTagS {}
enum Hunt22BTagU {}
enum Hunt22BTagX {}

/// A service keyed by its tag, remembering the instance it was built over (if any).
final class Hunt22BSvc<Tag>: Sendable {
    let link: ObjectIdentifier?
    let second: ObjectIdentifier?
    init(link: AnyObject? = nil, second: AnyObject? = nil) {
        self.link = link.map(ObjectIdentifier.init)
        self.second = second.map(ObjectIdentifier.init)
    }
}

typealias Hunt22BA = Hunt22BSvc<Hunt22BTagA>
typealias Hunt22BB = Hunt22BSvc<Hunt22BTagB>
typealias Hunt22BC = Hunt22BSvc<Hunt22BTagC>
typealias Hunt22BS = Hunt22BSvc<Hunt22BTagS>
typealias Hunt22BU = Hunt22BSvc<Hunt22BTagU>
typealias Hunt22BX = Hunt22BSvc<Hunt22BTagX>

/// Where a factory's work runs.
enum Hunt22BWorker: String, CaseIterable, Sendable, CustomStringConvertible {
    case dispatchAsync, thread
    var description: String { rawValue }

    /// Starts `body` on a worker; the semaphore is signalled when it returns.
    func start(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
        switch self {
        case .dispatchAsync:
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                body()
                done.signal()
            }
            return done
        case .thread:
            return hunt18BThread(body)
        }
    }

    /// Runs `request` on a worker and blocks until it answers (at most `seconds`): the factory's view.
    func resolve<T: Sendable>(
        seconds: Double = 5, _ request: @escaping @Sendable () throws(ProvisionError) -> T
    ) throws -> T {
        let outcome = Hunt18BOutcome<T>()
        let done = start { outcome.record(request) }
        guard hunt18BWait(done, seconds: seconds) else { throw Hunt18BHung() }
        if let error = outcome.error { throw error }
        guard let value = outcome.value else { throw Hunt18BHung() }
        return value
    }
}

/// Starts `count` threads that each wait for one `go` and then run `body(index)`; returns once all
/// are parked on `go` (or the time is up), with the group they leave.
func hunt22BParkedThreads(
    _ count: Int, go: DispatchSemaphore, _ body: @escaping @Sendable (Int) -> Void
) async -> DispatchGroup {
    let ready = Hunt18BCount()
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        hunt18BThread {
            ready.bump()
            go.wait()
            body(index)
            group.leave()
        }
    }
    #expect(await hunt18BUntilAsync { ready.count == count }, "threads never parked")
    return group
}

/// Waits at most `seconds` for `group` without blocking a pool thread.
func hunt22BJoin(_ group: DispatchGroup, seconds: Double = 10) async -> Bool {
    await hunt18BBlocking { group.wait(timeout: .now() + seconds) == .success }
}

@Suite("Hunt 22B: sync factories that wait for worker threads", .serialized, .timeLimit(.minutes(2)))
struct Hunt22BWorkerTests {
    @Test(
        "a singleton's factory waits for a worker resolving another singleton (over a third): built once each",
        arguments: Hunt22BWorker.allCases)
    func workerResolvesAnotherSingleton(worker: Hunt22BWorker) async throws {
        let builds = Hunt18BBuilds()
        let slot = Hunt18BSlot()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt22BC.self).to { (_: Resolver) in
                    builds.bump("c")
                    return Hunt22BC()
                }.in(.singleton)
                binder.bind(Hunt22BB.self).to { (c: Hunt22BC) in
                    builds.bump("b")
                    return Hunt22BB(link: c)
                }.in(.singleton)
                binder.bind(Hunt22BA.self).to { (_: Resolver) throws -> Hunt22BA in
                    builds.bump("a")
                    guard let injector = slot.injector else { throw Hunt18BHung() }
                    let b = try worker.resolve { () throws(ProvisionError) in try injector.syncGet(Hunt22BB.self) }
                    return Hunt22BA(link: b)
                }.in(.singleton)
            })
        slot.injector = injector
        let request = Hunt18BOutcome<Hunt22BA>()
        let done = hunt18BThread { request.record { () throws(ProvisionError) in try injector.syncGet(Hunt22BA.self) } }
        #expect(await hunt18BWaitAsync(done), "\(worker): hung")
        #expect(request.value != nil, "\(worker): \(String(describing: request.error))")
        let b = try injector.syncGet(Hunt22BB.self)
        #expect(request.value?.link == ObjectIdentifier(b))
        #expect(b.link == ObjectIdentifier(try injector.syncGet(Hunt22BC.self)))
        #expect(builds["a"] == 1 && builds["b"] == 1 && builds["c"] == 1)
        slot.injector = nil
    }

    @Test(
        "two singletons whose factories resolve one shared singleton from workers at the same moment: S built once",
        arguments: Hunt22BWorker.allCases)
    func twoFactoriesShareAThird(worker: Hunt22BWorker) async throws {
        for round in 0..<10 {
            let builds = Hunt18BBuilds()
            let slot = Hunt18BSlot()
            let barrierMissed = Hunt18BCount()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Hunt22BS.self).to { (_: Resolver) in
                        builds.bump("s")
                        // The other worker is waiting at S's gate before S is done.
                        if !hunt18BUntil({ slot.injector?.gateWaiters(of: Hunt22BS.self)?.threads == 1 }) {
                            barrierMissed.bump()
                        }
                        return Hunt22BS()
                    }.in(.singleton)
                    binder.bind(Hunt22BA.self).to { (_: Resolver) throws -> Hunt22BA in
                        builds.bump("a")
                        guard let injector = slot.injector else { throw Hunt18BHung() }
                        return Hunt22BA(
                            link: try worker.resolve { () throws(ProvisionError) in
                                try injector.syncGet(Hunt22BS.self)
                            })
                    }.in(.singleton)
                    binder.bind(Hunt22BB.self).to { (_: Resolver) throws -> Hunt22BB in
                        builds.bump("b")
                        guard let injector = slot.injector else { throw Hunt18BHung() }
                        return Hunt22BB(
                            link: try worker.resolve { () throws(ProvisionError) in
                                try injector.syncGet(Hunt22BS.self)
                            })
                    }.in(.singleton)
                })
            slot.injector = injector
            let go = DispatchSemaphore(value: 0)
            let outcomes = (0..<2).map { _ in Hunt18BOutcome<ObjectIdentifier>() }
            let group = await hunt22BParkedThreads(2, go: go) { index in
                outcomes[index].record { () throws(ProvisionError) in
                    index == 0
                        ? ObjectIdentifier(try injector.syncGet(Hunt22BA.self))
                        : ObjectIdentifier(try injector.syncGet(Hunt22BB.self))
                }
            }
            go.signal()
            go.signal()
            #expect(await hunt22BJoin(group), "\(worker) round \(round): hung")
            let errors = outcomes.compactMap(\.error)
            #expect(errors.isEmpty, "\(worker) round \(round): \(errors.map(\.description))")
            #expect(barrierMissed.count == 0, "round \(round): the second worker never waited at S")
            let s = ObjectIdentifier(try injector.syncGet(Hunt22BS.self))
            #expect(try injector.syncGet(Hunt22BA.self).link == s)
            #expect(try injector.syncGet(Hunt22BB.self).link == s)
            #expect(builds["s"] == 1 && builds["a"] == 1 && builds["b"] == 1, "round \(round)")
            slot.injector = nil
        }
    }

    @Test(
        "a factory's worker resolves a transient over a singleton that a third thread is building: no cycle, once each",
        arguments: Hunt22BWorker.allCases)
    func workerTransientOverSingletonBuiltElsewhere(worker: Hunt22BWorker) async throws {
        let builds = Hunt18BBuilds()
        let slot = Hunt18BSlot()
        let uEntered = DispatchSemaphore(value: 0)
        let barrierMissed = Hunt18BCount()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt22BU.self).to { (_: Resolver) in
                    builds.bump("u")
                    uEntered.signal()
                    // The worker of A's factory waits at U's gate before U is done.
                    if !hunt18BUntil({ slot.injector?.gateWaiters(of: Hunt22BU.self)?.threads == 1 }) {
                        barrierMissed.bump()
                    }
                    return Hunt22BU()
                }.in(.singleton)
                binder.bind(Hunt22BX.self).to { (u: Hunt22BU) in
                    builds.bump("x")
                    return Hunt22BX(link: u)
                }
                binder.bind(Hunt22BA.self).to { (_: Resolver) throws -> Hunt22BA in
                    builds.bump("a")
                    guard let injector = slot.injector else { throw Hunt18BHung() }
                    return Hunt22BA(
                        link: try worker.resolve { () throws(ProvisionError) in try injector.syncGet(Hunt22BX.self) })
                }.in(.singleton)
            })
        slot.injector = injector
        let third = Hunt18BOutcome<Hunt22BU>()
        let thirdDone = hunt18BThread {
            third.record { () throws(ProvisionError) in try injector.syncGet(Hunt22BU.self) }
        }
        #expect(await hunt18BWaitAsync(uEntered))
        let request = Hunt18BOutcome<Hunt22BA>()
        let done = hunt18BThread { request.record { () throws(ProvisionError) in try injector.syncGet(Hunt22BA.self) } }
        #expect(await hunt18BWaitAsync(done), "hung")
        #expect(await hunt18BWaitAsync(thirdDone), "hung")
        #expect(request.value != nil, "\(worker): \(String(describing: request.error))")
        #expect(third.value != nil, "\(String(describing: third.error))")
        #expect(barrierMissed.count == 0)
        #expect(builds["u"] == 1 && builds["x"] == 1 && builds["a"] == 1)
        slot.injector = nil
    }

    @Test(
        "a factory hands a Provider and a Lazy to a worker while a third thread builds their targets: once each",
        arguments: Hunt22BWorker.allCases)
    func handlesReadOnWorker(worker: Hunt22BWorker) async throws {
        for round in 0..<10 {
            let builds = Hunt18BBuilds()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Hunt22BB.self).to { (_: Resolver) in
                        builds.bump("b")
                        return Hunt22BB()
                    }.in(.singleton)
                    binder.bind(Hunt22BC.self).to { (b: Hunt22BB) in
                        builds.bump("c")
                        return Hunt22BC(link: b)
                    }.in(.singleton)
                    binder.bind(Hunt22BA.self).to { (resolver: Resolver) throws -> Hunt22BA in
                        builds.bump("a")
                        let provider = try resolver.get(Provider<Hunt22BB>.self)
                        let lazy = try resolver.get(Lazy<Hunt22BC>.self)
                        let pair = try worker.resolve { () throws(ProvisionError) in
                            (try provider.get(), try lazy.value)
                        }
                        return Hunt22BA(link: pair.0, second: pair.1)
                    }.in(.singleton)
                })
            let go = DispatchSemaphore(value: 0)
            let outcomes = (0..<3).map { _ in Hunt18BOutcome<ObjectIdentifier>() }
            let group = await hunt22BParkedThreads(3, go: go) { index in
                outcomes[index].record { () throws(ProvisionError) in
                    switch index {
                    case 0: ObjectIdentifier(try injector.syncGet(Hunt22BA.self))
                    case 1: ObjectIdentifier(try injector.syncGet(Hunt22BC.self))
                    default: ObjectIdentifier(try injector.syncGet(Hunt22BB.self))
                    }
                }
            }
            for _ in 0..<3 { go.signal() }
            #expect(await hunt22BJoin(group), "\(worker) round \(round): hung")
            let errors = outcomes.compactMap(\.error)
            #expect(errors.isEmpty, "\(worker) round \(round): \(errors.map(\.description))")
            let a = try injector.syncGet(Hunt22BA.self)
            #expect(a.link == ObjectIdentifier(try injector.syncGet(Hunt22BB.self)))
            #expect(a.second == ObjectIdentifier(try injector.syncGet(Hunt22BC.self)))
            #expect(builds["a"] == 1 && builds["b"] == 1 && builds["c"] == 1, "round \(round)")
        }
    }

    @Test(
        "a chain of factories each waiting for a worker (A -> B -> C), with a thread waiting at every gate: once each",
        arguments: Hunt22BWorker.allCases)
    func workerChainWithWaitersEverywhere(worker: Hunt22BWorker) async throws {
        let builds = Hunt18BBuilds()
        let slot = Hunt18BSlot()
        let cEntered = DispatchSemaphore(value: 0)
        let barrierMissed = Hunt18BCount()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt22BC.self).to { (_: Resolver) in
                    builds.bump("c")
                    cEntered.signal()
                    let everyGateWaited = hunt18BUntil {
                        guard let injector = slot.injector else { return false }
                        return injector.gateWaiters(of: Hunt22BA.self)?.threads == 1
                            && injector.gateWaiters(of: Hunt22BB.self)?.threads == 1
                            && injector.gateWaiters(of: Hunt22BC.self)?.threads == 1
                    }
                    if !everyGateWaited { barrierMissed.bump() }
                    return Hunt22BC()
                }.in(.singleton)
                binder.bind(Hunt22BB.self).to { (_: Resolver) throws -> Hunt22BB in
                    builds.bump("b")
                    guard let injector = slot.injector else { throw Hunt18BHung() }
                    return Hunt22BB(
                        link: try worker.resolve { () throws(ProvisionError) in try injector.syncGet(Hunt22BC.self) })
                }.in(.singleton)
                binder.bind(Hunt22BA.self).to { (_: Resolver) throws -> Hunt22BA in
                    builds.bump("a")
                    guard let injector = slot.injector else { throw Hunt18BHung() }
                    return Hunt22BA(
                        link: try worker.resolve { () throws(ProvisionError) in try injector.syncGet(Hunt22BB.self) })
                }.in(.singleton)
            })
        slot.injector = injector
        let first = Hunt18BOutcome<ObjectIdentifier>()
        let firstDone = hunt18BThread {
            first.record { () throws(ProvisionError) in ObjectIdentifier(try injector.syncGet(Hunt22BA.self)) }
        }
        #expect(await hunt18BWaitAsync(cEntered))
        let go = DispatchSemaphore(value: 0)
        let outcomes = (0..<3).map { _ in Hunt18BOutcome<ObjectIdentifier>() }
        let group = await hunt22BParkedThreads(3, go: go) { index in
            outcomes[index].record { () throws(ProvisionError) in
                switch index {
                case 0: ObjectIdentifier(try injector.syncGet(Hunt22BA.self))
                case 1: ObjectIdentifier(try injector.syncGet(Hunt22BB.self))
                default: ObjectIdentifier(try injector.syncGet(Hunt22BC.self))
                }
            }
        }
        for _ in 0..<3 { go.signal() }
        #expect(await hunt22BJoin(group), "\(worker): hung")
        #expect(await hunt18BWaitAsync(firstDone), "\(worker): hung")
        let errors = ([first] + outcomes).compactMap(\.error)
        #expect(errors.isEmpty, "\(worker): \(errors.map(\.description))")
        #expect(barrierMissed.count == 0)
        #expect(outcomes[0].value == first.value)
        #expect(builds["a"] == 1 && builds["b"] == 1 && builds["c"] == 1)
        slot.injector = nil
    }

    @Test(
        "scoped factories in two scopes wait for workers resolving a scoped service over one singleton: once per scope",
        arguments: Hunt22BWorker.allCases)
    func scopedFactoriesWaitForWorkers(worker: Hunt22BWorker) async throws {
        let builds = Hunt18BBuilds()
        let scopes = Locked<[Int: ServiceScope]>([:])
        let barrierMissed = Hunt18BCount()
        let slot = Hunt18BSlot()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Int.self, named: "scope").toSeed()
                binder.bind(Hunt22BU.self).to { (_: Resolver) in
                    builds.bump("u")
                    if !hunt18BUntil({ slot.injector?.gateWaiters(of: Hunt22BU.self)?.threads == 1 }) {
                        barrierMissed.bump()
                    }
                    return Hunt22BU()
                }.in(.singleton)
                binder.bind(Hunt22BB.self).to { (u: Hunt22BU) in
                    builds.bump("b")
                    return Hunt22BB(link: u)
                }.in(.scoped)
                binder.bind(Hunt22BA.self).to { (resolver: Resolver) throws -> Hunt22BA in
                    builds.bump("a")
                    let index = try resolver.get(Int.self, named: "scope")
                    guard let scope = scopes.withLock({ $0[index] }) else { throw Hunt18BHung() }
                    return Hunt22BA(
                        link: try worker.resolve { () throws(ProvisionError) in try scope.get(Hunt22BB.self) })
                }.in(.scoped)
            })
        slot.injector = injector
        var made: [ServiceScope] = []
        for index in 0..<2 {
            let scope = try injector.makeScope { $0.provide(index, named: "scope") }
            scopes.withLock { $0[index] = scope }
            made.append(scope)
        }
        let scopeList = made
        let go = DispatchSemaphore(value: 0)
        let outcomes = (0..<2).map { _ in Hunt18BOutcome<Hunt22BA>() }
        let group = await hunt22BParkedThreads(2, go: go) { index in
            outcomes[index].record { () throws(ProvisionError) in try scopeList[index].get(Hunt22BA.self) }
        }
        go.signal()
        go.signal()
        #expect(await hunt22BJoin(group), "\(worker): hung")
        let errors = outcomes.compactMap(\.error)
        #expect(errors.isEmpty, "\(worker): \(errors.map(\.description))")
        #expect(barrierMissed.count == 0)
        let u = ObjectIdentifier(try injector.syncGet(Hunt22BU.self))
        for (index, scope) in scopeList.enumerated() {
            let b = try await scope.get(Hunt22BB.self)
            #expect(outcomes[index].value?.link == ObjectIdentifier(b))
            #expect(b.link == u)
            let a = try await scope.get(Hunt22BA.self)
            #expect(a === outcomes[index].value)
            try scope.syncClose()
        }
        #expect(builds["u"] == 1 && builds["a"] == 2 && builds["b"] == 2)
        slot.injector = nil
    }

    @Test(
        "a real cycle A -> B -> A split across the factory's thread and its worker: timedOut naming both keys, no hang",
        arguments: Hunt22BWorker.allCases)
    func realCycleAcrossWorkerTimesOut(worker: Hunt22BWorker) async throws {
        let builds = Hunt18BBuilds()
        let slot = Hunt18BSlot()
        let inner = Hunt18BOutcome<Hunt22BB>()
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt22BB.self).to { (resolver: Resolver) throws -> Hunt22BB in
                        builds.bump("b")
                        return Hunt22BB(link: try resolver.get(Hunt22BA.self))
                    }.in(.singleton)
                    binder.bind(Hunt22BA.self).to { (_: Resolver) throws -> Hunt22BA in
                        builds.bump("a")
                        guard let injector = slot.injector else { throw Hunt18BHung() }
                        let done = worker.start {
                            inner.record { () throws(ProvisionError) in try injector.syncGet(Hunt22BB.self) }
                        }
                        guard hunt18BWait(done, seconds: 8) else { throw Hunt18BHung() }
                        if let error = inner.error { throw error }
                        return Hunt22BA(link: inner.value)
                    }.in(.singleton)
                }
            ], configuration: hunt18BConfiguration(wait: .milliseconds(300)))
        slot.injector = injector
        let outer = Hunt18BOutcome<Hunt22BA>()
        let done = hunt18BThread { outer.record { () throws(ProvisionError) in try injector.syncGet(Hunt22BA.self) } }
        #expect(await hunt18BWaitAsync(done, seconds: 10), "\(worker): hung")
        let a = BindingKey(Hunt22BA.self)
        let b = BindingKey(Hunt22BB.self)
        let error = inner.error
        #expect(error?.code == .timedOut || error?.code == .cycle, "\(String(describing: error))")
        #expect(error?.key == a, "\(String(describing: error))")
        #expect(error?.path == [b, a], "\(error?.pathDescription ?? "")")
        // The outer request fails too, and its error names both keys.
        let description = outer.error?.description ?? ""
        #expect(outer.error != nil)
        #expect(description.contains("\(a)") && description.contains("\(b)"), "\(description)")
        #expect(builds["a"] == 1 && builds["b"] == 1)
        slot.injector = nil
    }

    @Test(
        "the same split cycle with no wait timeout: the worker ends with the factory's failure once the factory gives up",
        arguments: Hunt22BWorker.allCases)
    func realCycleAcrossWorkerWithoutTimeout(worker: Hunt22BWorker) async throws {
        let builds = Hunt18BBuilds()
        let slot = Hunt18BSlot()
        let inner = Hunt18BOutcome<Hunt22BB>()
        let innerDone = Locked<DispatchSemaphore?>(nil)
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt22BB.self).to { (resolver: Resolver) throws -> Hunt22BB in
                    builds.bump("b")
                    return Hunt22BB(link: try resolver.get(Hunt22BA.self))
                }.in(.singleton)
                binder.bind(Hunt22BA.self).to { (_: Resolver) throws -> Hunt22BA in
                    builds.bump("a")
                    guard let injector = slot.injector else { throw Hunt18BHung() }
                    let done = worker.start {
                        inner.record { () throws(ProvisionError) in try injector.syncGet(Hunt22BB.self) }
                    }
                    innerDone.withLock { $0 = done }
                    // The worker is at A's gate: the factory's own bounded wait gives up.
                    guard hunt18BUntil({ injector.gateWaiters(of: Hunt22BA.self)?.threads == 1 }) else {
                        throw Hunt18BHung()
                    }
                    throw Hunt22BGaveUp()
                }.in(.singleton)
            })
        slot.injector = injector
        let outer = Hunt18BOutcome<Hunt22BA>()
        let done = hunt18BThread { outer.record { () throws(ProvisionError) in try injector.syncGet(Hunt22BA.self) } }
        #expect(await hunt18BWaitAsync(done), "\(worker): hung")
        guard let workerDone = innerDone.withLock({ $0 }) else {
            Issue.record("the factory never started its worker")
            return
        }
        #expect(await hunt18BWaitAsync(workerDone), "\(worker): the worker hung")
        #expect(outer.error?.code == .factoryFailed, "\(String(describing: outer.error))")
        #expect(inner.error != nil, "\(String(describing: inner.value))")
        #expect(inner.error?.code != .timedOut)
        #expect(builds["a"] == 1 && builds["b"] == 1)
        slot.injector = nil
    }

    @Test(
        "a worker asks for the singleton its factory is building, with no wait timeout: it gets the instance once built",
        arguments: Hunt22BWorker.allCases, [false, true])
    func workerAsksForOwnKeyWithoutTimeout(worker: Hunt22BWorker, throughLazy: Bool) async throws {
        let builds = Hunt18BBuilds()
        let slot = Hunt18BSlot()
        let inner = Hunt18BOutcome<Hunt22BA>()
        let innerDone = Locked<DispatchSemaphore?>(nil)
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt22BA.self).to { (resolver: Resolver) throws -> Hunt22BA in
                    builds.bump("a")
                    guard let injector = slot.injector else { throw Hunt18BHung() }
                    let lazy = try resolver.get(Lazy<Hunt22BA>.self)
                    let done = worker.start {
                        inner.record { () throws(ProvisionError) in
                            throughLazy ? try lazy.value : try injector.syncGet(Hunt22BA.self)
                        }
                    }
                    innerDone.withLock { $0 = done }
                    // A real deadlock shape: the factory's bounded wait ends it, the build succeeds.
                    _ = hunt18BUntil { injector.gateWaiters(of: Hunt22BA.self)?.threads == 1 }
                    return Hunt22BA()
                }.in(.singleton)
            })
        slot.injector = injector
        let outer = Hunt18BOutcome<Hunt22BA>()
        let done = hunt18BThread { outer.record { () throws(ProvisionError) in try injector.syncGet(Hunt22BA.self) } }
        #expect(await hunt18BWaitAsync(done), "\(worker): hung")
        guard let workerDone = innerDone.withLock({ $0 }) else {
            Issue.record("the factory never started its worker")
            return
        }
        #expect(await hunt18BWaitAsync(workerDone), "\(worker): the worker hung")
        #expect(outer.value != nil, "\(String(describing: outer.error))")
        #expect(inner.value === outer.value, "\(String(describing: inner.error))")
        #expect(builds["a"] == 1)
        slot.injector = nil
    }

    @Test(
        "an async request builds a sync singleton whose factory waits for a worker resolving another: once each",
        arguments: Hunt22BWorker.allCases)
    func asyncRequestSyncFactoryWaitsForWorker(worker: Hunt22BWorker) async throws {
        let builds = Hunt18BBuilds()
        let slot = Hunt18BSlot()
        let barrierMissed = Hunt18BCount()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt22BB.self).to { (_: Resolver) in
                    builds.bump("b")
                    // A second request, from a thread, waits at B's gate before B is done.
                    if !hunt18BUntil({ slot.injector?.gateWaiters(of: Hunt22BB.self)?.threads == 1 }) {
                        barrierMissed.bump()
                    }
                    return Hunt22BB()
                }.in(.singleton)
                binder.bind(Hunt22BA.self).to { (_: Resolver) throws -> Hunt22BA in
                    builds.bump("a")
                    guard let injector = slot.injector else { throw Hunt18BHung() }
                    let racer = hunt18BThread { _ = try? injector.syncGet(Hunt22BB.self) }
                    let b = try worker.resolve { () throws(ProvisionError) in try injector.syncGet(Hunt22BB.self) }
                    guard hunt18BWait(racer) else { throw Hunt18BHung() }
                    return Hunt22BA(link: b)
                }.in(.singleton)
            })
        slot.injector = injector
        let request = Hunt18BOutcome<Hunt22BA>()
        let finished = await hunt18BWithin(seconds: 10) {
            await request.recordAsync { () async throws(ProvisionError) in try await injector.get(Hunt22BA.self) }
        }
        #expect(finished, "\(worker): hung")
        #expect(request.value != nil, "\(worker): \(String(describing: request.error))")
        #expect(request.value?.link == ObjectIdentifier(try injector.syncGet(Hunt22BB.self)))
        #expect(barrierMissed.count == 0)
        #expect(builds["a"] == 1 && builds["b"] == 1)
        slot.injector = nil
    }

    @Test(
        "a sync factory run by a sync or async request uses concurrentPerform; both iterations need one singleton",
        arguments: [false, true])
    func concurrentPerformIterationsShareSingleton(fromTask: Bool) async throws {
        for round in 0..<10 {
            let builds = Hunt18BBuilds()
            let slot = Hunt18BSlot()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Hunt22BS.self).to { (_: Resolver) in
                        builds.bump("s")
                        // Gives the other iteration time to reach the gate. Not asserted: concurrentPerform
                        // may run both iterations one after the other on the calling thread.
                        _ = hunt18BUntil(seconds: 1) { slot.injector?.gateWaiters(of: Hunt22BS.self)?.threads == 1 }
                        return Hunt22BS()
                    }.in(.singleton)
                    binder.bind(Hunt22BA.self).to { (_: Resolver) throws -> Hunt22BA in
                        builds.bump("a")
                        guard let injector = slot.injector else { throw Hunt18BHung() }
                        let results = (0..<2).map { _ in Hunt18BOutcome<Hunt22BS>() }
                        DispatchQueue.concurrentPerform(iterations: 2) { index in
                            results[index].record { () throws(ProvisionError) in try injector.syncGet(Hunt22BS.self) }
                        }
                        if let error = results.compactMap(\.error).first { throw error }
                        let ids = Set(results.compactMap(\.value).map(ObjectIdentifier.init))
                        return Hunt22BA(link: ids.count == 1 ? results[0].value : nil)
                    }.in(.singleton)
                })
            slot.injector = injector
            let request = Hunt18BOutcome<Hunt22BA>()
            let finished: Bool
            if fromTask {
                finished = await hunt18BWithin(seconds: 10) {
                    await request.recordAsync { () async throws(ProvisionError) in
                        try await injector.get(Hunt22BA.self)
                    }
                }
            } else {
                let done = hunt18BThread {
                    request.record { () throws(ProvisionError) in try injector.syncGet(Hunt22BA.self) }
                }
                finished = await hunt18BWaitAsync(done, seconds: 10)
            }
            #expect(finished, "round \(round): hung")
            #expect(request.value != nil, "round \(round): \(String(describing: request.error))")
            #expect(request.value?.link == ObjectIdentifier(try injector.syncGet(Hunt22BS.self)))
            #expect(builds["a"] == 1 && builds["s"] == 1, "round \(round)")
            slot.injector = nil
        }
    }
}

/// A factory that gave up on its worker on purpose.
struct Hunt22BGaveUp: Error {}
