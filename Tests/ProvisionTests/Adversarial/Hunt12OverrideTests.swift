import Dispatch
import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

private final class H12Clock: Sendable {
    let label: String
    init(label: String) { self.label = label }
}

private final class H12Other: Sendable {
    let label: String
    init(label: String) { self.label = label }
}

/// A singleton that depends on nothing; counts builds and disposals.
private final class H12Shared: Disposable {
    let disposals: Counter
    init(disposals: Counter) { self.disposals = disposals }
    func dispose() { disposals.increment() }
}

/// A singleton that depends on the clock; counts disposals.
private final class H12Timed: Disposable {
    let clock: H12Clock
    let disposals: Counter
    init(clock: H12Clock, disposals: Counter) {
        self.clock = clock
        self.disposals = disposals
    }
    func dispose() { disposals.increment() }
}

/// Depends on the clock; bound by a module installed later.
private final class H12Gauge: Sendable {
    let clock: H12Clock
    init(clock: H12Clock) { self.clock = clock }
}

protocol H12Part: Sendable {}

private struct H12TimedPart: H12Part {
    let clock: H12Clock
    let tag: String
}

private struct H12PlainPart: H12Part {
    let tag: String
}

/// Declares one clock-dependent element, on one line, for every module that calls it.
private func h12AddTimedPart(_ binder: Binder, tag: String) {
    binder.multibind((any H12Part).self).to { (clock: H12Clock) -> any H12Part in H12TimedPart(clock: clock, tag: tag) }
}

private func h12Tags(_ parts: [any H12Part]) -> [String] {
    parts.map { part in
        if let timed = part as? H12TimedPart { return "\(timed.tag):\(timed.clock.label)" }
        return (part as? H12PlainPart)?.tag ?? "?"
    }
}

private func h12Get<T>(_ injector: Injector, _ type: T.Type) throws -> T {
    try Hunt5.result { () throws(ProvisionError) in try injector.get(type) }.get()
}

private func h12Parts(_ injector: Injector) throws -> [any H12Part] {
    try Hunt5.result { () throws(ProvisionError) in try injector.getAll((any H12Part).self) }.get()
}

// MARK: - Tests

@Suite("Hunt12: overriding derived injectors", .timeLimit(.minutes(1)))
struct Hunt12OverrideTests {
    // Three levels: O; D1 overrides Other; D2 overrides the clock; D3 overrides Other again. The timed
    // singleton is O's in O and D1, D2's own in D2 and D3 (D3's override doesn't touch it); the shared
    // singleton is built once. Each is disposed once, by the injector that built it, at its shutdown.
    @Test("three levels of overriding: builds, sharing and disposals")
    func threeLevels() async throws {
        let sharedBuilds = Counter()
        let sharedDisposals = Counter()
        let timedBuilds = Counter()
        let timedDisposals = Counter()
        let original = try Injector(
            ClosureModule { binder in
                binder.bind(H12Clock.self).to { H12Clock(label: "real") }
                binder.bind(H12Other.self).to { H12Other(label: "real") }
                binder.bind(H12Shared.self).to { () -> H12Shared in
                    sharedBuilds.increment()
                    return H12Shared(disposals: sharedDisposals)
                }.in(.singleton)
                binder.bind(H12Timed.self).to { (clock: H12Clock) -> H12Timed in
                    timedBuilds.increment()
                    return H12Timed(clock: clock, disposals: timedDisposals)
                }.in(.singleton)
            })
        let d1 = try original.overriding { binder in binder.bind(H12Other.self).to { H12Other(label: "one") } }
        let d2 = try d1.overriding { binder in binder.bind(H12Clock.self).to { H12Clock(label: "two") } }
        let d3 = try d2.overriding { binder in binder.bind(H12Other.self).to { H12Other(label: "three") } }
        let timed = try [original, d1, d2, d3].map { try h12Get($0, H12Timed.self) }
        let shared = try [original, d1, d2, d3].map { try h12Get($0, H12Shared.self) }
        #expect(timed.map(\.clock.label) == ["real", "real", "two", "two"])
        #expect(timed[1] === timed[0] && timed[3] === timed[2], "a timed singleton was not shared")
        #expect(shared.allSatisfy { $0 === shared[0] }, "the shared singleton is not shared")
        #expect(try h12Get(d3, H12Other.self).label == "three")
        #expect(sharedBuilds.value == 1 && timedBuilds.value == 2, "\(sharedBuilds.value) \(timedBuilds.value)")
        try await d3.shutdown()
        #expect(timedDisposals.value == 0 && sharedDisposals.value == 0, "D3 disposed what it didn't build")
        try await d2.shutdown()
        #expect(timedDisposals.value == 1 && sharedDisposals.value == 0)
        try await d1.shutdown()
        #expect(timedDisposals.value == 1 && sharedDisposals.value == 0, "D1 disposed what it didn't build")
        try await original.shutdown()
        #expect(timedDisposals.value == 2 && sharedDisposals.value == 1)
    }

    // A module installed into the middle injector of a chain binds a gauge that needs the clock; the
    // next derivation overrides the clock: the docs say the derived injector configures "this
    // injector's modules ... with the modules installed since", so the gauge gets the new clock.
    @Test("install into a derived injector, then override the clock from it")
    func installIntoMiddle() throws {
        let original = try Injector(
            ClosureModule { binder in binder.bind(H12Clock.self).to { H12Clock(label: "real") } })
        let d1 = try original.overriding { binder in binder.bind(H12Other.self).to { H12Other(label: "one") } }
        let installed = Hunt5.result { () throws(ProvisionError) in
            try d1.install(ClosureModule { binder in binder.bind(H12Gauge.self).to(H12Gauge.init(clock:)) })
        }
        try installed.get()
        #expect(try h12Get(d1, H12Gauge.self).clock.label == "real")
        let d2 = try d1.overriding { binder in binder.bind(H12Clock.self).to { H12Clock(label: "two") } }
        #expect(try h12Get(d2, H12Gauge.self).clock.label == "two")
        #expect(try h12Get(d2, H12Other.self).label == "one")
    }

    // A helper declares the element on one line for each module that calls it: the elements of
    // several modules share a source line. An override of the clock re-creates each in its place.
    @Test("elements declared on one line by a helper called from several modules")
    func helperFromSeveralModules() throws {
        let original = try Injector(
            modules: [
                ClosureModule { binder in binder.bind(H12Clock.self).to { H12Clock(label: "real") } },
                ClosureModule { binder in h12AddTimedPart(binder, tag: "a") },
                ClosureModule { binder in binder.multibind((any H12Part).self).to { H12PlainPart(tag: "plain") } },
                ClosureModule { binder in h12AddTimedPart(binder, tag: "b") },
            ])
        let derived = try original.overriding { binder in binder.bind(H12Clock.self).to { H12Clock(label: "fake") } }
        #expect(h12Tags(try h12Parts(original)) == ["a:real", "plain", "b:real"])
        #expect(h12Tags(try h12Parts(derived)) == ["a:fake", "plain", "b:fake"])
    }

    // A binding installed into the original after the derivation, which needs the overridden clock:
    // "Modules installed into this injector after the derivation are seen as they are here", so the
    // derived injector's gauge is the original's (real clock), and a derivation made after the install
    // re-creates it with the fake clock.
    @Test("a binding installed into the original after a derivation, and before another")
    func installedAfterDerivation() throws {
        let original = try Injector(
            ClosureModule { binder in binder.bind(H12Clock.self).to { H12Clock(label: "real") } })
        let before = try original.overriding { binder in binder.bind(H12Clock.self).to { H12Clock(label: "fake") } }
        try Hunt5.result { () throws(ProvisionError) in
            try original.install(ClosureModule { binder in binder.bind(H12Gauge.self).to(H12Gauge.init(clock:)) })
        }.get()
        let after = try original.overriding { binder in binder.bind(H12Clock.self).to { H12Clock(label: "fake") } }
        #expect(try h12Get(before, H12Gauge.self).clock.label == "real")
        #expect(try h12Get(after, H12Gauge.self).clock.label == "fake")
    }

    // `with` in between: W = O.with(extra module); D = W.overriding(clock). D's timed singleton has the
    // fake clock, W's shared singleton is built once for W and D.
    @Test("overriding an injector made by with(_:)")
    func overridingWith() throws {
        let sharedBuilds = Counter()
        let disposals = Counter()
        let original = try Injector(
            ClosureModule { binder in binder.bind(H12Clock.self).to { H12Clock(label: "real") } })
        let widened = try original.with(
            ClosureModule { binder in
                binder.bind(H12Shared.self).to { () -> H12Shared in
                    sharedBuilds.increment()
                    return H12Shared(disposals: disposals)
                }.in(.singleton)
                binder.bind(H12Gauge.self).to(H12Gauge.init(clock:))
            })
        let derived = try widened.overriding { binder in binder.bind(H12Clock.self).to { H12Clock(label: "fake") } }
        #expect(try h12Get(derived, H12Gauge.self).clock.label == "fake")
        #expect(try h12Get(widened, H12Gauge.self).clock.label == "real")
        #expect(try h12Get(derived, H12Shared.self) === (try h12Get(widened, H12Shared.self)))
        #expect(sharedBuilds.value == 1)
    }
}
