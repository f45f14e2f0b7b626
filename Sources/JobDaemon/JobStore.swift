import Logging
import Provision
import Synchronization

/// Saves the result of every job in the database; started after it, stopped before it.
final class JobStore: ManagedService {
    private let logger: Logger
    private let counters: JobCounters
    private let isOpen = Atomic(false)

    /// Creates the store; `database` is a dependency only, so that the store starts after it.
    init(database: Database, logger: Logger, counters: JobCounters) {
        self.logger = logger
        self.counters = counters
    }

    func start() async throws {
        isOpen.store(true, ordering: .releasing)
        counters.started("JobStore", logger: logger)
    }

    func stop() async throws {
        isOpen.store(false, ordering: .releasing)
        counters.stopped("JobStore", logger: logger)
    }

    /// Saves the result of `job` in `transaction`: written to the database when the job's scope closes.
    func save(_ job: Job, checksum: UInt32, in transaction: Transaction) throws(DaemonError) {
        guard isOpen.load(ordering: .acquiring) else { throw DaemonError("the job store is stopped") }
        transaction.write(row: job.id, value: checksum)
    }
}
