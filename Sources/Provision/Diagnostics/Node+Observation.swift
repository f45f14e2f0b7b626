extension Node {
    /// The plan that builds a fresh value, instrumented for the injector's ``ResolutionObserver``; the
    /// plan itself when there is no observer.
    ///
    /// Called once per binding, when it is linked (from `scoped`), so the decision costs nothing when
    /// resolving: an injector without an observer publishes exactly the plans it would without
    /// diagnostics. A singleton's instrumented plan runs only when the singleton is built (it sits
    /// inside the singleton's gate), so cached hits report nothing. Async builds report the same events
    /// (``observingAsync(_:)``).
    @usableFromInline
    func observing(_ plan: Plan<T>) -> Plan<T> {
        guard let observer = injector.configuration.observer else { return plan }
        let key = self.key
        let scope = self.scope
        return Plan { context throws(ProvisionError) in
            let started = ContinuousClock.now
            do throws(ProvisionError) {
                let value = try plan.make(context)
                observer.receive(ResolutionEvent.build(of: key, scope: scope, since: started, failure: nil))
                return value
            } catch {
                observer.receive(ResolutionEvent.build(of: key, scope: scope, since: started, failure: error))
                throw error
            }
        }
    }

    /// The async counterpart of ``observing(_:)``, for bindings whose construction awaits.
    func observingAsync(_ plan: AsyncPlan<T>) -> AsyncPlan<T> {
        guard let observer = injector.configuration.observer else { return plan }
        let key = self.key
        let scope = self.scope
        return AsyncPlan { context throws(ProvisionError) in
            let started = ContinuousClock.now
            do throws(ProvisionError) {
                let value = try await plan.make(context)
                observer.receive(ResolutionEvent.build(of: key, scope: scope, since: started, failure: nil))
                return value
            } catch {
                observer.receive(ResolutionEvent.build(of: key, scope: scope, since: started, failure: error))
                throw error
            }
        }
    }
}

extension ResolutionEvent {
    /// The event for one build: `built`, or `failed` with its error. Not generic, so that the
    /// specialized plans calling it pay no metadata lookup.
    @usableFromInline
    static func build(
        of key: BindingKey,
        scope: Scope,
        since started: ContinuousClock.Instant,
        failure: ProvisionError?
    ) -> ResolutionEvent {
        let elapsed = started.duration(to: ContinuousClock.now)
        guard let failure else {
            return ResolutionEvent(kind: .built, key: key, scope: scope, duration: elapsed)
        }
        return ResolutionEvent(kind: .failed, key: key, scope: scope, duration: elapsed, error: failure)
    }
}
