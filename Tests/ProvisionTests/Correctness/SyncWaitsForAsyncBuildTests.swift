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
/// Each test blocks the builder in its factory until the waiters are observed at the gate; releases come
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

    /// A singleton `Leaf` whose factory signals `entered`, then holds its gate until `release`.
    private static func slowLeaf(
        _ binder: Binder,
        builds: Counter,
        entered: DispatchSemaphore,
        release: DispatchSemaphore
    ) {
        binder.bind(Leaf.self).to { _ -> Leaf in
            builds.increment()
            entered.signal()
            _ = release.wait(timeout: .now() + 30)
            return Leaf()
        }.in(.singleton)
    }

    /// Runs `body` on a plain thread (not one of the cooperative pool).
    private static func onThread(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Suspends until `semaphore` is signalled, waiting on a thread outside the cooperative pool.
    private static func wait(for semaphore: DispatchSemaphore) async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                semaphore.wait()
                continuation.resume()
            }
        }
    }

    /// Signals `release` from a plain thread once `condition` holds; records whether it did in time.
    private static func release(
        _ release: DispatchSemaphore,
        when condition: @escaping @Sendable () -> Bool
    ) -> Flag {
        let held = Flag()
        onThread {
            if waitUntil(condition) { held.raise() }
            release.signal()
        }
        return held
    }

    @Test("threadWaits: a thread's request waits for the singleton an async request is building")
    func threadWaits() async throws {
        let builds = Counter()
        let entered = DispatchSemaphore(value: 0)
        let releaseLeaf = DispatchSemaphore(value: 0)
        let injector = try Injector(
            ClosureModule { binder in
                Self.slowLeaf(binder, builds: builds, entered: entered, release: releaseLeaf)
            }
        )
        let asynchronous = Task.detached { try await ObjectIdentifier(injector.get(Leaf.self)) }
        await Self.wait(for: entered)
        let synchronous = Locked<Result<ObjectIdentifier, ProvisionError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Self.onThread {
            synchronous.withLock {
                $0 = Result { () throws(ProvisionError) in try ObjectIdentifier(injector.syncGet(Leaf.self)) }
            }
            done.signal()
        }
        let waited = Self.release(releaseLeaf) { injector.gateWaiters(of: Leaf.self)?.threads == 1 }
        await Self.wait(for: done)

        #expect(waited.isRaised, "the thread waited at the gate")
        let built = try await asynchronous.value
        #expect(try synchronous.withLock { $0 }?.get() == built, "the thread got the instance the task built")
        #expect(builds.value == 1, "the factory ran exactly once")
    }

    @Test(
        "threadWaitsBelow: a thread whose request reaches the singleton below another binding waits too",
        arguments: [false, true]
    )
    func threadWaitsBelow(rootIsClosure: Bool) async throws {
        let builds = Counter()
        let entered = DispatchSemaphore(value: 0)
        let releaseLeaf = DispatchSemaphore(value: 0)
        let injector = try Injector(
            ClosureModule { binder in
                Self.slowLeaf(binder, builds: builds, entered: entered, release: releaseLeaf)
                binder.bind(Middle.self).to(Middle.init(leaf:))
                if rootIsClosure {
                    binder.bind(Root.self).to { r in Root(middle: try r.get(Middle.self)) }.in(.singleton)
                } else {
                    binder.bind(Root.self).to(Root.init(middle:)).in(.singleton)
                }
            }
        )
        // The async request for a constructed Root settles Leaf first: it builds Leaf, holding Leaf's
        // gate, not Root's, and the thread waits at Leaf's. A closure's dependencies are known only when
        // it runs: that request holds Root's gate while its closure builds Leaf, and the thread waits there.
        let asynchronous = Task.detached { try await ObjectIdentifier(injector.get(Root.self)) }
        await Self.wait(for: entered)
        let synchronous = Locked<Result<ObjectIdentifier, ProvisionError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Self.onThread {
            synchronous.withLock {
                $0 = Result { () throws(ProvisionError) in try ObjectIdentifier(injector.syncGet(Root.self)) }
            }
            done.signal()
        }
        let waited = Self.release(releaseLeaf) {
            (rootIsClosure ? injector.gateWaiters(of: Root.self) : injector.gateWaiters(of: Leaf.self))?.threads == 1
        }
        await Self.wait(for: done)

        #expect(waited.isRaised, "the thread waited at the gate")
        let built = try await asynchronous.value
        #expect(try synchronous.withLock { $0 }?.get() == built, "both got the one Root")
        #expect(builds.value == 1)
    }

    @Test("closureInTaskWaits: a synchronous closure's request in one task waits for another task's build")
    func closureInTaskWaits() async throws {
        let builds = Counter()
        let entered = DispatchSemaphore(value: 0)
        let releaseLeaf = DispatchSemaphore(value: 0)
        let injector = try Injector(
            ClosureModule { binder in
                Self.slowLeaf(binder, builds: builds, entered: entered, release: releaseLeaf)
                binder.bind(Consumer.self).to { r in Consumer(leaf: try r.get(Leaf.self)) }.in(.singleton)
            }
        )
        // No async factory anywhere: both requests are async, one builds Leaf, the other's closure needs it.
        let builder = Task.detached { try await ObjectIdentifier(injector.get(Leaf.self)) }
        await Self.wait(for: entered)
        let consumer = Task.detached { try await ObjectIdentifier(injector.get(Consumer.self).leaf) }
        let waited = Self.release(releaseLeaf) { injector.gateWaiters(of: Leaf.self)?.threads == 1 }

        let built = try await builder.value
        #expect(try await consumer.value == built, "the closure's request waited instead of throwing requiresAsync")
        #expect(waited.isRaised)
        #expect(builds.value == 1)
    }

    @Test("asyncCallersBelowSuspend: async requests reaching a singleton being built through transients suspend")
    func asyncCallersBelowSuspend() async throws {
        let builds = Counter()
        let entered = DispatchSemaphore(value: 0)
        let releaseLeaf = DispatchSemaphore(value: 0)
        let injector = try Injector(
            ClosureModule { binder in
                Self.slowLeaf(binder, builds: builds, entered: entered, release: releaseLeaf)
                binder.bind(Middle.self).to(Middle.init(leaf:))
                binder.bind(Root.self).to(Root.init(middle:))
            }
        )
        Self.onThread { _ = try? injector.syncGet(Leaf.self) }
        await Self.wait(for: entered)
        // More callers than the pool has threads, two levels above the singleton.
        let callers = (0..<12).map { _ in
            Task.detached { try await ObjectIdentifier(injector.get(Root.self).middle.leaf) }
        }
        while (injector.gateWaiters(of: Leaf.self)?.tasks ?? 0) < 12 { await Task.yield() }
        // The pool still runs other work while they wait.
        #expect(await Task.detached { 42 }.value == 42)
        releaseLeaf.signal()
        var leaves: Set<ObjectIdentifier> = []
        for caller in callers { leaves.insert(try await caller.value) }
        #expect(leaves.count == 1)
        #expect(builds.value == 1)
    }

    @Test("startRacesThreads: threads asking while start() builds the singletons wait for its builds")
    func startRacesThreads() async throws {
        let builds = Counter()
        let entered = DispatchSemaphore(value: 0)
        let releaseLeaf = DispatchSemaphore(value: 0)
        let injector = try Injector(
            ClosureModule { binder in
                Self.slowLeaf(binder, builds: builds, entered: entered, release: releaseLeaf)
                binder.bind(Consumer.self).to(Consumer.init(leaf:)).in(.singleton)
            }
        )
        let starting = Task.detached { try await injector.start() }
        await Self.wait(for: entered)
        let outcomes = Locked<[Result<ObjectIdentifier, ProvisionError>]>([])
        let finished = DispatchGroup()
        for index in 0..<8 {
            finished.enter()
            Self.onThread {
                let result = Result { () throws(ProvisionError) in
                    index.isMultiple(of: 2)
                        ? ObjectIdentifier(try injector.syncGet(Leaf.self))
                        : ObjectIdentifier(try injector.syncGet(Consumer.self).leaf)
                }
                outcomes.withLock { $0.append(result) }
                finished.leave()
            }
        }
        // The first thread asking for Consumer waits at Leaf's gate; the others asking for it, at Consumer's.
        let waited = Self.release(releaseLeaf) {
            (injector.gateWaiters(of: Leaf.self)?.threads ?? 0)
                + (injector.gateWaiters(of: Consumer.self)?.threads ?? 0)
                == 8
        }
        try await starting.value
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                finished.wait()
                continuation.resume()
            }
        }

        #expect(waited.isRaised, "all 8 threads waited at the gate start() held")
        let leaf = try ObjectIdentifier(injector.syncGet(Leaf.self))
        let results = outcomes.withLock { $0 }
        #expect(results.count == 8)
        #expect(try results.allSatisfy { try $0.get() == leaf }, "no thread got requiresAsync")
        #expect(builds.value == 1)
        try await injector.shutdown()
    }

    @Test("scopedThreadWaits: a thread waits for the scoped instance an async request builds in its scope")
    func scopedThreadWaits() async throws {
        let builds = Counter()
        let entered = DispatchSemaphore(value: 0)
        let releaseLeaf = DispatchSemaphore(value: 0)
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Leaf.self).to { _ -> Leaf in
                    builds.increment()
                    entered.signal()
                    _ = releaseLeaf.wait(timeout: .now() + 30)
                    return Leaf()
                }.in(.scoped)
                binder.bind(Consumer.self).to(Consumer.init(leaf:))
            }
        )
        let scope = injector.makeScope()
        let asynchronous = Task.detached { try await ObjectIdentifier(scope.get(Leaf.self)) }
        await Self.wait(for: entered)
        let synchronous = Locked<Result<ObjectIdentifier, ProvisionError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Self.onThread {
            synchronous.withLock {
                $0 = Result { () throws(ProvisionError) in try ObjectIdentifier(scope.syncGet(Consumer.self).leaf) }
            }
            done.signal()
        }
        let waited = Self.release(releaseLeaf) {
            scope.withGates { gates in gates.values.contains { $0.waiters == 1 } }
        }
        await Self.wait(for: done)

        #expect(waited.isRaised, "the thread waited at the scope's gate")
        #expect(try synchronous.withLock { $0 }?.get() == (try await asynchronous.value))
        #expect(builds.value == 1)
        try await scope.close()
    }
}
