import Logging
import Provision

/// What one job's services share: the job, and a logger that names it. One per job scope (`.scoped`),
/// made from the job the scope is seeded with.
final class JobContext: Disposable {
    /// The job of the scope.
    let job: Job
    /// The daemon's logger, with the job's number in its metadata.
    let logger: Logger

    init(job: Job, logger: Logger) {
        self.job = job
        var logger = logger
        logger[metadataKey: "job"] = "\(job.id)"
        self.logger = logger
    }

    /// Called when the job's scope closes, after the scope's later instances (the transaction).
    func dispose() throws {
        logger.info("job \(job.id) disposed JobContext")
    }
}
