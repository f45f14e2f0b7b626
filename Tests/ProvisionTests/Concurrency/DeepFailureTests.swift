import Provision
import Synchronization
import Testing

/// A factory failing deep inside a graph: what was built for the failed request is released, no
/// singleton above the failure is published, and the graph builds once the factory recovers.
@Suite("Failures deep inside a graph")
struct DeepFailureTests {
    /// Counts how many of its instances are alive.
    final class Alive: Sendable {
        let count = Atomic(0)
        var value: Int { count.load(ordering: .sequentiallyConsistent) }
    }

    /// Built before the failing branch: must be released when the request fails.
    final class Sibling: Sendable {
        let alive: Alive
        init(alive: Alive) {
            self.alive = alive
            alive.count.add(1, ordering: .sequentiallyConsistent)
        }
        deinit { alive.count.subtract(1, ordering: .sequentiallyConsistent) }
    }

    /// A singleton whose factory fails while `failing` is set.
    final class Flaky: Sendable {}
    /// A singleton above the failure: must never be published half-built.
    final class Middle: Sendable {
        let flaky: Flaky
        init(flaky: Flaky) { self.flaky = flaky }
    }
    /// The transient root: needs the sibling first, then the middle singleton.
    final class Root: Sendable {
        let sibling: Sibling
        let middle: Middle
        init(sibling: Sibling, middle: Middle) {
            self.sibling = sibling
            self.middle = middle
        }
    }

    @Test("a failure three levels down releases what was built, publishes nothing, and a retry succeeds")
    func deepFailure() throws {
        let alive = Alive()
        let failing = Atomic(true)
        let flakyRuns = Counter()
        let middleRuns = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Alive.self).toInstance(alive)
                binder.bind(Sibling.self).to(Sibling.init(alive:))
                binder.bind(Flaky.self).to { _ in
                    _ = flakyRuns.increment()
                    if failing.load(ordering: .sequentiallyConsistent) { throw ExpectedFailure(id: 3) }
                    return Flaky()
                }.in(.singleton)
                binder.bind(Middle.self).to { resolver in
                    _ = middleRuns.increment()
                    return Middle(flaky: try resolver.get())
                }.in(.singleton)
                binder.bind(Root.self).to(Root.init(sibling:middle:))
            }
        )

        for attempt in 1...3 {
            let error = #expect(throws: ProvisionError.self) { _ = try injector.get(Root.self) }
            #expect(error?.code == .factoryFailed)
            #expect(
                error?.pathDescription == "DeepFailureTests.Root -> DeepFailureTests.Middle -> DeepFailureTests.Flaky")
            #expect((error?.cause as? ExpectedFailure)?.id == 3)
            #expect(alive.value == 0, "the sibling built for failed attempt \(attempt) is still alive")
            #expect(flakyRuns.value == attempt)
            #expect(middleRuns.value == attempt, "the middle singleton was cached half-built")
        }

        failing.store(false, ordering: .sequentiallyConsistent)
        let first = try injector.get(Root.self)
        let second = try injector.get(Root.self)
        #expect(first.middle === second.middle)
        #expect(first.middle.flaky === second.middle.flaky)
        #expect(flakyRuns.value == 4)
        #expect(middleRuns.value == 4)
        #expect(alive.value == 2)
    }
}
