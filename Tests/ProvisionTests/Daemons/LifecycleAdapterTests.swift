import Synchronization
import Testing

@testable import Provision

/// A kind of service Provision doesn't know: its own `resume`/`halt`, as a framework's type would have.
private protocol Runnable: Sendable {
    var name: String { get }
    func resume() async throws
    func halt() async throws
}

/// Runs `Runnable` singletons, as an integration's adapter does.
private struct RunnableAdapter: LifecycleAdapter {
    func lifecycle(of instance: Any) -> AdaptedLifecycle? {
        guard let runnable = instance as? any Runnable else { return nil }
        return AdaptedLifecycle(start: { try await runnable.resume() }, stop: { try await runnable.halt() })
    }
}

/// An adapter that manages nothing: the next one must be asked.
private struct IgnoringAdapter: LifecycleAdapter {
    func lifecycle(of instance: Any) -> AdaptedLifecycle? { nil }
}

private final class Pool: Runnable {
    let name = "Pool"
    let log: EventLog
    let fails: Bool

    init(log: EventLog, fails: Bool = false) {
        self.log = log
        self.fails = fails
    }

    func resume() async throws {
        if fails { throw ExpectedFailure(id: 7) }
        log.append("start Pool")
    }

    func halt() async throws {
        log.append("stop Pool")
    }
}

/// A ManagedService between two adapted services.
private final class Cache: ManagedService {
    let pool: Pool
    let log: EventLog

    init(pool: Pool, log: EventLog) {
        self.pool = pool
        self.log = log
    }

    func start() async throws { log.append("start Cache") }
    func stop() async throws { log.append("stop Cache") }
}

private final class Server: Runnable {
    let name = "Server"
    let cache: Cache
    let log: EventLog

    init(cache: Cache, log: EventLog) {
        self.cache = cache
        self.log = log
    }

    func resume() async throws { log.append("start Server") }
    func halt() async throws { log.append("stop Server") }
}

/// Both a Runnable and a ManagedService: the conformance Provision knows wins.
private final class Both: Runnable, ManagedService {
    let name = "Both"
    let log: EventLog

    init(log: EventLog) {
        self.log = log
    }

    func resume() async throws { log.append("resume Both") }
    func halt() async throws { log.append("halt Both") }
    func start() async throws { log.append("start Both") }
    func stop() async throws { log.append("stop Both") }
}

@Suite("Lifecycle adapters")
struct LifecycleAdapterTests {
    private static func injector(log: EventLog, poolFails: Bool = false) throws -> Injector {
        try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(EventLog.self).toInstance(log)
                    binder.bind(Server.self).to(Server.init(cache:log:)).in(.singleton)
                    binder.bind(Cache.self).to(Cache.init(pool:log:)).in(.singleton)
                    binder.bind(Pool.self).to { Pool(log: log, fails: poolFails) }.in(.singleton)
                }
            ],
            configuration: Injector.Configuration(lifecycleAdapters: [IgnoringAdapter(), RunnableAdapter()])
        )
    }

    @Test("adapted services start in dependency order beside managed services, and stop in reverse")
    func order() async throws {
        let log = EventLog()
        let injector = try Self.injector(log: log)
        try await injector.start()
        #expect(log.all == ["start Pool", "start Cache", "start Server"])
        #expect(injector.startedServices == [BindingKey(Pool.self), BindingKey(Cache.self), BindingKey(Server.self)])
        try await injector.shutdown()
        #expect(log.all.suffix(3) == ["stop Server", "stop Cache", "stop Pool"])
    }

    @Test("an adapted start that throws fails start() with startFailed and starts nothing after it")
    func failingStart() async throws {
        let log = EventLog()
        let injector = try Self.injector(log: log, poolFails: true)
        let error = await #expect(throws: ProvisionError.self) { try await injector.start() }
        #expect(error?.code == .startFailed)
        #expect(error?.underlyingErrors.first?.key == BindingKey(Pool.self))
        #expect(log.all.isEmpty)
        try await injector.shutdown()
        #expect(log.all.isEmpty)
    }

    @Test("hooks on a binding and a ManagedService conformance come before an adapter")
    func precedence() async throws {
        let log = EventLog()
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Both.self).to { Both(log: log) }.in(.singleton)
                    binder.bind(Pool.self).to { Pool(log: log) }.in(.singleton)
                        .onStart { _ in log.append("hook start Pool") }
                        .onStop { _ in log.append("hook stop Pool") }
                }
            ],
            configuration: Injector.Configuration(lifecycleAdapters: [RunnableAdapter()])
        )
        try await injector.start()
        try await injector.shutdown()
        #expect(Set(log.all) == ["start Both", "stop Both", "hook start Pool", "hook stop Pool"])
    }

    @Test("without an adapter, a type Provision doesn't know is not started")
    func noAdapter() async throws {
        let log = EventLog()
        let injector = try Injector(
            ClosureModule { binder in binder.bind(Pool.self).to { Pool(log: log) }.in(.singleton) })
        try await injector.start()
        try await injector.shutdown()
        #expect(log.all.isEmpty)
        #expect(injector.startedServices.isEmpty)
    }

    @Test("configurations with adapters of the same types are equal; a child inherits them")
    func configuration() throws {
        let one = Injector.Configuration(lifecycleAdapters: [RunnableAdapter()])
        #expect(one == Injector.Configuration(lifecycleAdapters: [RunnableAdapter()]))
        #expect(one != Injector.Configuration())
        #expect(one.hashValue == Injector.Configuration(lifecycleAdapters: [RunnableAdapter()]).hashValue)
        let child = try Injector(modules: [], configuration: one).makeChild()
        #expect(child.configuration.lifecycleAdapters.count == 1)
    }
}
