import Dispatch
import Synchronization

/// The gate that makes a singleton's factory run once while other threads wait for it.
///
/// The first thread to need an unbuilt singleton installs a gate for its cell in the key's registry
/// stripe and builds the instance with no lock held. Threads that arrive while the gate is installed
/// register as waiters (under the stripe lock) and wait on the gate's semaphore; async callers register
/// a continuation and suspend instead. When the build ends, the builder publishes the instance, records
/// the outcome (``finish(_:)``), removes the gate, then signals the semaphore once per registered waiter
/// and resumes every continuation. A failed build publishes nothing: every waiter gets the error, and
/// the next request installs a new gate and tries again.
@usableFromInline
final class SingletonGate: Sendable {
    @usableFromInline
    enum Outcome: Sendable {
        case pending
        case built
        case failed(ProvisionError)
    }

    /// Signalled once per waiter when the build ends.
    let semaphore = DispatchSemaphore(value: 0)

    /// Who runs the factory: the building task, or thread outside any task (see ``ExecutionIdentity``).
    let owner: UInt

    /// Whether the factory runs in an async resolution: a synchronous caller never waits for it.
    let isAsync: Bool

    init(owner: UInt, isAsync: Bool) {
        self.owner = owner
        self.isAsync = isAsync
    }

    /// Written once by the builder before it signals; read by each waiter after it wakes. The mutex
    /// orders the write before the reads for every thread (and for ThreadSanitizer), independent of
    /// the semaphore's own ordering.
    private let state = Locked<Outcome>(.pending)

    /// Set once the build has ended, before any waiter is woken: from then on, a wait on this gate is
    /// no longer a reason for anything (see ``WaitGraph``). Read under the waits-for graph's lock.
    private let ended = Atomic<Bool>(false)

    var outcome: Outcome {
        state.withLock { $0 }
    }

    /// Whether the build has ended (``finish(_:)`` was called).
    var isFinished: Bool {
        ended.load(ordering: .acquiring)
    }

    /// Records the build's outcome. Called once, by the builder, before it wakes the waiters.
    func finish(_ outcome: Outcome) {
        state.withLock { $0 = outcome }
        ended.store(true, ordering: .releasing)
        ScheduleProbe.step(.gateFinished)
    }
}

/// A gate as the registry stripe tracks it: the gate, how many threads wait on its semaphore, and the
/// async callers suspended on it (resumed, not signalled, so that no thread of Swift's cooperative pool
/// ever blocks on a gate).
struct GateEntry: Sendable {
    let gate: SingletonGate
    var waiters: Int = 0
    var suspended: [SuspendedWaiter] = []

    init(gate: SingletonGate) {
        self.gate = gate
    }

    /// Wakes every waiter. Call after removing the entry from the stripe, with no lock held.
    func wakeAll() {
        ScheduleProbe.step(.waking)
        for _ in 0..<waiters {
            gate.semaphore.signal()
        }
        for waiter in suspended {
            waiter.resume(.woken)
        }
    }
}
