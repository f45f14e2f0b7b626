import Dispatch
import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

private final class H12RStore: Sendable {}

/// A disposable resource; counts disposals on a shared counter.
private final class H12Resource: Disposable {
    let disposals: Counter
    init(disposals: Counter) { self.disposals = disposals }
    func dispose() { disposals.increment() }
}

/// An eager resource that needs the original's held singleton.
private final class H12Dependent: Disposable {
    let held: H12Held
    let disposals: Counter
    init(held: H12Held, disposals: Counter) {
        self.held = held
        self.disposals = disposals
    }
    func dispose() { disposals.increment() }
}

/// The original's singleton, whose factory holds.
private final class H12Held: Disposable {
    let disposals: Counter
    init(disposals: Counter) { self.disposals = disposals }
    func dispose() { disposals.increment() }
}

/// Builds and disposals of one kind of resource.
private struct H12Tally {
    let builds = Counter()
    let disposals = Counter()

    func module() -> ClosureModule {
        let builds = builds
        let disposals = disposals
        return ClosureModule { binder in
            binder.bind(H12Resource.self).to { () -> H12Resource in
                builds.increment()
                return H12Resource(disposals: disposals)
            }.in(.singleton)
        }
    }
}

// MARK: - Tests

@Suite("Hunt12: children and derived injectors made while the parent shuts down", .timeLimit(.minutes(1)))
struct Hunt12ShutdownRaceTests {
    // makeChild / with / overriding race the parent's shutdown: each either throws shutDown or returns
    // an injector whose own singleton works and is disposed by its shutdown, and whose request for the
    // parent's key says shutDown. Every singleton built is disposed exactly once.
    @Test("makeChild, with and overriding racing shutdown", arguments: ["child", "with", "overriding"])
    func deriveRacingShutdown(kind: String) async throws {
        for _ in 0..<25 {
            let parent = try Injector(ClosureModule { binder in binder.bind(H12RStore.self).to(H12RStore.init) })
            let tally = H12Tally()
            let go = DispatchSemaphore(value: 0)
            let request = Hunt5.Request { () throws(ProvisionError) -> Injector in
                _ = go.wait(timeout: .now() + 30)
                switch kind {
                case "child": return try parent.makeChild(tally.module())
                case "with": return try parent.with(tally.module())
                default: return try parent.overriding(tally.module())
                }
            }
            go.signal()
            try await parent.shutdown()
            let outcome = try #require(await request.result())
            switch outcome {
            case .failure(let error):
                #expect(error.code == .shutDown, "\(error)")
            case .success(let made):
                let resource = Hunt5.result { () throws(ProvisionError) in try made.get(H12Resource.self) }
                if kind != "with" {
                    #expect(resource.hunt5Error == nil, "\(resource)")
                    let store = Hunt5.result { () throws(ProvisionError) in try made.get(H12RStore.self) }
                    #expect(store.hunt5Error?.code == .shutDown, "\(store)")
                }
                try await made.shutdown()
            }
            #expect(
                tally.builds.value == tally.disposals.value,
                "built \(tally.builds.value), disposed \(tally.disposals.value)")
        }
    }

    // overriding builds an eager singleton that needs the original's held singleton; the original's
    // shutdown begins while that factory runs. Whatever overriding returns or throws, every singleton
    // built (the original's held one, the derived injector's eager ones) is disposed exactly once.
    @Test("overriding whose eager singletons are being built when the original shuts down")
    func overridingDuringShutdown() async throws {
        let hold = Hunt5.Hold()
        let heldDisposals = Counter()
        let independent = H12Tally()
        let dependentBuilds = Counter()
        let dependentDisposals = Counter()
        let original = try Injector(
            ClosureModule { binder in
                binder.bind(H12Held.self).to { () -> H12Held in
                    hold.run()
                    return H12Held(disposals: heldDisposals)
                }.in(.singleton)
            })
        let request = Hunt5.Request { () throws(ProvisionError) -> Injector in
            try original.overriding(
                ClosureModule { binder in
                    binder.bind(H12Resource.self).to { () -> H12Resource in
                        independent.builds.increment()
                        return H12Resource(disposals: independent.disposals)
                    }.asEagerSingleton()
                    binder.bind(H12Dependent.self).to { (held: H12Held) -> H12Dependent in
                        dependentBuilds.increment()
                        return H12Dependent(held: held, disposals: dependentDisposals)
                    }.asEagerSingleton()
                })
        }
        #expect(await Hunt5.wait(for: hold.entered))
        let shutdown = Task { try await original.shutdown() }
        #expect(await Hunt5.until { original.isShuttingDown })
        hold.release.signal()
        let outcome = try #require(await request.result())
        try await shutdown.value
        if case .success(let derived) = outcome { try await derived.shutdown() }
        #expect(hold.builds.value == 1)
        #expect(
            heldDisposals.value == hold.builds.value,
            "held: built \(hold.builds.value), disposed \(heldDisposals.value)")
        #expect(
            independent.disposals.value == independent.builds.value,
            "eager independent: built \(independent.builds.value), disposed \(independent.disposals.value); \(outcome)")
        #expect(
            dependentDisposals.value == dependentBuilds.value,
            "eager dependent: built \(dependentBuilds.value), disposed \(dependentDisposals.value); \(outcome)")
    }

    // withScope of a shut-down injector: the scope's request says shutDown, and nothing is built.
    @Test("withScope after shutdown builds nothing and says shutDown")
    func withScopeAfterShutdown() async throws {
        let builds = Counter()
        let disposals = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H12Resource.self).to { () -> H12Resource in
                    builds.increment()
                    return H12Resource(disposals: disposals)
                }.in(.scoped)
            })
        try await injector.shutdown()
        var caught: (any Error)?
        do {
            _ = try await injector.withScope { scope in try scope.get(H12Resource.self) }
        } catch { caught = error }
        #expect((caught as? ProvisionError)?.code == .shutDown, "\(String(describing: caught))")
        #expect(builds.value == 0, "built \(builds.value) after shutdown, disposed \(disposals.value)")
    }
}
