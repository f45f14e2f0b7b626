import Foundation
import Logging
import Provision
import ProvisionServiceLifecycle
import ServiceLifecycle
import UnixSignals

/// The example daemon of the article "Writing a daemon with Provision": it processes jobs on a pool
/// of workers until SIGTERM, then stops accepting, finishes every accepted job and stops its services
/// in reverse order. Every event is one line on standard output; `Scripts/daemon-check.sh` checks them.
@main
enum JobDaemon {
    static func main() async {
        guard let options = DaemonOptions(arguments: CommandLine.arguments.dropFirst()) else {
            FileHandle.standardError.write(Data((DaemonOptions.usage + "\n").utf8))
            exit(64)
        }
        let console = Console()
        do {
            try await run(options: options, console: console)
        } catch {
            console.line("failed: \(error)")
            exit(1)
        }
    }

    static func run(options: DaemonOptions, console: Console) async throws {
        let injector = try Injector(
            DaemonModule(
                console: console,
                database: DatabaseConfig(url: "memory://jobs", connectLatency: .milliseconds(20))
            )
        )
        let logger = Logger(label: "job-daemon")

        // The injector's singletons start before the job runner runs, and stop after it has returned.
        let daemon = InjectorService(injector: injector, logger: logger) { injector in
            let runner = JobRunner(
                injector: injector,
                queue: try await injector.get(JobQueue.self),
                store: try await injector.get(JobStore.self),
                metrics: try await injector.get(Metrics.self),
                console: console,
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
        console.line(console.summary)
    }
}
