import Synchronization

extension Injector {
    /// Builds every singleton of the injector and starts its services, in dependency order.
    ///
    /// ```swift
    /// let injector = try Injector(AppModule())
    /// try await injector.start()
    /// // ... serve ...
    /// try await injector.shutdown()
    /// ```
    ///
    /// 1. The injector's graph is validated (``validate()``), whatever
    ///    ``Configuration/validatesOnCreation`` said: a daemon never starts serving with a missing
    ///    binding or a cycle. Then every singleton binding of this injector (not of its parent) is
    ///    built, async ones included, in declaration order, so that configuration errors surface now
    ///    rather than on the first request. A singleton bound with arguments and no defaults
    ///    (``ArgumentBindingBuilder``) is left to the first request that brings its arguments (started
    ///    here only if such a request built it already).
    /// 2. The services among them (singletons with `onStart`/`onStop` hooks on their binding, or whose
    ///    instance is a ``ManagedService``) are started: a service starts after every service it depends
    ///    on (through any chain of bindings) has started, and services that don't depend on each other
    ///    start concurrently. A service whose binding is a closure that declares no dependencies is
    ///    started after every service built before it. Each hook is bounded by
    ///    ``Configuration/lifecycleHookTimeout``.
    ///
    /// If a build or a start hook fails, the services that had started are stopped again, in reverse
    /// order, and `start()` throws; ``shutdown()`` still disposes what was built.
    ///
    /// - Throws: ``ProvisionError/Code/validationFailed`` listing every problem of the graph (nothing
    ///   was built or started, and the injector can't be started again: shut it down);
    ///   ``ProvisionError/Code/startFailed`` listing every failure (a failed start hook, a
    ///   timeout, a failed build, and any failure while stopping again);
    ///   ``ProvisionError/Code/invalidLifecycle`` when the injector was started already;
    ///   ``ProvisionError/Code/shutDown`` after ``shutdown()``.
    public func start() async throws(ProvisionError) {
        try await observing(.start) { () async throws(ProvisionError) in try await startServices() }
    }

    /// Runs `body`, through the observer's ``ResolutionObserver/observeLifecycle(_:_:)`` when there is
    /// one.
    private func observing(
        _ operation: LifecycleOperation,
        _ body: () async throws(ProvisionError) -> Void
    ) async throws(ProvisionError) {
        guard let observer = configuration.observer else { return try await body() }
        try await observer.observeLifecycle(operation, body)
    }

    /// Runs a service's start or stop hook (`hook`, which returns its failure), through the observer's
    /// ``ResolutionObserver/observeLifecycle(_:_:)`` when there is one; returns the failure.
    private func observingHook(_ operation: LifecycleOperation, _ hook: () async -> ProvisionError?) async
        -> ProvisionError?
    {
        do throws(ProvisionError) {
            try await observing(operation) { () async throws(ProvisionError) in
                if let failure = await hook() { throw failure }
            }
            return nil
        } catch {
            return error
        }
    }

    /// ``start()``'s work.
    private func startServices() async throws(ProvisionError) {
        try lifecycle.state.withLock { state throws(ProvisionError) in
            switch state.phase {
            case .idle: state.phase = .starting
            case .starting, .started: throw ProvisionError.alreadyStarted(phase: "was started already")
            case .failed: throw ProvisionError.alreadyStarted(phase: "failed to start; shut it down")
            case .stopping, .stopped: throw ProvisionError.shutDown(nil)
            }
        }
        if let problems = validationReport().error {
            let stillStarting = lifecycle.state.withLock { state in
                guard state.phase == .starting else { return false }
                state.phase = .failed
                return true
            }
            throw stillStarting ? problems : ProvisionError.shutDown(nil)
        }
        // Building a singleton can bind more (a just-in-time singleton that only it depends on, such as an
        // `Injectable` service): build until a pass finds no singleton it hasn't built, so that every
        // service is started, after what it depends on. (Found by hunt 15: such a service never started.)
        var singletons: [any AnyNode] = []
        var built: Set<ObjectIdentifier> = []
        while true {
            let fresh = registry.nodes.filter { $0.scope.isSingleton && !built.contains(ObjectIdentifier($0)) }
                .sorted { $0.declarationIndex < $1.declarationIndex }
            if fresh.isEmpty { break }
            for node in fresh {
                built.insert(ObjectIdentifier(node))
                // A singleton bound with arguments and no defaults is built by the first request that
                // brings its arguments: left to it (and started below if it was built already). (Found by
                // hunt 18: start() failed with argumentMismatch, so such an injector could never start.)
                if node.awaitsArguments { continue }
                do throws(ProvisionError) {
                    try await node.buildAsync()
                } catch {
                    try await abandonStart([error])
                }
            }
            singletons += fresh
        }
        singletons.sort { $0.declarationIndex < $1.declarationIndex }
        // One instance bound under two keys (a singleton and a delegation to it) is one service: it
        // starts and stops once, under the first key in declaration order. An ancestor's instance that a
        // binding here hands on (a child's closure returning its parent's service) is the ancestor's to
        // start and stop. (Found by hunt 16: the child started it again and stopped it early.)
        var seen: Set<ObjectIdentifier> = []
        let services = singletons.compactMap { $0.lifecycleActions() }.filter { actions in
            guard let instance = actions.instance else { return true }
            return !heldByAncestor(instance) && seen.insert(instance).inserted
        }
        let order = StartOrder(services: services, injector: self)
        for batch in order.batches {
            let failures = await startConcurrently(batch)
            if !failures.isEmpty { try await abandonStart(failures) }
            // Shutdown began during the batch: it stops what the batch started; start nothing more.
            if lifecycle.state.withLock({ $0.phase != .starting }) { throw ProvisionError.shutDown(nil) }
        }
        let stoppedMeanwhile = lifecycle.state.withLock { state in
            guard state.phase == .starting else { return true }
            state.phase = .started
            return false
        }
        ScheduleProbe.step(.phaseChanged)
        if stoppedMeanwhile { throw ProvisionError.shutDown(nil) }
    }

    /// Starts a batch of services concurrently; records each one that started, in the order they
    /// finished. Returns the failures.
    ///
    /// Each service is *claimed* under the lifecycle lock before its hook runs, and only while the phase
    /// is still `starting`: once ``shutdown()`` has begun, no service starts. A claimed hook counts as in
    /// flight until it has returned and its service is recorded as started, and shutdown waits for the
    /// hooks in flight before it takes the list of started services, so every service whose start hook
    /// returned is stopped, exactly once, by shutdown or by a failed start (never by both: each takes
    /// the list under the lock and empties it).
    private func startConcurrently(_ batch: [LifecycleActions]) async -> [ProvisionError] {
        let timeout = configuration.lifecycleHookTimeout
        return await withTaskGroup(of: ProvisionError?.self) { group in
            for service in batch {
                group.addTask { [lifecycle] in
                    let claimed = lifecycle.state.withLock { state in
                        guard state.phase == .starting else { return false }
                        state.startsInFlight += 1
                        return true
                    }
                    guard claimed else { return nil }
                    ScheduleProbe.step(.phaseChanged)
                    var failure: ProvisionError?
                    if let start = service.start {
                        failure = await self.observingHook(.startService(service.key)) {
                            await HookRunner.run(start, for: service.key, "starting", timeout: timeout)
                        }
                    }
                    // Recorded the moment the hook returns: the stop order is the exact reverse.
                    if failure == nil {
                        lifecycle.state.withLock { state in
                            state.started.append(service)
                            state.startOrder.append(service.key)
                        }
                    }
                    lifecycle.endStartInFlight()
                    return failure
                }
            }
            var failures: [ProvisionError] = []
            for await failure in group {
                if let failure { failures.append(failure) }
            }
            return failures
        }
    }

    /// The services that started, in the order their start hooks returned (services without a start
    /// hook count as started at once); ``shutdown()`` stops them in exactly the reverse order. Empty
    /// before ``start()``; kept after shutdown.
    public var startedServices: [BindingKey] {
        lifecycle.state.withLock { $0.startOrder }
    }

    /// Ends a failed start: stops what started, in reverse order, and throws every failure.
    ///
    /// When shutdown has begun meanwhile (a build refused with `shutDown`, a hook failing while the
    /// injector stops), the services that started are left to shutdown, which stops them after the hooks
    /// in flight, and `start()` throws `shutDown`.
    ///
    /// Stopping them counts as start work in flight, like a start hook: a ``shutdown()`` that begins
    /// meanwhile waits until they are stopped before it disposes anything and returns. (Without it,
    /// shutdown found no started service, disposed their instances and returned while their stop hooks
    /// had still to run.)
    private func abandonStart(_ failures: [ProvisionError]) async throws(ProvisionError) -> Never {
        let started = lifecycle.state.withLock { state -> [LifecycleActions]? in
            guard state.phase == .starting else { return nil }
            state.phase = .failed
            // Counted like a start hook in flight while it stops them: a shutdown that begins now
            // returns only after these services are stopped.
            state.startsInFlight += 1
            defer { state.started = [] }
            return state.started
        }
        guard let started else { throw ProvisionError.shutDown(nil) }
        let stopFailures = await stop(started)
        lifecycle.endStartInFlight()
        throw ProvisionError.startFailed(failures + stopFailures)
    }

    /// Runs the stop hooks of `services` in reverse order, past failures; returns the failures.
    private func stop(_ services: [LifecycleActions]) async -> [ProvisionError] {
        var failures: [ProvisionError] = []
        for service in services.reversed() {
            guard let stop = service.stop else { continue }
            let timeout = configuration.lifecycleHookTimeout
            if let failure = await observingHook(
                .stopService(service.key),
                { await HookRunner.run(stop, for: service.key, "stopping", timeout: timeout) }
            ) {
                failures.append(failure)
            }
        }
        return failures
    }

    /// Stops the injector for good: no new instance is built, the services that started are stopped, and
    /// the singletons are disposed.
    ///
    /// 1. From the moment `shutdown()` begins, every request (through the injector, its scopes, or a
    ///    child's fallback to it) throws ``ProvisionError/Code/shutDown``, and no new instance is built;
    ///    requests already running may complete. Builds already running are waited for (at most
    ///    ``Configuration/lifecycleHookTimeout``).
    /// 2. Exactly the services whose start hook returned are stopped, in the reverse order of their
    ///    start, one at a time; a stop hook that throws or times out doesn't stop the others. A
    ///    ``start()`` still running starts no further service (it throws ``ProvisionError/Code/shutDown``);
    ///    its start hooks already running are waited for, and their services stopped with the others. A
    ///    ``start()`` that failed and is stopping the services it started is waited for too.
    /// 3. Every singleton the injector built that is ``Disposable`` or ``AsyncDisposable`` is disposed,
    ///    exactly once, in reverse creation order.
    ///
    /// Calling `shutdown()` again, or from several tasks, waits for the first call to finish and does
    /// nothing more. Child injectors are not shut down with their parent: a child's request that falls
    /// back to it (for a binding it holds, directly or through a binding of the child that depends on
    /// one) throws `shutDown`, while the child's own bindings, and the handles, optionals and
    /// self-declaring types the child makes itself, keep resolving. (An optional of a type that nothing
    /// binds throws `shutDown` too: the parent's emptied tables can't tell whether it would have bound
    /// it.) The same holds for every descendant: a grandchild's request that would reach its
    /// grandparent through the shut-down parent throws `shutDown` too, and no new child or derived
    /// injector (`makeChild`, `overriding`, `with`, `without`) is made of this one once its shutdown
    /// has begun. Open ``ServiceScope``s are closed by their owners.
    ///
    /// - Throws: ``ProvisionError/Code/stopFailed`` listing every stop hook and disposal that failed.
    public func shutdown() async throws(ProvisionError) {
        try await observing(.shutdown) { () async throws(ProvisionError) in try await stopEverything() }
    }

    /// ``shutdown()``'s work.
    private func stopEverything() async throws(ProvisionError) {
        enum Role {
            case shutsDown
            case waits
            case done
        }
        let role = lifecycle.state.withLock { state -> Role in
            switch state.phase {
            case .stopping: return .waits
            case .stopped: return .done
            default:
                state.phase = .stopping
                return .shutsDown
            }
        }
        switch role {
        case .done:
            return
        case .waits:
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let waiting = lifecycle.state.withLock { state in
                    guard state.phase == .stopping else { return false }
                    state.shutdownWaiters.append(continuation)
                    return true
                }
                if !waiting { continuation.resume() }
            }
            return
        case .shutsDown:
            break
        }
        ScheduleProbe.step(.phaseChanged)
        lifecycle.close()
        registry.close()
        await waitForBuildsInFlight()
        await waitForStartsInFlight()
        let started = lifecycle.state.withLock { state in
            defer { state.started = [] }
            return state.started
        }
        var failures = await stop(started)
        failures += await Disposer.dispose(lifecycle.recorder.drain(), timeout: configuration.lifecycleHookTimeout)
        let waiters = lifecycle.state.withLock { state in
            state.phase = .stopped
            defer { state.shutdownWaiters = [] }
            return state.shutdownWaiters
        }
        for waiter in waiters { waiter.resume() }
        if !failures.isEmpty {
            throw ProvisionError.stopFailed(failures, while: "shutting down")
        }
    }

    /// Waits until the start hooks that `start()` claimed before shutdown began have returned (each is
    /// bounded by the hook timeout), so that the services they started are stopped with the others, and
    /// until a failed `start()` has stopped the services it started.
    private func waitForStartsInFlight() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let drained = lifecycle.state.withLock { state in
                guard state.startsInFlight > 0 else { return true }
                state.startDrainWaiter = continuation
                return false
            }
            if drained { continuation.resume() }
        }
    }

    /// Waits until the builds that began before the injector closed have ended (so that each of them is
    /// recorded for disposal), for at most the hook timeout. Suspends without polling, and a cancelled
    /// caller waits just the same: the timer runs in a task of its own.
    ///
    /// A wake-up is a hint, not a promise: a build that counted itself just before the injector closed
    /// may still run when the previous last build (which read "closed" after its own decrement) wakes
    /// shutdown. So shutdown checks the count again after every wake-up, until it is zero or the
    /// timeout passed (found by the protocol's model, `Scripts/model/lifecycle.pml`).
    private func waitForBuildsInFlight() async {
        guard lifecycle.hasBuildsInFlight else { return }
        let timeout = configuration.lifecycleHookTimeout
        let timedOut = Atomic<Bool>(false)
        let timer = Task { [lifecycle] in
            do {
                try await Task.sleep(for: timeout)
                timedOut.store(true, ordering: .sequentiallyConsistent)
                lifecycle.drainTimeouts.add(1, ordering: .relaxed)
                lifecycle.wakeDrainWaiters(givingUp: true)
            } catch {
                // Cancelled: the builds ended first.
            }
        }
        while lifecycle.hasBuildsInFlight, !timedOut.load(ordering: .sequentiallyConsistent) {
            await lifecycle.waitForBuildsToDrain()
        }
        timer.cancel()
    }
}

extension Injector {
    /// Whether an instance a binding of this injector hands out belongs to someone else: the caller (an
    /// instance binding's value, here or above), or an ancestor that built it (for an injector made by
    /// `overriding`, its original is its parent). Such an instance is started, stopped and disposed by
    /// its owner only.
    func holdsElsewhere(_ identity: ObjectIdentifier) -> Bool {
        lifecycle.recorder.holdsForCaller(identity) || heldByAncestor(identity)
    }

    /// Whether this injector or an ancestor built the instance, or holds it for the caller: an instance
    /// that a scope, or a build that failed, must leave to its owner.
    func holdsInChain(_ identity: ObjectIdentifier) -> Bool {
        lifecycle.recorder.holds(identity) || heldByAncestor(identity)
    }

    /// Whether an ancestor built the instance, or holds it for the caller.
    func heldByAncestor(_ identity: ObjectIdentifier) -> Bool {
        var current = parent
        while let ancestor = current {
            if ancestor.lifecycle.recorder.holds(identity) { return true }
            current = ancestor.parent
        }
        return false
    }
}
