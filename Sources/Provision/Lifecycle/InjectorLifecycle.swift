import Synchronization

/// An injector's lifecycle state: whether it still builds instances, the builds in flight, the services
/// that started, and the singletons it built (for disposal).
///
/// Shutting down is a two-sided handshake with no lock on the resolution path: a builder increments
/// ``beginBuild()``'s counter, then checks the closed flag; shutdown sets the flag, then waits for the
/// counter to drain. With sequentially consistent atomics one of the two always sees the other, so no
/// instance is built after shutdown has waited for the builds in flight.
@usableFromInline
final class InjectorLifecycle: Sendable {
    enum Phase: Sendable, Equatable {
        case idle
        case starting
        case started
        /// ``Injector/start()`` failed and stopped what it had started.
        case failed
        case stopping
        case stopped
    }

    struct State: Sendable {
        var phase: Phase = .idle
        /// The services whose start hook returned, in the order they returned; emptied when they stop.
        var started: [LifecycleActions] = []
        /// The keys of the services that started, in order; kept after they stop.
        var startOrder: [BindingKey] = []
        /// Callers of `shutdown()` waiting for the one that is doing it.
        var shutdownWaiters: [CheckedContinuation<Void, Never>] = []
        /// Start hooks running now: claimed by `start()` while the phase was `starting`, not yet
        /// recorded as started or failed; plus one while a failed `start()` stops what it started.
        var startsInFlight = 0
        /// Shutdown waiting for the start hooks in flight to end, so that it stops what they started.
        var startDrainWaiter: CheckedContinuation<Void, Never>?
    }

    /// Singletons built by the injector, in creation order.
    @usableFromInline let recorder = InstanceRecorder(recordsAll: true)
    /// Protects the phase and the started services; held for bookkeeping only, never across a hook.
    let state = Locked(State())

    private let closed = Atomic<Bool>(false)
    /// How many times shutdown stopped waiting for builds in flight because its timeout passed rather
    /// than because the last build ended: a diagnostic (a lost wake-up shows here, see the tests).
    let drainTimeouts = Atomic<Int>(0)
    private let buildsInFlight = Atomic<Int>(0)
    /// Shutdown waiting for the builds in flight to end. A leaf lock: held to add or take waiters (and to
    /// read the build count before taking them) only.
    private let drainWaiters = Locked<[CheckedContinuation<Void, Never>]>([])

    /// How many times any injector began shutting down: a change tells a child that its cached answer
    /// to "is an ancestor shutting down?" may be stale (see `Injector.isShuttingDown`). Raised after the
    /// injector's own flag is set, so that a reader that sees the new count sees the flag too.
    private static let closings = Atomic<Int>(0)

    /// The current count of ``closings``.
    static var closingEpoch: Int {
        closings.load(ordering: .sequentiallyConsistent)
    }

    /// Whether the injector stopped building (shutdown began).
    var isClosed: Bool {
        closed.load(ordering: .sequentiallyConsistent)
    }

    /// Registers a build about to start, or returns `false` when the injector is shutting down.
    ///
    /// A refused build was counted for a moment, and shutdown may have looked at the count in that
    /// moment and gone to sleep: it is uncounted through ``endBuild()``, whose "the last one out wakes
    /// shutdown" step then wakes it. (Decrementing without that step was a lost wake-up: shutdown waited
    /// out its whole timeout with no build in flight.)
    func beginBuild() -> Bool {
        countBuild()
        ScheduleProbe.step(.buildCounted)
        return admitCountedBuild()
    }

    /// The first half of ``beginBuild()``: counts the build. (Split for the tests, which run the two
    /// halves with a shutdown in between.)
    func countBuild() {
        buildsInFlight.add(1, ordering: .sequentiallyConsistent)
    }

    /// The second half of ``beginBuild()``: admits the counted build, or uncounts it when the injector
    /// closed meanwhile.
    func admitCountedBuild() -> Bool {
        if closed.load(ordering: .sequentiallyConsistent) {
            endBuild()
            return false
        }
        return true
    }

    /// A build registered with ``beginBuild()`` ended (or was refused).
    func endBuild() {
        let remaining = buildsInFlight.subtract(1, ordering: .sequentiallyConsistent).newValue
        ScheduleProbe.step(.buildCounted)
        if remaining == 0, closed.load(ordering: .sequentiallyConsistent) {
            wakeDrainWaiters()
        }
    }

    /// Suspends until no build is in flight (call after ``close()``), or until the wait is given up
    /// (``wakeDrainWaiters(givingUp:)``).
    ///
    /// The waiter registers before it checks the count, and the last builder checks for waiters after it
    /// decrements the count, so one of the two always wakes it.
    func waitForBuildsToDrain() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            drainWaiters.withLock { $0.append(continuation) }
            if !hasBuildsInFlight { wakeDrainWaiters() }
        }
    }

    /// How many callers of ``waitForBuildsToDrain()`` are suspended (for tests).
    var drainWaiterCount: Int {
        drainWaiters.withLock { $0.count }
    }

    /// Resumes every caller of ``waitForBuildsToDrain()``, each exactly once, if no build is in flight
    /// now, or when `givingUp` (the wait timed out).
    ///
    /// The count is read again, under the waiters' lock: a builder decides to wake after it took the
    /// count to zero, and by the time it wakes, a build that had begun before ``close()`` may hold the
    /// count again (it added to it between that builder's decrement and its check of the closed flag).
    /// Waking then let shutdown go on while that build ran, and its instance was never disposed. Not
    /// waking loses nothing: that build's own end takes the count to zero and wakes. (Shutdown also
    /// checks the count again after every wake-up: see `Injector.waitForBuildsInFlight()`.)
    func wakeDrainWaiters(givingUp: Bool = false) {
        let waiters = drainWaiters.withLock { waiters -> [CheckedContinuation<Void, Never>] in
            guard givingUp || !hasBuildsInFlight else { return [] }
            defer { waiters = [] }
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// A start hook in flight (or a failed start stopping what it started) ended: wakes shutdown when
    /// it was the last one it waited for.
    func endStartInFlight() {
        let drained = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.startsInFlight -= 1
            guard state.startsInFlight == 0, let waiter = state.startDrainWaiter else { return nil }
            state.startDrainWaiter = nil
            return waiter
        }
        drained?.resume()
    }

    /// Stops all new builds.
    func close() {
        closed.store(true, ordering: .sequentiallyConsistent)
        InjectorLifecycle.closings.add(1, ordering: .sequentiallyConsistent)
        ScheduleProbe.step(.closing)
    }

    /// Whether builds that began before ``close()`` are still running.
    var hasBuildsInFlight: Bool {
        buildsInFlight.load(ordering: .sequentiallyConsistent) > 0
    }
}
