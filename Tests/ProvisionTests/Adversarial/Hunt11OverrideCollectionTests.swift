import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Provision

// MARK: - Fixtures

protocol H11Plugin: AnyObject, Sendable {}

/// The key the overrides replace.
private final class H11Clock: Sendable {
    let label: String
    init(label: String) { self.label = label }
}

/// Another key an override may replace, which no element depends on.
private final class H11Other: Sendable {
    let label: String
    init(label: String) { self.label = label }
}

/// An element that depends on nothing; counts its builds and disposals.
private final class H11Independent: H11Plugin, Disposable {
    let disposals = Counter()
    func dispose() { disposals.increment() }
}

/// An element that depends on the clock.
private final class H11Timed: H11Plugin {
    let clock: H11Clock
    init(clock: H11Clock) { self.clock = clock }
}

/// A module whose configuration changes between calls (a plugin list read from a file that changed,
/// a feature flag): it lists its elements in the given order each time it is configured.
private final class H11ShiftingModule: Module, @unchecked Sendable {
    let builds = Counter()
    let orders: Locked<[[Bool]]>

    /// - Parameter orders: For each configuration in turn, the elements: `true` for a timed element,
    ///   `false` for the independent singleton. The last is repeated.
    init(orders: [[Bool]]) {
        self.orders = Locked(orders)
    }

    func configure(_ binder: Binder) throws {
        let order = orders.withLock { orders in orders.count > 1 ? orders.removeFirst() : orders[0] }
        let builds = self.builds
        binder.bind(H11Clock.self).to { H11Clock(label: "real") }
        for timed in order {
            if timed {
                binder.multibind((any H11Plugin).self).to(H11Timed.init(clock:))
            } else {
                binder.multibind((any H11Plugin).self).to { () -> H11Independent in
                    builds.increment()
                    return H11Independent()
                }.in(.singleton)
            }
        }
    }
}

private func h11Plugins(_ injector: Injector) throws -> [any H11Plugin] {
    try Hunt5.result { () throws(ProvisionError) in try injector.getAll((any H11Plugin).self) }.get()
}

private func h11Labels(_ plugins: [any H11Plugin]) -> [String] {
    plugins.map { plugin in
        if let timed = plugin as? H11Timed { return "timed:\(timed.clock.label)" }
        return plugin is H11Independent ? "independent" : "?"
    }
}

// MARK: - Tests

@Suite("Hunt11: overriding a collection's dependency", .timeLimit(.minutes(1)))
struct Hunt11OverrideCollectionTests {
    /// The plugin module of most tests: an independent singleton element, then a timed one.
    static func plugins(builds: Counter, clock: String = "real") -> ClosureModule {
        ClosureModule { binder in
            binder.bind(H11Clock.self).to { H11Clock(label: clock) }
            binder.bind(H11Other.self).to { H11Other(label: "real") }
            binder.multibind((any H11Plugin).self).to { () -> H11Independent in
                builds.increment()
                return H11Independent()
            }.in(.singleton)
            binder.multibind((any H11Plugin).self).to(H11Timed.init(clock:))
        }
    }

    // Found by hunt 11, fixed. an override of a key no element depends on, then an override of the clock from that derived
    // injector. `overriding` "re-creates ... exactly the bindings that depend on a replaced key ... a
    // multibinding's elements"; the second derived injector's collection still has the real clock
    // (observed ["independent", "timed:real"]): the collection lives in the first derived injector's
    // original, its parent, and is treated as a parent's binding that is never re-created (same root
    // cause as Hunt11DerivationTests.overrideOfDerived).
    @Test("derived of derived: the first override doesn't touch the collection, the second does")
    func derivedOfUntouchedDerived() async throws {
        let builds = Counter()
        let original = try Injector(Self.plugins(builds: builds))
        let first = try original.overriding { binder in binder.bind(H11Other.self).to { H11Other(label: "fake") } }
        let second = try first.overriding { binder in binder.bind(H11Clock.self).to { H11Clock(label: "fake") } }
        let fromOriginal = try h11Plugins(original)
        let fromSecond = try h11Plugins(second)
        #expect(h11Labels(fromOriginal) == ["independent", "timed:real"])
        #expect(h11Labels(fromSecond) == ["independent", "timed:fake"])
        #expect(fromSecond.first === fromOriginal.first, "the independent singleton element is not shared")
        #expect(builds.value == 1, "a singleton that depends on no override was built \(builds.value) times")
        try await second.shutdown()
        try await first.shutdown()
        let independent = try #require(fromOriginal.first as? H11Independent)
        #expect(independent.disposals.value == 0, "a derived injector disposed the original's singleton")
        try await original.shutdown()
        #expect(independent.disposals.value == 1)
    }

    // Both derivations override the clock: the second one's collection has the original's singleton and
    // a timed element with the second fake.
    @Test("derived of derived: both overrides touch the collection")
    func derivedOfTouchedDerived() async throws {
        let builds = Counter()
        let original = try Injector(Self.plugins(builds: builds))
        let first = try original.overriding { binder in binder.bind(H11Clock.self).to { H11Clock(label: "one") } }
        let second = try first.overriding { binder in binder.bind(H11Clock.self).to { H11Clock(label: "two") } }
        let fromOriginal = try h11Plugins(original)
        let fromFirst = try h11Plugins(first)
        let fromSecond = try h11Plugins(second)
        #expect(h11Labels(fromOriginal) == ["independent", "timed:real"])
        #expect(h11Labels(fromFirst) == ["independent", "timed:one"])
        #expect(h11Labels(fromSecond) == ["independent", "timed:two"])
        #expect(fromSecond.first === fromOriginal.first && fromFirst.first === fromOriginal.first)
        #expect(builds.value == 1)
    }

    // Found by hunt 11, fixed. the override code says a module that configures differently the second time gets every
    // element made anew; but only a longer configuration is detected. Configured again with the same
    // number of elements in another order, the n-th new element is mapped on the original's n-th by
    // position: the timed element is taken for the original's independent singleton and the
    // independent one is re-created in the timed slot, so the derived collection has no timed element
    // at all. Expected: one timed element with the fake clock, one independent.
    @Test("a module that lists its elements in another order when configured again")
    func reorderedConfiguration() throws {
        let module = H11ShiftingModule(orders: [[false, true], [true, false]])
        let original = try Injector(module)
        let derived = try original.overriding { binder in binder.bind(H11Clock.self).to { H11Clock(label: "fake") } }
        #expect(h11Labels(try h11Plugins(original)) == ["independent", "timed:real"])
        let labels = h11Labels(try h11Plugins(derived))
        #expect(labels.sorted() == ["independent", "timed:fake"], "derived collection: \(labels)")
    }

    // Found by hunt 11, fixed. the same with fewer elements the second time (observed ["independent"]): the timed element is
    // mapped by position onto the original's independent singleton and vanishes. Expected: what the module
    // now declares, a timed element with the fake clock (or an error), never a silently wrong collection.
    @Test("a module that lists fewer elements when configured again")
    func shorterConfiguration() throws {
        let module = H11ShiftingModule(orders: [[false, true], [true]])
        let original = try Injector(module)
        let derived = try original.overriding { binder in binder.bind(H11Clock.self).to { H11Clock(label: "fake") } }
        #expect(h11Labels(try h11Plugins(original)) == ["independent", "timed:real"])
        let labels = h11Labels(try h11Plugins(derived))
        #expect(labels.contains("timed:fake"), "derived collection: \(labels)")
        #expect(!labels.contains("timed:real"), "derived collection: \(labels)")
    }

    // Eager elements: the independent eager singleton is built once (the original's), the timed eager
    // element is built again for the derived injector with the fake clock; shutdown disposes each once.
    @Test("eager singleton elements: the independent one is shared, the touched one re-created")
    func eagerElements() async throws {
        let independentBuilds = Counter()
        let timedBuilds = Counter()
        let original = try Injector(
            ClosureModule { binder in
                binder.bind(H11Clock.self).to { H11Clock(label: "real") }
                binder.multibind((any H11Plugin).self).to { () -> H11Independent in
                    independentBuilds.increment()
                    return H11Independent()
                }.asEagerSingleton()
                binder.multibind((any H11Plugin).self).to { (clock: H11Clock) -> H11Timed in
                    timedBuilds.increment()
                    return H11Timed(clock: clock)
                }.asEagerSingleton()
            })
        #expect(independentBuilds.value == 1 && timedBuilds.value == 1)
        let derived = try original.overriding { binder in binder.bind(H11Clock.self).to { H11Clock(label: "fake") } }
        #expect(timedBuilds.value == 2, "the touched eager element was not rebuilt at derivation")
        #expect(independentBuilds.value == 1, "the independent eager element was rebuilt")
        let fromOriginal = try h11Plugins(original)
        let fromDerived = try h11Plugins(derived)
        #expect(h11Labels(fromDerived) == ["independent", "timed:fake"])
        #expect(fromDerived.first === fromOriginal.first)
        #expect(independentBuilds.value == 1 && timedBuilds.value == 2)
        try await derived.shutdown()
        try await original.shutdown()
        #expect((fromOriginal.first as? H11Independent)?.disposals.value == 1)
    }

    // The first derivation replaces the whole collection (the documented way); a second derivation
    // from it overrides the clock. The collection must stay the replacement, not come back from the
    // original's multibind declarations.
    @Test("a replaced collection stays replaced in a derivation of the derived injector")
    func replacedCollectionThenOverride() throws {
        let builds = Counter()
        let original = try Injector(Self.plugins(builds: builds))
        let replaced = try original.overriding { binder in
            binder.bind([any H11Plugin].self).to { (clock: H11Clock) -> [any H11Plugin] in [H11Timed(clock: clock)] }
        }
        #expect(h11Labels(try h11Plugins(replaced)) == ["timed:real"])
        let second = try replaced.overriding { binder in binder.bind(H11Clock.self).to { H11Clock(label: "fake") } }
        #expect(h11Labels(try h11Plugins(second)) == ["timed:fake"])
        #expect(builds.value == 0)
    }
}
