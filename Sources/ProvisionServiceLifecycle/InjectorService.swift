public import Logging
public import Provision
public import ServiceLifecycle

/// Runs an injector's lifecycle as a service of a swift-service-lifecycle `ServiceGroup`: its
/// singletons start when the group starts and stop, in reverse dependency order, on graceful shutdown.
///
/// `run()` starts the injector (``Provision/Injector/start()``: every singleton is built in dependency
/// order and its start hook runs), then runs the services that use the injector, then waits for
/// graceful shutdown, and shuts the injector down (``Provision/Injector/shutdown()``: the stop hooks of
/// the started singletons run in reverse order, then disposable singletons are disposed).
///
/// ```swift
/// import Logging
/// import Provision
/// import ProvisionServiceLifecycle
/// import ServiceLifecycle
///
/// let injector = try Injector(StorageModule(), JobModule())
/// let daemon = InjectorService(injector: injector, logger: logger) { injector in
///     [ServiceGroupConfiguration.ServiceConfiguration(service: try await injector.get(JobRunner.self))]
/// }
/// let group = ServiceGroup(services: [daemon], gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()
/// ```
///
/// ## Ordering with other services
///
/// A `ServiceGroup` starts its services all at once and, on graceful shutdown, stops them one at a
/// time from the last to the first. A service placed beside the `InjectorService` in the same group
/// could therefore run before the injector's start hooks have finished (a job runner taking jobs
/// before the database is connected). Pass such services to the `InjectorService` instead: they run
/// in a group of their own, nested in this service, that
///
/// - starts only after ``Provision/Injector/start()`` has returned,
/// - receives the outer group's graceful shutdown first, and stops its services from the last
///   listed to the first, each one finished before the next is told,
/// - has returned before ``Provision/Injector/shutdown()`` begins, so a job runner drains its jobs
///   while every singleton it uses is still running.
///
/// Services that do not use the injector may stay in the outer group. Those listed after the
/// `InjectorService` stop before it, those listed before it stop after it.
///
/// ## How it ends
///
/// With no services of its own, `run()` waits for graceful shutdown. With services, it returns when
/// their nested group returns: normally after graceful shutdown, or earlier when one of them ends or
/// throws (the nested group applies each service's termination behaviours, by default it cancels
/// the others). Either way the injector is shut down before `run()` returns, and the outer group
/// then applies this service's own termination behaviours.
///
/// When the task is cancelled rather than shut down gracefully, the nested services are cancelled
/// and the injector is shut down all the same, completely: the shutdown runs in a task of its own that
/// does not inherit the cancellation (each stop hook is bounded by the injector's
/// `lifecycleHookTimeout`).
public struct InjectorService: Service, CustomStringConvertible {
    /// The injector whose singletons this service starts and stops.
    public let injector: Injector

    /// The logger given to the nested service group; shutdown failures that follow an earlier failure
    /// are logged here at `error`.
    public let logger: Logger

    private let makeServices: @Sendable (Injector) async throws -> [ServiceGroupConfiguration.ServiceConfiguration]

    /// Creates a service that runs `injector`'s lifecycle, and `services` once the injector has started.
    ///
    /// Each service is run with the default termination behaviours of a `ServiceGroup`: if one
    /// returns or throws before graceful shutdown, the others are cancelled and the injector is shut
    /// down.
    ///
    /// - Parameters:
    ///   - injector: The injector to start and shut down.
    ///   - services: Services that use the injector's singletons; started after the injector, stopped
    ///     before it, from the last to the first. None by default.
    ///   - logger: The logger of the nested service group. By default one labelled
    ///     `Provision.InjectorService`, whose handler is the one swift-log was bootstrapped with.
    public init(
        injector: Injector,
        services: [any Service] = [],
        logger: Logger = Logger(label: "Provision.InjectorService")
    ) {
        let configurations = services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) }
        self.init(injector: injector, logger: logger) { _ in configurations }
    }

    /// Creates a service that runs `injector`'s lifecycle, and the services `makeServices` returns
    /// once the injector has started.
    ///
    /// `makeServices` runs after ``Provision/Injector/start()`` has returned, so it can resolve the
    /// services from the injector itself, including singletons whose start hooks have run:
    ///
    /// ```swift
    /// let daemon = InjectorService(injector: injector) { injector in
    ///     let runner = try await injector.get(JobRunner.self)
    ///     let metrics = try await injector.get(MetricsExporter.self)
    ///     // On graceful shutdown the exporter stops first, then the runner.
    ///     return [
    ///         ServiceGroupConfiguration.ServiceConfiguration(service: runner),
    ///         ServiceGroupConfiguration.ServiceConfiguration(service: metrics, successTerminationBehavior: .ignore),
    ///     ]
    /// }
    /// ```
    ///
    /// Each configuration's termination behaviours apply inside the nested group. If the closure
    /// throws, the injector is shut down and `run()` throws its error.
    ///
    /// - Parameters:
    ///   - injector: The injector to start and shut down.
    ///   - logger: The logger of the nested service group. By default one labelled
    ///     `Provision.InjectorService`, whose handler is the one swift-log was bootstrapped with.
    ///   - makeServices: Returns the configurations of the services to run once the injector has
    ///     started; they stop before it, from the last to the first.
    public init(
        injector: Injector,
        logger: Logger = Logger(label: "Provision.InjectorService"),
        services makeServices:
            @escaping @Sendable (Injector) async throws -> [ServiceGroupConfiguration
            .ServiceConfiguration]
    ) {
        self.injector = injector
        self.logger = logger
        self.makeServices = makeServices
    }

    /// The name a service group logs for this service.
    public var description: String { "InjectorService" }

    /// Starts the injector, runs the services that use it until graceful shutdown, then shuts the
    /// injector down.
    ///
    /// A `ServiceGroup` calls this method; call it yourself only to run the injector's lifecycle
    /// without a group, in which case it waits for the task's cancellation.
    ///
    /// - Throws: The first failure: the error of ``Provision/Injector/start()`` (code `startFailed` when
    ///   a build or a start hook failed, after which the injector is shut down; `invalidLifecycle` when
    ///   the injector was started already, `shutDown` when it was shut down, both left as they are);
    ///   else the error of a nested service or of the closure that makes them, `CancellationError` when
    ///   the task was cancelled; else the error of ``Provision/Injector/shutdown()`` (code `stopFailed`
    ///   when a stop hook or a disposal failed). A shutdown error that follows an earlier failure is
    ///   logged, not thrown.
    public func run() async throws {
        // The services this run's injector starts (in its start, or later, in a request made inside
        // this run) are tagged with the run, so that it watches its own services' exits only.
        // The token lives until the run ends, on every path: its identity can't be reused meanwhile.
        let token = InjectorServiceRun()
        defer { withExtendedLifetime(token) {} }
        try await InjectorServiceRun.$current.withValue(ObjectIdentifier(token)) {
            try await run(as: ObjectIdentifier(token))
        }
    }

    private func run(as run: ObjectIdentifier) async throws {
        // The early exits so far belong to earlier runs that shared an adapter: this run watches the ones
        // from its own start on.
        let adapters = injector.configuration.lifecycleAdapters.compactMap { $0 as? ServiceLifecycleAdapter }
        let baselines = adapters.map(\.earlyExitCount)
        do {
            try await injector.start()
        } catch {
            // The injector stopped what had started; shutting it down disposes what was built. Any other
            // code (started already, shut down already) means the injector is not this service's to stop.
            if error.code == .startFailed { await shutDownInjector(after: error) }
            throw error
        }

        let outcome: Result<Void, any Error>
        do {
            try await runServices(watching: Array(zip(adapters, baselines)), as: run)
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }

        switch outcome {
        case .success:
            try await shutDownInjector()
        case .failure(let error):
            await shutDownInjector(after: error)
            throw error
        }
    }

    /// Runs the nested services until their group returns, or waits for graceful shutdown when there
    /// are none.
    ///
    /// A `Service` singleton that the injector runs (``ServiceLifecycleAdapter``) and that ends before
    /// the injector stops it ends this too: the nested services are cancelled, and this throws
    /// ``ServiceExitedEarly``.
    private func runServices(watching adapters: [(ServiceLifecycleAdapter, Int)], as run: ObjectIdentifier)
        async throws
    {
        let services = try await makeServices(injector)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { [logger] in
                if services.isEmpty {
                    try await gracefulShutdown()
                    return
                }
                // The nested group inherits this task's graceful shutdown: it listens to it and passes it
                // on to its services, last first.
                let nested = ServiceGroup(configuration: ServiceGroupConfiguration(services: services, logger: logger))
                try await nested.run()
            }
            for (adapter, baseline) in adapters {
                group.addTask {
                    // Nil: cancelled. Thrown, so that a cancelled run ends with CancellationError
                    // whichever child ends first.
                    throw await adapter.firstEarlyExit(after: baseline, of: run) ?? CancellationError()
                }
            }
            // The first child to end decides: the nested services (the watchers then end, cancelled), or
            // a watcher that saw a service end early (the nested services are then cancelled).
            try await group.next()
            group.cancelAll()
        }
    }

    /// Shuts the injector down in a task that does not inherit this one's cancellation: a cancelled
    /// service still waits for the injector's builds in flight and runs every stop hook.
    private func shutDownInjector() async throws {
        try await Task { try await injector.shutdown() }.value
    }

    /// Shuts the injector down after `failure`, logging a shutdown error instead of throwing it.
    private func shutDownInjector(after failure: any Error) async {
        do {
            try await shutDownInjector()
        } catch {
            logger.error(
                "Injector shutdown failed after an earlier failure",
                metadata: ["provision.error": "\(error)", "provision.earlier_error": "\(failure)"]
            )
        }
    }
}

/// The identity of one ``InjectorService/run()``: its services' early exits carry it (see
/// ``ServiceLifecycleAdapter``).
final class InjectorServiceRun: Sendable {
    /// The run whose task (or a task it made) is running, if any.
    @TaskLocal static var current: ObjectIdentifier?
}
