public import Logging
public import Provision
import ServiceLifecycle

/// Makes an injector run its singletons that are swift-service-lifecycle `Service`s (a
/// `PostgresClient`, a metrics exporter): ``Provision/Injector/start()`` runs each in dependency order,
/// and ``Provision/Injector/shutdown()`` shuts each down gracefully in reverse order.
///
/// ```swift
/// let adapter = ServiceLifecycleAdapter(logger: logger)
/// let injector = try Injector(
///     modules: [DatabaseModule(), AppModule()],
///     configuration: Injector.Configuration(lifecycleAdapters: [adapter])
/// )
/// ```
///
/// A service *starts* when its `run()` is called: ``Provision/Injector/start()`` calls it in a task of
/// its own and goes on once it runs, so the services that depend on it start while it runs (a
/// `Service` has no other signal of readiness). It *stops* when the injector shuts down: the service
/// gets a graceful shutdown (`Task.isShuttingDownGracefully`, `gracefulShutdown()`), and its stop ends
/// when `run()` returns; an error `run()` throws then is a stop failure. Each stop is bounded by
/// ``Provision/Injector/Configuration/lifecycleHookTimeout``, after which the service's task is
/// cancelled.
///
/// The tasks that run the services don't inherit the caller's graceful shutdown: a `ServiceGroup`'s
/// SIGTERM reaches them only through the injector's shutdown, in reverse dependency order. A service
/// whose `run()` returns or throws before the injector stops it is logged, and reported to
/// ``InjectorService``, which then shuts everything down and throws ``ServiceExitedEarly``.
///
/// Hooks on a binding (`onStart`, `onStop`) and a `ManagedService` conformance take precedence over
/// this adapter.
public final class ServiceLifecycleAdapter: LifecycleAdapter, Sendable {
    /// The logger of each service's group, and of services that end early.
    public let logger: Logger

    /// A task waiting for an early exit of the run `run` (any, when `nil`), past those it saw when it
    /// started waiting.
    private typealias Waiter = (continuation: CheckedContinuation<ServiceExitedEarly?, Never>, run: ObjectIdentifier?)

    private struct State {
        /// Every early exit, with the ``InjectorService`` run whose injector started the service (`nil`
        /// when none did).
        var exits: [(exit: ServiceExitedEarly, run: ObjectIdentifier?)] = []
        var waiters: [Int: Waiter] = [:]
        var nextWaiter = 0
    }

    /// Protects the early exits and their waiters; held for bookkeeping only (continuations resume
    /// after it is released, and no other lock is taken under it).
    private let state = Locked(State())

    /// Creates the adapter.
    ///
    /// - Parameter logger: The logger of each service's group. By default one labelled
    ///   `Provision.ServiceLifecycleAdapter`.
    public init(logger: Logger = Logger(label: "Provision.ServiceLifecycleAdapter")) {
        self.logger = logger
    }

    /// The start and stop of `instance` when it is a `Service`; `nil` otherwise.
    ///
    /// - Parameter instance: A built singleton.
    /// - Returns: Runs the service on start, shuts it down gracefully on stop.
    public func lifecycle(of instance: Any) -> AdaptedLifecycle? {
        guard let service = instance as? any Service else { return nil }
        let running = RunningService(service: service, adapter: self)
        return AdaptedLifecycle(start: { await running.start() }, stop: { try await running.stop() })
    }

    /// Waits until a service this adapter runs ends before the injector stopped it, and returns which;
    /// `nil` when the waiting task is cancelled first.
    ///
    /// Returns at once when one has ended already.
    public func firstEarlyExit() async -> ServiceExitedEarly? {
        await firstEarlyExit(after: 0, of: nil)
    }

    /// How many services have ended early so far (see ``firstEarlyExit(after:)``).
    var earlyExitCount: Int {
        state.withLock { $0.exits.count }
    }

    /// ``firstEarlyExit()``, counting only the services that end early after the first `count`, and,
    /// for an ``InjectorService`` run (`run`), only those its own injector started (or that no run
    /// started): a run waits for its own injector's exits, not for those of an earlier run, nor of
    /// another injector's run that shares the adapter (a parent and its child share their
    /// configuration). (Found by hunt 27A: one injector's crashing service ended another's run.)
    func firstEarlyExit(after count: Int, of run: ObjectIdentifier?) async -> ServiceExitedEarly? {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let exit = state.withLock { state -> ServiceExitedEarly?? in
                    if let found = Self.first(in: state.exits, after: count, of: run) { return .some(found) }
                    // Cancelled before the continuation existed: the handler found nothing to resume.
                    if Task.isCancelled { return .some(nil) }
                    state.waiters[id] = (continuation, run)
                    return nil
                }
                if let exit { continuation.resume(returning: exit) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.continuation.resume(returning: nil)
        }
    }

    /// The first exit past `count` that a waiter for `run` sees: its run's, or one no run started.
    private static func first(
        in exits: [(exit: ServiceExitedEarly, run: ObjectIdentifier?)], after count: Int, of run: ObjectIdentifier?
    ) -> ServiceExitedEarly? {
        guard exits.count > count else { return nil }
        return exits[count...].first { sees(run, $0.run) }?.exit
    }

    /// Whether a waiter for `run` (any run, when `nil`) sees an exit of a service started by `started`
    /// (by no run, when `nil`).
    private static func sees(_ run: ObjectIdentifier?, _ started: ObjectIdentifier?) -> Bool {
        run == nil || started == nil || started == run
    }

    /// Records a service that ended before it was stopped (started by the ``InjectorService`` run
    /// `run`, if any), and wakes the waiters that see it.
    func exitedEarly(_ exit: ServiceExitedEarly, run: ObjectIdentifier?) {
        logger.error(
            "A service run by the injector ended before the injector stopped it",
            metadata: [
                "provision.service": "\(exit.service)", "provision.error": "\(exit.error.map { "\($0)" } ?? "none")",
            ]
        )
        let woken = state.withLock { state in
            state.exits.append((exit, run))
            // A waiter found no exit it sees when it registered: this one is the only one it can see.
            var woken: [CheckedContinuation<ServiceExitedEarly?, Never>] = []
            for (id, waiter) in state.waiters where Self.sees(waiter.run, run) {
                woken.append(waiter.continuation)
                state.waiters[id] = nil
            }
            return woken
        }
        for continuation in woken { continuation.resume(returning: exit) }
    }
}

/// A `Service` singleton that returned or threw before its injector stopped it.
public struct ServiceExitedEarly: Error, CustomStringConvertible {
    /// The service's description (its type name, unless it describes itself).
    public let service: String
    /// What its `run()` threw, or `nil` when it returned.
    public let error: (any Error)?

    /// `PostgresClient ended before the injector stopped it: ...`.
    public var description: String {
        "\(service) ended before the injector stopped it" + (error.map { ": \($0)" } ?? " (run() returned)")
    }
}
