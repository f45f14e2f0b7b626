import Dispatch
import Synchronization

/// What a request finds at a cell's gate (see `InstanceCell.decide`). Not nested in the generic
/// `InstanceCell`: a nested type would be generic too, and its metadata made at run time in every build.
@usableFromInline
enum GateAction {
    /// The instance is published.
    case ready
    /// Another request holds the gate: wait for it.
    case wait(SingletonGate)
    /// No one builds it: this request installed the gate and builds.
    case build(SingletonGate)
    /// Another request builds the instance asynchronously: a synchronous caller must not wait. Only a
    /// binding whose construction awaits is built asynchronously (see ``AsyncLinker``): one whose own
    /// factory awaits has a synchronous plan that never comes to the gate (see `Node.asyncOnlyPlan`);
    /// one whose factory is synchronous, over async bindings, comes here when a synchronous request
    /// arrives while an async request builds it (and may be suspended, awaiting those bindings).
    case builtAsynchronously
    /// The injector is shutting down: nothing new is built.
    case shutDown
}

extension InstanceCell {
    /// The context the factory runs with: a singleton leaves the request's scope behind (a singleton
    /// depending on a scoped instance would hold it captive); a scoped instance keeps it. Either way the
    /// frame records the gate the build holds (see ``WaitGraph``).
    @usableFromInline
    func factoryContext(_ context: ResolutionContext, gate: SingletonGate) -> ResolutionContext {
        isScoped
            ? context.enteringScoped(key, cell: ObjectIdentifier(self), gate: gate)
            : context.enteringSingleton(key, cell: ObjectIdentifier(self), gate: gate)
    }

    /// Decides, under the gate host's lock, whether the instance is ready, being built, or to be built
    /// by this caller (installing a gate). `register` counts a synchronous waiter on an existing gate.
    private func decide(
        in host: any GateHost,
        owner: UInt,
        isAsync: Bool,
        registerWaiter: Bool
    ) -> GateAction {
        let id = ObjectIdentifier(self)
        let lifecycle = injector.lifecycle
        return host.withGates { gates -> GateAction in
            // Re-check under the lock: the builder publishes before it removes its gate, so a caller that
            // finds no gate here either sees the instance or is the next builder.
            if box.load(ordering: .acquiring) != 0 { return .ready }
            if var entry = gates[id] {
                if !isAsync && entry.gate.isAsync { return .builtAsynchronously }
                if registerWaiter {
                    entry.waiters += 1
                    gates[id] = entry
                }
                return .wait(entry.gate)
            }
            guard lifecycle.beginBuild() else { return .shutDown }
            let gate = SingletonGate(owner: owner, isAsync: isAsync)
            gates[id] = GateEntry(gate: gate)
            return .build(gate)
        }
    }

    /// Runs `decide` and lets a perturbed schedule (see ``ScheduleProbe``) switch threads right after.
    func decideProbed(
        in host: any GateHost,
        owner: UInt,
        isAsync: Bool,
        registerWaiter: Bool
    ) -> GateAction {
        let action = decide(in: host, owner: owner, isAsync: isAsync, registerWaiter: registerWaiter)
        switch action {
        case .build: ScheduleProbe.step(.gateInstalled)
        case .wait: ScheduleProbe.step(.waiterRegistered)
        default: break
        }
        return action
    }

    /// Publishes a built instance (see ``publish(_:)``), then ends the build (see ``finish(_:gate:in:)``).
    /// Throws `shutDown` when the instance was refused (see ``publish(_:)``): the build fails, for its
    /// waiters too.
    private func finish(built value: T, gate: SingletonGate, in host: any GateHost) throws(ProvisionError) {
        // An observed build published it already (see `publishWithinBuild`).
        if box.load(ordering: .acquiring) == 0 {
            do throws(ProvisionError) {
                try publishWithinBuild(value)
            } catch {
                finish(.failed(error.withOwnStorage()), gate: gate, in: host)
                throw error
            }
        }
        finish(.built, gate: gate, in: host)
    }

    /// Publishes a singleton's instance from inside its build, before the build returns to the cell: for
    /// a build run through a ``ResolutionObserver``'s hook, so that the observer finds the instance
    /// served when the hook's build returns (see `Node.observing(_:publishingIn:)`). The cell's gate stays
    /// installed until the build returns: ``finish(built:gate:in:)`` then only ends the gate.
    ///
    /// Called by the thread (or task) holding the gate, the cell's only writer, once per build.
    ///
    /// - Throws: `shutDown` when the injector refused the instance (see ``publish(_:)``): the build
    ///   fails with it, and its observer sees the failure.
    @usableFromInline
    func publishWithinBuild(_ value: T) throws(ProvisionError) {
        announcePublishing()
        if let refused = publish(value) { throw refused }
    }

    /// Ends a build that failed: with its error, or as built when its instance was published already
    /// and the failure came afterwards (an observer's hook that threw after its build returned, against
    /// ``ResolutionObserver/observeBuild(of:scope:_:)``'s contract): the published instance is the
    /// singleton, served to every later request, so the waiters take it too.
    private func finish(failed error: ProvisionError, gate: SingletonGate, in host: any GateHost) {
        if box.load(ordering: .acquiring) != 0 {
            finish(.built, gate: gate, in: host)
        } else {
            // The gate's own copy: the builder's thread goes on with its error (see `withOwnStorage`).
            finish(.failed(builderOutcome(of: error).withOwnStorage()), gate: gate, in: host)
        }
    }

    /// The schedule probe's step before a publication (see ``ScheduleProbe``).
    private func announcePublishing() {
        ScheduleProbe.step(.publishing)
    }

    /// Ends a build, whose instance was published already when it succeeded: records the outcome,
    /// removes the gate and wakes every waiter.
    ///
    /// The outcome is recorded before the gate is removed and before anyone is woken: from that moment
    /// the waits on this gate are over as far as the waits-for graph is concerned (see ``WaitGraph``),
    /// and a waiter registered late still finds the outcome when it wakes.
    func finish(_ outcome: SingletonGate.Outcome, gate: SingletonGate, in host: any GateHost) {
        gate.finish(outcome)
        let id = ObjectIdentifier(self)
        let entry = host.withGates { gates in
            gates.removeValue(forKey: id)
        }
        injector.lifecycle.endBuild()
        entry?.wakeAll()
    }

    /// The outcome of a build this caller waited for: the published instance's address (see
    /// ``publishedAddress``), the builder's error, or `nil` to decide again (the gate ended without an
    /// outcome this caller can use). An address rather than a `T?`, whose metadata an unspecialized
    /// caller would look up at run time.
    ///
    /// Two failures are the builder's own, not the binding's, and a waiter doesn't inherit them: the
    /// builder's task was cancelled while it waited for a dependency (`cancelled`), or the builder was a
    /// synchronous request, which can neither await an async factory nor wait for an async build
    /// (`requiresAsync`, not inherited by an async waiter, which can). The waiter decides again, and
    /// builds the instance itself if nobody else does.
    @usableFromInline
    func publishedAddress(after gate: SingletonGate, waitsAsynchronously: Bool) throws(ProvisionError)
        -> UnsafeRawPointer?
    {
        switch gate.outcome {
        case .built:
            return publishedAddress
        case .failed:
            if let error = inheritedFailure(of: gate, waitsAsynchronously: waitsAsynchronously) { throw error }
            return nil
        case .pending:
            return nil
        }
    }

    /// What a failed build records as its gate's outcome: the builder's error, except when a factory
    /// honoured the cancellation of the builder's task (it threw `CancellationError` in a cancelled
    /// task, synchronous or async): that failure is the builder's own, recorded as `cancelled`, so that
    /// its waiters, not cancelled, decide again instead of inheriting it.
    private func builderOutcome(of error: ProvisionError) -> ProvisionError {
        guard error.code == .factoryFailed, error.isOwnCancellation else { return error }
        return ProvisionError.cancelled(key)
    }

    /// The builder's failure that a waiter at `gate` fails with too (see
    /// ``publishedAddress(after:waitsAsynchronously:)``); `nil` when the build succeeded, is not over, or
    /// ended with a failure of the builder's own.
    private func inheritedFailure(of gate: SingletonGate, waitsAsynchronously: Bool) -> ProvisionError? {
        guard case .failed(let error) = gate.outcome else { return nil }
        switch error.code {
        case .cancelled: return nil
        case .requiresAsync where waitsAsynchronously && !gate.isAsync: return nil
        // Each waiter's own copy, never the gate's (see `ProvisionError.withOwnStorage`).
        default: return error.withOwnStorage()
        }
    }

    /// Builds the instance once, or waits for the thread that is building it.
    ///
    /// Called when ``value`` was `nil`. Runs `make` (the user's factory) on this thread, before it
    /// returns, with no lock held.
    ///
    /// A thread never waits on its own gate: the cell is pushed onto the resolution context before the
    /// factory runs, and a re-entrant request finds it there and throws a cycle error before it reaches
    /// the gate. (The cell, not its key: another injector's binding of the same type, or the same scoped
    /// binding in another scope, is another instance.)
    ///
    /// Not inlinable: every binding's plan can reach it (whether a binding is a singleton or scoped is
    /// known only when it is linked), and a specialized copy in each would cost compile time and code
    /// size for what runs once per singleton. It makes no generic metadata at run time: the gate's
    /// action is a non-generic enum, and no `Result` of `T` is formed.
    ///
    /// - Parameter reportsWaits: Whether a wait for another thread's build is reported to the
    ///   injector's observer: not for a request that passes resolve-time arguments, which reports nothing
    ///   (see ``ResolutionObserver``).
    @usableFromInline
    func build(
        _ context: ResolutionContext,
        reportsWaits: Bool = true,
        using make: (ResolutionContext) throws(ProvisionError) -> T
    ) throws(ProvisionError) -> T {
        // A request made inside a factory through the injector continues the factory's path: the
        // factory's closure prepends its own key to the error as it passes through.
        // A singleton's build takes more stack than a plan (the gate, the factory's frames): check at each
        // one, not only at the plans' checks every few levels (see StackGuard), so that a chain of
        // singletons stops with depthExceeded in an unoptimized build too. Once per build: a built
        // singleton is served without coming here.
        try StackGuard.check(key)
        let context = context.continuingAmbient()
        if context.contains(cell: ObjectIdentifier(self)) {
            throw ProvisionError.cycle(key, path: [key])
        }
        let host = gateHost
        let me = ExecutionIdentity.current
        while true {
            switch decideProbed(in: host, owner: me, isAsync: false, registerWaiter: true) {
            case .ready:
                if let address = publishedAddress { return PublishedValue<T>.value(at: address) }

            case .shutDown:
                throw ProvisionError.shutDown(key)

            case .builtAsynchronously:
                throw ProvisionError.requiresAsyncWhileBuilding(key)

            case .wait(let gate):
                try wait(on: gate, as: me, context: context, reported: reportsWaits)
                if let address = try publishedAddress(after: gate, waitsAsynchronously: false) {
                    return PublishedValue<T>.value(at: address)
                }

            case .build(let gate):
                let value: T
                do throws(ProvisionError) {
                    value = try make(factoryContext(context, gate: gate))
                } catch {
                    finish(failed: error, gate: gate, in: host)
                    throw error
                }
                try finish(built: value, gate: gate, in: host)
                return value
            }
        }
    }

    /// Builds the instance once in an async resolution, or suspends until the request building it is
    /// done. No thread blocks: a waiting caller suspends on a continuation that the builder resumes, also
    /// when the builder is a synchronous request on another thread.
    ///
    /// Cycles: a re-entrant request finds the key on its own path (also when it came back through the
    /// injector rather than the factory's ``Resolver``: the factory runs with its path in
    /// ``ResolutionContext/ambientFrame``); a cycle of waits between tasks and threads is found through
    /// the waits-for graph, each task with an identity of its own (see ``ExecutionIdentity``).
    func buildAsync(
        _ context: ResolutionContext,
        using make: (ResolutionContext) async throws(ProvisionError) -> T
    ) async throws(ProvisionError) -> T {
        // A request made inside a factory through the injector continues the factory's path: the
        // factory's closure prepends its own key to the error as it passes through.
        let context = context.continuingAmbient()
        if context.contains(cell: ObjectIdentifier(self)) {
            throw ProvisionError.cycle(key, path: [key])
        }
        let me = ExecutionIdentity.current
        let host = gateHost
        while true {
            switch decideProbed(in: host, owner: me, isAsync: true, registerWaiter: false) {
            case .ready:
                if let address = publishedAddress { return PublishedValue<T>.value(at: address) }

            case .shutDown:
                throw ProvisionError.shutDown(key)

            case .builtAsynchronously:
                // Only synchronous callers get this.
                break

            case .wait(let gate):
                try await suspend(on: gate, as: me, in: host, context: context)
                if let address = try publishedAddress(after: gate, waitsAsynchronously: true) {
                    return PublishedValue<T>.value(at: address)
                }

            case .build(let gate):
                let inner = factoryContext(context, gate: gate)
                // The factory's path is ambient while it runs, for requests it makes through the
                // injector itself and for its child tasks.
                ResolutionContext.ambientBuilds.add(1, ordering: .relaxed)
                let result = await ResolutionContext.$ambientFrame.withValue(inner.frame) {
                    () async -> Result<T, ProvisionError> in
                    do throws(ProvisionError) {
                        return .success(try await make(inner))
                    } catch {
                        return .failure(error)
                    }
                }
                ResolutionContext.ambientBuilds.subtract(1, ordering: .relaxed)
                switch result {
                case .success(let value):
                    try finish(built: value, gate: gate, in: host)
                    return value
                case .failure(let error):
                    finish(failed: error, gate: gate, in: host)
                    throw error
                }
            }
        }
    }

    /// Suspends while another request builds the instance, if one does, without building it: for async
    /// requests whose synchronous plan builds it (see ``AsyncLinker``), so that they wait without
    /// blocking a thread.
    ///
    /// - Returns: The published instance's address when the build this caller waited for published it;
    ///   `nil` when there was no build to wait for, or the waiter decides again (see
    ///   ``publishedAddress(after:waitsAsynchronously:)``): the caller then runs the synchronous plan.
    /// - Throws: The builder's error; `cancelled` or `timedOut` when the wait ends so.
    func awaitBuildInProgress(_ context: ResolutionContext) async throws(ProvisionError) -> UnsafeRawPointer? {
        // Re-entry: the synchronous plan reports the cycle.
        guard let (gate, host, context) = buildInProgress(context) else { return nil }
        try await suspend(on: gate, as: ExecutionIdentity.current, in: host, context: context)
        return try publishedAddress(after: gate, waitsAsynchronously: true)
    }

    /// The gate of another request's build of this cell, where an async request would wait, with its
    /// host and the context (continuing the ambient path) to wait with; `nil` when no build is in
    /// progress, or when the request is itself building the cell further up its path.
    private func buildInProgress(
        _ context: ResolutionContext
    ) -> (gate: SingletonGate, host: any GateHost, context: ResolutionContext)? {
        let context = context.continuingAmbient()
        if context.contains(cell: ObjectIdentifier(self)) { return nil }
        let id = ObjectIdentifier(self)
        let host = gateHost
        guard let gate = host.withGates({ gates in gates[id]?.gate }) else { return nil }
        return (gate, host, context)
    }

    /// What settling (see ``AsyncSettle``) finds at this cell: `true` when the instance is built (at
    /// once, or after suspending while another request built it), `false` when waiting would close a
    /// cycle or the build it waited for ended with its builder's own failure (see
    /// ``publishedAddress(after:waitsAsynchronously:)``; the synchronous plan decides what to do), `nil`
    /// when it is not built and nobody builds it (the synchronous plan will, after what it needs).
    ///
    /// - Throws: The failure of the build it waited for, like a synchronous waiter at the gate; or
    ///   `cancelled` or `timedOut` when the wait ends so.
    func settle(_ context: ResolutionContext) async throws(ProvisionError) -> Bool? {
        if publishedAddress != nil { return true }
        // Re-entry: the synchronous plan reports the cycle.
        if context.continuingAmbient().contains(cell: ObjectIdentifier(self)) { return false }
        guard let (gate, host, context) = buildInProgress(context) else {
            return publishedAddress == nil ? nil : true
        }
        do throws(ProvisionError) {
            try await suspend(on: gate, as: ExecutionIdentity.current, in: host, context: context)
        } catch {
            guard error.code == .cancelled || error.code == .timedOut else { return false }
            throw error
        }
        return try publishedAddress(after: gate, waitsAsynchronously: true) != nil
    }

    /// Suspends until `gate`'s build ends, unless waiting would close a cycle of waits; stops waiting at
    /// once when the task is cancelled or the configured timeout passes.
    private func suspend(
        on gate: SingletonGate,
        as me: UInt,
        in host: any GateHost,
        context: ResolutionContext
    ) async throws(ProvisionError) {
        if Task.isCancelled { throw ProvisionError.cancelled(key) }
        try beginWaiting(on: gate, as: me, context: context)
        defer { WaitGraph.endWaiting(me) }
        let report = WaitReport(observer: injector.configuration.observer)
        let id = ObjectIdentifier(self)
        let timeout = injector.configuration.singletonWaitTimeout
        let waiter = SuspendedWaiter()
        await waiter.wait(timeout: timeout) { waiter in
            // Registered only while the gate is still installed; otherwise the build has ended already.
            host.withGates { gates in
                guard var entry = gates[id], entry.gate === gate else { return false }
                entry.suspended.append(waiter)
                gates[id] = entry
                return true
            }
        }
        switch waiter.outcome {
        case .woken:
            report.end(of: self, failure: inheritedFailure(of: gate, waitsAsynchronously: true))
        case .timedOut:
            // The builder will find the waiter resumed already and skip it.
            let error = ProvisionError.timedOut(key, after: timeout ?? .zero)
            report.end(of: self, failure: error)
            throw error
        case .cancelled:
            let error = ProvisionError.cancelled(key)
            report.end(of: self, failure: error)
            throw error
        }
    }

    /// Records a wait on `gate` in the waits-for graph, or throws the cycle error that waiting would
    /// deadlock on. The path is the key alone: the plans the error propagates through prepend the rest.
    private func beginWaiting(on gate: SingletonGate, as me: UInt, context: ResolutionContext) throws(ProvisionError) {
        guard
            let others = WaitGraph.beginWaiting(
                on: gate, as: me, holding: context.heldGates, path: context.keys + [key])
        else { return }
        if others.isEmpty {
            // The gate is held by this very thread or task, or by a build on its path.
            throw ProvisionError.cycle(key, path: [key])
        }
        throw ProvisionError.crossThreadCycle(key, path: [key], otherThreads: others)
    }

    /// Waits for another thread's build of this singleton, unless that would close a cycle of waits.
    @usableFromInline
    func wait(on gate: SingletonGate, as me: UInt, context: ResolutionContext, reported: Bool = true)
        throws(ProvisionError)
    {
        try beginWaiting(on: gate, as: me, context: context)
        defer { WaitGraph.endWaiting(me) }
        let report = WaitReport(observer: reported ? injector.configuration.observer : nil)
        guard let timeout = injector.configuration.singletonWaitTimeout else {
            gate.semaphore.wait()
            report.end(of: self, failure: inheritedFailure(of: gate, waitsAsynchronously: false))
            return
        }
        let started = DispatchTime.now()
        if gate.semaphore.wait(timeout: started + timeout.dispatchInterval) == .timedOut {
            let error = ProvisionError.timedOut(key, after: timeout)
            report.end(of: self, failure: error)
            throw error
        }
        report.end(of: self, failure: inheritedFailure(of: gate, waitsAsynchronously: false))
    }
}
