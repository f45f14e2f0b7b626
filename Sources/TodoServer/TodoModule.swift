import Logging
import PostgresNIO
import Provision
import ProvisionHummingbird

/// The server's bindings: the database client and repository once per process, a unit of work and a
/// service per request.
struct TodoModule: Module {
    let database: PostgresClient.Configuration
    let logger: Logger
    let counters: TodoCounters

    func configure(_ binder: Binder) {
        binder.bind(TodoCounters.self).toInstance(counters)
        binder.bind(Logger.self, named: "server").toInstance(logger)

        // A swift-service-lifecycle `Service`: the injector runs it (ServiceLifecycleAdapter) before the
        // HTTP server starts, and shuts it down gracefully after the server has stopped.
        binder.bind(PostgresClient.self).to { resolver in
            PostgresClient(configuration: database, backgroundLogger: try resolver.get(Logger.self, named: "server"))
        }.in(.singleton)
        binder.bind(TodoRepository.self).to(TodoRepository.init(client:)).in(.singleton)

        // One unit of work per request, and a service made for each use, with the request's unit of
        // work. The `Logger` is the request's, seeded by RequestScopeMiddleware (RequestSeedsModule
        // declares it), with the request id in its metadata.
        binder.bind(UnitOfWork.self).to(UnitOfWork.init(client:logger:counters:)).in(.scoped)
        binder.bind(TodoService.self).to(TodoService.init(repository:unitOfWork:logger:))
    }
}
