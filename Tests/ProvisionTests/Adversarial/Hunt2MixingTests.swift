import Dispatch
import Foundation
import Testing

@testable import Provision

/// Async requests meeting synchronous builds of threads, tasks and `start()` at every step.
@Suite("Hunt2: async and sync requests mixing", .timeLimit(.minutes(1)))
struct Hunt2MixingTests {
    final class Leaf: Sendable {}
    final class App: Sendable {
        let leaf: Leaf
        init(leaf: Leaf) { self.leaf = leaf }
    }
    final class A: Sendable {
        let b: B?
        init(b: B?) { self.b = b }
    }
    final class B: Sendable {
        let a: A
        init(a: A) { self.a = a }
    }
    final class C: Sendable {
        let a: A
        init(a: A) { self.a = a }
    }
    final class BC: Sendable {
        let c: C
        init(c: C) { self.c = c }
    }

    static func slowLeaf(_ binder: Binder, _ hold: Hunt2.Hold) {
        binder.bind(Leaf.self).to { _ -> Leaf in
            hold.run()
            return Leaf()
        }.in(.singleton)
    }

    @Test("a real cycle: a thread builds closure singleton A (needs B), a task asks for B (needs A)")
    func crossCycleTaskSettling() async throws {
        let taskWaits = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        let builds = Counter()
        let slot = HuntInjectorSlot()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(A.self).to { r in
                    builds.increment()
                    entered.signal()
                    _ = taskWaits.wait(timeout: .now() + 30)
                    return A(b: try r.get(B.self))
                }.in(.singleton)
                binder.bind(B.self).to(B.init(a:)).in(.singleton)
            }
        )
        slot.injector = injector
        let threadResult = Locked<Result<A, ProvisionError>?>(nil)
        let threadDone = DispatchSemaphore(value: 0)
        Hunt2.onThread {
            let r = Hunt2.result { () throws(ProvisionError) in try injector.syncGet(A.self) }
            threadResult.withLock { $0 = r }
            threadDone.signal()
        }
        #expect(await Hunt2.wait(for: entered))
        let task = Task.detached {
            await Hunt2.error { () async throws(ProvisionError) in try await injector.get(B.self) }
        }
        let suspended = await Hunt2.until { injector.gateWaiters(of: A.self)?.tasks == 1 }
        #expect(suspended, "the task suspended at A's gate while settling B")
        taskWaits.signal()
        #expect(await Hunt2.wait(for: threadDone))
        let taskError = await task.value
        let threadError: ProvisionError? = threadResult.withLock { r in
            if case .failure(let e) = r { return e }
            return nil
        }
        #expect(threadError?.code == .cycle)
        #expect(taskError?.code == .cycle)
        #expect(threadError?.path == [BindingKey(A.self), BindingKey(B.self), BindingKey(A.self)])
        #expect(builds.value == 1)
    }

    @Test("a real cycle: a task holds B's gate (needs A through a closure), a thread builds A (needs B)")
    func crossCycleTaskBuilding() async throws {
        let release = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(A.self).to { r in
                    entered.signal()
                    _ = release.wait(timeout: .now() + 30)
                    return A(b: try r.get(B.self))
                }.in(.singleton)
                // C is a transient closure: nothing to settle, the task builds B at once.
                binder.bind(C.self).to { r in C(a: try r.get(A.self)) }
                binder.bind(BC.self).to(BC.init(c:)).in(.singleton)
                binder.bind(B.self).to { r in B(a: try r.get(BC.self).c.a) }.in(.singleton)
            }
        )
        let threadDone = DispatchSemaphore(value: 0)
        let threadError = Locked<ProvisionError?>(nil)
        Hunt2.onThread {
            let r = Hunt2.result { () throws(ProvisionError) in try injector.syncGet(A.self) }
            if case .failure(let e) = r { threadError.withLock { $0 = e } }
            threadDone.signal()
        }
        #expect(await Hunt2.wait(for: entered))
        let task = Task.detached {
            await Hunt2.error { () async throws(ProvisionError) in try await injector.get(B.self) }
        }
        let blocked = await Hunt2.until { injector.gateWaiters(of: A.self)?.threads == 1 }
        #expect(blocked, "the task's synchronous build of B blocked at A's gate")
        release.signal()
        #expect(await Hunt2.wait(for: threadDone), "the thread did not hang")
        let taskError = await task.value
        let te = threadError.withLock { $0 }
        #expect(te?.code == .cycle, "\(String(describing: te))")
        #expect(taskError != nil)
    }

    @Test("a task cancelled while it settles a singleton another thread builds throws cancelled at once")
    func cancelWhileSettling() async throws {
        let hold = Hunt2.Hold()
        let injector = try Injector(
            ClosureModule { binder in
                Self.slowLeaf(binder, hold)
                binder.bind(App.self).to(App.init(leaf:))
            }
        )
        Hunt2.onThread { _ = try? injector.syncGet(Leaf.self) }
        #expect(await Hunt2.wait(for: hold.entered))
        let task = Task.detached {
            await Hunt2.error { () async throws(ProvisionError) in try await injector.get(App.self) }
        }
        #expect(await Hunt2.until { injector.gateWaiters(of: Leaf.self)?.tasks == 1 })
        task.cancel()
        let error = await task.value
        #expect(error?.code == .cancelled)
        hold.release.signal()
        #expect(await Hunt2.until { injector.gateWaiters(of: Leaf.self) == nil })
        let app = try await injector.get(App.self)
        #expect(app.leaf === (try injector.syncGet(Leaf.self)))
        #expect(hold.builds.value == 1)
    }

    @Test("a task waiting in settling times out with the request's path", arguments: [Scope.transient, .singleton])
    func timeoutWhileSettling(appScope: Scope) async throws {
        let hold = Hunt2.Hold()
        var configuration = Injector.Configuration()
        configuration.singletonWaitTimeout = .milliseconds(100)
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    Self.slowLeaf(binder, hold)
                    binder.bind(App.self).to(App.init(leaf:)).in(appScope)
                }
            ],
            configuration: configuration
        )
        Hunt2.onThread { _ = try? injector.syncGet(Leaf.self) }
        #expect(await Hunt2.wait(for: hold.entered))
        let asyncError = await Hunt2.error { () async throws(ProvisionError) in try await injector.get(App.self) }
        let syncError = await Hunt2.thread {
            Hunt2.result { () throws(ProvisionError) in try injector.syncGet(App.self) }
        }
        hold.release.signal()
        #expect(asyncError?.code == .timedOut)
        guard case .failure(let s) = syncError else {
            Issue.record("the thread did not time out")
            return
        }
        #expect(s.code == .timedOut)
        #expect(asyncError?.path == s.path, "async \(asyncError?.path ?? []) sync \(s.path)")
        #expect(await Hunt2.until { injector.gateWaiters(of: Leaf.self) == nil })
        _ = try await injector.get(App.self)
        #expect(hold.builds.value == 1)
    }

    @Test(
        "an async request above a singleton that start() is building suspends, then gets start()'s instance",
        arguments: [Scope.transient, .singleton])
    func asyncAboveStart(appScope: Scope) async throws {
        let hold = Hunt2.Hold()
        let injector = try Injector(
            ClosureModule { binder in
                Self.slowLeaf(binder, hold)
                binder.bind(App.self).to(App.init(leaf:)).in(appScope)
                binder.bind(Optional<App>.self).to { r in try? r.get(App.self) }
            }
        )
        let starting = Task.detached { try await injector.start() }
        #expect(await Hunt2.wait(for: hold.entered))
        let askers = (0..<6).map { i in
            Task.detached { () async throws -> ObjectIdentifier in
                switch i % 3 {
                case 0: return ObjectIdentifier(try await injector.get(App.self).leaf)
                case 1: return ObjectIdentifier(try await injector.get(Leaf.self))
                default: return ObjectIdentifier(try await injector.get([App].self).first?.leaf ?? Leaf())
                }
            }
        }
        _ = askers
        let threadAsk = Task.detached {
            await Hunt2.thread {
                Hunt2.result { () throws(ProvisionError) in ObjectIdentifier(try injector.syncGet(App.self).leaf) }
            }
        }
        let waited = await Hunt2.until {
            let w = injector.gateWaiters(of: Leaf.self)
            return (w?.tasks ?? 0) >= 2 && (w?.threads ?? 0) + (injector.gateWaiters(of: App.self)?.threads ?? 0) >= 1
        }
        hold.release.signal()
        try await starting.value
        let leaf = ObjectIdentifier(try injector.syncGet(Leaf.self))
        #expect(waited)
        #expect(try await threadAsk.value.get() == leaf)
        for (i, asker) in askers.enumerated() where i % 3 != 2 {
            #expect(try await asker.value == leaf)
        }
        #expect(hold.builds.value == 1)
        try await injector.shutdown()
    }
}
