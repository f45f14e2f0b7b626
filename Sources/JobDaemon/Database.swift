import Logging
import Provision

/// A simulated database: connected by an async factory, open between its start and its stop hooks.
///
/// Every write after ``stop()`` fails, so a job that outlived the database would be reported as
/// failed: the daemon's output shows that no job did.
final class Database: ManagedService {
    private struct State {
        var isOpen = false
        var rows: [Int: UInt32] = [:]
    }

    private let logger: Logger
    private let counters: JobCounters
    private let state = Locked(State())

    private init(logger: Logger, counters: JobCounters) {
        self.logger = logger
        self.counters = counters
    }

    /// Connects to the database at `config.url`: the async factory of the binding.
    static func connect(config: DatabaseConfig, logger: Logger, counters: JobCounters) async throws -> Database {
        try await Task.sleep(for: config.connectLatency)
        logger.info("connected Database to \(config.url)")
        return Database(logger: logger, counters: counters)
    }

    func start() async throws {
        state.withLock { $0.isOpen = true }
        counters.started("Database", logger: logger)
    }

    func stop() async throws {
        let rows = state.withLock { state in
            state.isOpen = false
            return state.rows.count
        }
        counters.stopped("Database", logger: logger)
        logger.info("Database holds \(rows) rows")
    }

    /// Stores the results of one committed transaction.
    func commit(_ results: [Int: UInt32]) throws(DaemonError) {
        try state.withLock { state throws(DaemonError) in
            guard state.isOpen else { throw DaemonError("the database is closed") }
            state.rows.merge(results) { _, new in new }
        }
    }

    /// The number of rows stored.
    var rowCount: Int { state.withLock { $0.rows.count } }
}
