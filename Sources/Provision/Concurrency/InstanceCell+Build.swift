import Dispatch

extension InstanceCell {
    private enum GateAction {
        case ready
        case wait(SingletonGate)
        case build(SingletonGate)
        /// Another request builds the instance asynchronously: a synchronous caller must not wait.
        case builtAsynchronously
        /// The injector is shutting down: nothing new is built.
        case shutDown
    }

    /// The context the factory runs with: a singleton leaves the request's scope behind (a singleton
    /// depending on a scoped instance would hold it captive); a scoped instance keeps it.
    private func factoryContext(_ context: ResolutionContext) -> ResolutionContext {
        isScoped ? context.pushing(key) : context.enteringSingleton(key)
    }

    /// Decides, under the stripe lock, whether the instance is ready, being built, or to be built by
    /// this caller (installing a gate). `register` counts a synchronous waiter on an existing gate.
    private func decide(
        in stripe: RegistryStripe,
        owner: UInt,
        isAsync: Bool,
        registerWaiter: Bool
    ) -> GateAction {
        let id = ObjectIdentifier(self)
        let lifecycle = injector.lifecycle
        return stripe.withState { state -> GateAction in
            // Re-check under the lock: the builder publishes before it removes its gate, so a caller that
            // finds no gate here either sees the instance or is the next builder.
            if self.value != nil { return .ready }
            if var entry = state.gates[id] {
                if !isAsync && entry.gate.isAsync { return .builtAsynchronously }
                if registerWaiter {
                    entry.waiters += 1
                    state.gates[id] = entry
                }
                return .wait(entry.gate)
            }
            guard lifecycle.beginBuild() else { return .shutDown }
            let gate = SingletonGate(owner: owner, isAsync: isAsync)
            state.gates[id] = GateEntry(gate: gate)
            return .build(gate)
        }
    }

    /// Ends a build: publishes a success, removes the gate, records the outcome and wakes every waiter.
    private func finish(_ result: Result<T, ProvisionError>, gate: SingletonGate, in stripe: RegistryStripe) {
        if case .success(let value) = result {
            publish(value)
        }
        let id = ObjectIdentifier(self)
        let entry = stripe.withState { state in
            state.gates.removeValue(forKey: id)
        }
        injector.lifecycle.endBuild()
        switch result {
        case .success: gate.finish(.built)
        case .failure(let error): gate.finish(.failed(error))
        }
        entry?.wakeAll()
    }

    /// The outcome of a build this caller waited for: the instance, the builder's error, or `nil` to
    /// decide again (the gate ended without an outcome this caller can use).
    private func value(after gate: SingletonGate) throws(ProvisionError) -> T? {
        switch gate.outcome {
        case .built: value
        case .failed(let error): throw error
        case .pending: nil
        }
    }

    /// Builds the instance once, or waits for the thread that is building it.
    ///
    /// Called when ``value`` was `nil`. Runs `make` (the user's factory) on this thread, before it
    /// returns, with no lock held.
    ///
    /// A thread never waits on its own gate: the key is pushed onto the resolution context before the
    /// factory runs, and a re-entrant request finds it there and throws a cycle error before it reaches
    /// the gate.
    @usableFromInline
    func build(
        _ context: ResolutionContext,
        using make: (ResolutionContext) throws(ProvisionError) -> T
    ) throws(ProvisionError) -> T {
        if context.contains(key) {
            throw ProvisionError.cycle(key, path: [key])
        }
        let stripe = injector.registry.stripe(for: key)
        let thread = ThreadIdentity.current
        while true {
            switch decide(in: stripe, owner: thread, isAsync: false, registerWaiter: true) {
            case .ready:
                if let value { return value }

            case .shutDown:
                throw ProvisionError.shutDown(key)

            case .builtAsynchronously:
                throw ProvisionError.requiresAsync(key, dependency: key, path: [key])

            case .wait(let gate):
                try wait(on: gate, thread: thread, context: context)
                if let value = try value(after: gate) { return value }

            case .build(let gate):
                let result: Result<T, ProvisionError>
                do throws(ProvisionError) {
                    result = .success(try make(factoryContext(context)))
                } catch {
                    result = .failure(error)
                }
                finish(result, gate: gate, in: stripe)
                return try result.get()
            }
        }
    }

    /// Builds the instance once in an async resolution, or suspends until the request building it is
    /// done. No thread blocks: a waiting caller suspends on a continuation that the builder resumes.
    ///
    /// Cycles: a re-entrant request finds the key on its own path; a cycle of waits between async
    /// resolutions is found through the waits-for graph, with the resolution's async identity in place
    /// of a thread.
    func buildAsync(
        _ context: ResolutionContext,
        using make: (ResolutionContext) async throws(ProvisionError) -> T
    ) async throws(ProvisionError) -> T {
        if context.contains(key) {
            throw ProvisionError.cycle(key, path: [key])
        }
        let task = context.task != 0 ? context.task : AsyncIdentity.next()
        let context = context.identified(as: task)
        let stripe = injector.registry.stripe(for: key)
        while true {
            switch decide(in: stripe, owner: task, isAsync: true, registerWaiter: false) {
            case .ready:
                if let value { return value }

            case .shutDown:
                throw ProvisionError.shutDown(key)

            case .builtAsynchronously:
                // Only synchronous callers get this.
                break

            case .wait(let gate):
                try await suspend(on: gate, task: task, in: stripe, context: context)
                if let value = try value(after: gate) { return value }

            case .build(let gate):
                let result: Result<T, ProvisionError>
                do throws(ProvisionError) {
                    result = .success(try await make(factoryContext(context)))
                } catch {
                    result = .failure(error)
                }
                finish(result, gate: gate, in: stripe)
                return try result.get()
            }
        }
    }

    /// Suspends until `gate`'s build ends, unless waiting would close a cycle of waits.
    ///
    /// Two tasks of one resolution (child tasks of a factory) share its identity; such a task finding
    /// the gate of its own resolution waits too (a real self-cycle was already found on the path).
    private func suspend(
        on gate: SingletonGate,
        task: UInt,
        in stripe: RegistryStripe,
        context: ResolutionContext
    ) async throws(ProvisionError) {
        if gate.owner != task {
            if let others = WaitGraph.beginWaiting(on: gate, thread: task, path: context.keys + [key]) {
                throw ProvisionError.crossThreadCycle(key, path: [key], otherThreads: others)
            }
        }
        defer {
            if gate.owner != task { WaitGraph.endWaiting(thread: task) }
        }
        let id = ObjectIdentifier(self)
        let timeout = injector.configuration.singletonWaitTimeout
        let waiter = SuspendedWaiter()
        await waiter.wait(timeout: timeout) { waiter in
            // Registered only while the gate is still installed; otherwise the build has ended already.
            stripe.withState { state in
                guard var entry = state.gates[id], entry.gate === gate else { return false }
                entry.suspended.append(waiter)
                state.gates[id] = entry
                return true
            }
        }
        if waiter.timedOut, let timeout {
            // The builder will find the waiter resumed already and skip it.
            throw ProvisionError.timedOut(key, after: timeout)
        }
    }

    /// Waits for another thread's build of this singleton, reporting the wait to the injector's
    /// observer, if it has one (after the wait, with no lock held; a wait that ends in a cycle error
    /// never started, so it reports nothing).
    private func wait(on gate: SingletonGate, thread: UInt, context: ResolutionContext) throws(ProvisionError) {
        guard let observer = injector.configuration.observer else {
            return try waitForBuild(on: gate, thread: thread, context: context)
        }
        let clock = ContinuousClock()
        let started = clock.now
        let result: Result<Void, ProvisionError>
        do throws(ProvisionError) {
            result = .success(try waitForBuild(on: gate, thread: thread, context: context))
        } catch {
            result = .failure(error)
        }
        if case .failure(let error) = result, error.code != .timedOut {
            throw error
        }
        let elapsed = started.duration(to: clock.now)
        let scope: Scope = isScoped ? .scoped : .singleton
        observer.receive(ResolutionEvent(kind: .waitedForSingleton, key: key, scope: scope, duration: elapsed))
        try result.get()
    }

    /// Waits for another thread's build of this singleton, unless that would close a cycle of waits.
    private func waitForBuild(on gate: SingletonGate, thread: UInt, context: ResolutionContext) throws(ProvisionError) {
        if gate.owner == thread {
            // Unreachable through the public API (the key would be on this thread's path), but waiting
            // here would be waiting on ourselves.
            throw ProvisionError.cycle(key, path: [key])
        }
        if let others = WaitGraph.beginWaiting(on: gate, thread: thread, path: context.keys + [key]) {
            // The path is the key alone: the plans this error propagates through prepend the rest.
            throw ProvisionError.crossThreadCycle(key, path: [key], otherThreads: others)
        }
        defer { WaitGraph.endWaiting(thread: thread) }
        guard let timeout = injector.configuration.singletonWaitTimeout else {
            gate.semaphore.wait()
            return
        }
        let started = DispatchTime.now()
        if gate.semaphore.wait(timeout: started + timeout.dispatchInterval) == .timedOut {
            throw ProvisionError.timedOut(key, after: timeout)
        }
    }
}
