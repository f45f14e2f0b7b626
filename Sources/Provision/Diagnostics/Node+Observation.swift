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
            let result: Result<T, ProvisionError>
            do throws(ProvisionError) {
                result = .success(try plan.make(context))
            } catch {
                result = .failure(error)
            }
            observer.receive(Node.event(for: result, key: key, scope: scope, since: started))
            return try result.get()
        }
    }

    /// The async counterpart of ``observing(_:)``, for bindings whose construction awaits.
    func observingAsync(_ plan: AsyncPlan<T>) -> AsyncPlan<T> {
        guard let observer = injector.configuration.observer else { return plan }
        let key = self.key
        let scope = self.scope
        return AsyncPlan { context throws(ProvisionError) in
            let started = ContinuousClock.now
            let result: Result<T, ProvisionError>
            do throws(ProvisionError) {
                result = .success(try await plan.make(context))
            } catch {
                result = .failure(error)
            }
            observer.receive(Node.event(for: result, key: key, scope: scope, since: started))
            return try result.get()
        }
    }

    /// The event for one build: `built`, or `failed` with its error.
    @usableFromInline
    static func event(
        for result: Result<T, ProvisionError>,
        key: BindingKey,
        scope: Scope,
        since started: ContinuousClock.Instant
    ) -> ResolutionEvent {
        let elapsed = started.duration(to: ContinuousClock.now)
        switch result {
        case .success:
            return ResolutionEvent(kind: .built, key: key, scope: scope, duration: elapsed)
        case .failure(let error):
            return ResolutionEvent(kind: .failed, key: key, scope: scope, duration: elapsed, error: error)
        }
    }
}
