import Dispatch

/// The gate that makes a singleton's factory run once while other threads wait for it.
///
/// The first thread to need an unbuilt singleton installs a gate for its cell in the key's registry
/// stripe and builds the instance with no lock held. Threads that arrive while the gate is installed
/// register as waiters (under the stripe lock) and wait on the gate's semaphore; async callers register
/// a continuation and suspend instead. When the build ends, the builder removes the gate and records the
/// outcome, then signals the semaphore once per registered waiter and resumes every continuation. A failed build publishes nothing: every waiter gets the error, and the next request
/// installs a new gate and tries again.
final class SingletonGate: Sendable {
    enum Outcome: Sendable {
        case pending
        case built
        case failed(ProvisionError)
    }

    /// Signalled once per waiter when the build ends.
    let semaphore = DispatchSemaphore(value: 0)

    /// The thread running the factory, or the async resolution (see ``ResolutionRequest/task``).
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

    var outcome: Outcome {
        state.withLock { $0 }
    }

    func finish(_ outcome: Outcome) {
        state.withLock { $0 = outcome }
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
        for _ in 0..<waiters {
            gate.semaphore.signal()
        }
        for waiter in suspended {
            waiter.resume(timedOut: false)
        }
    }
}
