public import Logging
import Metrics
public import Provision
import Synchronization

/// Closes one request's scope exactly once: after its response is written, when writing fails, when
/// the handler throws, or, as a last resort, when the response is released without being written.
@usableFromInline
final class ScopeCloser: Sendable {
    private let scope: ServiceScope
    private let logger: Logger
    private let counters: ScopeCounters
    private let isClosed = Atomic(false)

    @usableFromInline
    init(scope: ServiceScope, logger: Logger, counters: ScopeCounters) {
        self.scope = scope
        self.logger = logger
        self.counters = counters
    }

    /// Closes the scope, awaiting its disposals, unless it was closed already; logs a failure.
    @usableFromInline
    func close() async {
        guard claim() else { return }
        await Self.close(scope, logger: logger, counters: counters)
    }

    deinit {
        // The response was dropped without its body being written: close in a task of its own.
        guard claim() else { return }
        let (scope, logger, counters) = (scope, logger, counters)
        Task { await Self.close(scope, logger: logger, counters: counters) }
    }

    /// Whether this caller is the one to close the scope.
    private func claim() -> Bool {
        !isClosed.exchange(true, ordering: .acquiringAndReleasing)
    }

    private static func close(_ scope: ServiceScope, logger: Logger, counters: ScopeCounters) async {
        do {
            try await scope.close()
        } catch {
            counters.failures.increment()
            logger.error("Closing the request's scope failed", metadata: ["provision.error": "\(error)"])
        }
        counters.closed.increment()
    }
}
