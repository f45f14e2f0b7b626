extension Node {
    /// The plan that builds a fresh value, instrumented for the injector's ``ResolutionObserver``; the
    /// plan itself when there is no observer.
    ///
    /// Called once per binding, when it is linked (from `scoped`), so the decision costs nothing when
    /// resolving: an injector without an observer publishes exactly the plans it would without
    /// diagnostics. A singleton's instrumented plan runs only when the singleton is built (it sits
    /// inside the singleton's gate), so cached hits report nothing.
    @usableFromInline
    func observing(_ plan: Plan<T>) -> Plan<T> {
        guard let observer = injector.configuration.observer else { return plan }
        let key = self.key
        let scope = self.scope
        return Plan { context throws(ProvisionError) in
            let clock = ContinuousClock()
            let started = clock.now
            let value: T
            do throws(ProvisionError) {
                value = try plan.make(context)
            } catch {
                let elapsed = started.duration(to: clock.now)
                observer.receive(
                    ResolutionEvent(kind: .failed, key: key, scope: scope, duration: elapsed, error: error))
                throw error
            }
            let elapsed = started.duration(to: clock.now)
            observer.receive(ResolutionEvent(kind: .built, key: key, scope: scope, duration: elapsed))
            return value
        }
    }
}
