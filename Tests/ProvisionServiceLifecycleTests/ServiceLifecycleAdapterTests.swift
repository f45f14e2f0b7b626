import Logging
import Provision
import ProvisionServiceLifecycle
import ServiceLifecycle
import Testing

private let quiet = Logger(label: "provision.tests") { _ in SwiftLogNoOpLogHandler() }

/// A `Service` singleton like `PostgresClient`: runs until graceful shutdown, logging when it runs and
/// when it ends.
private final class Pool: Service, Sendable, CustomStringConvertible {
    let log: EventLog
    let running = Latch()
    let description = "Pool"

    init(log: EventLog) {
        self.log = log
    }

    func run() async throws {
        log.record("run Pool")
        running.open()
        try? await gracefulShutdown()
        log.record("end Pool")
    }
}

/// A ManagedService that depends on the pool: it must start once the pool runs, and stop before it.
private final class Repository: ManagedService {
    let pool: Pool
    let log: EventLog

    init(pool: Pool, log: EventLog) {
        self.pool = pool
        self.log = log
    }

    func start() async throws { log.record("start Repository") }
    func stop() async throws { log.record("stop Repository") }
}

/// A `Service` singleton on top: runs after the repository started, ends first.
private final class Server: Service, Sendable {
    let repository: Repository
    let log: EventLog

    init(repository: Repository, log: EventLog) {
        self.repository = repository
        self.log = log
    }

    func run() async throws {
        log.record("run Server")
        try? await gracefulShutdown()
        log.record("end Server")
    }
}

/// A `Service` that returns on its own, long before anyone stops it.
private final class Crasher: Service, Sendable, CustomStringConvertible {
    let description = "Crasher"
    let go = Latch()

    func run() async throws {
        await go.wait()
        throw InjectedFailure(step: "crash")
    }
}

/// A `Service` that ignores graceful shutdown: only its cancellation ends it.
private final class Stubborn: Service, Sendable {
    let cancelled = Latch()

    func run() async throws {
        await withTaskCancellationHandler {
            while !Task.isCancelled {
                await Task.yield()
                try? await Task.sleep(for: .milliseconds(5))
            }
        } onCancel: {
            cancelled.open()
        }
    }
}

@Suite("ServiceLifecycleAdapter")
struct ServiceLifecycleAdapterTests {
    private static func configuration(timeout: Duration = .seconds(30)) -> Injector.Configuration {
        Injector.Configuration(
            lifecycleHookTimeout: timeout,
            lifecycleAdapters: [ServiceLifecycleAdapter(logger: quiet)]
        )
    }

    @Test("Service singletons run in dependency order and get graceful shutdown in reverse order")
    func order() async throws {
        let log = EventLog()
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(EventLog.self).toInstance(log)
                    binder.bind(Pool.self).to(Pool.init(log:)).in(.singleton)
                    binder.bind(Repository.self).to(Repository.init(pool:log:)).in(.singleton)
                    binder.bind(Server.self).to(Server.init(repository:log:)).in(.singleton)
                }
            ],
            configuration: Self.configuration()
        )
        try await withWatchdog {
            try await injector.start()
            // The pool's run() was entered before the repository's start, which came before the server.
            #expect(log.all == ["run Pool", "start Repository", "run Server"])
            try await injector.shutdown()
        }
        #expect(Array(log.all.dropFirst(3)) == ["end Server", "stop Repository", "end Pool"])
    }

    @Test("an InjectorService's SIGTERM reaches Service singletons only through the injector's shutdown")
    func gracefulShutdownThroughInjector() async throws {
        let log = EventLog()
        let injector = try Injector(
            modules: [ClosureModule { binder in binder.bind(Pool.self).to { Pool(log: log) }.in(.singleton) }],
            configuration: Self.configuration()
        )
        let nested = ProbeService("handler", log: log)
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [InjectorService(injector: injector, services: [nested], logger: quiet)],
                logger: quiet
            )
        )
        try await withWatchdog {
            async let run: Void = group.run()
            await nested.running.wait()
            await group.triggerGracefulShutdown()
            try await run
        }
        // The nested handler ended before the pool was told to stop.
        #expect(log.all == ["run Pool", "run handler", "end handler", "end Pool"])
    }

    @Test("a Service singleton that ends early makes the InjectorService shut down and throw ServiceExitedEarly")
    func earlyExit() async throws {
        let log = EventLog()
        let crasher = Crasher()
        let injector = try Injector(
            modules: [ClosureModule { binder in binder.bind(Crasher.self).toInstance(crasher) }],
            configuration: Self.configuration()
        )
        let nested = ProbeService("handler", log: log)
        let service = InjectorService(injector: injector, services: [nested], logger: quiet)
        let outcome = try await withWatchdog {
            let run = Task { try await service.run() }
            await nested.running.wait()
            crasher.go.open()
            return await run.result
        }
        let error = #expect(throws: ServiceExitedEarly.self) { try outcome.get() }
        #expect(error?.service == "Crasher")
        #expect((error?.error as? InjectedFailure) == InjectedFailure(step: "crash"))
        #expect(log.all.contains("cancel handler"))
        let afterwards = await #expect(throws: ProvisionError.self) { try await injector.get(Crasher.self) }
        #expect(afterwards?.code == .shutDown)
    }

    @Test("a Service that ignores graceful shutdown is cancelled when its stop times out")
    func stubbornService() async throws {
        let stubborn = Stubborn()
        // The limit bounds the start too, and a start is several task hops: on 2 cores busy with the
        // stress tests that run beside this one, those hops have taken over 2 seconds.
        let injector = try Injector(
            modules: [ClosureModule { binder in binder.bind(Stubborn.self).toInstance(stubborn) }],
            configuration: Self.configuration(timeout: .seconds(10))
        )
        try await withWatchdog {
            try await injector.start()
            let error = await #expect(throws: ProvisionError.self) { try await injector.shutdown() }
            #expect(error?.code == .stopFailed)
            #expect(error?.underlyingErrors.first?.code == .timedOut)
            await stubborn.cancelled.wait()
        }
    }
}
