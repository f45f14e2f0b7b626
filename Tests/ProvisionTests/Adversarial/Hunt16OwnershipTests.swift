import Dispatch
import Foundation
import Testing

@testable import Provision

// Who owns an instance that a closure binding hands on rather than builds (Autofac's ExternallyOwned
// and its nested lifetime scopes: a component is disposed by the scope that created it, never by a
// nested scope that merely resolved it). Provision's rule, from its own tests: "one instance is one
// service and one disposal, whichever bindings hand it out", and a derived injector's shared
// singletons "stay this injector's to start and shut down".

// MARK: - Fixtures

/// A service that logs its start, stop and disposal.
private final class Hunt16Pool: ManagedService, Disposable {
    let log: EventLog
    init(log: EventLog) { self.log = log }
    func start() async throws { log.append("start pool") }
    func stop() async throws { log.append("stop pool") }
    func dispose() { log.append("dispose pool") }
}

private protocol Hunt16Store: Sendable {}

extension Hunt16Pool: Hunt16Store {}

/// Needs the store; the child's own service.
private final class Hunt16Importer: Sendable {
    let store: any Hunt16Store
    init(store: any Hunt16Store) { self.store = store }
}

/// A request's connection, given to its scope as a seed by the code that opens the scope.
private final class Hunt16Connection: Disposable {
    let log: EventLog
    init(log: EventLog) { self.log = log }
    func dispose() { log.append("dispose connection") }
}

private protocol Hunt16Channel: Sendable {}

extension Hunt16Connection: Hunt16Channel {}

// MARK: - Tests

@Suite("Hunt16: instances handed on by closures, in children and derived injectors", .timeLimit(.minutes(1)))
struct Hunt16OwnershipTests {
    /// Autofac's nested lifetime scope resolving the root's singleton: the nested scope's end leaves it
    /// alone. A child injector's singleton closure that returns its parent's singleton service (the
    /// closure shape of the delegation Hunt 15 fixed): the child's start() doesn't start it again, the
    /// child's shutdown doesn't stop or dispose it while the parent runs; the parent stops and disposes
    /// it once.
    ///
    /// Found by hunt 16, fixed: expected the child's start and shutdown to leave the parent's pool alone (log
    /// ["start pool"] after the child's lifecycle, then one stop and one disposal by the parent's
    /// shutdown); actual: see the failing expectations (the child starts, stops and disposes the
    /// parent's pool). The child records the instance its singleton closure returned as its own
    /// (InstanceRecorder / InjectorLifecycle), and only the delegation recipe is marked as sharing its
    /// target's instance (RecipeOptions.sharesTargetInstances, Recipe+Delegation.swift).
    @Test("a child's singleton closure returning the parent's service: the child neither stops nor disposes it")
    func childClosureReturningParentSingleton() async throws {
        let log = EventLog()
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt16Pool.self).to { Hunt16Pool(log: log) }.in(.singleton)
            })
        try await parent.start()
        let pool = try await parent.get(Hunt16Pool.self)
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind((any Hunt16Store).self).to { resolver in
                    try resolver.get(Hunt16Pool.self)
                }.in(.singleton)
                binder.bind(Hunt16Importer.self).to(Hunt16Importer.init(store:)).in(.singleton)
            })
        try await child.start()
        #expect((try await child.get(Hunt16Importer.self).store as? Hunt16Pool) === pool)
        try await child.shutdown()
        #expect(log.all == ["start pool"], "the child's lifecycle touched the parent's pool: \(log.all)")
        #expect(try await parent.get(Hunt16Pool.self) === pool)
        try await parent.shutdown()
        #expect(log.with("stop ") == ["pool"])
        #expect(log.with("dispose ") == ["pool"])
    }

    /// The same through `overriding`: the derived injector re-creates a closure singleton that doesn't
    /// declare its dependencies (documented), and that closure returns the original's shared pool. The
    /// derived injector's shutdown must leave the shared pool to the original ("its singletons ... are
    /// shared ... and stay this injector's to start and shut down", `overriding(_:)`).
    ///
    /// Found by hunt 16, fixed: expected no disposal by the derived injector's shutdown, then one by the original's;
    /// actual "dispose pool" at the derived shutdown and again at the original's (two disposals of the
    /// shared pool, the first while the original still serves it). Same cause as the child's case above.
    @Test("an overriding injector's re-created closure returning the original's singleton: not disposed by it")
    func derivedClosureReturningSharedSingleton() async throws {
        let log = EventLog()
        let app = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt16Pool.self).to { Hunt16Pool(log: log) }.in(.singleton)
                binder.bind((any Hunt16Store).self).to { resolver in
                    try resolver.get(Hunt16Pool.self)
                }.in(.singleton)
                binder.bind(Int.self).toInstance(1)
            })
        let pool = try await app.get(Hunt16Pool.self)
        let test = try app.overriding { binder in
            binder.bind(Int.self).toInstance(2)
        }
        #expect((try await test.get((any Hunt16Store).self) as? Hunt16Pool) === pool)
        try await test.shutdown()
        #expect(log.all.isEmpty, "the derived injector's shutdown disposed the original's pool: \(log.all)")
        #expect(try await app.get(Hunt16Pool.self) === pool)
        try await app.shutdown()
        #expect(log.all == ["dispose pool"])
    }

    /// Control: the same child shape with a delegation instead of the closure (Hunt 15's fix) leaves
    /// the parent's pool alone.
    @Test("control: a child's singleton delegation to the parent's service leaves it to the parent")
    func childDelegationControl() async throws {
        let log = EventLog()
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt16Pool.self).to { Hunt16Pool(log: log) }.in(.singleton)
            })
        try await parent.start()
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind((any Hunt16Store).self).to(binding: Hunt16Pool.self).in(.singleton)
            })
        try await child.start()
        _ = try await child.get((any Hunt16Store).self)
        try await child.shutdown()
        #expect(log.all == ["start pool"])
        try await parent.shutdown()
        #expect(log.all == ["start pool", "stop pool", "dispose pool"])
    }

    /// Hilt's `@ActivityScoped` binding of a value the framework supplies: a scope's seed, handed on by a
    /// scoped binding under a protocol key. ScopeSeed documents "a seed belongs to the code that provided
    /// it: the scope hands it out as it is and never disposes it". A scoped delegation keeps that; a
    /// scoped closure that returns the seed should too.
    ///
    /// Found by hunt 16, fixed: expected no disposal by the scope's close; actual "dispose connection" for the closure's
    /// key (the delegation's is fine). Same cause as the pass-through tests in Hunt16AutofacTests: the
    /// scope records whatever Disposable its scoped closure returns.
    @Test("a scoped closure handing on the scope's seed: the close never disposes the caller's seed")
    func scopedClosureHandingOnSeed() throws {
        let log = EventLog()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt16Connection.self).toSeed()
                binder.bind((any Hunt16Channel).self).to(binding: Hunt16Connection.self).in(.scoped)
                binder.bind((any Hunt16Channel).self, named: "closure").to { resolver in
                    try resolver.get(Hunt16Connection.self)
                }.in(.scoped)
            })
        let connection = Hunt16Connection(log: log)
        let delegating = try injector.makeScope { seed in seed.provide(connection) }
        #expect((try delegating.get((any Hunt16Channel).self) as? Hunt16Connection) === connection)
        try delegating.close()
        #expect(log.all.isEmpty, "the delegation's scope disposed the seed: \(log.all)")
        let closing = try injector.makeScope { seed in seed.provide(connection) }
        #expect((try closing.get((any Hunt16Channel).self, named: "closure") as? Hunt16Connection) === connection)
        try closing.close()
        #expect(log.all.isEmpty, "the closure's scope disposed the seed: \(log.all)")
    }
}
