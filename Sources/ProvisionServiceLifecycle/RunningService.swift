import Logging
import Provision
import ServiceLifecycle

/// One `Service` singleton run by a ``ServiceLifecycleAdapter``: started once, stopped once.
///
/// The service runs in a `ServiceGroup` of its own (the only public way to shut one service down
/// gracefully), in a detached task: it must not inherit the graceful shutdown of the task that starts
/// the injector, or a SIGTERM would stop it at once instead of in reverse dependency order.
final class RunningService: Sendable {
    private struct State {
        var group: ServiceGroup?
        var task: Task<Void, any Error>?
        var isStopping = false
        /// The ``InjectorService`` run whose injector started the service, if any.
        var run: ObjectIdentifier?
    }

    private let service: any Service
    private let adapter: ServiceLifecycleAdapter
    /// Protects the group, its task and the stopping flag; held for bookkeeping only, with no other lock
    /// taken under it and no service code run under it, so it can't take part in a deadlock.
    private let state = Locked(State())

    init(service: any Service, adapter: ServiceLifecycleAdapter) {
        self.service = service
        self.adapter = adapter
    }

    /// Calls the service's `run()` in a task of its own; returns once `run()` was entered (or the
    /// service's group ended without entering it).
    func start() async {
        // Read here, in the injector's start (or the request that built the service late), which runs
        // inside the InjectorService run, if any: the detached task below doesn't inherit it.
        let run = InjectorServiceRun.current
        state.withLock { $0.run = run }
        let entered = RunEntered()
        let ran = Locked<Result<Void, any Error>?>(nil)
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [
                    ServiceGroupConfiguration.ServiceConfiguration(service: EnteringService(service, entered, ran))
                ],
                logger: adapter.logger
            )
        )
        let service = self.service
        let task = Task.detached { [self] in
            let outcome: Result<Void, any Error>
            do {
                try await group.run()
                outcome = .success(())
            } catch {
                // The service's own outcome when its run() ended (a group whose only service returns
                // reports that as an error of its own), otherwise the group's error.
                outcome = ran.withLock { $0 } ?? .failure(error)
            }
            entered.signal()
            ended(outcome, service: service)
            try outcome.get()
        }
        state.withLock { state in
            state.group = group
            state.task = task
        }
        await entered.wait()
    }

    /// Shuts the service down gracefully and waits for its `run()` to return; throws what it threw.
    /// Cancelling the caller (the hook's time limit) cancels the service.
    func stop() async throws {
        let (group, task) = state.withLock { state in
            state.isStopping = true
            return (state.group, state.task)
        }
        guard let group, let task else { return }
        await group.triggerGracefulShutdown()
        try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }

    /// The service's group ended: an early exit unless the injector was stopping it.
    private func ended(_ outcome: Result<Void, any Error>, service: any Service) {
        let (wasStopping, run) = state.withLock { ($0.isStopping, $0.run) }
        guard !wasStopping else { return }
        var error: (any Error)?
        if case .failure(let failure) = outcome { error = failure }
        adapter.exitedEarly(ServiceExitedEarly(service: "\(service)", error: error), run: run)
    }
}

/// Wraps a service to signal when its `run()` is entered, and to record how it ended.
private struct EnteringService: Service, CustomStringConvertible {
    let service: any Service
    let entered: RunEntered
    let ran: Locked<Result<Void, any Error>?>

    init(_ service: any Service, _ entered: RunEntered, _ ran: Locked<Result<Void, any Error>?>) {
        self.service = service
        self.entered = entered
        self.ran = ran
    }

    var description: String { "\(service)" }

    func run() async throws {
        entered.signal()
        do {
            try await service.run()
            ran.withLock { $0 = .success(()) }
        } catch {
            ran.withLock { $0 = .failure(error) }
            throw error
        }
    }
}

/// A one-shot signal: `wait()` returns once `signal()` was called, before or after.
private final class RunEntered: Sendable {
    private struct State {
        var signalled = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// Protects the flag and the waiters; continuations resume after it is released, and no other lock
    /// is taken under it.
    private let state = Locked(State())

    func signal() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.signalled else { return [] }
            state.signalled = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let signalled = state.withLock { state in
                if !state.signalled { state.waiters.append(continuation) }
                return state.signalled
            }
            if signalled { continuation.resume() }
        }
    }
}
