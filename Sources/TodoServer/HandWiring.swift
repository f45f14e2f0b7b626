import Hummingbird
import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// The request context of the hand wiring: the request's services, made by ``HandRequestMiddleware``.
struct HandTodoContext: TodoContext {
    var coreContext: CoreRequestContextStorage
    var services: HandRequestServices?

    init(source: Source) {
        coreContext = CoreRequestContextStorage(source: source)
    }

    func todoService() throws -> TodoService {
        guard let services else { throw HTTPError(.internalServerError) }
        return services.service
    }

    func unitOfWork() throws -> UnitOfWork {
        guard let services else { throw HTTPError(.internalServerError) }
        return services.unitOfWork
    }
}

/// One request's services, made by hand.
struct HandRequestServices: Sendable {
    let unitOfWork: UnitOfWork
    let service: TodoService
}

/// Makes each request's unit of work and service, and disposes the unit of work once the response is
/// written (or the handler threw): what `RequestScopeMiddleware` and the injector do in the other
/// wiring, written out.
struct HandRequestMiddleware: RouterMiddleware {
    let client: PostgresClient
    let repository: TodoRepository
    let counters: TodoCounters

    func handle(
        _ request: Request,
        context: HandTodoContext,
        next: (Request, HandTodoContext) async throws -> Response
    ) async throws -> Response {
        let unitOfWork = UnitOfWork(client: client, logger: context.logger, counters: counters)
        let service = TodoService(repository: repository, unitOfWork: unitOfWork, logger: context.logger)
        var context = context
        context.services = HandRequestServices(unitOfWork: unitOfWork, service: service)
        let disposal = HandDisposal(unitOfWork)
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            disposal.dispose()
            throw error
        }
        let body = response.body
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            do {
                try await body.write(writer)
            } catch {
                disposal.dispose()
                throw error
            }
            disposal.dispose()
        }
        return response
    }
}

/// Disposes one unit of work exactly once, also when its response is dropped unwritten.
final class HandDisposal: Sendable {
    private let unitOfWork: UnitOfWork
    private let done = Atomic(false)

    init(_ unitOfWork: UnitOfWork) {
        self.unitOfWork = unitOfWork
    }

    func dispose() {
        if !done.exchange(true, ordering: .acquiringAndReleasing) { unitOfWork.dispose() }
    }

    deinit {
        dispose()
    }
}

/// `--wiring hand`: every service made by hand, the database client and the server in one group.
enum HandWiring {
    static func services(options: ServerOptions, counters: TodoCounters, logger: Logger) -> [any Service] {
        let client = PostgresClient(configuration: options.database.configuration, backgroundLogger: logger)
        let repository = TodoRepository(client: client)
        let router = Router(context: HandTodoContext.self)
        router.add(middleware: ResponseCountingMiddleware(counters: counters))
        router.add(middleware: HandRequestMiddleware(client: client, repository: repository, counters: counters))
        router.add(middleware: UnitOfWorkMiddleware())
        TodoRoutes.add(to: router)
        // A group stops its services from the last to the first: the server, then the client.
        return [client, options.application(router, logger: logger)]
    }
}
