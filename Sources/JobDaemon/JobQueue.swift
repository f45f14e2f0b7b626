import Logging
import Provision

/// The jobs accepted and not yet taken by a worker: any number of producers and of workers, closed
/// once on graceful shutdown, after which workers drain what is left and then get `nil`.
final class JobQueue: ManagedService {
    /// The queue's state: a value type whose transitions say what to do after the lock.
    struct State {
        private var buffer: [Job] = []
        private var head = 0
        private var waiters: [CheckedContinuation<Job?, Never>] = []
        private(set) var isClosed = false

        /// The number of jobs accepted and not yet taken.
        var count: Int { buffer.count - head }

        /// Accepts `job` unless the queue is closed; returns the waiting worker to hand it to, if any.
        mutating func accept(_ job: Job) -> (accepted: Bool, handTo: CheckedContinuation<Job?, Never>?) {
            guard !isClosed else { return (false, nil) }
            if !waiters.isEmpty { return (true, waiters.removeFirst()) }
            buffer.append(job)
            return (true, nil)
        }

        /// Takes the oldest job; `.wait` when there is none yet, `.done` when there will be none.
        mutating func take() -> Job?? {
            if head < buffer.count {
                let job = buffer[head]
                head += 1
                if head == buffer.count {
                    buffer.removeAll(keepingCapacity: true)
                    head = 0
                }
                return .some(job)
            }
            return isClosed ? .some(nil) : nil
        }

        /// Parks a worker until a job arrives or the queue closes.
        mutating func park(_ waiter: CheckedContinuation<Job?, Never>) {
            waiters.append(waiter)
        }

        /// Closes the queue; returns the parked workers, to be told there is nothing more.
        mutating func close() -> [CheckedContinuation<Job?, Never>] {
            isClosed = true
            defer { waiters = [] }
            return waiters
        }
    }

    private let logger: Logger
    private let counters: JobCounters
    private let state = Locked(State())

    /// Creates the queue; `store` is a dependency only, so that the queue starts after the store.
    init(store: JobStore, logger: Logger, counters: JobCounters) {
        self.logger = logger
        self.counters = counters
    }

    func start() async throws {
        counters.started("JobQueue", logger: logger)
    }

    func stop() async throws {
        let left = state.withLock { $0.count }
        close()
        counters.stopped("JobQueue", logger: logger)
        if left > 0 { logger.error("JobQueue dropped \(left) jobs") }
    }

    /// Adds `job` for a worker; `false` once the queue is closed.
    func accept(_ job: Job) -> Bool {
        let (accepted, worker) = state.withLock { $0.accept(job) }
        worker?.resume(returning: job)
        return accepted
    }

    /// The next job, waiting for one if needed; `nil` once the queue is closed and empty.
    func next() async -> Job? {
        await withCheckedContinuation { continuation in
            let job: Job?? = state.withLock { state in
                let job = state.take()
                if job == nil { state.park(continuation) }
                return job
            }
            if let job { continuation.resume(returning: job) }
        }
    }

    /// Stops accepting jobs; workers still get every job accepted before.
    func close() {
        let workers = state.withLock { $0.close() }
        for worker in workers { worker.resume(returning: nil) }
    }

    /// The number of jobs waiting for a worker.
    var count: Int { state.withLock { $0.count } }
}
