import Hummingbird
import Logging
import Metrics

/// Counts requests and their responses by status class, the outermost middleware of both wirings: an
/// error that leaves the router becomes Hummingbird's response of it (its status, or 500).
struct ResponseCountingMiddleware<Context: RequestContext>: RouterMiddleware {
    let counters: TodoCounters

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        counters.requests.increment()
        do {
            let response = try await next(request, context)
            counters.countResponse(response.status.code)
            return response
        } catch let error as any HTTPResponseError {
            counters.countResponse(error.status.code)
            throw error
        } catch {
            counters.countResponse(500)
            context.logger.error("Request failed", metadata: ["error": "\(error)"])
            throw error
        }
    }
}
