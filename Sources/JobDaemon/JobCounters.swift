import Logging
import Metrics

/// The daemon's swift-metrics counters.
struct JobCounters: Sendable {
    let accepted = Counter(label: "jobs_accepted_total")
    let finished = Counter(label: "jobs_finished_total")
    let failed = Counter(label: "jobs_failed_total")
    let servicesStarted = Counter(label: "services_started_total")
    let servicesStopped = Counter(label: "services_stopped_total")
}

extension JobCounters {
    /// Logs `started NAME` and counts the start of a service.
    func started(_ service: String, logger: Logger) {
        servicesStarted.increment()
        logger.info("started \(service)")
    }

    /// Logs `stopped NAME` and counts the stop of a service.
    func stopped(_ service: String, logger: Logger) {
        servicesStopped.increment()
        logger.info("stopped \(service)")
    }
}
