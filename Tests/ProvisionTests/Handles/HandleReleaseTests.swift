import Dispatch
import Testing

@testable import Provision

// A handle refers to its injector without keeping it alive (see `WeakInjector`): it holds an unowned
// reference count on the injector's memory and takes a strong reference for each request only if the
// injector isn't being deinitialized. These tests release the injector while threads use its handles:
// every request either resolves or throws `injectorReleased`, and the injector is deinitialized once
// its last strong reference goes (ThreadSanitizer and AddressSanitizer check the memory in CI).

private final class ReleaseLeaf: Sendable {
    init() {}
}

/// A singleton holding handles of its own injector: the cycle a strong reference would make.
private final class ReleaseHolder: Sendable {
    let leaves: Provider<ReleaseLeaf>
    let lazyLeaf: Lazy<ReleaseLeaf>
    let factory: ObjectFactory
    init(leaves: Provider<ReleaseLeaf>, lazyLeaf: Lazy<ReleaseLeaf>, factory: ObjectFactory) {
        self.leaves = leaves
        self.lazyLeaf = lazyLeaf
        self.factory = factory
    }
}

/// Counts its deinitialization: the injector's instance binding goes with the injector.
private final class ReleaseWitness: Sendable {
    let deinits: Locked<Int>
    init(_ deinits: Locked<Int>) { self.deinits = deinits }
    deinit { deinits.withLock { $0 += 1 } }
}

/// What the workers of `releasedWhileInUse` saw.
private struct ReleaseOutcomes {
    var resolved = 0
    var releasedErrors = 0
    var resolvedAfterRelease = 0
    var other: [String] = []
}

private func releaseModule(_ deinits: Locked<Int>) -> ClosureModule {
    ClosureModule { binder in
        binder.bind(ReleaseLeaf.self).to(ReleaseLeaf.init)
        binder.bind(ReleaseWitness.self).toInstance(ReleaseWitness(deinits))
        binder.bind(ReleaseHolder.self).to(ReleaseHolder.init(leaves:lazyLeaf:factory:)).in(.singleton)
    }
}

@Suite("Handles: their injector released while they are used")
struct HandleReleaseTests {
    @Test("a singleton holding its injector's handles doesn't keep the injector alive")
    func handlesDontKeepTheInjector() throws {
        let deinits = Locked(0)
        var injector: Injector? = try Injector(releaseModule(deinits))
        let holder = try #require(try injector?.get(ReleaseHolder.self))
        let first: ReleaseLeaf = try holder.leaves.get()
        let second: ReleaseLeaf = try holder.leaves.get()
        let made: ReleaseLeaf = try holder.factory.get(ReleaseLeaf.self)
        #expect(ObjectIdentifier(first) != ObjectIdentifier(second))
        #expect(ObjectIdentifier(made) != ObjectIdentifier(second))
        injector = nil
        // The injector went, and its instance binding with it; the holder outlives it.
        #expect(deinits.withLock { $0 } == 1)
        let error = #expect(throws: ProvisionError.self) { try holder.leaves.get() }
        #expect(error?.code == .injectorReleased)
        #expect(error?.key == BindingKey(ReleaseLeaf.self))
        let lazyError = #expect(throws: ProvisionError.self) { try holder.lazyLeaf.value }
        #expect(lazyError?.code == .injectorReleased)
        let factoryError = #expect(throws: ProvisionError.self) { try holder.factory.get(ReleaseLeaf.self) }
        #expect(factoryError?.code == .injectorReleased)
    }

    @Test(
        "8 threads use the handles while another thread releases the injector: each request resolves or throws injectorReleased"
    )
    func releasedWhileInUse() throws {
        let deinits = Locked(0)
        let made = try Injector(releaseModule(deinits))
        let box = Locked<Injector?>(made)
        let holder = try made.get(ReleaseHolder.self)
        _ = consume made
        let threads = 8
        // The 8 workers and the releasing thread.
        let start = Barrier(count: threads + 1)
        let released = Flag()
        let outcomes = Locked(ReleaseOutcomes())
        let finished = runThreads(threads + 1, timeout: 60) { index in
            start.arriveAndWait()
            guard index < threads else {
                // Taken out of the lock and released at the end of the `do`, before the flag is raised.
                do {
                    let injector = box.withLock { state in
                        defer { state = nil }
                        return state
                    }
                    #expect(injector != nil)
                }
                released.raise()
                return
            }
            var seen = ReleaseOutcomes()
            // Until the release is seen, then 100 more requests. Requests that overlap keep the injector
            // alive past the box's release (each holds a strong reference while it runs), so those may
            // still resolve; once one has failed, the injector's deinit has begun, and none resolves.
            var afterRelease = 0
            while afterRelease < 100 {
                if released.isRaised { afterRelease += 1 }
                do throws(ProvisionError) {
                    if index % 2 == 0 {
                        _ = try holder.leaves.get()
                    } else {
                        _ = try holder.factory.get(ReleaseLeaf.self)
                    }
                    seen.resolved += 1
                    if seen.releasedErrors > 0 { seen.resolvedAfterRelease += 1 }
                } catch {
                    if error.code == .injectorReleased {
                        seen.releasedErrors += 1
                    } else {
                        seen.other.append(error.description)
                    }
                }
            }
            outcomes.withLock { total in
                total.resolved += seen.resolved
                total.releasedErrors += seen.releasedErrors
                total.resolvedAfterRelease += seen.resolvedAfterRelease
                total.other += seen.other
            }
        }
        #expect(finished, "a thread hung")
        let result = outcomes.withLock { $0 }
        #expect(result.other == [])
        #expect(result.resolvedAfterRelease == 0)
        #expect(result.resolved + result.releasedErrors >= threads * 100)
        // The last request's release deinitialized the injector: every later request fails.
        #expect(deinits.withLock { $0 } == 1)
        let error = #expect(throws: ProvisionError.self) { try holder.leaves.get() }
        #expect(error?.code == .injectorReleased)
        let factoryError = #expect(throws: ProvisionError.self) { try holder.factory.get(ReleaseLeaf.self) }
        #expect(factoryError?.code == .injectorReleased)
    }
}
