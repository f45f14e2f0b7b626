import Logging
import Provision

/// The writes of one job, committed to the database when the job's scope closes. One per job scope
/// (`.scoped`); it shares the scope's ``JobContext``.
final class Transaction: AsyncDisposable {
    private let database: Database
    private let context: JobContext
    private let pending = Locked<[Int: UInt32]>([:])

    init(database: Database, context: JobContext) {
        self.database = database
        self.context = context
    }

    /// Adds a row to the transaction.
    func write(row: Int, value: UInt32) {
        pending.withLock { $0[row] = value }
    }

    /// Commits the pending rows: the scope calls it when it closes, before it disposes the context.
    func dispose() async throws {
        let rows = pending.withLock { rows in
            defer { rows = [:] }
            return rows
        }
        // A real driver would await the server here.
        await Task.yield()
        try database.commit(rows)
        context.logger.info("job \(context.job.id) disposed Transaction (\(rows.count) rows committed)")
    }
}
