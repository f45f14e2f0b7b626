import Hummingbird
import Logging
import Provision
import ProvisionHummingbird
import ProvisionServiceLifecycle
import ServiceLifecycle

/// The request context of the Provision wiring: the request's scope, from which handlers resolve
/// their services.
struct ScopedTodoContext: ScopedRequestContext, TodoContext {
    var coreContext: CoreRequestContextStorage
    var serviceScope: ServiceScope?

    init(source: Source) {
        coreContext = CoreRequestContextStorage(source: source)
    }

    // Synchronous requests: every factory here is synchronous and the singletons are built at start,
    // so nothing can suspend, and the synchronous path skips the async one's bookkeeping.
    func todoService() throws -> TodoService {
        try get(TodoService.self)
    }

    func unitOfWork() throws -> UnitOfWork {
        try get(UnitOfWork.self)
    }
}

/// `--wiring provision`: the injector builds the services, runs the database client, and opens one
/// scope per request.
enum ProvisionWiring {
    /// The service to run: the injector's lifecycle, with the HTTP server nested in it.
    static func service(options: ServerOptions, counters: TodoCounters, logger: Logger) throws -> any Service {
        let injector = try Injector(
            modules: [
                // The services depend on the request's logger alone: seeding the request and its identifier
                // too would copy them into every request's scope for nothing.
                RequestSeedsModule(.logger),
                TodoModule(database: options.database.configuration, logger: logger, counters: counters),
            ],
            configuration: Injector.Configuration(lifecycleAdapters: [ServiceLifecycleAdapter(logger: logger)])
        )
        try injector.validate()
        // The server starts once the injector has started (the database client runs), and stops first,
        // before the injector shuts the client down.
        return InjectorService(injector: injector, logger: logger) { injector in
            let router = Router(context: ScopedTodoContext.self)
            router.add(middleware: ResponseCountingMiddleware(counters: counters))
            router.add(middleware: RequestScopeMiddleware(injector: injector))
            router.add(middleware: UnitOfWorkMiddleware())
            TodoRoutes.add(to: router)
            return [
                ServiceGroupConfiguration.ServiceConfiguration(service: options.application(router, logger: logger))
            ]
        }
    }
}
