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

    /// Signalled once per waiter when the build ends: made by the first thread that needs it (a waiter
    /// about to wait, or the builder waking registered waiters), so that a build nobody waits for, every
    /// build of a request scope's instance above all, allocates no semaphore. Both sides get the same
    /// one: the first store wins, and a semaphore remembers signals sent before its wait.
    private let lazySemaphore = AtomicLazyReference<DispatchSemaphore>()

    var semaphore: DispatchSemaphore {
        lazySemaphore.load() ?? lazySemaphore.storeIfNil(DispatchSemaphore(value: 0))
    }

    /// Who runs the factory: the building task, or thread outside any task (see ``ExecutionIdentity``).
    let owner: UInt

    /// Whether the build awaits (the binding's construction has an async factory), so that it may hold
    /// the gate while suspended: a synchronous caller never waits for it. Every other build runs
    /// synchronously to its end, also in an async request (see ``AsyncLinker``), and threads wait for it.
    let isAsync: Bool

    init(owner: UInt, isAsync: Bool) {
        self.owner = owner
        self.isAsync = isAsync
    }

    /// The build's outcome: written once, by the builder, before it stores ``ended`` with release
    /// ordering, and read only after ``ended`` was loaded with acquire ordering and found set (see
    /// ``outcome``). That pair orders the write before every read, for every thread and for
    /// ThreadSanitizer, with no lock: nothing writes it afterwards. (A mutex here cost two allocations
    /// per gate, that is per build of a scoped instance.)
    private nonisolated(unsafe) var finalOutcome: Outcome = .pending

    /// Set once the build has ended, before any waiter is woken: from then on, a wait on this gate is
    /// no longer a reason for anything (see ``WaitGraph``), and ``finalOutcome`` is final.
    private let ended = Atomic<Bool>(false)

    /// The build's outcome; `.pending` while it runs.
    var outcome: Outcome {
        ended.load(ordering: .acquiring) ? finalOutcome : .pending
    }

    /// Whether the build has ended (``finish(_:)`` was called).
    var isFinished: Bool {
        ended.load(ordering: .acquiring)
    }

    /// Records the build's outcome. Called once, by the builder, before it wakes the waiters.
    func finish(_ outcome: Outcome) {
        finalOutcome = outcome
        ended.store(true, ordering: .releasing)
        ScheduleProbe.step(.gateFinished)
    }
}

/// A gate as its host (a registry stripe or a scope; see ``GateHost``) tracks it: the gate, how many
/// threads wait on its semaphore, and the async callers suspended on it (resumed, not signalled, so that
/// no thread of Swift's cooperative pool ever blocks on a gate).
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
