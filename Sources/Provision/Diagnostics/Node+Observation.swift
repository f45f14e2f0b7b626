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

    /// ``observing(_:)`` for a singleton's build, which publishes the instance in `cell` inside the
    /// observed build, as soon as it is made: when the build hook returns (and the default hook
    /// delivers its `built` event), the singleton is served from its cell, so an observer that resolves
    /// it there gets it instead of re-entering its build (a false cycle). The cell's gate is still held:
    /// only the thread that builds publishes (see ``InstanceCell/publishWithinBuild(_:)``). (Found by
    /// hunt 27A: an exporter resolved in its own `built` event failed with a cycle.)
    ///
    /// A scoped instance is published when its scope's close handshake accepts it, after the build
    /// (see `ServiceScope.build`); the observer's events can't resolve it anyway, having no scope.
    @usableFromInline
    func observing(_ plan: Plan<T>, publishingIn cell: InstanceCell<T>) -> Plan<T> {
        guard let observer = injector.configuration.observer else { return plan }
        let key = self.key
        let scope = self.scope
        return Plan { context throws(ProvisionError) in
            try observer.observeBuild(of: key, scope: scope) { () throws(ProvisionError) in
                let value = try plan.make(context)
                try cell.publishWithinBuild(value)
                return value
            }
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

    /// The async counterpart of ``observing(_:publishingIn:)``.
    func observingAsync(_ plan: AsyncPlan<T>, publishingIn cell: InstanceCell<T>) -> AsyncPlan<T> {
        guard let observer = injector.configuration.observer else { return plan }
        let key = self.key
        let scope = self.scope
        return AsyncPlan { context throws(ProvisionError) in
            try await observer.observeAsyncBuild(of: key, scope: scope) { () async throws(ProvisionError) in
                let value = try await plan.make(context)
                try cell.publishWithinBuild(value)
                return value
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
