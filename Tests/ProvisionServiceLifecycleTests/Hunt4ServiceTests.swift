import Logging
import Provision
import ProvisionServiceLifecycle
import ServiceLifecycle
import Synchronization
import Testing

private let hunt4Quiet = Logger(label: "provision.tests") { _ in SwiftLogNoOpLogHandler() }

private protocol Hunt4Client: AnyObject, Sendable {}

/// A `Service` like `PostgresClient`: counts how often its `run()` is entered, and runs until graceful
/// shutdown.
private final class Hunt4Pool: Service, Hunt4Client, CustomStringConvertible {
    let runs = Atomic(0)
    let description = "Hunt4Pool"

    func run() async throws {
        runs.add(1, ordering: .relaxed)
        try? await gracefulShutdown()
    }
}

/// A `Service` whose `run()` returns at once.
private final class Hunt4Quitter: Service, CustomStringConvertible {
    let description = "Hunt4Quitter"
    func run() async throws {}
}

@Suite("Hunt4 ServiceLifecycleAdapter", .timeLimit(.minutes(1)))
struct Hunt4ServiceTests {
    // Found by the fourth hunt, fixed: the delegation's own singleton cell holds the same instance, and
    // Injector.start() adapts every singleton cell: run() is entered twice on one instance (a PostgresClient's run()
    // may only be called once).
    @Test("a Service singleton also bound under a protocol key (to(binding:), singleton) runs once")
    func serviceUnderTwoKeys() async throws {
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt4Pool.self).to(Hunt4Pool.init).in(.singleton)
                    binder.bind((any Hunt4Client).self).to(binding: Hunt4Pool.self).in(.singleton)
                }
            ],
            configuration: Injector.Configuration(
                lifecycleHookTimeout: .seconds(5), lifecycleAdapters: [ServiceLifecycleAdapter(logger: hunt4Quiet)]))
        try await injector.start()
        let pool = try await injector.get(Hunt4Pool.self)
        try await injector.shutdown()
        #expect(pool.runs.load(ordering: .relaxed) == 1)
    }

    @Test("a Service singleton whose run() throws during graceful shutdown: shutdown throws stopFailed")
    func runThrowsOnStop() async throws {
        final class Failing: Service {
            func run() async throws {
                try? await gracefulShutdown()
                struct Flush: Error {}
                throw Flush()
            }
        }
        let injector = try Injector(
            modules: [ClosureModule { $0.bind(Failing.self).to(Failing.init).in(.singleton) }],
            configuration: Injector.Configuration(
                lifecycleHookTimeout: .seconds(5), lifecycleAdapters: [ServiceLifecycleAdapter(logger: hunt4Quiet)]))
        try await injector.start()
        await #expect(throws: ProvisionError.self) { try await injector.shutdown() }
    }

    // Found by the fourth hunt, fixed: the adapter keeps every early exit for its whole life
    // (ServiceLifecycleAdapter.exits is never cleared, firstEarlyExit "returns at once when one has ended already"): a
    // second injector made with the same configuration (a restart after the failure) has its InjectorService end at
    // once with the first injector's ServiceExitedEarly, though none of its own services ended.
    @Test("an early exit of one injector's service does not end the InjectorService of the next injector")
    func staleEarlyExit() async throws {
        let configuration = Injector.Configuration(
            lifecycleHookTimeout: .seconds(5), lifecycleAdapters: [ServiceLifecycleAdapter(logger: hunt4Quiet)])
        let first = try Injector(
            modules: [ClosureModule { $0.bind(Hunt4Quitter.self).to(Hunt4Quitter.init).in(.singleton) }],
            configuration: configuration)
        await #expect(throws: ServiceExitedEarly.self) {
            try await InjectorService(injector: first, logger: hunt4Quiet).run()
        }
        let second = try Injector(
            modules: [ClosureModule { $0.bind(Hunt4Pool.self).to(Hunt4Pool.init).in(.singleton) }],
            configuration: configuration)
        let run = Task { try await InjectorService(injector: second, logger: hunt4Quiet).run() }
        try await Task.sleep(for: .milliseconds(300))
        run.cancel()
        let outcome = await run.result
        var exitedEarly: ServiceExitedEarly?
        if case .failure(let error) = outcome { exitedEarly = error as? ServiceExitedEarly }
        #expect(exitedEarly == nil, "the second injector ended with \(String(describing: exitedEarly))")
    }

    // Found by the fourth hunt, fixed: ServiceExitedEarly.error is documented as "What its run() threw, or nil when it
    // returned", and its description as "... (run() returned)". A service that returns is run in a ServiceGroup of its
    // own (RunningService.start), which throws ServiceGroupError.serviceFinishedUnexpectedly for it: the exit carries
    // that error, and reads as a failure of the service.
    @Test("a Service singleton whose run() returns early: ServiceExitedEarly.error is nil")
    func returnedEarlyHasNoError() async throws {
        let injector = try Injector(
            modules: [ClosureModule { $0.bind(Hunt4Quitter.self).to(Hunt4Quitter.init).in(.singleton) }],
            configuration: Injector.Configuration(
                lifecycleHookTimeout: .seconds(5), lifecycleAdapters: [ServiceLifecycleAdapter(logger: hunt4Quiet)]))
        let exit = await #expect(throws: ServiceExitedEarly.self) {
            try await InjectorService(injector: injector, logger: hunt4Quiet).run()
        }
        #expect(exit?.error == nil, "error: \(String(describing: exit?.error))")
        #expect(exit?.description == "Hunt4Quitter ended before the injector stopped it (run() returned)")
    }
}
