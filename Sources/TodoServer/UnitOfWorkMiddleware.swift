import Hummingbird

/// Commits the request's unit of work when its handler succeeds, before the response is sent, and
/// rolls it back when the handler throws: a client that gets a 2xx for a write can read it back.
struct UnitOfWorkMiddleware<Context: TodoContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            try context.unitOfWork().rollBack()
            throw error
        }
        try await context.unitOfWork().commit()
        return response
    }
}
