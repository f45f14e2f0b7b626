import ExampleSupport
import Logging
import Provision

/// Logs the job counts once a second while it runs, read from the swift-metrics backend. It is not a
/// `ManagedService`: its binding's `onStart` hook launches the reporting task, its `onStop` hook ends
/// it. Started last, stopped first.
final class MetricsReporter: Sendable {
    private let queue: JobQueue
    private let summary: CounterSummary
    private let logger: Logger
    private let counters: JobCounters
    private let reporter = Locked<Task<Void, Never>?>(nil)

    init(queue: JobQueue, summary: CounterSummary, logger: Logger, counters: JobCounters) {
        self.queue = queue
        self.summary = summary
        self.logger = logger
        self.counters = counters
    }

    /// Starts reporting the counts once a second.
    func startReporting() {
        let task = Task { [self] in
            while (try? await Task.sleep(for: .seconds(1))) != nil {
                logger.info("metrics \(summary.jobCounts), queued \(queue.count)")
            }
        }
        reporter.withLock { $0 = task }
        counters.started("MetricsReporter", logger: logger)
    }

    /// Stops reporting, once the reporting task has ended.
    func stopReporting() async {
        let task = reporter.withLock { task in
            defer { task = nil }
            return task
        }
        task?.cancel()
        await task?.value
        counters.stopped("MetricsReporter", logger: logger)
    }
}

extension CounterSummary {
    /// The job counts so far: `accepted A, finished F, failed X`.
    var jobCounts: String {
        "accepted \(total("jobs_accepted_total")), finished \(total("jobs_finished_total")), "
            + "failed \(total("jobs_failed_total"))"
    }
}
