import ArgumentParser
import ExampleSupport
import Logging
import Metrics
import ServiceLifecycle
import UnixSignals

/// The example server of the article "Serving HTTP with Provision": a JSON API over PostgreSQL, wired
/// by Provision (`--wiring provision`) or by hand (`--wiring hand`), stopped gracefully by SIGTERM.
@main
struct TodoServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "todo-server",
        abstract: "A to-do JSON API over PostgreSQL, wired with Provision."
    )

    @OptionGroup var options: ServerOptions

    func run() async throws {
        let level = Logger.Level(rawValue: options.logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardOutput(label: label)
            handler.logLevel = level
            return handler
        }
        let metrics = CounterSummary()
        MetricsSystem.bootstrap(metrics)
        let logger = Logger(label: "todo-server")
        let counters = TodoCounters()

        let services: [any Service]
        switch options.wiring {
        case .provision:
            services = [try ProvisionWiring.service(options: options, counters: counters, logger: logger)]
        case .hand:
            services = HandWiring.services(options: options, counters: counters, logger: logger)
        }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) },
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await group.run()
        logger.notice("Stopped", metadata: summary(metrics))
    }

    /// The counts of the run, as log metadata.
    private func summary(_ metrics: CounterSummary) -> Logger.Metadata {
        [
            "wiring": "\(options.wiring.rawValue)",
            "requests": "\(metrics.total("todo_requests_total"))",
            "responses_2xx": "\(metrics.total("todo_responses_total", [("class", "2xx")]))",
            "responses_4xx": "\(metrics.total("todo_responses_total", [("class", "4xx")]))",
            "responses_5xx": "\(metrics.total("todo_responses_total", [("class", "5xx")]))",
            "units_opened": "\(metrics.total("todo_units_opened_total"))",
            "units_disposed": "\(metrics.total("todo_units_disposed_total"))",
            "units_rolled_back": "\(metrics.total("todo_units_rolled_back_total"))",
            "writes_committed": "\(metrics.total("todo_writes_committed_total"))",
            "scopes_opened": "\(metrics.total("provision_request_scopes_opened_total"))",
            "scopes_closed": "\(metrics.total("provision_request_scopes_closed_total"))",
            "scope_close_failures": "\(metrics.total("provision_request_scope_close_failures_total"))",
        ]
    }
}
