import Logging
import Provision
import ProvisionServiceLifecycle
import ServiceLifecycle
import Testing

// Hunt 27A: InjectorService and ServiceLifecycleAdapter at every moment a server team relies on: a
// graceful shutdown or a cancellation that arrives while the injector starts, a start hook that fails
// after independent services started, stop hooks that hang or throw after another failure, the same
// injector in two groups, a restart.

private let hunt27AQuiet = Logger(label: "provision.tests.hunt27a") { _ in SwiftLogNoOpLogHandler() }

/// A log handler that keeps every message, its level and metadata.
private struct Hunt27ARecordingHandler: LogHandler {
    let entries: Locked<[(Logger.Level, String, Logger.Metadata)]>
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        entries.withLock { $0.append((event.level, event.message.description, event.metadata ?? [:])) }
    }
}

/// The service an event names: `Left` for `start Left`.
private func hunt27AName(_ event: String) -> String {
    String(event.split(separator: " ").last ?? "")
}

private func hunt27AGroup(_ services: [any Service]) -> ServiceGroup {
    ServiceGroup(configuration: ServiceGroupConfiguration(services: services, logger: hunt27AQuiet))
}

/// Three independent-then-joined singletons: `Left` and `Right` depend on nothing, `Top` on both.
private final class Hunt27ALeft: Sendable {}
private final class Hunt27ARight: Sendable {}
private final class Hunt27ATop: Sendable {
    init(left: Hunt27ALeft, right: Hunt27ARight) {}
}

/// A disposable singleton, to count disposals.
private final class Hunt27ADisposable: Disposable, Sendable {
    let log: EventLog
    init(log: EventLog) { self.log = log }
    func dispose() { log.record("dispose") }
}

/// The error a hook throws on purpose.
private struct Hunt27AFailure: Error, Equatable {
    let step: String
}

/// A `Service` singleton (like a `PostgresClient`) that records its run and its end.
private final class Hunt27APool: Service, CustomStringConvertible {
    let log: EventLog
    let description = "Hunt27APool"
    init(log: EventLog) { self.log = log }

    func run() async throws {
        log.record("run Pool")
        try? await gracefulShutdown()
        log.record("end Pool")
    }
}

/// A `Service` singleton that depends on the pool and throws as soon as it runs.
private final class Hunt27ACrasher: Service, CustomStringConvertible {
    let description = "Hunt27ACrasher"
    init(pool: Hunt27APool) {}
    func run() async throws { throw Hunt27AFailure(step: "crash") }
}

/// A managed service, depending on the pool, whose start fails.
private final class Hunt27AFailingRepository: ManagedService {
    let log: EventLog
    init(pool: Hunt27APool, log: EventLog) { self.log = log }
    func start() async throws { throw Hunt27AFailure(step: "start Repository") }
    func stop() async throws { log.record("stop Repository") }
}

@Suite("Hunt27A InjectorService and ServiceLifecycleAdapter", .timeLimit(.minutes(1)))
struct Hunt27ALifecycleTests {
    /// A user expects (InjectorService.run(): "`invalidLifecycle` when the injector was started already
    /// ... left as they are") that running an injector that another group already runs fails at once with
    /// `invalidLifecycle`, without stopping the first group's singletons, which go on serving and are
    /// stopped exactly once when the first group shuts down.
    @Test("the same injector in a second group: invalidLifecycle, the first group's services untouched")
    func sameInjectorInTwoGroups() async throws {
        let log = EventLog()
        let started = Latch()
        let injector = try Injector(
            chainModule(log: log),
            ClosureModule { binder in
                binder.bind(Hunt27ATop.self).to { (_: ChainQueue) in
                    Hunt27ATop(left: Hunt27ALeft(), right: Hunt27ARight())
                }
                .in(.singleton)
                .onStart { _ in started.open() }
            }
        )
        let first = hunt27AGroup([InjectorService(injector: injector, logger: hunt27AQuiet)])
        try await withWatchdog(.seconds(10)) {
            async let run: Void = first.run()
            await started.wait()
            let second = hunt27AGroup([InjectorService(injector: injector, logger: hunt27AQuiet)])
            let error = await #expect(throws: ProvisionError.self) { try await second.run() }
            #expect(error?.code == .invalidLifecycle)
            // The first group's injector still serves.
            _ = try await injector.get(ChainStore.self)
            #expect(log.all == chainStarts)
            await first.triggerGracefulShutdown()
            try await run
        }
        #expect(log.all == chainStarts + chainStops)
    }

    /// A user expects (InjectorService.run(): "`shutDown` when it was shut down ... left as they are")
    /// that running an InjectorService again after its group returned (a restart attempt) throws
    /// `shutDown` and starts or stops nothing a second time.
    @Test("running an InjectorService again after it returned throws shutDown and runs no hook again")
    func restartAfterShutdown() async throws {
        let log = EventLog()
        let injector = try Injector(chainModule(log: log))
        let service = InjectorService(injector: injector, logger: hunt27AQuiet)
        let first = hunt27AGroup([service])
        await first.triggerGracefulShutdown()
        try await withWatchdog(.seconds(10)) { try await first.run() }
        #expect(log.all == chainStarts + chainStops)

        let second = hunt27AGroup([service])
        let error = await #expect(throws: ProvisionError.self) {
            try await withWatchdog(.seconds(10)) { try await second.run() }
        }
        #expect(error?.code == .shutDown)
        #expect(log.all == chainStarts + chainStops, "no hook ran twice")
    }

    /// A user expects (Injector.start(): "If a build or a start hook fails, the services that had started
    /// are stopped again, in reverse order"; InjectorService.run(): `startFailed` thrown "after which the
    /// injector is shut down") that when `Top`'s start hook fails after `Left` and `Right` (independent,
    /// started concurrently) started, each of them is stopped exactly once, `Top` is not stopped, the
    /// disposable singleton is disposed exactly once, and the group throws `startFailed`.
    @Test("a start hook failing after two concurrent starts: each started service stopped once, group throws")
    func startFailureAfterConcurrentStarts() async throws {
        let log = EventLog()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(EventLog.self).toInstance(log)
                binder.bind(Hunt27ADisposable.self).to(Hunt27ADisposable.init(log:)).in(.singleton)
                binder.bind(Hunt27ALeft.self).to(Hunt27ALeft.init).in(.singleton)
                    .onStart { _ in log.record("start Left") }
                    .onStop { _ in log.record("stop Left") }
                binder.bind(Hunt27ARight.self).to(Hunt27ARight.init).in(.singleton)
                    .onStart { _ in log.record("start Right") }
                    .onStop { _ in log.record("stop Right") }
                binder.bind(Hunt27ATop.self).to(Hunt27ATop.init(left:right:)).in(.singleton)
                    .onStart { _ in throw Hunt27AFailure(step: "start Top") }
                    .onStop { _ in log.record("stop Top") }
            }
        )
        let group = hunt27AGroup([InjectorService(injector: injector, logger: hunt27AQuiet)])
        let error = await #expect(throws: ProvisionError.self) {
            try await withWatchdog(.seconds(10)) { try await group.run() }
        }
        #expect(error?.code == .startFailed)
        let events = log.all
        #expect(events.count == 5, "\(events)")
        #expect(Set(events.prefix(2)) == ["start Left", "start Right"])
        #expect(Set(events.dropFirst(2).prefix(2)) == ["stop Left", "stop Right"])
        // Reverse order: the one started last is stopped first.
        let startOrder = events.prefix(2).map { hunt27AName($0) }
        let stopOrder = events.dropFirst(2).prefix(2).map { hunt27AName($0) }
        #expect(stopOrder == startOrder.reversed())
        #expect(events.last == "dispose")
    }

    /// A user expects (ServiceLifecycleAdapter: a Service singleton "stops when the injector shuts down";
    /// Injector.start(): started services "are stopped again" after a failed start) that a Service
    /// singleton running when a later start hook fails is shut down gracefully exactly once, and that this
    /// stop is not reported as an early exit: the group throws the start failure (`startFailed`), not
    /// `ServiceExitedEarly`.
    @Test("a failed start after a Service singleton runs: the service ends once, startFailed is what's thrown")
    func startFailureAfterServiceSingleton() async throws {
        let log = EventLog()
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(EventLog.self).toInstance(log)
                    binder.bind(Hunt27APool.self).to(Hunt27APool.init(log:)).in(.singleton)
                    binder.bind(Hunt27AFailingRepository.self).to(Hunt27AFailingRepository.init(pool:log:))
                        .in(.singleton)
                }
            ],
            configuration: Injector.Configuration(
                lifecycleHookTimeout: .seconds(10), lifecycleAdapters: [ServiceLifecycleAdapter(logger: hunt27AQuiet)])
        )
        let group = hunt27AGroup([InjectorService(injector: injector, logger: hunt27AQuiet)])
        let error = await #expect(throws: ProvisionError.self) {
            try await withWatchdog(.seconds(10)) { try await group.run() }
        }
        #expect(error?.code == .startFailed)
        #expect(log.all == ["run Pool", "end Pool"])
    }

    /// A user expects (ServiceLifecycleAdapter: a service "whose run() returns or throws before the
    /// injector stops it is ... reported to InjectorService, which then shuts everything down and throws
    /// ServiceExitedEarly") that a Service singleton that throws as soon as it runs, while the injector is
    /// still starting, ends the InjectorService with `ServiceExitedEarly` carrying its error, the other
    /// Service singleton stopped once, and the nested service cancelled or shut down.
    @Test("a Service singleton that throws during start(): ServiceExitedEarly, everything stopped once")
    func serviceSingletonCrashesDuringStart() async throws {
        let log = EventLog()
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(EventLog.self).toInstance(log)
                    binder.bind(Hunt27APool.self).to(Hunt27APool.init(log:)).in(.singleton)
                    binder.bind(Hunt27ACrasher.self).to(Hunt27ACrasher.init(pool:)).in(.singleton)
                }
            ],
            configuration: Injector.Configuration(
                lifecycleHookTimeout: .seconds(10), lifecycleAdapters: [ServiceLifecycleAdapter(logger: hunt27AQuiet)])
        )
        let group = hunt27AGroup([InjectorService(injector: injector, logger: hunt27AQuiet)])
        let error = await #expect(throws: ServiceExitedEarly.self) {
            try await withWatchdog(.seconds(10)) { try await group.run() }
        }
        #expect(error?.service == "Hunt27ACrasher")
        #expect((error?.error as? Hunt27AFailure) == Hunt27AFailure(step: "crash"))
        #expect(log.all == ["run Pool", "end Pool"])
    }

    /// A user expects (InjectorService: the nested group "receives the outer group's graceful shutdown
    /// first"; a SIGTERM during start-up must not be lost) that a graceful shutdown signalled while a
    /// start hook is still running is honoured once start() returns: the nested service ends, every
    /// started singleton stops exactly once, and the group returns without an error.
    @Test("graceful shutdown while a start hook runs: honoured after start, everything stopped once")
    func gracefulShutdownDuringStart() async throws {
        let log = EventLog()
        let entered = Latch()
        let release = Latch()
        let injector = try Injector(
            chainModule(log: log),
            ClosureModule { binder in
                binder.bind(Hunt27ATop.self).to { (_: ChainQueue) in
                    Hunt27ATop(left: Hunt27ALeft(), right: Hunt27ARight())
                }
                .in(.singleton)
                .onStart { _ in
                    entered.open()
                    await release.wait()
                }
            }
        )
        let probe = ProbeService("probe", log: log)
        let group = hunt27AGroup([InjectorService(injector: injector, services: [probe], logger: hunt27AQuiet)])
        try await withWatchdog(.seconds(10)) {
            async let run: Void = group.run()
            await entered.wait()
            await group.triggerGracefulShutdown()
            release.open()
            try await run
        }
        let events = log.all
        #expect(Array(events.prefix(3)) == chainStarts)
        #expect(Array(events.suffix(3)) == chainStops)
        #expect(events.filter { $0.hasPrefix("stop") }.count == 3)
        #expect(!events.contains("cancel probe"))
    }

    /// A user expects (InjectorService: "the nested group inherits ... graceful shutdown") that a graceful
    /// shutdown signalled while the `services` closure is still resolving reaches the services it
    /// returns: the group returns (instead of running forever), every singleton stopped once.
    @Test("graceful shutdown while the services closure runs reaches the services it returns")
    func gracefulShutdownDuringMakeServices() async throws {
        let log = EventLog()
        let entered = Latch()
        let release = Latch()
        let injector = try Injector(chainModule(log: log))
        let probe = ProbeService("probe", log: log)
        let service = InjectorService(injector: injector, logger: hunt27AQuiet) { injector in
            _ = try await injector.get(ChainQueue.self)
            entered.open()
            await release.wait()
            return [ServiceGroupConfiguration.ServiceConfiguration(service: probe)]
        }
        let group = hunt27AGroup([service])
        try await withWatchdog(.seconds(10)) {
            async let run: Void = group.run()
            await entered.wait()
            await group.triggerGracefulShutdown()
            release.open()
            try await run
        }
        #expect(log.all == chainStarts + ["run probe", "end probe"] + chainStops)
    }

    /// A user expects (InjectorService: "When the task is cancelled ... the injector is shut down all the
    /// same, completely") that cancelling the group while a start hook is still running still stops every
    /// service that started, exactly once, in reverse order, and that the group's run ends with an error.
    @Test("cancellation while a start hook runs: every started service stopped once, in reverse order")
    func cancellationDuringStart() async throws {
        let log = EventLog()
        let entered = Latch()
        let release = Latch()
        let injector = try Injector(
            chainModule(log: log),
            ClosureModule { binder in
                binder.bind(Hunt27ATop.self).to { (_: ChainQueue) in
                    Hunt27ATop(left: Hunt27ALeft(), right: Hunt27ARight())
                }
                .in(.singleton)
                .onStart { _ in
                    log.record("start Top")
                    entered.open()
                    await release.wait()
                }
                .onStop { _ in log.record("stop Top") }
            }
        )
        let probe = ProbeService("probe", log: log)
        let group = hunt27AGroup([InjectorService(injector: injector, services: [probe], logger: hunt27AQuiet)])
        let result = try await withWatchdog(.seconds(10)) {
            let run = Task { try await group.run() }
            await entered.wait()
            run.cancel()
            release.open()
            return await run.result
        }
        #expect(throws: (any Error).self) { try result.get() }
        let events = log.all
        let starts = events.filter { $0.hasPrefix("start") }.map { hunt27AName($0) }
        let stops = events.filter { $0.hasPrefix("stop") }.map { hunt27AName($0) }
        #expect(stops == starts.reversed(), "\(events)")
        #expect(!events.contains("run probe") || events.contains("end probe") || events.contains("cancel probe"))
    }

    /// A user expects (Configuration.lifecycleHookTimeout bounds "a start or stop hook"; InjectorService
    /// throws "the error of Injector.shutdown() (code stopFailed when a stop hook ... failed)") that a stop
    /// hook that hangs is abandoned after the timeout, the other stop hooks still run, and the group
    /// throws `stopFailed` with a `timedOut` underneath, well within a second.
    @Test("a stop hook that hangs: abandoned after the hook timeout, the others stopped, group throws stopFailed")
    func hangingStopHook() async throws {
        let log = EventLog()
        let never = Latch()
        defer { never.open() }
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt27ALeft.self).to(Hunt27ALeft.init).in(.singleton)
                        .onStart { _ in log.record("start Left") }
                        .onStop { _ in log.record("stop Left") }
                    binder.bind(Hunt27ATop.self).to { resolver in
                        Hunt27ATop(left: try resolver.get(), right: Hunt27ARight())
                    }
                    .in(.singleton)
                    .onStart { _ in log.record("start Top") }
                    .onStop { _ in await never.wait() }
                }
            ],
            configuration: Injector.Configuration(lifecycleHookTimeout: .milliseconds(200))
        )
        let group = hunt27AGroup([InjectorService(injector: injector, logger: hunt27AQuiet)])
        let clock = ContinuousClock()
        let began = clock.now
        let error = await #expect(throws: ProvisionError.self) {
            try await withWatchdog(.seconds(10)) {
                async let run: Void = group.run()
                await group.triggerGracefulShutdown()
                try await run
            }
        }
        #expect(clock.now - began < .seconds(2))
        #expect(error?.code == .stopFailed)
        #expect(error?.underlyingErrors.map(\.code) == [.timedOut])
        #expect(log.all == ["start Left", "start Top", "stop Left"])
    }

    /// A user expects (InjectorService.run(): "A shutdown error that follows an earlier failure is logged,
    /// not thrown"; logger: "shutdown failures that follow an earlier failure are logged here at `error`")
    /// that when a nested service throws and then a stop hook throws too, the group throws the nested
    /// service's error and the InjectorService's logger gets one `error` message carrying both errors.
    @Test("a nested failure then a stop failure: the first is thrown, the second logged at error with both")
    func stopFailureAfterNestedFailureIsLogged() async throws {
        let log = EventLog()
        let entries = Locked<[(Logger.Level, String, Logger.Metadata)]>([])
        let logger = Logger(label: "hunt27a") { _ in Hunt27ARecordingHandler(entries: entries) }
        let injector = try Injector(chainModule(log: log, faults: Faults(failingSteps: ["stop Store"])))
        let failing = ProbeService("failing", log: log, fails: true)
        let group = hunt27AGroup([InjectorService(injector: injector, services: [failing], logger: logger)])
        let error = await #expect(throws: InjectedFailure.self) {
            try await withWatchdog(.seconds(10)) { try await group.run() }
        }
        #expect(error == InjectedFailure(step: "run failing"))
        #expect(Array(log.all.suffix(2)) == ["stop Queue", "stop Database"])
        let errors = entries.withLock { $0 }.filter { $0.0 == .error && $0.1.contains("shutdown failed") }
        #expect(errors.count == 1)
        let metadata = errors.first?.2 ?? [:]
        #expect(metadata["provision.error"]?.description.contains("stop") == true)
        #expect(metadata["provision.earlier_error"]?.description.contains("run failing") == true)
    }
}

/// A `Service` singleton that signals when it runs, and throws once `go` opens.
private final class Hunt27ACrashOnCue: Service, CustomStringConvertible {
    let description = "Hunt27ACrashOnCue"
    let running = Latch()
    let go = Latch()

    func run() async throws {
        running.open()
        await go.wait()
        throw Hunt27AFailure(step: "crash on cue")
    }
}

/// A `Service` singleton that signals when it runs and returns on graceful shutdown.
private final class Hunt27AQuietPool: Service, CustomStringConvertible {
    let description = "Hunt27AQuietPool"
    let running = Latch()

    func run() async throws {
        running.open()
        try? await gracefulShutdown()
    }
}

@Suite("Hunt27A two injectors sharing one configuration", .timeLimit(.minutes(1)))
struct Hunt27ASharedAdapterTests {
    /// Found by hunt 27A, fixed: each `InjectorService` run tags the services its injector starts (a
    /// task-local read when a service starts) and watches only their exits and those no run started;
    /// B's run used to end with A's crash.
    ///
    /// A user expects (ServiceLifecycleAdapter: a service ending early "is ... reported to
    /// InjectorService, which then shuts everything down"; firstEarlyExit(after:): "an InjectorService run
    /// waits for its own injector's" early exits) that two injectors made with one configuration (one
    /// adapter; a parent and a child, or two tenants) each run by an InjectorService, are independent: when
    /// injector A's Service singleton crashes, A's InjectorService throws ServiceExitedEarly, and B's keeps
    /// running until it is cancelled (CancellationError), not ending with A's crash.
    @Test("one injector's Service crashing does not end the InjectorService of another sharing its adapter")
    func crashDoesNotCrossInjectors() async throws {
        let configuration = Injector.Configuration(
            lifecycleHookTimeout: .seconds(10),
            lifecycleAdapters: [ServiceLifecycleAdapter(logger: hunt27AQuiet)]
        )
        let crasher = Hunt27ACrashOnCue()
        let pool = Hunt27AQuietPool()
        let first = try Injector(
            modules: [ClosureModule { $0.bind(Hunt27ACrashOnCue.self).toInstance(crasher) }],
            configuration: configuration
        )
        let second = try Injector(
            modules: [ClosureModule { $0.bind(Hunt27AQuietPool.self).toInstance(pool) }],
            configuration: configuration
        )
        let (firstOutcome, secondOutcome) = try await withWatchdog(.seconds(10)) {
            let firstRun = Task { try await InjectorService(injector: first, logger: hunt27AQuiet).run() }
            let secondRun = Task { try await InjectorService(injector: second, logger: hunt27AQuiet).run() }
            await crasher.running.wait()
            await pool.running.wait()
            crasher.go.open()
            let firstOutcome = await firstRun.result
            secondRun.cancel()
            return (firstOutcome, await secondRun.result)
        }
        #expect(throws: ServiceExitedEarly.self) { try firstOutcome.get() }
        var secondError: (any Error)?
        if case .failure(let error) = secondOutcome { secondError = error }
        #expect(
            secondError is CancellationError,
            "the second injector's InjectorService ended with \(String(describing: secondError))")
    }
}

/// A `Service` that records whether its `run()` was ever called.
private final class Hunt27AHookedService: Service, CustomStringConvertible {
    let description = "Hunt27AHookedService"
    let log: EventLog
    init(log: EventLog) { self.log = log }

    func run() async throws {
        log.record("run HookedService")
        try? await gracefulShutdown()
    }
}

@Suite("Hunt27A InjectorService edges", .timeLimit(.minutes(1)))
struct Hunt27AInjectorServiceEdgeTests {
    /// A user expects (InjectorService.run(): throws "`CancellationError` when the task was cancelled";
    /// "the injector is shut down all the same, completely") that an InjectorService run in a task
    /// cancelled before it begins throws CancellationError, and stops, in reverse order, exactly the
    /// services it started.
    @Test("a run in an already-cancelled task: CancellationError, whatever started is stopped in reverse")
    func cancelledBeforeRun() async throws {
        let log = EventLog()
        let injector = try Injector(chainModule(log: log))
        let service = InjectorService(injector: injector, logger: hunt27AQuiet)
        let outcome = try await withWatchdog(.seconds(10)) {
            let gate = Latch()
            let run = Task {
                await gate.wait()
                try await service.run()
            }
            run.cancel()
            gate.open()
            return await run.result
        }
        #expect(throws: CancellationError.self) { try outcome.get() }
        let events = log.all
        let starts = events.filter { $0.hasPrefix("start") }.map { hunt27AName($0) }
        let stops = events.filter { $0.hasPrefix("stop") }.map { hunt27AName($0) }
        #expect(stops == starts.reversed(), "\(events)")
    }

    /// A user expects (ServiceLifecycleAdapter: "Hooks on a binding (onStart, onStop) ... take precedence
    /// over this adapter") that a Service singleton whose binding has its own hooks is started and stopped
    /// by those hooks only: its `run()` is never called by the adapter.
    @Test("binding hooks take precedence over the adapter: a hooked Service's run() is never called")
    func bindingHooksWin() async throws {
        let log = EventLog()
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt27AHookedService.self).to { Hunt27AHookedService(log: log) }.in(.singleton)
                        .onStart { _ in log.record("start hook") }
                        .onStop { _ in log.record("stop hook") }
                }
            ],
            configuration: Injector.Configuration(
                lifecycleHookTimeout: .seconds(10), lifecycleAdapters: [ServiceLifecycleAdapter(logger: hunt27AQuiet)])
        )
        let group = hunt27AGroup([InjectorService(injector: injector, logger: hunt27AQuiet)])
        await group.triggerGracefulShutdown()
        try await withWatchdog(.seconds(10)) { try await group.run() }
        #expect(log.all == ["start hook", "stop hook"])
    }

    /// A user expects (InjectorService.init(injector:logger:services:): "Each configuration's termination
    /// behaviours apply inside the nested group") that a one-shot nested service (a migration) configured
    /// with `successTerminationBehavior: .ignore` returns without ending the InjectorService, which keeps
    /// the other service running until graceful shutdown, then stops everything once; and that, with the
    /// default behaviour, the same one-shot service ending makes the run throw and shut the injector down.
    @Test("a one-shot nested service: ignored when configured so, otherwise it ends the run and the injector")
    func oneShotNestedService() async throws {
        struct Migration: Service {
            let log: EventLog
            let done = Latch()
            func run() async throws {
                log.record("migrated")
                done.open()
            }
        }
        let log = EventLog()
        let migration = Migration(log: log)
        let injector = try Injector(chainModule(log: log))
        let server = ProbeService("server", log: log)
        let service = InjectorService(injector: injector, logger: hunt27AQuiet) { _ in
            [
                ServiceGroupConfiguration.ServiceConfiguration(
                    service: migration, successTerminationBehavior: .ignore),
                ServiceGroupConfiguration.ServiceConfiguration(service: server),
            ]
        }
        let group = hunt27AGroup([service])
        try await withWatchdog(.seconds(10)) {
            async let run: Void = group.run()
            // Both nested services have run before the shutdown: they start concurrently, so the
            // migration may run after the server is up (fixed: this test raced with it, 1 run in 5).
            await server.running.wait()
            await migration.done.wait()
            await group.triggerGracefulShutdown()
            try await run
        }
        #expect(Array(log.all.prefix(3)) == chainStarts)
        #expect(Set(log.all.dropFirst(3).prefix(2)) == ["migrated", "run server"])
        #expect(Array(log.all.dropFirst(5)) == ["end server"] + chainStops)

        let otherLog = EventLog()
        let other = try Injector(chainModule(log: otherLog))
        let defaulted = hunt27AGroup([
            InjectorService(injector: other, services: [Migration(log: otherLog)], logger: hunt27AQuiet)
        ])
        await #expect(throws: (any Error).self) {
            try await withWatchdog(.seconds(10)) { try await defaulted.run() }
        }
        #expect(otherLog.all == chainStarts + ["migrated"] + chainStops)
    }
}
