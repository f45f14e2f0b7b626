import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Provision

// Hunt 18B, part 3: factories that hand work to another thread or task, as server code does (a
// connection opened on a dispatch queue, a warm-up task, a task group, `async let`), and that work
// resolves other keys, or the very key being built. Other keys must resolve, each built once, with no
// false cycle; the same key must end in a defined error (a cycle when the work runs on the same thread
// or task, `timedOut` under `singletonWaitTimeout` when it can't be seen) and never in a silent hang.

enum Hunt18BR0 {}
enum Hunt18BR1 {}
enum Hunt18BR2 {}
enum Hunt18BR3 {}

/// A service keyed by its tag, counting its builds in a per-test table.
final class Hunt18BService<Tag>: Sendable {
    let id: Int
    init(_ id: Int = 0) { self.id = id }
}

/// A service over another one (a constructor dependency).
final class Hunt18BOver<Tag, Below: Sendable>: Sendable {
    let below: Below
    init(below: Below) { self.below = below }
}

/// Build counts by name.
final class Hunt18BBuilds: Sendable {
    private let counts = Locked<[String: Int]>([:])
    func bump(_ name: String) { counts.withLock { $0[name, default: 0] += 1 } }
    subscript(_ name: String) -> Int { counts.withLock { $0[name, default: 0] } }
}

/// How a factory hands its request to "somewhere else" that in fact runs on the calling thread.
enum Hunt18BInlineHandOff: String, CaseIterable, Sendable, CustomStringConvertible {
    case globalQueueSync, serialQueueSync, concurrentPerformOnce
    var description: String { rawValue }

    func run(_ body: @Sendable () -> Void) {
        switch self {
        case .globalQueueSync: DispatchQueue.global().sync { body() }
        case .serialQueueSync: DispatchQueue(label: "hunt18b.serial").sync { body() }
        case .concurrentPerformOnce: DispatchQueue.concurrentPerform(iterations: 1) { _ in body() }
        }
    }
}

/// How a factory hands its request to work it can't see: a real thread, an unstructured task, another
/// thread's read of a Lazy handle.
enum Hunt18BRealHandOff: String, CaseIterable, Sendable, CustomStringConvertible {
    case thread, task
    var description: String { rawValue }
}

@Suite("Hunt18B: factories that hand work to other threads and tasks", .serialized, .timeLimit(.minutes(2)))
struct Hunt18BReentryTests {
    @Test(
        "a singleton's factory resolves two unbuilt singletons on another thread while 8 threads race them: once each")
    func handOffOtherKeysWhileThreadsRace() async throws {
        typealias Low = Hunt18BService<Hunt18BR0>
        typealias Mid = Hunt18BOver<Hunt18BR1, Low>
        typealias Top = Hunt18BService<Hunt18BR2>
        for round in 0..<20 {
            let builds = Hunt18BBuilds()
            let slot = Hunt18BSlot()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Low.self).to { (_: Resolver) in
                        builds.bump("low")
                        return Low()
                    }.in(.singleton)
                    binder.bind(Mid.self).to { (low: Low) in
                        builds.bump("mid")
                        return Mid(below: low)
                    }.in(.singleton)
                    binder.bind(Top.self).to { (_: Resolver) throws -> Top in
                        builds.bump("top")
                        guard let injector = slot.injector else { throw Hunt18BHung() }
                        // The connection is opened on a worker thread; the factory waits for it.
                        let mid = Hunt18BOutcome<Mid>()
                        let done = hunt18BThread {
                            mid.record { () throws(ProvisionError) in
                                _ = try injector.syncGet(Low.self)
                                return try injector.syncGet(Mid.self)
                            }
                        }
                        guard hunt18BWait(done) else { throw Hunt18BHung() }
                        if let error = mid.error { throw error }
                        return Top()
                    }.in(.singleton)
                })
            slot.injector = injector
            let go = DispatchSemaphore(value: 0)
            let ready = Hunt18BCount()
            let outcomes = (0..<9).map { _ in Hunt18BOutcome<Int>() }
            let group = DispatchGroup()
            for index in 0..<9 {
                group.enter()
                hunt18BThread {
                    ready.bump()
                    go.wait()
                    outcomes[index].record { () throws(ProvisionError) in
                        switch index % 3 {
                        case 0: _ = try injector.syncGet(Top.self)
                        case 1: _ = try injector.syncGet(Mid.self)
                        default: _ = try injector.syncGet(Low.self)
                        }
                        return index
                    }
                    group.leave()
                }
            }
            #expect(await hunt18BUntilAsync { ready.count == 9 })
            for _ in 0..<9 { go.signal() }
            #expect(await hunt18BBlocking { group.wait(timeout: .now() + 10) == .success }, "round \(round): hung")
            let errors = outcomes.compactMap(\.error)
            #expect(errors.isEmpty, "round \(round): \(errors.map(\.description))")
            #expect(builds["low"] == 1 && builds["mid"] == 1 && builds["top"] == 1, "round \(round)")
            #expect(try injector.syncGet(Mid.self).below === (try injector.syncGet(Low.self)))
            slot.injector = nil
        }
    }

    @Test(
        "a singleton's factory hands a request for its own key to a queue that runs it inline: cycle, never a hang",
        arguments: Hunt18BInlineHandOff.allCases, [false, true])
    func inlineHandOffOfOwnKey(handOff: Hunt18BInlineHandOff, fromTask: Bool) async throws {
        typealias Loop = Hunt18BService<Hunt18BR3>
        let slot = Hunt18BSlot()
        let builds = Hunt18BCount()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Loop.self).to { (_: Resolver) throws -> Loop in
                    builds.bump()
                    let inner = Hunt18BOutcome<Loop>()
                    handOff.run {
                        inner.record { () throws(ProvisionError) in
                            try slot.injector!.syncGet(Loop.self)
                        }
                    }
                    if let error = inner.error { throw error }
                    return Loop()
                }.in(.singleton)
            })
        slot.injector = injector
        let request = Hunt18BOutcome<Loop>()
        let finished: Bool
        if fromTask {
            finished = await hunt18BWithin {
                await request.recordAsync { () async throws(ProvisionError) in try await injector.get(Loop.self) }
            }
        } else {
            finished = await hunt18BWaitAsync(
                hunt18BThread { request.record { () throws(ProvisionError) in try injector.syncGet(Loop.self) } })
        }
        #expect(finished, "\(handOff): the request hung")
        let error = request.error
        #expect(error?.code == .cycle, "\(handOff): \(String(describing: error))")
        #expect(error?.path == [BindingKey(Loop.self), BindingKey(Loop.self)], "\(error?.pathDescription ?? "")")
        #expect(builds.count == 1)
        slot.injector = nil
    }

    @Test(
        "a singleton's factory hands a request for its own key to a real thread or a task: timedOut, built once",
        arguments: Hunt18BRealHandOff.allCases)
    func realHandOffOfOwnKey(handOff: Hunt18BRealHandOff) async throws {
        typealias Loop = Hunt18BService<Hunt18BR2>
        let slot = Hunt18BSlot()
        let builds = Hunt18BCount()
        let inner = Hunt18BOutcome<Loop>()
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Loop.self).to { (_: Resolver) throws -> Loop in
                        builds.bump()
                        guard let injector = slot.injector else { throw Hunt18BHung() }
                        let done = DispatchSemaphore(value: 0)
                        switch handOff {
                        case .thread:
                            hunt18BThread {
                                inner.record { () throws(ProvisionError) in try injector.syncGet(Loop.self) }
                                done.signal()
                            }
                        case .task:
                            Task.detached {
                                await inner.recordAsync { () async throws(ProvisionError) in
                                    try await injector.get(Loop.self)
                                }
                                done.signal()
                            }
                        }
                        // Bounded here too, so that a failure can't hang the suite.
                        guard hunt18BWait(done) else { throw Hunt18BHung() }
                        return Loop(1)
                    }.in(.singleton)
                }
            ], configuration: hunt18BConfiguration(wait: .milliseconds(300)))
        slot.injector = injector
        let outer = Hunt18BOutcome<Loop>()
        let done = hunt18BThread { outer.record { () throws(ProvisionError) in try injector.syncGet(Loop.self) } }
        #expect(await hunt18BWaitAsync(done, seconds: 8), "hung")
        // Configuration.singletonWaitTimeout: "a task suspended on another request's build ... resumes
        // with timedOut when the time is up"; a thread's wait likewise.
        #expect(inner.error?.code == .timedOut, "\(handOff): \(String(describing: inner.error))")
        #expect(inner.error?.key == BindingKey(Loop.self))
        #expect(outer.value?.id == 1, "\(String(describing: outer.error))")
        #expect(builds.count == 1)
        slot.injector = nil
    }

    @Test(
        "a task group's children in an async factory wait for a sibling's build of one singleton: no false cycle",
        arguments: [false, true])
    func taskGroupChildrenWaitForSibling(asyncShared: Bool) async throws {
        typealias Shared = Hunt18BService<Hunt18BR0>
        typealias Parent = Hunt18BService<Hunt18BR1>
        let builds = Hunt18BBuilds()
        let slot = Hunt18BSlot()
        let children = 6
        let injector = try Injector(
            ClosureModule { binder in
                if asyncShared {
                    binder.bind(Shared.self).to { (_: Resolver) async throws -> Shared in
                        builds.bump("shared")
                        // Every other child is suspended on this build before it ends.
                        _ = await hunt18BUntilAsync {
                            slot.injector?.gateWaiters(of: Shared.self)?.tasks == children - 1
                        }
                        return Shared()
                    }.in(.singleton)
                } else {
                    binder.bind(Shared.self).to { (_: Resolver) throws -> Shared in
                        builds.bump("shared")
                        _ = hunt18BUntil { slot.injector?.gateWaiters(of: Shared.self)?.tasks == children - 1 }
                        return Shared()
                    }.in(.singleton)
                }
                binder.bind(Parent.self).to { (_: Resolver) async throws -> Parent in
                    builds.bump("parent")
                    guard let injector = slot.injector else { throw Hunt18BHung() }
                    let ids = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
                        for _ in 0..<children {
                            group.addTask { ObjectIdentifier(try await injector.get(Shared.self)) }
                        }
                        var ids: Set<ObjectIdentifier> = []
                        for try await id in group { ids.insert(id) }
                        return ids
                    }
                    return Parent(ids.count)
                }.in(.singleton)
            })
        slot.injector = injector
        let request = Hunt18BOutcome<Parent>()
        #expect(
            await hunt18BWithin(seconds: 10) {
                await request.recordAsync { () async throws(ProvisionError) in try await injector.get(Parent.self) }
            })
        #expect(request.value?.id == 1, "\(String(describing: request.error))")
        #expect(builds["shared"] == 1 && builds["parent"] == 1)
        slot.injector = nil
    }

    @Test(
        "an unstructured task started in an async factory waits for a singleton whose builder waits for that factory",
        arguments: [false, true])
    func unstructuredTaskInFactoryIsNoCycle(detached: Bool) async throws {
        typealias Alpha = Hunt18BService<Hunt18BR2>
        typealias Beta = Hunt18BService<Hunt18BR3>
        let builds = Hunt18BBuilds()
        let slot = Hunt18BSlot()
        let entered = DispatchSemaphore(value: 0)
        let spawn = AsyncLatch()
        let finish = AsyncLatch()
        let background = Hunt18BOutcome<Beta>()
        let backgroundDone = DispatchSemaphore(value: 0)
        let injector = try Injector(
            ClosureModule { binder in
                // Alpha's factory starts a background refresh (a fire-and-forget task) that needs Beta.
                binder.bind(Alpha.self).to { (_: Resolver) async throws -> Alpha in
                    builds.bump("alpha")
                    entered.signal()
                    await spawn.wait()
                    guard let injector = slot.injector else { throw Hunt18BHung() }
                    let refresh: @Sendable () async -> Void = {
                        await background.recordAsync { () async throws(ProvisionError) in
                            try await injector.get(Beta.self)
                        }
                        backgroundDone.signal()
                    }
                    if detached {
                        Task.detached { await refresh() }
                    } else {
                        Task { await refresh() }
                    }
                    await finish.wait()
                    return Alpha()
                }.in(.singleton)
                // Beta needs Alpha.
                binder.bind(Beta.self).to { (resolver: Resolver) async throws -> Beta in
                    builds.bump("beta")
                    _ = try await resolver.get(Alpha.self)
                    return Beta()
                }.in(.singleton)
            })
        slot.injector = injector
        let alpha = Task { try await injector.get(Alpha.self) }
        #expect(await hunt18BWaitAsync(entered))
        // A request for Beta builds it, and waits for Alpha.
        let beta = Task { try await injector.get(Beta.self) }
        #expect(await hunt18BUntilAsync { injector.gateWaiters(of: Alpha.self)?.tasks == 1 })
        spawn.open()
        // The background task either waits for Beta's build or has already failed.
        #expect(
            await hunt18BUntilAsync {
                injector.gateWaiters(of: Beta.self)?.tasks == 1 || background.isRecorded
            })
        finish.open()
        let builtAlpha = try await alpha.value
        let builtBeta = try await beta.value
        #expect(await hunt18BWaitAsync(backgroundDone), "the background task hung")
        // ThreadSafety.md: "a cycle is reported if and only if the waits really form one". Alpha's
        // factory never waits for its background task, so Beta -> Alpha -> (task) -> Beta is no cycle.
        // Kept as a known issue, documented in ThreadSafety.md: an unstructured task started by a factory
        // inherits the factory's ambient path, and the injector can't tell it from a child task the factory
        // awaits (for which this wait would be a real deadlock, with no timeout by default), so its wait
        // for a singleton whose builder waits for the factory is reported as a cycle. A detached task
        // inherits nothing and waits.
        if detached {
            #expect(background.value === builtBeta, "\(background.error.map(\.description) ?? "another instance")")
        } else {
            withKnownIssue("an unstructured task inherits its factory's path: the wait is taken for a cycle") {
                #expect(background.value === builtBeta, "\(background.error.map(\.description) ?? "another instance")")
            }
            #expect(background.error?.code == .cycle)
        }
        #expect(builds["alpha"] == 1 && builds["beta"] == 1)
        _ = builtAlpha
        slot.injector = nil
    }

    @Test(
        "an async factory hands work to a plain thread: an unbuilt sync singleton resolves, its own key requiresAsync")
    func asyncFactoryHandsToPlainThread() async throws {
        typealias Conn = Hunt18BService<Hunt18BR0>
        typealias Codec = Hunt18BService<Hunt18BR1>
        let builds = Hunt18BBuilds()
        let slot = Hunt18BSlot()
        let own = Hunt18BOutcome<Conn>()
        let codec = Hunt18BOutcome<Codec>()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Codec.self).to { (_: Resolver) in
                    builds.bump("codec")
                    return Codec()
                }.in(.singleton)
                binder.bind(Conn.self).to { (_: Resolver) async throws -> Conn in
                    builds.bump("conn")
                    guard let injector = slot.injector else { throw Hunt18BHung() }
                    let finished = await hunt18BBlocking {
                        // A plain thread: the synchronous API only.
                        codec.record { () throws(ProvisionError) in try injector.syncGet(Codec.self) }
                        own.record { () throws(ProvisionError) in try injector.syncGet(Conn.self) }
                        return true
                    }
                    guard finished else { throw Hunt18BHung() }
                    return Conn(7)
                }.in(.singleton)
            })
        slot.injector = injector
        let request = Hunt18BOutcome<Conn>()
        #expect(
            await hunt18BWithin {
                await request.recordAsync { () async throws(ProvisionError) in try await injector.get(Conn.self) }
            })
        #expect(request.value?.id == 7, "\(String(describing: request.error))")
        #expect(codec.value != nil, "\(String(describing: codec.error))")
        // ThreadSafety.md: a synchronous request for an unbuilt async singleton "throws requiresAsync
        // without touching the gate, so a thread never waits for work that needs the cooperative pool".
        #expect(own.error?.code == .requiresAsync, "\(String(describing: own.error))")
        #expect(builds["conn"] == 1 && builds["codec"] == 1)
        #expect(try injector.syncGet(Conn.self).id == 7)
        slot.injector = nil
    }

    @Test("a sync singleton's factory blocks on a Task that awaits an async singleton, 8 threads racing: once each")
    func syncFactoryBlocksOnTask() async throws {
        typealias Remote = Hunt18BService<Hunt18BR2>
        typealias Client = Hunt18BOver<Hunt18BR3, Remote>
        for round in 0..<10 {
            let builds = Hunt18BBuilds()
            let slot = Hunt18BSlot()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Remote.self).to { (_: Resolver) async throws -> Remote in
                        builds.bump("remote")
                        await Task.yield()
                        return Remote()
                    }.in(.singleton)
                    binder.bind(Client.self).to { (_: Resolver) throws -> Client in
                        builds.bump("client")
                        guard let injector = slot.injector else { throw Hunt18BHung() }
                        let remote = Hunt18BOutcome<Remote>()
                        let done = DispatchSemaphore(value: 0)
                        Task.detached {
                            await remote.recordAsync { () async throws(ProvisionError) in
                                try await injector.get(Remote.self)
                            }
                            done.signal()
                        }
                        guard hunt18BWait(done) else { throw Hunt18BHung() }
                        if let error = remote.error { throw error }
                        return Client(below: remote.value!)
                    }.in(.singleton)
                })
            slot.injector = injector
            let go = DispatchSemaphore(value: 0)
            let ready = Hunt18BCount()
            let outcomes = (0..<8).map { _ in Hunt18BOutcome<Client>() }
            let group = DispatchGroup()
            for index in 0..<8 {
                group.enter()
                hunt18BThread {
                    ready.bump()
                    go.wait()
                    outcomes[index].record { () throws(ProvisionError) in try injector.syncGet(Client.self) }
                    group.leave()
                }
            }
            #expect(await hunt18BUntilAsync { ready.count == 8 })
            for _ in 0..<8 { go.signal() }
            #expect(await hunt18BBlocking { group.wait(timeout: .now() + 10) == .success }, "round \(round): hung")
            let errors = outcomes.compactMap(\.error)
            #expect(errors.isEmpty, "round \(round): \(errors.map(\.description))")
            #expect(Set(outcomes.compactMap(\.value).map(ObjectIdentifier.init)).count == 1)
            #expect(builds["remote"] == 1 && builds["client"] == 1, "round \(round)")
            slot.injector = nil
        }
    }

    @Test("an initializer hands a read of the Lazy that is building it to another thread: timedOut, no hang")
    func lazyReadHandedToAnotherThread() async throws {
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt18BLazyHolder.self).to(Hunt18BLazyHolder.init(target:)).in(.singleton)
                    binder.bind(Hunt18BLazyTarget.self).to(Hunt18BLazyTarget.init(holder:))
                }
            ], configuration: hunt18BConfiguration(wait: .milliseconds(300)))
        let holder = try injector.syncGet(Hunt18BLazyHolder.self)
        let outer = Hunt18BOutcome<Int>()
        let done = hunt18BThread {
            outer.record { () throws(ProvisionError) in
                _ = try holder.target.value
                return 1
            }
        }
        #expect(await hunt18BWaitAsync(done, seconds: 8), "hung")
        // ThreadSafety.md, Lazy handles: a wait for another thread's read "is bounded by
        // singletonWaitTimeout, which bounds these waits too".
        let inner = Hunt18BLazyTarget.inner.error
        #expect(inner?.code == .timedOut, "\(String(describing: inner))")
        #expect(inner?.key == BindingKey(Hunt18BLazyTarget.self))
        #expect(outer.value == 1, "\(String(describing: outer.error))")
        // The handle kept the outer read's value.
        #expect(try holder.target.value === (try holder.target.value))
    }

    @Test(
        "a singleton's factory builds 8 singletons over one shared dependency with concurrentPerform",
        arguments: [false, true])
    func concurrentPerformInFactory(fromTask: Bool) async throws {
        typealias Shared = Hunt18BService<Hunt18BR0>
        typealias Root = Hunt18BService<Hunt18BR1>
        let builds = Hunt18BBuilds()
        let slot = Hunt18BSlot()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Shared.self).to { (_: Resolver) in
                    builds.bump("shared")
                    return Shared()
                }.in(.singleton)
                for index in 0..<8 {
                    binder.bind(Hunt18BService<Hunt18BR2>.self, named: "worker \(index)").to {
                        (resolver: Resolver) throws -> Hunt18BService<Hunt18BR2> in
                        builds.bump("worker")
                        _ = try resolver.get(Shared.self)
                        return Hunt18BService<Hunt18BR2>(index)
                    }.in(.singleton)
                }
                binder.bind(Root.self).to { (_: Resolver) throws -> Root in
                    builds.bump("root")
                    guard let injector = slot.injector else { throw Hunt18BHung() }
                    let failures = Locked<[ProvisionError]>([])
                    DispatchQueue.concurrentPerform(iterations: 8) { index in
                        do throws(ProvisionError) {
                            _ = try injector.syncGet(Hunt18BService<Hunt18BR2>.self, named: "worker \(index)")
                        } catch {
                            failures.withLock { $0.append(error) }
                        }
                    }
                    if let failure = failures.withLock({ $0.first }) { throw failure }
                    return Root()
                }.in(.singleton)
            })
        slot.injector = injector
        let request = Hunt18BOutcome<Root>()
        let finished: Bool
        if fromTask {
            finished = await hunt18BWithin {
                await request.recordAsync { () async throws(ProvisionError) in try await injector.get(Root.self) }
            }
        } else {
            finished = await hunt18BWaitAsync(
                hunt18BThread { request.record { () throws(ProvisionError) in try injector.syncGet(Root.self) } })
        }
        #expect(finished, "hung")
        #expect(request.value != nil, "\(String(describing: request.error))")
        #expect(builds["shared"] == 1 && builds["worker"] == 8 && builds["root"] == 1)
        slot.injector = nil
    }
}

/// A singleton holding a Lazy of a transient target.
final class Hunt18BLazyHolder: Sendable {
    let target: Lazy<Hunt18BLazyTarget>
    init(target: Lazy<Hunt18BLazyTarget>) { self.target = target }
}

/// A transient whose initializer hands a read of its holder's Lazy (the read building it) to another
/// thread and waits for that thread.
final class Hunt18BLazyTarget: Sendable {
    static let inner = Hunt18BOutcome<Int>()
    init(holder: Provider<Hunt18BLazyHolder>) throws {
        let holder = try holder.get()
        let done = hunt18BThread {
            Hunt18BLazyTarget.inner.record { () throws(ProvisionError) in
                _ = try holder.target.value
                return 0
            }
        }
        guard hunt18BWait(done) else { throw Hunt18BHung() }
    }
}

/// A factory's own wait gave up: the test reports it instead of hanging.
struct Hunt18BHung: Error {}
