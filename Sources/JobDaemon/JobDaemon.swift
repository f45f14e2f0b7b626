import ArgumentParser
import ExampleSupport
import Logging
import Metrics
import Provision
import ProvisionServiceLifecycle
import ServiceLifecycle
import UnixSignals

/// The example daemon of the article "Writing a daemon with Provision": it processes jobs on a pool
/// of workers until SIGTERM, then stops accepting, finishes every accepted job and stops its services
/// in reverse order. Every event is one log line on standard output; `Scripts/daemon-check.sh` checks
/// them.
@main
struct JobDaemon: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "job-daemon",
        abstract: "Runs jobs on a pool of workers until SIGTERM, then drains them and stops."
    )

    @OptionGroup var options: DaemonOptions

    func run() async throws {
        LoggingSystem.bootstrap { label in StreamLogHandler.standardOutput(label: label) }
        let metrics = CounterSummary()
        MetricsSystem.bootstrap(metrics)
        let logger = Logger(label: "job-daemon")
        let injector = try Injector(
            DaemonModule(
                logger: logger,
                database: DatabaseConfig(url: "memory://jobs", connectLatency: .milliseconds(20)),
                metrics: metrics
            )
        )

        // The injector's singletons start before the job runner runs, and stop after it has returned.
        let daemon = InjectorService(injector: injector, logger: logger) { injector in
            let runner = JobRunner(
                injector: injector,
                queue: try await injector.get(JobQueue.self),
                store: try await injector.get(JobStore.self),
                summary: metrics,
                logger: logger,
                counters: try await injector.get(JobCounters.self),
                options: options
            )
            return [ServiceGroupConfiguration.ServiceConfiguration(service: runner)]
        }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [daemon],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await group.run()
        let started = metrics.total("services_started_total")
        let stopped = metrics.total("services_stopped_total")
        logger.info("summary: \(metrics.jobCounts), services started \(started), stopped \(stopped)")
    }
}
