import Provision

/// The example graphs `di-bench --graph` prints: a small web daemon, the same daemon broken in four
/// ways, and the 200-service graph the benchmark resolves.
enum GraphExample: String, CaseIterable {
    case daemon
    case broken
    case mixed

    var module: any Module {
        switch self {
        case .daemon: DaemonExample.HealthyModule()
        case .broken: DaemonExample.BrokenModule()
        case .mixed: MixedGraphModule()
        }
    }
}

/// A small web daemon: configuration, clients, a repository whose session store refers back to it
/// through a provider, a checkout with a lazily built audit log, request handlers collected by a
/// multibinding, metrics built by a closure that declares its dependencies, and a clock built by one
/// that doesn't.
enum DaemonExample {
    struct ServerConfig: Sendable {
        var name = "shop"
    }

    final class HTTPClient: Sendable {
        init(config: ServerConfig) {}
    }

    final class Database: Sendable {
        init(config: ServerConfig) {}
    }

    final class SessionStore: Sendable {
        let users: Provider<UserRepository>
        init(users: Provider<UserRepository>) { self.users = users }

        /// A "simplification" that resolves the repository at once instead of on demand: with it, the
        /// repository and the session store need each other to be built.
        static func caching(users: UserRepository) -> SessionStore {
            preconditionFailure("di-bench: the broken example is validated, never built")
        }
    }

    final class UserRepository: Sendable {
        init(database: Database, sessions: SessionStore) {}
    }

    protocol PaymentGateway: Sendable {}

    final class StripeGateway: PaymentGateway {
        init(config: ServerConfig, http: HTTPClient) {}
    }

    final class PayPalGateway: PaymentGateway {
        init(http: HTTPClient) {}
    }

    final class AuditLog: Sendable {
        init(database: Database) {}
    }

    final class Checkout: Sendable {
        let audit: Lazy<AuditLog>
        init(gateway: any PaymentGateway, users: UserRepository, audit: Lazy<AuditLog>) { self.audit = audit }
    }

    protocol RequestHandler: Sendable {}

    final class HealthHandler: RequestHandler {}

    final class CheckoutHandler: RequestHandler {
        init(checkout: Checkout) {}
    }

    final class Router: Sendable {
        init(handlers: [any RequestHandler]) {}
    }

    final class Metrics: Sendable {
        init(prefix: String) {}
    }

    final class SystemClock: Sendable {}

    final class App: Sendable {
        init(router: Router, metrics: Metrics, clock: SystemClock) {}
    }

    /// The bindings both variants share.
    static func bindCommon(_ binder: Binder) {
        binder.bind(ServerConfig.self).toInstance(ServerConfig())
        binder.bind(HTTPClient.self).to(HTTPClient.init(config:)).in(.singleton)
        binder.bind(UserRepository.self).to(UserRepository.init(database:sessions:))
        binder.bind(AuditLog.self).to(AuditLog.init(database:)).in(.singleton)
        binder.bind(Checkout.self).to(Checkout.init(gateway:users:audit:))
        binder.bind(Router.self).to(Router.init(handlers:)).in(.singleton)
        binder.bind(Metrics.self).to(dependencies: [BindingKey(ServerConfig.self)]) { resolver in
            Metrics(prefix: try resolver.get(ServerConfig.self).name)
        }
        .in(.singleton)
        binder.bind(SystemClock.self).to { _ in SystemClock() }.in(.singleton)
        binder.bind(App.self).to(App.init(router:metrics:clock:)).in(.singleton)
    }

    struct HealthyModule: Module {
        func configure(_ binder: Binder) {
            DaemonExample.bindCommon(binder)
            binder.bind(Database.self).to(Database.init(config:)).in(.singleton)
            binder.bind(SessionStore.self).to(SessionStore.init(users:))
            binder.bind((any PaymentGateway).self).to(StripeGateway.init(config:http:)).in(.singleton)
            binder.multibind((any RequestHandler).self).to(HealthHandler.init)
            binder.multibind((any RequestHandler).self).to(CheckoutHandler.init(checkout:))
        }
    }

    /// The daemon with four mistakes: no database, a session store that needs the repository that
    /// needs it, two payment gateways multibound where one is injected, and no request handlers.
    struct BrokenModule: Module {
        func configure(_ binder: Binder) {
            DaemonExample.bindCommon(binder)
            binder.bind(SessionStore.self).to(SessionStore.caching(users:))
            binder.multibind((any PaymentGateway).self).to(StripeGateway.init(config:http:))
            binder.multibind((any PaymentGateway).self).to(PayPalGateway.init(http:))
        }
    }
}
