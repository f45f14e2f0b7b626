import ArgumentParser
import Hummingbird
import Logging
import PostgresNIO
import ServiceLifecycle

/// How the services are wired: by the injector, or by hand (to compare the two).
enum Wiring: String, ExpressibleByArgument, CaseIterable, Sendable {
    case provision
    case hand
}

/// Where the database is.
struct DatabaseOptions: ParsableArguments, Sendable {
    @Option(name: .customLong("db-host"), help: "The PostgreSQL host.")
    var host = "127.0.0.1"

    @Option(name: .customLong("db-port"), help: "The PostgreSQL port.")
    var port = 5432

    @Option(name: .customLong("db-user"), help: "The PostgreSQL user.")
    var user = "todo"

    @Option(name: .customLong("db-password"), help: "The PostgreSQL password.")
    var password = "todo"

    @Option(name: .customLong("db-name"), help: "The PostgreSQL database.")
    var name = "todo"

    @Option(name: .customLong("db-connections"), help: "The most connections the pool opens.")
    var connections = 16

    /// The client's configuration: no TLS (a loopback database).
    var configuration: PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: user, password: password, database: name, tls: .disable)
        configuration.options.maximumConnections = connections
        configuration.options.minimumConnections = min(4, connections)
        return configuration
    }
}

/// The server's options.
struct ServerOptions: ParsableArguments, Sendable {
    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0: any free port).")
    var port = 8080

    @Option(help: "How the services are wired: provision or hand.")
    var wiring = Wiring.provision

    @Option(
        name: .customLong("log-level"), help: "The lowest level logged: trace, debug, info, notice, warning, error.")
    var logLevel = "info"

    @OptionGroup(title: "Database")
    var database: DatabaseOptions

    /// The Hummingbird application serving `router`.
    func application<Responder: HTTPResponderBuilder>(_ router: Responder, logger: Logger) -> some Service
    where Responder.Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
        Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in
                logger.notice("Listening", metadata: ["address": "\(channel.localAddress.map { "\($0)" } ?? "?")"])
            },
            logger: logger
        )
    }
}
