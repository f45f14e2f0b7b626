import Dispatch
import Foundation
import Testing

@testable import Provision

/// Defect D of the adversarial hunt: a synchronous request for a synchronous singleton (or scoped
/// instance) that an async request was building threw `requiresAsync` instead of waiting. A worker thread
/// resolving while `start()` built the singletons failed; so did a synchronous closure's request in one
/// task while another task built what it needed, in a graph with no async factory at all. An async
/// request built a synchronous binding through an async plan, holding the gate while it could suspend,
/// and a thread must never wait for a suspended build.
///
/// An async request now builds a synchronous binding with its synchronous plan (after settling the
/// singletons below, suspending while others build them), so the gate is held only by builds that run to
/// their end, and every synchronous request waits at it.
///
/// Each test holds the builder in its factory until the waiters are observed at the gate; releases come
/// from plain threads, because a build an async request runs synchronously holds a thread of the
/// cooperative pool, which may have two threads only.
@Suite("Correctness: synchronous requests wait for an async request's build", .timeLimit(.minutes(1)))
struct SyncWaitsForAsyncBuildTests {
    final class Leaf: Sendable {}
    final class Middle: Sendable {
        let leaf: Leaf
        init(leaf: Leaf) { self.leaf = leaf }
    }
    final class Root: Sendable {
        let middle: Middle
        init(middle: Middle) { self.middle = middle }
    }
    final class Consumer: Sendable {
        let leaf: Leaf
        init(leaf: Leaf) { self.leaf = leaf }
    }

    /// A `Leaf` binding whose factory counts its runs, says it started, then holds its gate until
    /// released.
    struct SlowLeaf: Sendable {
        let builds = Counter()
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)

        func bind(_ binder: Binder, in scope: Scope = .singleton) {
            binder.bind(Leaf.self).to { [builds, entered, gate] _ -> Leaf in
                builds.increment()
                entered.signal()
                _ = gate.wait(timeout: .now() + 30)
                return Leaf()
            }.in(scope)
        }

        /// Suspends until the factory runs.
        func started() async {
            await SyncWaitsForAsyncBuildTests.wait(for: entered)
        }

        /// Releases the factory from a plain thread once `condition` holds (or after 30 s); the flag is
        /// raised when it held.
        func release(when condition: @escaping @Sendable () -> Bool) -> Flag {
            let held = Flag()
            SyncWaitsForAsyncBuildTests.onThread { [gate] in
                if waitUntil(condition) { held.raise() }
                gate.signal()
            }
            return held
        }
    }

    /// A synchronous request made on a plain thread: the identity of what it got, or its error.
    final class ThreadRequest: Sendable {
        private let outcome = Locked<Result<ObjectIdentifier, ProvisionError>?>(nil)
        private let done = DispatchSemaphore(value: 0)

        init(_ request: @escaping @Sendable () throws(ProvisionError) -> AnyObject) {
            SyncWaitsForAsyncBuildTests.onThread { [outcome, done] in
                let result = Result { () throws(ProvisionError) in ObjectIdentifier(try request()) }
                outcome.withLock { $0 = result }
                done.signal()
            }
        }

        /// Suspends until the request returns.
        var result: Result<ObjectIdentifier, ProvisionError>? {
            get async {
                await SyncWaitsForAsyncBuildTests.wait(for: done)
                return outcome.withLock { $0 }
            }
        }
    }

    /// Runs `body` on a plain thread (not one of the cooperative pool).
    static func onThread(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Suspends until `semaphore` is signalled, waiting on a thread outside the cooperative pool.
    static func wait(for semaphore: DispatchSemaphore) async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                semaphore.wait()
                continuation.resume()
            }
        }
    }

    @Test("threadWaits: a thread's request waits for the singleton an async request is building")
    func threadWaits() async throws {
        let leaf = SlowLeaf()
        let injector = try Injector(ClosureModule { binder in leaf.bind(binder) })
        let asynchronous = Task.detached { try await ObjectIdentifier(injector.get(Leaf.self)) }
        await leaf.started()
        let synchronous = ThreadRequest { () throws(ProvisionError) in try injector.syncGet(Leaf.self) }
        let waited = leaf.release { injector.gateWaiters(of: Leaf.self)?.threads == 1 }

        #expect(try await synchronous.result?.get() == (try await asynchronous.value), "the same instance")
        #expect(waited.isRaised, "the thread waited at the gate")
        #expect(leaf.builds.value == 1, "the factory ran exactly once")
    }

    @Test(
        "threadWaitsBelow: a thread whose request reaches the singleton below another binding waits too",
        arguments: [false, true]
    )
    func threadWaitsBelow(rootIsClosure: Bool) async throws {
        let leaf = SlowLeaf()
        let injector = try Injector(
            ClosureModule { binder in
                leaf.bind(binder)
                binder.bind(Middle.self).to(Middle.init(leaf:))
                if rootIsClosure {
                    binder.bind(Root.self).to { r in Root(middle: try r.get(Middle.self)) }.in(.singleton)
                } else {
                    binder.bind(Root.self).to(Root.init(middle:)).in(.singleton)
                }
            }
        )
        // The async request builds Root with its synchronous plan, holding Root's gate while Leaf's factory
        // runs below it: the thread waits at Root's gate, whether Root's dependencies are its
        // initializer's or its closure's.
        let asynchronous = Task.detached { try await ObjectIdentifier(injector.get(Root.self)) }
        await leaf.started()
        let synchronous = ThreadRequest { () throws(ProvisionError) in try injector.syncGet(Root.self) }
        let waited = leaf.release { injector.gateWaiters(of: Root.self)?.threads == 1 }

        #expect(try await synchronous.result?.get() == (try await asynchronous.value), "both got the one Root")
        #expect(waited.isRaised, "the thread waited at the gate")
        #expect(leaf.builds.value == 1)
    }

    @Test("closureInTaskWaits: a synchronous closure's request in one task waits for another task's build")
    func closureInTaskWaits() async throws {
        let leaf = SlowLeaf()
        let injector = try Injector(
            ClosureModule { binder in
                leaf.bind(binder)
                binder.bind(Consumer.self).to { r in Consumer(leaf: try r.get(Leaf.self)) }.in(.singleton)
            }
        )
        // No async factory anywhere: both requests are async, one builds Leaf, the other's closure needs it.
        let builder = Task.detached { try await ObjectIdentifier(injector.get(Leaf.self)) }
        await leaf.started()
        let consumer = Task.detached { try await ObjectIdentifier(injector.get(Consumer.self).leaf) }
        let waited = leaf.release { injector.gateWaiters(of: Leaf.self)?.threads == 1 }

        let built = try await builder.value
        #expect(try await consumer.value == built, "the closure's request waited instead of throwing requiresAsync")
        #expect(waited.isRaised)
        #expect(leaf.builds.value == 1)
    }

    @Test("asyncCallersBelowSuspend: async requests reaching a singleton being built through transients suspend")
    func asyncCallersBelowSuspend() async throws {
        let leaf = SlowLeaf()
        let injector = try Injector(
            ClosureModule { binder in
                leaf.bind(binder)
                binder.bind(Middle.self).to(Middle.init(leaf:))
                binder.bind(Root.self).to(Root.init(middle:))
            }
        )
        Self.onThread { _ = try? injector.syncGet(Leaf.self) }
        await leaf.started()
        // More callers than the pool has threads, two levels above the singleton.
        let callers = (0..<12).map { _ in
            Task.detached { try await ObjectIdentifier(injector.get(Root.self).middle.leaf) }
        }
        while (injector.gateWaiters(of: Leaf.self)?.tasks ?? 0) < 12 { await Task.yield() }
        // The pool still runs other work while they wait.
        #expect(await Task.detached { 42 }.value == 42)
        leaf.gate.signal()
        var leaves: Set<ObjectIdentifier> = []
        for caller in callers { leaves.insert(try await caller.value) }
        #expect(leaves.count == 1)
        #expect(leaf.builds.value == 1)
    }

    @Test("startRacesThreads: threads asking while start() builds the singletons wait for its builds")
    func startRacesThreads() async throws {
        let leaf = SlowLeaf()
        let injector = try Injector(
            ClosureModule { binder in
                leaf.bind(binder)
                binder.bind(Consumer.self).to(Consumer.init(leaf:)).in(.singleton)
            }
        )
        let starting = Task.detached { try await injector.start() }
        await leaf.started()
        let requests = (0..<8).map { index in
            ThreadRequest { () throws(ProvisionError) -> AnyObject in
                index.isMultiple(of: 2) ? try injector.syncGet(Leaf.self) : try injector.syncGet(Consumer.self).leaf
            }
        }
        // The first thread asking for Consumer waits at Leaf's gate; the others asking for it, at Consumer's.
        let waited = leaf.release {
            (injector.gateWaiters(of: Leaf.self)?.threads ?? 0)
                + (injector.gateWaiters(of: Consumer.self)?.threads ?? 0)
                == 8
        }
        try await starting.value

        let built = try ObjectIdentifier(injector.syncGet(Leaf.self))
        for request in requests {
            #expect(try await request.result?.get() == built, "no thread got requiresAsync")
        }
        #expect(waited.isRaised, "all 8 threads waited at the gates start() held")
        #expect(leaf.builds.value == 1)
        try await injector.shutdown()
    }

    @Test("scopedThreadWaits: a thread waits for the scoped instance an async request builds in its scope")
    func scopedThreadWaits() async throws {
        let leaf = SlowLeaf()
        let injector = try Injector(
            ClosureModule { binder in
                leaf.bind(binder, in: .scoped)
                binder.bind(Consumer.self).to(Consumer.init(leaf:))
            }
        )
        let scope = injector.makeScope()
        let asynchronous = Task.detached { try await ObjectIdentifier(scope.get(Leaf.self)) }
        await leaf.started()
        let synchronous = ThreadRequest { () throws(ProvisionError) in try scope.syncGet(Consumer.self).leaf }
        let waited = leaf.release { scope.withGates { gates in gates.values.contains { $0.waiters == 1 } } }

        #expect(try await synchronous.result?.get() == (try await asynchronous.value))
        #expect(waited.isRaised, "the thread waited at the scope's gate")
        #expect(leaf.builds.value == 1)
        try await scope.close()
    }
}
