import Dispatch

extension InstanceCell {
    private enum GateAction {
        case ready
        case wait(SingletonGate)
        case build(SingletonGate)
    }

    /// Builds the singleton once, or waits for the thread that is building it.
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
        let key = self.key
        let stripe = injector.registry.stripe(for: key)
        let thread = ThreadIdentity.current
        while true {
            // Decide under the stripe lock; act after releasing it.
            let action = stripe.withState { state -> GateAction in
                // Re-check under the lock: the builder publishes before it removes its gate, so a thread
                // that finds no gate here either sees the instance or is the next builder.
                if self.value != nil { return .ready }
                if var entry = state.gates[key] {
                    entry.waiters += 1
                    state.gates[key] = entry
                    return .wait(entry.gate)
                }
                let gate = SingletonGate(owner: thread)
                state.gates[key] = GateEntry(gate: gate, waiters: 0)
                return .build(gate)
            }

            switch action {
            case .ready:
                if let value { return value }

            case .wait(let gate):
                try wait(on: gate, thread: thread, context: context)
                switch gate.outcome {
                case .built:
                    if let value { return value }
                case .failed(let error):
                    throw error
                case .pending:
                    break
                }

            case .build(let gate):
                let result: Result<T, ProvisionError>
                do throws(ProvisionError) {
                    result = .success(try make(context.pushing(key)))
                } catch {
                    result = .failure(error)
                }
                if case .success(let value) = result {
                    publish(value)
                }
                let waiters = stripe.withState { state in
                    state.gates.removeValue(forKey: key)?.waiters ?? 0
                }
                switch result {
                case .success: gate.finish(.built)
                case .failure(let error): gate.finish(.failed(error))
                }
                for _ in 0..<waiters {
                    gate.semaphore.signal()
                }
                return try result.get()
            }
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
        observer.receive(ResolutionEvent(kind: .waitedForSingleton, key: key, scope: .singleton, duration: elapsed))
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
