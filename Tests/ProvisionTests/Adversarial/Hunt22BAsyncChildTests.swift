import Dispatch
import Foundation
import Testing

@testable import Provision

// Hunt 22B, part 2: async factories that resolve in parallel through `async let` and task groups
// (children they await). Independent singletons, or one child waiting for a sibling's build, are no
// cycle and must not hang; a child coming back to its parent's key through another binding, or two
// parents whose children need each other, is a real cycle and must be reported, never a hang.

enum Hunt22BTagP {}
enum Hunt22BTagQ {}
typealias Hunt22BP = Hunt22BSvc<Hunt22BTagP>
typealias Hunt22BQ = Hunt22BSvc<Hunt22BTagQ>

@Suite("Hunt 22B: async factories with child tasks", .serialized, .timeLimit(.minutes(2)))
struct Hunt22BAsyncChildTests {
    @Test("async let resolves two async singletons whose factories each wait for the other to start: no cycle")
    func asyncLetIndependentSingletons() async throws {
        let builds = Hunt18BBuilds()
        let slot = Hunt18BSlot()
        let bStarted = AsyncLatch()
        let cStarted = AsyncLatch()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt22BB.self).to { (_: Resolver) async throws -> Hunt22BB in
                    builds.bump("b")
                    bStarted.open()
                    await cStarted.wait()
                    return Hunt22BB()
                }.in(.singleton)
                binder.bind(Hunt22BC.self).to { (_: Resolver) async throws -> Hunt22BC in
                    builds.bump("c")
                    cStarted.open()
                    await bStarted.wait()
                    return Hunt22BC()
                }.in(.singleton)
                binder.bind(Hunt22BA.self).to { (_: Resolver) async throws -> Hunt22BA in
                    builds.bump("a")
                    guard let injector = slot.injector else { throw Hunt18BHung() }
                    async let b = injector.get(Hunt22BB.self)
                    async let c = injector.get(Hunt22BC.self)
                    return Hunt22BA(link: try await b, second: try await c)
                }.in(.singleton)
            })
        slot.injector = injector
        let request = Hunt18BOutcome<Hunt22BA>()
        #expect(
            await hunt18BWithin {
                await request.recordAsync { () async throws(ProvisionError) in try await injector.get(Hunt22BA.self) }
            }, "hung")
        #expect(request.value != nil, "\(String(describing: request.error))")
        let b = try await injector.get(Hunt22BB.self)
        let c = try await injector.get(Hunt22BC.self)
        #expect(request.value?.link == ObjectIdentifier(b) && request.value?.second == ObjectIdentifier(c))
        #expect(builds["a"] == 1 && builds["b"] == 1 && builds["c"] == 1)
        slot.injector = nil
    }

    @Test(
        "async let: one child's singleton awaits the singleton its sibling is building: it waits, no cycle",
        arguments: [false, true])
    func asyncLetSiblingWaitsForSibling(syncLeaf: Bool) async throws {
        let builds = Hunt18BBuilds()
        let slot = Hunt18BSlot()
        let barrierMissed = Hunt18BCount()
        let injector = try Injector(
            ClosureModule { binder in
                if syncLeaf {
                    binder.bind(Hunt22BB.self).to { (_: Resolver) in
                        builds.bump("b")
                        // The other request suspends at B's gate, or (when it checked B before this build
                        // began) blocks its pool thread there: ThreadSafety.md, "where settling can't see".
                        let waited = hunt18BUntil {
                            guard let waiters = slot.injector?.gateWaiters(of: Hunt22BB.self) else { return false }
                            return waiters.threads + waiters.tasks == 1
                        }
                        if !waited { barrierMissed.bump() }
                        return Hunt22BB()
                    }.in(.singleton)
                } else {
                    binder.bind(Hunt22BB.self).to { (_: Resolver) async throws -> Hunt22BB in
                        builds.bump("b")
                        let waited = await hunt18BUntilAsync {
                            slot.injector?.gateWaiters(of: Hunt22BB.self)?.tasks == 1
                        }
                        if !waited { barrierMissed.bump() }
                        return Hunt22BB()
                    }.in(.singleton)
                }
                binder.bind(Hunt22BC.self).to { (resolver: Resolver) async throws -> Hunt22BC in
                    builds.bump("c")
                    return Hunt22BC(link: try await resolver.get(Hunt22BB.self))
                }.in(.singleton)
                binder.bind(Hunt22BA.self).to { (_: Resolver) async throws -> Hunt22BA in
                    builds.bump("a")
                    guard let injector = slot.injector else { throw Hunt18BHung() }
                    async let b = injector.get(Hunt22BB.self)
                    async let c = injector.get(Hunt22BC.self)
                    return Hunt22BA(link: try await b, second: try await c)
                }.in(.singleton)
            })
        slot.injector = injector
        let request = Hunt18BOutcome<Hunt22BA>()
        #expect(
            await hunt18BWithin {
                await request.recordAsync { () async throws(ProvisionError) in try await injector.get(Hunt22BA.self) }
            }, "hung")
        #expect(request.value != nil, "\(String(describing: request.error))")
        let b = try await injector.get(Hunt22BB.self)
        #expect(try await injector.get(Hunt22BC.self).link == ObjectIdentifier(b))
        // Which child builds B is up to the scheduler; the other one waits either way.
        #expect(builds["a"] == 1 && builds["b"] == 1 && builds["c"] == 1)
        #expect(barrierMissed.count == 0, "the other child never waited at B's gate")
        slot.injector = nil
    }

    @Test(
        "a task group's children build 6 async singletons over one shared sync singleton, raced by outside tasks",
        arguments: [false, true])
    func taskGroupOverSharedLeaf(outsideRacers: Bool) async throws {
        for round in 0..<5 {
            let builds = Hunt18BBuilds()
            let slot = Hunt18BSlot()
            let count = 6
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Hunt22BS.self).to { (_: Resolver) in
                        builds.bump("s")
                        return Hunt22BS()
                    }.in(.singleton)
                    for index in 0..<count {
                        binder.bind(Hunt22BX.self, named: "x\(index)").to {
                            (resolver: Resolver) async throws -> Hunt22BX in
                            builds.bump("x\(index)")
                            await Task.yield()
                            return Hunt22BX(link: try await resolver.get(Hunt22BS.self))
                        }.in(.singleton)
                    }
                    binder.bind(Hunt22BA.self).to { (_: Resolver) async throws -> Hunt22BA in
                        builds.bump("a")
                        guard let injector = slot.injector else { throw Hunt18BHung() }
                        let links = try await withThrowingTaskGroup(of: ObjectIdentifier?.self) { group in
                            for index in 0..<count {
                                group.addTask { try await injector.get(Hunt22BX.self, named: "x\(index)").link }
                            }
                            var links: Set<ObjectIdentifier?> = []
                            for try await link in group { links.insert(link) }
                            return links
                        }
                        let shared = links.count == 1 ? try await injector.get(Hunt22BS.self) : nil
                        return Hunt22BA(link: nil, second: shared)
                    }.in(.singleton)
                })
            slot.injector = injector
            let outcomes = (0..<(count + 1)).map { _ in Hunt18BOutcome<Int>() }
            let finished = await hunt18BWithin(seconds: 10) {
                await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        await outcomes[count].recordAsync { () async throws(ProvisionError) in
                            _ = try await injector.get(Hunt22BA.self)
                            return count
                        }
                    }
                    if outsideRacers {
                        for index in 0..<count {
                            group.addTask {
                                await outcomes[index].recordAsync { () async throws(ProvisionError) in
                                    _ = try await injector.get(Hunt22BX.self, named: "x\(index)")
                                    return index
                                }
                            }
                        }
                    }
                }
            }
            #expect(finished, "round \(round): hung")
            let errors = outcomes.compactMap(\.error)
            #expect(errors.isEmpty, "round \(round): \(errors.map(\.description))")
            let s = try await injector.get(Hunt22BS.self)
            #expect(try await injector.get(Hunt22BA.self).second == ObjectIdentifier(s), "round \(round)")
            #expect(builds["s"] == 1 && builds["a"] == 1, "round \(round)")
            #expect((0..<count).allSatisfy { builds["x\($0)"] == 1 }, "round \(round)")
            slot.injector = nil
        }
    }

    @Test("a task group child and a plain thread need one sync singleton at once: one builds, the other waits")
    func taskGroupChildAndThreadShareSyncSingleton() async throws {
        for round in 0..<10 {
            let builds = Hunt18BBuilds()
            let slot = Hunt18BSlot()
            let started = DispatchSemaphore(value: 0)
            let threadResult = Hunt18BOutcome<Hunt22BS>()
            let threadDone = Locked<DispatchSemaphore?>(nil)
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Hunt22BS.self).to { (_: Resolver) in
                        builds.bump("s")
                        _ = hunt18BUntil {
                            guard let waiters = slot.injector?.gateWaiters(of: Hunt22BS.self) else { return false }
                            return waiters.threads + waiters.tasks == 1
                        }
                        return Hunt22BS()
                    }.in(.singleton)
                    binder.bind(Hunt22BA.self).to { (_: Resolver) async throws -> Hunt22BA in
                        builds.bump("a")
                        guard let injector = slot.injector else { throw Hunt18BHung() }
                        let done = hunt18BThread {
                            started.signal()
                            threadResult.record { () throws(ProvisionError) in try injector.syncGet(Hunt22BS.self) }
                        }
                        threadDone.withLock { $0 = done }
                        _ = await hunt18BWaitAsync(started)
                        let ids = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
                            group.addTask { ObjectIdentifier(try await injector.get(Hunt22BS.self)) }
                            var ids: [ObjectIdentifier] = []
                            for try await id in group { ids.append(id) }
                            return ids
                        }
                        return Hunt22BA(link: ids.count == 1 ? try await injector.get(Hunt22BS.self) : nil)
                    }.in(.singleton)
                })
            slot.injector = injector
            let request = Hunt18BOutcome<Hunt22BA>()
            let finished = await hunt18BWithin {
                await request.recordAsync { () async throws(ProvisionError) in try await injector.get(Hunt22BA.self) }
            }
            #expect(finished, "round \(round): hung")
            if let done = threadDone.withLock({ $0 }) {
                #expect(await hunt18BWaitAsync(done), "round \(round): the thread hung")
            }
            #expect(request.value != nil, "round \(round): \(String(describing: request.error))")
            #expect(threadResult.value != nil, "round \(round): \(String(describing: threadResult.error))")
            #expect(request.value?.link == threadResult.value.map(ObjectIdentifier.init))
            #expect(builds["s"] == 1 && builds["a"] == 1, "round \(round)")
            slot.injector = nil
        }
    }

    @Test("async let child comes back to its parent through another binding (A -> B -> A): cycle, never a hang")
    func asyncLetChildClosesCycle() async throws {
        let builds = Hunt18BBuilds()
        let slot = Hunt18BSlot()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt22BB.self).to { (resolver: Resolver) async throws -> Hunt22BB in
                    builds.bump("b")
                    return Hunt22BB(link: try await resolver.get(Hunt22BA.self))
                }.in(.singleton)
                binder.bind(Hunt22BA.self).to { (_: Resolver) async throws -> Hunt22BA in
                    builds.bump("a")
                    guard let injector = slot.injector else { throw Hunt18BHung() }
                    async let b = injector.get(Hunt22BB.self)
                    return Hunt22BA(link: try await b)
                }.in(.singleton)
            })
        slot.injector = injector
        let request = Hunt18BOutcome<Hunt22BA>()
        #expect(
            await hunt18BWithin {
                await request.recordAsync { () async throws(ProvisionError) in try await injector.get(Hunt22BA.self) }
            }, "hung")
        let a = BindingKey(Hunt22BA.self)
        let b = BindingKey(Hunt22BB.self)
        let error = request.error
        #expect(error?.code == .cycle, "\(String(describing: error))")
        #expect(error?.path == [a, b, a], "\(error?.pathDescription ?? "")")
        #expect(builds["a"] == 1 && builds["b"] == 1)
        slot.injector = nil
    }

    @Test("two async factories whose async let children need each other's singleton: a cycle naming both, no hang")
    func crossParentChildrenCycle() async throws {
        let builds = Hunt18BBuilds()
        let slot = Hunt18BSlot()
        let pStarted = AsyncLatch()
        let qStarted = AsyncLatch()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt22BP.self).to { (_: Resolver) async throws -> Hunt22BP in
                    builds.bump("p")
                    pStarted.open()
                    await qStarted.wait()
                    guard let injector = slot.injector else { throw Hunt18BHung() }
                    async let q = injector.get(Hunt22BQ.self)
                    return Hunt22BP(link: try await q)
                }.in(.singleton)
                binder.bind(Hunt22BQ.self).to { (_: Resolver) async throws -> Hunt22BQ in
                    builds.bump("q")
                    qStarted.open()
                    await pStarted.wait()
                    guard let injector = slot.injector else { throw Hunt18BHung() }
                    async let p = injector.get(Hunt22BP.self)
                    return Hunt22BQ(link: try await p)
                }.in(.singleton)
            })
        slot.injector = injector
        let outcomes = (0..<2).map { _ in Hunt18BOutcome<Int>() }
        let finished = await hunt18BWithin(seconds: 10) {
            async let first: Void = outcomes[0].recordAsync { () async throws(ProvisionError) in
                _ = try await injector.get(Hunt22BP.self)
                return 0
            }
            async let second: Void = outcomes[1].recordAsync { () async throws(ProvisionError) in
                _ = try await injector.get(Hunt22BQ.self)
                return 1
            }
            _ = await (first, second)
        }
        #expect(finished, "hung")
        let errors = outcomes.compactMap(\.error)
        #expect(errors.count == 2, "\(outcomes.map(\.value))")
        let cycles = errors.filter { $0.code == .cycle }
        #expect(!cycles.isEmpty, "\(errors.map(\.description))")
        let p = BindingKey(Hunt22BP.self)
        let q = BindingKey(Hunt22BQ.self)
        #expect(
            cycles.allSatisfy { $0.description.contains("\(p)") && $0.description.contains("\(q)") },
            "\(cycles.map(\.description))")
        #expect(builds["p"] == 1 && builds["q"] == 1)
        slot.injector = nil
    }

    @Test("a scoped async factory resolves scoped services of its scope in a task group, two scopes at once")
    func scopedTaskGroupInTwoScopes() async throws {
        let builds = Hunt18BBuilds()
        let scopes = Locked<[Int: ServiceScope]>([:])
        let count = 4
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Int.self, named: "scope").toSeed()
                binder.bind(Hunt22BS.self).to { (_: Resolver) async throws -> Hunt22BS in
                    builds.bump("s")
                    await Task.yield()
                    return Hunt22BS()
                }.in(.scoped)
                for index in 0..<count {
                    binder.bind(Hunt22BX.self, named: "x\(index)").to { (resolver: Resolver) async throws -> Hunt22BX in
                        builds.bump("x")
                        return Hunt22BX(link: try await resolver.get(Hunt22BS.self))
                    }.in(.scoped)
                }
                binder.bind(Hunt22BA.self).to { (resolver: Resolver) async throws -> Hunt22BA in
                    builds.bump("a")
                    let index = try await resolver.get(Int.self, named: "scope")
                    guard let scope = scopes.withLock({ $0[index] }) else { throw Hunt18BHung() }
                    let links = try await withThrowingTaskGroup(of: ObjectIdentifier?.self) { group in
                        for x in 0..<count {
                            group.addTask { try await scope.get(Hunt22BX.self, named: "x\(x)").link }
                        }
                        var links: Set<ObjectIdentifier?> = []
                        for try await link in group { links.insert(link) }
                        return links
                    }
                    return Hunt22BA(link: links.count == 1 ? try await scope.get(Hunt22BS.self) : nil)
                }.in(.scoped)
            })
        var made: [ServiceScope] = []
        for index in 0..<2 {
            let scope = try injector.makeScope { $0.provide(index, named: "scope") }
            scopes.withLock { $0[index] = scope }
            made.append(scope)
        }
        let scopeList = made
        let outcomes = (0..<2).map { _ in Hunt18BOutcome<Hunt22BA>() }
        let finished = await hunt18BWithin(seconds: 10) {
            async let first: Void = outcomes[0].recordAsync { () async throws(ProvisionError) in
                try await scopeList[0].get(Hunt22BA.self)
            }
            async let second: Void = outcomes[1].recordAsync { () async throws(ProvisionError) in
                try await scopeList[1].get(Hunt22BA.self)
            }
            _ = await (first, second)
        }
        #expect(finished, "hung")
        let errors = outcomes.compactMap(\.error)
        #expect(errors.isEmpty, "\(errors.map(\.description))")
        for (index, scope) in scopeList.enumerated() {
            let s = try await scope.get(Hunt22BS.self)
            #expect(outcomes[index].value?.link == ObjectIdentifier(s))
            try await scope.close()
        }
        #expect(builds["a"] == 2 && builds["s"] == 2 && builds["x"] == 2 * count)
    }
}
