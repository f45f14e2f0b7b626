/// The daemon's command-line options: `job-daemon [--workers N] [--interval-ms MS] [--work-ms MS]`.
struct DaemonOptions: Sendable {
    /// The number of workers that run jobs concurrently.
    var workers = 4
    /// The time between two accepted jobs, in milliseconds.
    var intervalMilliseconds = 10
    /// The longest simulated I/O wait of one job, in milliseconds (each job waits a part of it that
    /// depends on its number).
    var workMilliseconds = 40

    /// The time between two accepted jobs.
    var interval: Duration { .milliseconds(intervalMilliseconds) }
    /// The longest simulated I/O wait of one job.
    var work: Duration { .milliseconds(workMilliseconds) }

    static let usage = "usage: job-daemon [--workers N] [--interval-ms MS] [--work-ms MS]"

    /// Parses `arguments` (without the program name); `nil` when one is unknown or not a number.
    init?(arguments: some Sequence<String>) {
        var iterator = arguments.makeIterator()
        while let flag = iterator.next() {
            guard let text = iterator.next(), let value = Int(text), value >= 0 else { return nil }
            switch flag {
            case "--workers": workers = max(1, value)
            case "--interval-ms": intervalMilliseconds = value
            case "--work-ms": workMilliseconds = value
            default: return nil
            }
        }
    }
}
