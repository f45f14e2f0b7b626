import Provision
import Synchronization

/// Counts jobs and reports the counts once a second while it runs. It is not a `ManagedService`: its
/// binding's `onStart` hook launches the reporting task, its `onStop` hook ends it. Started last,
/// stopped first.
final class Metrics: Sendable {
    private let queue: JobQueue
    private let console: Console
    private let accepted = Atomic(0)
    private let finished = Atomic(0)
    private let failed = Atomic(0)
    private let reporter = Mutex<Task<Void, Never>?>(nil)

    init(queue: JobQueue, console: Console) {
        self.queue = queue
        self.console = console
    }

    /// Starts reporting the counts once a second.
    func startReporting() {
        let task = Task { [self] in
            while (try? await Task.sleep(for: .seconds(1))) != nil {
                console.line("metrics \(summary), queued \(queue.count)")
            }
        }
        reporter.withLock { $0 = task }
        console.started("Metrics")
    }

    /// Stops reporting, once the reporting task has ended.
    func stopReporting() async {
        let task = reporter.withLock { task in
            defer { task = nil }
            return task
        }
        task?.cancel()
        await task?.value
        console.stopped("Metrics")
    }

    /// Counts an accepted job.
    func jobAccepted() { accepted.add(1, ordering: .relaxed) }

    /// Counts a finished job.
    func jobFinished() { finished.add(1, ordering: .relaxed) }

    /// Counts a failed job.
    func jobFailed() { failed.add(1, ordering: .relaxed) }

    /// The counts so far: accepted, finished, failed.
    var counts: (accepted: Int, finished: Int, failed: Int) {
        (accepted.load(ordering: .relaxed), finished.load(ordering: .relaxed), failed.load(ordering: .relaxed))
    }

    /// `accepted A, finished F, failed X`.
    var summary: String {
        let (accepted, finished, failed) = counts
        return "accepted \(accepted), finished \(finished), failed \(failed)"
    }
}
