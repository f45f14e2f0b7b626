import Dispatch
import Foundation
import Testing

@testable import Provision

/// Shutdown, scope closes and child injectors while async requests settle singletons others build.
@Suite("Hunt2: lifecycle while async requests settle", .timeLimit(.minutes(1)))
struct Hunt2LifecycleTests {
    final class Leaf: Disposable {
        let disposals = Counter()
        func dispose() { disposals.increment() }
    }
    final class Unit: Disposable {
        let leaf: Leaf
        let disposals: Counter
        init(leaf: Leaf, disposals: Counter) {
            self.leaf = leaf
            self.disposals = disposals
        }
        func dispose() { disposals.increment() }
    }
    final class App: Sendable {
        let leaf: Leaf
        init(leaf: Leaf) { self.leaf = leaf }
    }
    final class Handler: Sendable {
        let unit: Unit
        init(unit: Unit) { self.unit = unit }
    }

    static func slowLeaf(_ binder: Binder, _ hold: Hunt2.Hold) {
        binder.bind(Leaf.self).to { _ -> Leaf in
            hold.run()
            return Leaf()
        }.in(.singleton)
    }

    @Test(
        "shutdown() while a task settles: nothing built after it returns, the singleton disposed once",
        arguments: [Scope.transient, .singleton]
    )
    func shutdownDuringSettle(appScope: Scope) async throws {
        let hold = Hunt2.Hold()
        let appBuilds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                Self.slowLeaf(binder, hold)
                binder.bind(App.self).to { (leaf: Leaf) -> App in
                    appBuilds.increment()
                    return App(leaf: leaf)
                }.in(appScope)
            }
        )
        let leafResult = Locked<Leaf?>(nil)
        Hunt2.onThread { leafResult.withLock { $0 = try? injector.syncGet(Leaf.self) } }
        #expect(await Hunt2.wait(for: hold.entered))
        let task = Task.detached {
            await Hunt2.error { () async throws(ProvisionError) in try await injector.get(App.self) }
        }
        #expect(await Hunt2.until { injector.gateWaiters(of: Leaf.self)?.tasks == 1 })
        let shuttingDown = Task.detached { try await injector.shutdown() }
        // shutdown() waits for the build in flight; let it go once shutdown has closed the injector.
        #expect(await Hunt2.until { injector.lifecycle.isClosed })
        hold.release.signal()
        try await shuttingDown.value
        let buildsAtShutdown = appBuilds.value
        let error = await task.value
        #expect(error == nil || error?.code == .shutDown, "\(String(describing: error))")
        #expect(await Hunt2.until { leafResult.withLock { $0 } != nil })
        #expect(leafResult.withLock { $0 }?.disposals.value == 1)
        if appScope == .singleton {
            #expect(appBuilds.value == buildsAtShutdown, "a singleton was built after shutdown() returned")
        }
        let again = await Hunt2.error { () async throws(ProvisionError) in try await injector.get(App.self) }
        #expect(again?.code == .shutDown)
    }

    @Test("a scope closed while a task settles the singleton below its scoped instance")
    func closeDuringSettle() async throws {
        let hold = Hunt2.Hold()
        let unitBuilds = Counter()
        let unitDisposals = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                Self.slowLeaf(binder, hold)
                binder.bind(Unit.self).to { (leaf: Leaf) -> Unit in
                    unitBuilds.increment()
                    return Unit(leaf: leaf, disposals: unitDisposals)
                }.in(.scoped)
                binder.bind(Handler.self).to(Handler.init(unit:))
            }
        )
        Hunt2.onThread { _ = try? injector.syncGet(Leaf.self) }
        #expect(await Hunt2.wait(for: hold.entered))
        let scope = injector.makeScope()
        let task = Task.detached {
            await Hunt2.error { () async throws(ProvisionError) in try await scope.get(Handler.self) }
        }
        #expect(await Hunt2.until { injector.gateWaiters(of: Leaf.self)?.tasks == 1 })
        try await scope.close()
        hold.release.signal()
        let error = await task.value
        #expect(error?.code == .outsideScope, "\(String(describing: error))")
        #expect(unitBuilds.value == unitDisposals.value, "every Unit built was disposed")
        try await injector.shutdown()
    }

    @Test("a child injector's async request over the parent's singleton a thread builds", arguments: [false, true])
    func childOverParent(childSingleton: Bool) async throws {
        let hold = Hunt2.Hold()
        let parent = try Injector(ClosureModule { binder in Self.slowLeaf(binder, hold) })
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(App.self).to(App.init(leaf:)).in(childSingleton ? .singleton : .transient)
            }
        )
        Hunt2.onThread { _ = try? parent.syncGet(Leaf.self) }
        #expect(await Hunt2.wait(for: hold.entered))
        let tasks = (0..<4).map { _ in Task.detached { try await ObjectIdentifier(child.get(App.self).leaf) } }
        #expect(await Hunt2.until { (parent.gateWaiters(of: Leaf.self)?.tasks ?? 0) >= 1 })
        hold.release.signal()
        let leaf = ObjectIdentifier(try parent.syncGet(Leaf.self))
        for task in tasks { #expect(try await task.value == leaf) }
        #expect(hold.builds.value == 1)
    }

    @Test("start() and tasks and threads asking for transients over its singletons at once, then shutdown")
    func startWithAskers() async throws {
        let hold = Hunt2.Hold()
        let appBuilds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                Self.slowLeaf(binder, hold)
                binder.bind(App.self).to { (leaf: Leaf) -> App in
                    appBuilds.increment()
                    return App(leaf: leaf)
                }.in(.singleton)
                binder.bind(Handler.self).to {
                    Handler(unit: Unit(leaf: try $0.get(App.self).leaf, disposals: Counter()))
                }
            }
        )
        let starting = Task.detached { try await injector.start() }
        #expect(await Hunt2.wait(for: hold.entered))
        // Tasks ask for constructor bindings only: a synchronous closure's request would block a thread of
        // the cooperative pool (start()'s build already holds one), as documented.
        let tasks = (0..<6).map { _ in
            Task.detached { () async throws -> ObjectIdentifier in
                ObjectIdentifier(try await injector.get(App.self).leaf)
            }
        }
        let threadResults = Locked<[Result<ObjectIdentifier, ProvisionError>]>([])
        let threadsDone = DispatchGroup()
        for _ in 0..<3 {
            threadsDone.enter()
            Hunt2.onThread {
                let r = Hunt2.result { () throws(ProvisionError) in
                    ObjectIdentifier(try injector.syncGet(Handler.self).unit.leaf)
                }
                threadResults.withLock { $0.append(r) }
                threadsDone.leave()
            }
        }
        let waited = await Hunt2.until {
            (injector.gateWaiters(of: Leaf.self).map { $0.threads + $0.tasks } ?? 0)
                + (injector.gateWaiters(of: App.self).map { $0.threads + $0.tasks } ?? 0) == 9
        }
        #expect(waited, "6 tasks and 3 threads wait for start()'s builds")
        hold.release.signal()
        try await starting.value
        let leaf = ObjectIdentifier(try injector.syncGet(Leaf.self))
        for task in tasks { #expect(try await task.value == leaf) }
        _ = await Hunt2.thread { threadsDone.wait(timeout: .now() + 30) }
        let results = threadResults.withLock { $0 }
        #expect(results.count == 3)
        for result in results { #expect(try result.get() == leaf) }
        #expect(appBuilds.value == 1)
        #expect(hold.builds.value == 1)
        try await injector.shutdown()
    }
}
