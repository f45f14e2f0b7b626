import Dispatch
import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

protocol H10MPlugin: AnyObject, Sendable {}

/// An element singleton that depends on nothing.
private final class H10MIndependent: H10MPlugin, Disposable {
    let disposals = Counter()
    func dispose() { disposals.increment() }
}

/// The key an override replaces.
private final class H10MClock: Sendable {
    let label: String
    init(label: String) { self.label = label }
}

/// An element that depends on the clock.
private final class H10MTimed: H10MPlugin {
    let clock: H10MClock
    init(clock: H10MClock) { self.clock = clock }
}

/// An element whose factory fails.
private final class H10MBroken: H10MPlugin {}

private struct H10MBoom: Error {}

// MARK: - Tests

@Suite("Hunt10: multibindings in derived injectors, with failing and singleton elements", .timeLimit(.minutes(1)))
struct Hunt10MultibindingTests {
    // Found by hunt 10, fixed. `overriding(_:)` "shar[es] every singleton that doesn't depend on them [the replaced
    // bindings]: its singletons (built or not) are shared, built at most once for both injectors". The
    // collection of plugins depends on the clock through one element, so the derived injector
    // re-creates it, and `recreateTouchedBindings` re-creates "the touched multibinding collections with
    // every element": the independent singleton element is configured anew, so the derived injector
    // builds (and, at its shutdown, disposes) a second instance of a singleton that doesn't depend on
    // the override. Expected: the first element of both collections is the same instance, built once.
    @Test("an independent singleton element of a collection an override touches is shared with the original")
    func independentSingletonElementShared() async throws {
        let builds = Counter()
        let original = try Injector(
            ClosureModule { binder in
                binder.bind(H10MClock.self).to { H10MClock(label: "real") }
                binder.multibind((any H10MPlugin).self).to { () -> H10MIndependent in
                    builds.increment()
                    return H10MIndependent()
                }.in(.singleton)
                binder.multibind((any H10MPlugin).self).to(H10MTimed.init(clock:))
            })
        let derived = try original.overriding { binder in
            binder.override(H10MClock.self).to { H10MClock(label: "fake") }
        }
        let fromOriginal = try Hunt5.result { () throws(ProvisionError) in
            try original.getAll((any H10MPlugin).self)
        }.get()
        let fromDerived = try Hunt5.result { () throws(ProvisionError) in
            try derived.getAll((any H10MPlugin).self)
        }.get()
        #expect(fromOriginal.count == 2 && fromDerived.count == 2)
        #expect((fromDerived.last as? H10MTimed)?.clock.label == "fake")
        #expect((fromOriginal.last as? H10MTimed)?.clock.label == "real")
        #expect(fromDerived.first === fromOriginal.first, "the independent singleton element is not shared")
        #expect(builds.value == 1, "a singleton that doesn't depend on the override was built twice")
        try await derived.shutdown()
        let independent = try #require(fromOriginal.first as? H10MIndependent)
        #expect(independent.disposals.value == 0, "the derived injector disposed the original's singleton")
        try await original.shutdown()
        #expect(independent.disposals.value == 1)
    }

    // A collection whose second element fails: getAll throws factoryFailed whose message names the
    // collection in Swift syntax and the failing element's type (not only an internal element name);
    // the singleton element built before the failure is kept, so a retry doesn't build it again, and
    // shutdown disposes it once.
    @Test("a failing element: the error names the collection and the element, the singleton element is built once")
    func failingElement() async throws {
        let builds = Counter()
        let attempts = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.multibind((any H10MPlugin).self).to { () -> H10MIndependent in
                    builds.increment()
                    return H10MIndependent()
                }.in(.singleton)
                binder.multibind((any H10MPlugin).self).to { () throws -> H10MBroken in
                    attempts.increment()
                    throw H10MBoom()
                }
            })
        for _ in 0..<2 {
            let result = Hunt5.result { () throws(ProvisionError) in try injector.getAll((any H10MPlugin).self) }
            let error = try #require(result.hunt5Error, "\(result)")
            #expect(error.code == .factoryFailed)
            let description = "\(error)"
            #expect(description.contains("[any H10MPlugin]"), "\(description)")
            #expect(description.contains("any H10MPlugin"), "\(description)")
            #expect(!description.contains("Hunt10MultibindingTests"), "a test-internal name leaked: \(description)")
        }
        let asyncError = await Hunt5.error { () async throws(ProvisionError) in
            try await injector.getAll((any H10MPlugin).self)
        }
        #expect(asyncError?.code == .factoryFailed)
        #expect(builds.value == 1)
        #expect(attempts.value == 3)
        try await injector.shutdown()
    }
}
