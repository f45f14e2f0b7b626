extension Node {
    /// The plan that builds a fresh value, run through the injector's ``ResolutionObserver``'s build hook
    /// (``ResolutionObserver/observeBuild(of:scope:_:)``); the plan itself when there is no observer.
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
            try observer.observeBuild(of: key, scope: scope) { () throws(ProvisionError) in try plan.make(context) }
        }
    }

    /// The async counterpart of ``observing(_:)``, for bindings whose construction awaits.
    func observingAsync(_ plan: AsyncPlan<T>) -> AsyncPlan<T> {
        guard let observer = injector.configuration.observer else { return plan }
        let key = self.key
        let scope = self.scope
        return AsyncPlan { context throws(ProvisionError) in
            try await observer.observeAsyncBuild(of: key, scope: scope) { () async throws(ProvisionError) in
                try await plan.make(context)
            }
        }
    }
}

extension Node {
    /// Links the node (and its static dependencies): the first request's step. A failure is reported to
    /// the injector's observer, if any, as ``ResolutionEvent/Kind-swift.struct/linkFailed``, then thrown.
    func linkReportingFailure() throws(ProvisionError) -> Plan<T> {
        do {
            return try Linker().link(self)
        } catch {
            injector.configuration.observer?.receive(
                ResolutionEvent(kind: .linkFailed, key: key, scope: scope, duration: .zero, error: error))
            throw error
        }
    }
}

extension ResolutionEvent {
    /// The event for one build: `built`, or `failed` with its error, timed from `started`. Made by the
    /// default build hooks of ``ResolutionObserver``.
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
