/// Reports a wait to the injector's observer, if it has one, once the wait is over (with no lock
/// held). A wait that ends in a cycle error never started (``beginWaiting(on:as:context:)`` threw), so
/// it reports nothing.
struct WaitReport {
    private let observer: (any ResolutionObserver)?
    private let started: ContinuousClock.Instant?

    init(observer: (any ResolutionObserver)?) {
        self.observer = observer
        started = observer == nil ? nil : ContinuousClock.now
    }

    /// Reports the wait, with the error the waiter fails with because of it: the builder's failure it
    /// inherits, or the wait's own end (`timedOut`, `cancelled`); worked out only for an observer.
    func end<T>(of cell: InstanceCell<T>, failure: @autoclosure () -> ProvisionError?) {
        guard let observer, let started else { return }
        let elapsed = started.duration(to: .now)
        observer.receive(
            ResolutionEvent(
                kind: .waitedForSingleton,
                key: cell.key,
                scope: cell.isScoped ? .scoped : .singleton,
                duration: elapsed,
                error: failure()
            ))
    }
}
