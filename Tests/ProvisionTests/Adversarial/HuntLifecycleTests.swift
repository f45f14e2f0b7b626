import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Provision

final class HLResource: Disposable {
    let name: String
    let log: EventLog
    init(name: String, log: EventLog) {
        self.name = name
        self.log = log
    }
    func dispose() { log.append("dispose \(name)") }
}

final class HLAsyncResource: AsyncDisposable {
    let log: EventLog
    init(log: EventLog) { self.log = log }
    func dispose() async {
        await Task.yield()
        log.append("dispose async")
    }
}

final class HLUser: Sendable {
    let resource: HLResource
    init(resource: HLResource) { self.resource = resource }
}

final class HLService: ManagedService {
    let log: EventLog
    init(log: EventLog) { self.log = log }
    func start() async throws { log.append("start service") }
    func stop() async throws { log.append("stop service") }
}

@Suite("Hunt: lifecycle at every moment", .timeLimit(.minutes(1)))
struct HuntLifecycleTests {
    @Test("shutdown twice, and from 8 tasks at once: each stop and disposal once, every call returns after it")
    func repeatedShutdown() async throws {
        for _ in 0..<20 {
            let log = EventLog()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(EventLog.self).toInstance(log)
                    binder.bind(HLResource.self).to { resolver in HLResource(name: "r", log: try resolver.get()) }
                        .in(.singleton)
                    binder.bind(HLAsyncResource.self).to(HLAsyncResource.init(log:)).in(.singleton)
                    binder.bind(HLService.self).to(HLService.init(log:)).in(.singleton)
                }
            )
            try await injector.start()
            let counts = Locked<[Int]>([])
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        try await injector.shutdown()
                        // Returned: the first call must have finished everything.
                        counts.withLock { $0.append(log.all.count) }
                    }
                }
                try await group.waitForAll()
            }
            try await injector.shutdown()
            let events = log.all
            #expect(events.filter { $0 == "stop service" }.count == 1)
            #expect(events.filter { $0 == "dispose r" }.count == 1)
            #expect(events.filter { $0 == "dispose async" }.count == 1)
            #expect(counts.withLock { $0 }.allSatisfy { $0 == 4 }, "\(counts.withLock { $0 }) \(events)")
        }
    }

    @Test("a child's shutdown disposes only the child's own singletons, never its parent's")
    func childShutdownKeepsParent() async throws {
        let log = EventLog()
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(EventLog.self).toInstance(log)
                binder.bind(HLResource.self).to { resolver in HLResource(name: "parent", log: try resolver.get()) }
                    .in(.singleton)
            }
        )
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(HLUser.self).to(HLUser.init(resource:)).in(.singleton)
                binder.bind(HLResource.self, named: "child").to { resolver in
                    HLResource(name: "child", log: try resolver.get())
                }.in(.singleton)
            }
        )
        // The child builds the parent's singleton first.
        let user = try child.syncGet(HLUser.self)
        _ = try child.syncGet(HLResource.self, named: "child")
        try await child.start()
        try await child.shutdown()
        #expect(log.all == ["dispose child"], "\(log.all)")
        // The parent still serves the same instance, and disposes it itself.
        #expect(try parent.syncGet(HLResource.self) === user.resource)
        try await parent.shutdown()
        #expect(log.all == ["dispose child", "dispose parent"], "\(log.all)")
    }

    @Test("a child's start() doesn't start its parent's services, and its shutdown doesn't stop them")
    func childLifecycleLeavesParentServices() async throws {
        let log = EventLog()
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(EventLog.self).toInstance(log)
                binder.bind(HLService.self).to(HLService.init(log:)).in(.singleton)
            }
        )
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(HLUser.self).to { _ in HLUser(resource: HLResource(name: "x", log: log)) }.in(.singleton)
            }
        )
        try await parent.start()
        try await child.start()
        try await child.shutdown()
        #expect(log.all == ["start service"], "\(log.all)")
        #expect(try parent.syncGet(HLService.self).log === log)
        try await parent.shutdown()
        #expect(log.all == ["start service", "stop service"], "\(log.all)")
    }

    @Test("a singleton whose dependent's factory threw is still disposed at shutdown, once")
    func disposalAfterFailure() async throws {
        let log = EventLog()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(EventLog.self).toInstance(log)
                binder.bind(HLResource.self).to { resolver in HLResource(name: "r", log: try resolver.get()) }
                    .in(.singleton)
                binder.bind(HLUser.self).to { (resource: HLResource) throws -> HLUser in throw HuntBoom(id: 1) }
                    .in(.singleton)
            }
        )
        let error = #expect(throws: ProvisionError.self) { try injector.syncGet(HLUser.self) }
        #expect(error?.code == .factoryFailed)
        try await injector.shutdown()
        #expect(log.all == ["dispose r"])
    }

    @Test("in a scope, a scoped instance built before a failure is disposed at close, once; a retry reuses it")
    func scopedDisposalAfterFailure() throws {
        let log = EventLog()
        let failing = HuntFlag(true)
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(EventLog.self).toInstance(log)
                binder.bind(HLResource.self).to { resolver in HLResource(name: "r", log: try resolver.get()) }
                    .in(.scoped)
                binder.bind(HLUser.self).to { (resource: HLResource) throws -> HLUser in
                    if failing.isSet { throw HuntBoom(id: 1) }
                    return HLUser(resource: resource)
                }.in(.scoped)
            }
        )
        let scope = injector.makeScope()
        let error = #expect(throws: ProvisionError.self) { try scope.syncGet(HLUser.self) }
        #expect(error?.code == .factoryFailed)
        failing.isSet = false
        let user = try scope.syncGet(HLUser.self)
        #expect(try scope.syncGet(HLResource.self) === user.resource)
        try scope.syncClose()
        try scope.syncClose()
        #expect(log.all == ["dispose r"])
        let closed = #expect(throws: ProvisionError.self) { try scope.syncGet(HLUser.self) }
        #expect(closed?.code == .outsideScope)
    }

    @Test("withScope whose body closes the scope itself: disposed once, no error")
    func withScopeClosedInside() async throws {
        let log = EventLog()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(EventLog.self).toInstance(log)
                binder.bind(HLResource.self).to { resolver in HLResource(name: "r", log: try resolver.get()) }
                    .in(.scoped)
            }
        )
        try await injector.withScope { scope in
            _ = try await scope.get(HLResource.self)
            try await scope.close()
        }
        #expect(log.all == ["dispose r"])
    }

    @Test("a scope made from a child resolves the parent's scoped binding and disposes it at close")
    func childScope() throws {
        let log = EventLog()
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(EventLog.self).toInstance(log)
                binder.bind(HLResource.self).to { resolver in HLResource(name: "r", log: try resolver.get()) }
                    .in(.scoped)
            }
        )
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(HLUser.self).to(HLUser.init(resource:)).in(.scoped)
            }
        )
        let scope = child.makeScope()
        let user = try scope.syncGet(HLUser.self)
        #expect(try scope.syncGet(HLResource.self) === user.resource)
        let other = child.makeScope()
        #expect(try other.syncGet(HLResource.self) !== user.resource)
        try scope.syncClose()
        try other.syncClose()
        #expect(log.all == ["dispose r", "dispose r"])
    }

    @Test(
        "requests racing a scope's close from 8 threads, with a diamond of scoped disposables: each disposed exactly once"
    )
    func closeRacingDiamond() async throws {
        for round in 0..<200 {
            let log = EventLog()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(EventLog.self).toInstance(log)
                    binder.bind(HLResource.self).to { resolver in HLResource(name: "r", log: try resolver.get()) }
                        .in(.scoped)
                    binder.bind(HLUser.self).to(HLUser.init(resource:)).in(.scoped)
                    binder.bind(HLResource.self, named: "b").to { resolver in
                        _ = try resolver.get(HLResource.self)
                        return HLResource(name: "b", log: try resolver.get())
                    }.in(.scoped)
                }
            )
            let scope = injector.makeScope()
            let barrier = Barrier(count: 9)
            let unexpected = Locked<[String]>([])
            let gotten = Locked<Set<String>>([])
            let finished = try await offPool {
                runThreads(9) { index in
                    barrier.arriveAndWait()
                    if index == (round % 9) {
                        do { try scope.syncClose() } catch { unexpected.withLock { $0.append("close: \(error)") } }
                        return
                    }
                    do {
                        if index % 2 == 0 {
                            _ = try scope.syncGet(HLUser.self)
                            gotten.withLock { _ = $0.insert("r") }
                        } else {
                            _ = try scope.syncGet(HLResource.self, named: "b")
                            gotten.withLock { $0.formUnion(["r", "b"]) }
                        }
                    } catch let error as ProvisionError where error.code == .outsideScope {
                        // documented
                    } catch {
                        unexpected.withLock { $0.append("\(error)") }
                    }
                }
            }
            #expect(finished)
            try scope.syncClose()
            #expect(unexpected.withLock { $0 }.isEmpty, "\(unexpected.withLock { $0 })")
            let events = log.all
            #expect(events.filter { $0 == "dispose r" }.count <= 1, "\(events)")
            #expect(events.filter { $0 == "dispose b" }.count <= 1, "\(events)")
            // Whatever a request received was disposed.
            for name in gotten.withLock({ $0 }) {
                #expect(events.contains("dispose \(name)"), "\(name) handed out but not disposed: \(events)")
            }
            // b is built from r: b is disposed before r.
            if let b = events.firstIndex(of: "dispose b"), let r = events.firstIndex(of: "dispose r") {
                #expect(b < r, "\(events)")
            }
        }
    }
}
