import Testing

@testable import Provision

/// Counts the lifecycle calls one instance receives.
private final class Pool: ManagedService, Disposable, Hunt4Store {
    let calls = Locked<[String]>([])
    func start() async throws { calls.withLock { $0.append("start") } }
    func stop() async throws { calls.withLock { $0.append("stop") } }
    func dispose() { calls.withLock { $0.append("dispose") } }
}

private protocol Hunt4Store: AnyObject, Sendable {}

@Suite("Hunt4 one instance under two singleton keys", .timeLimit(.minutes(1)))
struct Hunt4SharedInstanceTests {
    // Found by the fourth hunt, fixed: "this binding's scope applies on top" (to(binding:)) makes a second singleton
    // cell holding the target's instance; start()/shutdown() act on every singleton cell, so the one instance is
    // started, stopped and disposed twice. ManagedService: "Called once"; Disposable: "exactly once for every instance
    // it built".
    @Test("a singleton delegation to a singleton ManagedService: start, stop and dispose run once")
    func delegationSingleton() async throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Pool.self).to(Pool.init).in(.singleton)
                binder.bind((any Hunt4Store).self).to(binding: Pool.self).in(.singleton)
            })
        try await injector.start()
        let pool = try await injector.get(Pool.self)
        let store = try await injector.get((any Hunt4Store).self)
        #expect(store === pool)
        try await injector.shutdown()
        #expect(pool.calls.withLock { $0 } == ["start", "stop", "dispose"])
    }

    @Test("an unscoped delegation to a singleton ManagedService: start, stop and dispose run once")
    func delegationUnscoped() async throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Pool.self).to(Pool.init).in(.singleton)
                binder.bind((any Hunt4Store).self).to(binding: Pool.self)
            })
        try await injector.start()
        let pool = try await injector.get(Pool.self)
        _ = try await injector.get((any Hunt4Store).self)
        try await injector.shutdown()
        #expect(pool.calls.withLock { $0 } == ["start", "stop", "dispose"])
    }

    // Found by the fourth hunt, fixed (same cause): a scoped delegation to a scoped Disposable is disposed twice when
    // its scope closes.
    @Test("a scoped delegation to a scoped Disposable: the instance is disposed once when the scope closes")
    func delegationScoped() async throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Pool.self).to(Pool.init).in(.scoped)
                binder.bind((any Hunt4Store).self).to(binding: Pool.self).in(.scoped)
            })
        let scope = injector.makeScope()
        let pool = try await scope.get(Pool.self)
        let store = try await scope.get((any Hunt4Store).self)
        #expect(store === pool)
        try await scope.close()
        #expect(pool.calls.withLock { $0 } == ["dispose"])
    }

    @Test("a singleton closure that returns another singleton's instance: started and disposed once")
    func closureReturningSingleton() async throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Pool.self).to(Pool.init).in(.singleton)
                binder.bind((any Hunt4Store).self).to(dependencies: [BindingKey(Pool.self)]) { resolver in
                    try resolver.get(Pool.self) as any Hunt4Store
                }.in(.singleton)
            })
        try await injector.start()
        let pool = try await injector.get(Pool.self)
        try await injector.shutdown()
        // Found by the fourth hunt (recorded then as a known issue), fixed by the same change: one instance is one
        // service and one disposal, whichever bindings hand it out.
        #expect(pool.calls.withLock { $0 } == ["start", "stop", "dispose"])
    }
}
