import Logging
import Metrics
import PostgresNIO
import Provision

/// The writes of one request, committed in one transaction when its handler succeeds, discarded when
/// it throws. One per request: `.scoped` in the Provision wiring, made by the request middleware in
/// the hand wiring.
///
/// Writes are queued, not sent: a handler that throws halfway has sent nothing, and a commit that
/// fails rolls back the whole transaction. The response of a write is sent only after the commit
/// succeeded (``UnitOfWorkMiddleware``), so a 2xx means the write is in the database.
final class UnitOfWork: Disposable {
    private enum Phase {
        case open
        case committed
        case rolledBack
    }

    private struct State {
        var phase = Phase.open
        var pending: [PostgresQuery] = []
    }

    private let client: PostgresClient
    private let logger: Logger
    private let counters: TodoCounters
    private let state = Locked(State())

    init(client: PostgresClient, logger: Logger, counters: TodoCounters) {
        self.client = client
        self.logger = logger
        self.counters = counters
        counters.unitsOpened.increment()
    }

    /// Queues a statement; it runs in the transaction at ``commit()``.
    func write(_ query: PostgresQuery) {
        state.withLock { $0.pending.append(query) }
    }

    /// Runs the queued statements in one transaction. With none queued, does nothing.
    func commit() async throws {
        let pending = state.withLock { state in
            defer {
                state.pending = []
                state.phase = .committed
            }
            return state.pending
        }
        guard !pending.isEmpty else { return }
        try await client.withTransaction(logger: logger) { connection in
            for query in pending {
                try await connection.query(query, logger: logger)
            }
        }
        counters.writesCommitted.increment(by: pending.count)
        logger.debug("Committed the request's writes", metadata: ["todo.writes": "\(pending.count)"])
    }

    /// Discards the queued statements.
    func rollBack() {
        let discarded = state.withLock { state in
            defer {
                state.pending = []
                state.phase = .rolledBack
            }
            return state.phase == .open ? state.pending.count : 0
        }
        counters.unitsRolledBack.increment()
        if discarded > 0 {
            logger.debug("Rolled back the request's writes", metadata: ["todo.writes": "\(discarded)"])
        }
    }

    /// Called when the request's scope closes, after its response was written: a unit neither
    /// committed nor rolled back (the request was abandoned) is rolled back.
    func dispose() {
        if state.withLock({ $0.phase == .open }) { rollBack() }
        counters.unitsDisposed.increment()
    }
}
