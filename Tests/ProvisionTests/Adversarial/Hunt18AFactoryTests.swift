import Dispatch
import Foundation
import Testing

@testable import Provision

// Behaviours hmlongco/Factory's and pointfreeco/swift-dependencies' tests check (cached against
// unique instances, resets, overrides registered after a dependency was resolved, unimplemented
// dependencies failing loudly, escaping closures keeping their dependencies), mapped to Provision's
// equivalents: derived injectors (`with`, `overriding`), child injectors and handles.

// MARK: - Fixtures

/// A clock a test replaces.
private final class Hunt18AClock: Sendable {
    let label: String
    init(label: String) { self.label = label }
}

/// A time source a fake clock needs and nothing binds.
private final class Hunt18ATimeSource: Sendable {}

/// A singleton that needs the clock; disposable.
private final class Hunt18ABilling: Disposable {
    let clock: Hunt18AClock
    let log: EventLog
    init(clock: Hunt18AClock, log: EventLog) {
        self.clock = clock
        self.log = log
    }

    func dispose() { log.append("dispose billing-\(clock.label)") }
}

/// A singleton that needs nothing the tests replace; disposable.
private final class Hunt18AStore: Disposable {
    let log: EventLog
    init(log: EventLog) { self.log = log }
    func dispose() { log.append("dispose store") }
}

/// A service added by a plugin, needing the clock.
private final class Hunt18AScheduler: Sendable {
    let clock: Hunt18AClock
    init(clock: Hunt18AClock) { self.clock = clock }
}

/// Counts its deinitializations.
private final class Hunt18ATracked: Sendable {
    let deinits: Counter
    init(deinits: Counter) { self.deinits = deinits }
    deinit { deinits.increment() }
}

/// A view model with two collaborators that both need a formatter.
private final class Hunt18AFormatter: Sendable {}

private final class Hunt18AHeader: Sendable {
    let formatter: Hunt18AFormatter
    init(formatter: Hunt18AFormatter) { self.formatter = formatter }
}

private final class Hunt18AFooter: Sendable {
    let formatter: Hunt18AFormatter
    init(formatter: Hunt18AFormatter) { self.formatter = formatter }
}

private final class Hunt18APage: Sendable {
    let header: Hunt18AHeader
    let footer: Hunt18AFooter
    init(header: Hunt18AHeader, footer: Hunt18AFooter) {
        self.header = header
        self.footer = footer
    }
}

/// An async singleton's value.
private final class Hunt18AConnection: Disposable {
    let id: Int
    let log: EventLog
    init(id: Int, log: EventLog) {
        self.id = id
        self.log = log
    }

    func dispose() { log.append("dispose connection \(id)") }
}

// MARK: - Tests

@Suite("Hunt18A: Factory's and swift-dependencies' behaviours on Provision", .timeLimit(.minutes(1)))
struct Hunt18AFactoryTests {
    /// Factory's `Container.shared.manager.reset()` gives fresh cached instances. Provision's `with()`
    /// (documented: "shares nothing with this one: its singletons (eager ones included) are built
    /// anew"): the eager singleton is built again, the caller's instance binding is the same value in
    /// both and never disposed, and each shutdown disposes only its own singleton, once.
    @Test("with() is a reset: eager singletons built anew, instances shared, each shutdown its own")
    func withIsAReset() async throws {
        let log = EventLog()
        let builds = Counter()
        let clock = Hunt18AClock(label: "caller")
        let original = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt18AClock.self).toInstance(clock)
                binder.bind(Hunt18AResource.self).to { () -> Hunt18AResource in
                    Hunt18AResource("eager-\(builds.increment())", log: log)
                }.asEagerSingleton()
            })
        #expect(builds.value == 1)
        let fresh = try original.with()
        #expect(builds.value == 2)
        let old = try original.syncGet(Hunt18AResource.self)
        let new = try fresh.syncGet(Hunt18AResource.self)
        #expect(old !== new && old.name == "eager-1" && new.name == "eager-2")
        #expect(try fresh.syncGet(Hunt18AClock.self) === clock)
        try await fresh.shutdown()
        #expect(log.all == ["dispose eager-2"])
        #expect(try original.syncGet(Hunt18AResource.self) === old)
        try await original.shutdown()
        #expect(log.all == ["dispose eager-2", "dispose eager-1"])
        #expect(builds.value == 2)
    }

    /// Factory and swift-dependencies: a value resolved before an override keeps what it was built
    /// with; code resolving afterwards under the override gets the fake. In Provision: the original's
    /// billing keeps the real clock (same instance before and after the derivation); the derived
    /// injector builds its own billing with the fake; the store, which needs no clock, is built once
    /// for both even when the derived injector asks first; each shutdown disposes only its own.
    @Test("an override after resolution: old instances keep the real clock, the store is built once")
    func overrideAfterResolution() async throws {
        let log = EventLog()
        let storeBuilds = Counter()
        let original = try Injector(
            ClosureModule { binder in
                binder.bind(EventLog.self).toInstance(log)
                binder.bind(Hunt18AClock.self).to { Hunt18AClock(label: "real") }.in(.singleton)
                binder.bind(Hunt18ABilling.self).to(Hunt18ABilling.init(clock:log:)).in(.singleton)
                binder.bind(Hunt18AStore.self).to { (log: EventLog) -> Hunt18AStore in
                    storeBuilds.increment()
                    return Hunt18AStore(log: log)
                }.in(.singleton)
            })
        let before = try original.syncGet(Hunt18ABilling.self)
        let derived = try original.overriding { binder in
            binder.bind(Hunt18AClock.self).to { Hunt18AClock(label: "fake") }.in(.singleton)
        }
        let derivedBilling = try derived.syncGet(Hunt18ABilling.self)
        let derivedStore = try derived.syncGet(Hunt18AStore.self)
        #expect(derivedBilling.clock.label == "fake" && derivedBilling !== before)
        #expect(try original.syncGet(Hunt18ABilling.self) === before && before.clock.label == "real")
        #expect(try original.syncGet(Hunt18AStore.self) === derivedStore)
        #expect(storeBuilds.value == 1)
        try await derived.shutdown()
        #expect(log.all == ["dispose billing-fake"])
        try await original.shutdown()
        #expect(log.all.count == 3)
        #expect(Set(log.all) == ["dispose billing-fake", "dispose billing-real", "dispose store"])
    }

    /// swift-dependencies fails a test that uses an unimplemented dependency, loudly. A fake that needs
    /// something nothing binds: deriving the test's injector fails at once with validationFailed naming
    /// the missing key (the derived injector is validated on creation), and the original still serves.
    @Test("an override that needs an unbound key fails when the test's injector is derived, naming it")
    func unimplementedOverrideFailsLoudly() throws {
        let original = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt18AClock.self).to { Hunt18AClock(label: "real") }.in(.singleton)
                binder.bind(Hunt18AScheduler.self).to(Hunt18AScheduler.init(clock:))
            })
        let error = #expect(throws: ProvisionError.self) {
            _ = try original.overriding { binder in
                binder.bind(Hunt18AClock.self).to { (_: Hunt18ATimeSource) in Hunt18AClock(label: "fake") }
            }
        }
        #expect(error?.code == .validationFailed)
        #expect(error?.underlyingErrors.map(\.code) == [.notBound], "\(String(describing: error))")
        #expect(error?.underlyingErrors.first?.key == BindingKey(Hunt18ATimeSource.self))
        #expect(try original.syncGet(Hunt18AScheduler.self).clock.label == "real")
    }

    /// Factory registers new factories on a live container and every resolution sees them. Provision
    /// documents, for a plugin installed into the original after a derivation: "Modules installed into
    /// this injector after the derivation are seen as they are here" — not re-created with the
    /// override. The derived injector's scheduler therefore resolves in the original, with the real
    /// clock, and is the original's binding.
    @Test("a plugin installed into the original after deriving is seen as the original's, real clock")
    func pluginInstalledAfterDerivation() throws {
        let original = try Injector(
            ClosureModule { binder in binder.bind(Hunt18AClock.self).toInstance(Hunt18AClock(label: "real")) })
        let derived = try original.overriding { $0.bind(Hunt18AClock.self).toInstance(Hunt18AClock(label: "fake")) }
        try original.install(
            ClosureModule { binder in binder.bind(Hunt18AScheduler.self).to(Hunt18AScheduler.init(clock:)) })
        #expect(try derived.syncGet(Hunt18AClock.self).label == "fake")
        #expect(try derived.syncGet(Hunt18AScheduler.self).clock.label == "real")
        #expect(try original.syncGet(Hunt18AScheduler.self).clock.label == "real")
    }

    /// swift-dependencies' `withEscapedDependencies` keeps an escaping closure's dependencies; Provision
    /// documents the opposite for a handle: "A provider refers to its injector weakly". A provider taken
    /// from a child injector that is then dropped throws injectorReleased, while a provider from the
    /// parent, which the test holds, still resolves.
    @Test("a provider outliving the child injector that made it throws injectorReleased")
    func providerOutlivingItsInjector() throws {
        let parent = try Injector(
            ClosureModule { binder in binder.bind(Hunt18AClock.self).to { Hunt18AClock(label: "parent") } })
        func providerOfDroppedChild() throws -> Provider<Hunt18AClock> {
            let child = try parent.makeChild(ClosureModule { _ in })
            return try child.syncGet(Provider<Hunt18AClock>.self)
        }
        let orphan = try providerOfDroppedChild()
        let error = #expect(throws: ProvisionError.self) { _ = try orphan.get() }
        #expect(error?.code == .injectorReleased)
        #expect(try parent.syncGet(Provider<Hunt18AClock>.self).get().label == "parent")
    }

    /// Factory's `.shared` scope keeps an instance only while someone holds it; Provision documents
    /// "No .weak scope ... Provision's singletons live as long as their injector". A singleton nobody
    /// holds any more is not rebuilt and not deinitialized; a transient is released with its last user.
    @Test("a singleton nobody holds stays built (no weak scope); a transient is released with its user")
    func singletonOutlivesItsUsers() throws {
        let singletonDeinits = Counter()
        let transientDeinits = Counter()
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt18ATracked.self).to { () -> Hunt18ATracked in
                    builds.increment()
                    return Hunt18ATracked(deinits: singletonDeinits)
                }.in(.singleton)
                binder.bind(Hunt18ATracked.self, named: "unique").to { Hunt18ATracked(deinits: transientDeinits) }
            })
        for _ in 0..<3 {
            _ = try injector.syncGet(Hunt18ATracked.self)
            _ = try injector.syncGet(Hunt18ATracked.self, named: "unique")
        }
        #expect(builds.value == 1)
        #expect(singletonDeinits.value == 0)
        #expect(transientDeinits.value == 3)
    }

    /// Factory's `.graph` scope shares an instance within one resolution; Provision documents "No .graph
    /// scope ... share an instance within a graph by passing it explicitly or by a child injector with
    /// singletons". A transient formatter needed twice by one page is two formatters; a child injector
    /// per page that binds it as a singleton shares one within the page, and another page gets another.
    @Test("no graph scope: a transient needed twice in one graph is two; a child per graph shares one")
    func noGraphScopeButChildPerGraph() throws {
        let app = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt18AFormatter.self).to { Hunt18AFormatter() }
                binder.bind(Hunt18AHeader.self).to(Hunt18AHeader.init(formatter:))
                binder.bind(Hunt18AFooter.self).to(Hunt18AFooter.init(formatter:))
                binder.bind(Hunt18APage.self).to(Hunt18APage.init(header:footer:))
            })
        let plain = try app.syncGet(Hunt18APage.self)
        #expect(plain.header.formatter !== plain.footer.formatter)
        let perGraph = ClosureModule { binder in
            binder.bind(Hunt18AFormatter.self).to { Hunt18AFormatter() }.in(.singleton)
            binder.bind(Hunt18AHeader.self).to(Hunt18AHeader.init(formatter:))
            binder.bind(Hunt18AFooter.self).to(Hunt18AFooter.init(formatter:))
            binder.bind(Hunt18APage.self).to(Hunt18APage.init(header:footer:))
        }
        let first = try app.makeChild(perGraph).syncGet(Hunt18APage.self)
        let second = try app.makeChild(perGraph).syncGet(Hunt18APage.self)
        #expect(first.header.formatter === first.footer.formatter)
        #expect(first.header.formatter !== second.header.formatter)
    }

    /// Factory's named registrations are separate keys: overriding one name leaves the others alone.
    /// Overriding the clock named "utc" re-creates what depends on it and nothing that depends on the
    /// unnamed clock, which stays shared and built once.
    @Test("overriding a named clock re-creates its dependants only; the unnamed clock's stay shared")
    func namedOverrideLeavesUnnamed() throws {
        let log = EventLog()
        let billingBuilds = Counter()
        let original = try Injector(
            ClosureModule { binder in
                binder.bind(EventLog.self).toInstance(log)
                binder.bind(Hunt18AClock.self).to { Hunt18AClock(label: "local") }.in(.singleton)
                binder.bind(Hunt18AClock.self, named: "utc").to { Hunt18AClock(label: "utc") }.in(.singleton)
                binder.bind(Hunt18ABilling.self).to { (clock: Hunt18AClock, log: EventLog) -> Hunt18ABilling in
                    billingBuilds.increment()
                    return Hunt18ABilling(clock: clock, log: log)
                }.in(.singleton)
                binder.bind(Hunt18AScheduler.self).to(dependencies: [BindingKey(Hunt18AClock.self, named: "utc")]) {
                    resolver in Hunt18AScheduler(clock: try resolver.get(Hunt18AClock.self, named: "utc"))
                }.in(.singleton)
            })
        let derived = try original.overriding {
            $0.bind(Hunt18AClock.self, named: "utc").to { Hunt18AClock(label: "fake-utc") }.in(.singleton)
        }
        #expect(try derived.syncGet(Hunt18AScheduler.self).clock.label == "fake-utc")
        #expect(try original.syncGet(Hunt18AScheduler.self).clock.label == "utc")
        #expect(try derived.syncGet(Hunt18ABilling.self) === (try original.syncGet(Hunt18ABilling.self)))
        #expect(try derived.syncGet(Hunt18AClock.self) === (try original.syncGet(Hunt18AClock.self)))
        #expect(billingBuilds.value == 1)
    }

    /// swift-dependencies re-evaluates a live value under an override. Provision documents that a
    /// closure which doesn't declare its dependencies "may reach a replaced key, so it is re-created
    /// too": an async connection factory that never touches the clock is built once per injector after
    /// an override of the clock, and each injector disposes its own connection, once.
    @Test("an undeclared async closure singleton is re-created by an override; each injector disposes its own")
    func undeclaredAsyncClosureIsRecreated() async throws {
        let log = EventLog()
        let builds = Counter()
        let original = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt18AClock.self).to { Hunt18AClock(label: "real") }.in(.singleton)
                binder.bind(Hunt18AConnection.self).to { _ async throws -> Hunt18AConnection in
                    await Task.yield()
                    return Hunt18AConnection(id: builds.increment(), log: log)
                }.in(.singleton)
            })
        let first = try await original.get(Hunt18AConnection.self)
        let derived = try original.overriding { binder in
            binder.bind(Hunt18AClock.self).to { Hunt18AClock(label: "fake") }.in(.singleton)
        }
        async let fromDerived = derived.get(Hunt18AConnection.self)
        async let again = derived.get(Hunt18AConnection.self)
        let (one, two) = try await (fromDerived, again)
        #expect(one === two && one !== first)
        #expect(builds.value == 2)
        try await derived.shutdown()
        #expect(log.all == ["dispose connection \(one.id)"])
        try await original.shutdown()
        #expect(log.all == ["dispose connection \(one.id)", "dispose connection \(first.id)"])
    }
}
