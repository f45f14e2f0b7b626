import Provision
import Synchronization

/// What one job's services share: the job's number. One per job scope (`.scoped`); the worker tells it
/// which job it belongs to before resolving anything else in the scope.
final class JobContext: Disposable {
    private let console: Console
    private let jobID = Atomic(0)

    init(console: Console) {
        self.console = console
    }

    /// The job this context belongs to, `0` before ``assign(_:)``.
    var job: Int { jobID.load(ordering: .acquiring) }

    /// Tells the context which job it belongs to.
    func assign(_ job: Int) {
        jobID.store(job, ordering: .releasing)
    }

    /// Called when the job's scope closes, after the scope's later instances (the transaction).
    func dispose() throws {
        console.line("job \(job) disposed JobContext")
    }
}
