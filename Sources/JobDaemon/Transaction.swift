import Provision
import Synchronization

/// The writes of one job, committed to the database when the job's scope closes. One per job scope
/// (`.scoped`); it shares the scope's ``JobContext``.
final class Transaction: AsyncDisposable {
    private let database: Database
    private let context: JobContext
    private let console: Console
    private let pending = Mutex<[Int: UInt32]>([:])

    init(database: Database, context: JobContext, console: Console) {
        self.database = database
        self.context = context
        self.console = console
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
        console.line("job \(context.job) disposed Transaction (\(rows.count) rows committed)")
    }
}
