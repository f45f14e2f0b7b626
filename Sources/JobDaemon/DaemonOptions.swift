import ArgumentParser

/// The daemon's command-line options: `job-daemon [--workers N] [--interval-ms MS] [--work-ms MS]`.
struct DaemonOptions: ParsableArguments, Sendable {
    @Option(help: "The number of workers that run jobs concurrently.")
    var workers = 4

    @Option(name: .customLong("interval-ms"), help: "The time between two accepted jobs, in milliseconds.")
    var intervalMilliseconds = 10

    @Option(name: .customLong("work-ms"), help: "The longest simulated I/O wait of one job, in milliseconds.")
    var workMilliseconds = 40

    /// The time between two accepted jobs.
    var interval: Duration { .milliseconds(intervalMilliseconds) }
    /// The longest simulated I/O wait of one job (each job waits a part of it that depends on its number).
    var work: Duration { .milliseconds(workMilliseconds) }

    func validate() throws {
        guard workers >= 1 else { throw ValidationError("--workers must be at least 1") }
        guard intervalMilliseconds >= 0, workMilliseconds >= 0 else {
            throw ValidationError("--interval-ms and --work-ms can't be negative")
        }
    }
}
