public import Hummingbird
public import Logging
import Metrics
public import Provision

/// Opens one ``Provision/ServiceScope`` per request, seeded with the request, and closes it once the
/// response is written: every scoped service a request resolves is its own, and is disposed after the
/// client has its response.
///
/// ```swift
/// let injector = try Injector(RequestSeedsModule(), AppModule())
/// let router = Router(context: BasicScopedRequestContext.self)
/// router.add(middleware: RequestScopeMiddleware(injector: injector))
/// router.get("/todos") { request, context in
///     try await context.get(TodoRepository.self).all()
/// }
/// ```
///
/// ## Seeds
///
/// Each scope is seeded with the `Request`, the request's `Logger` (Hummingbird's, with the
/// `hb.request.id` metadata) and its ``RequestIdentifier``: each of them that the injector declares as
/// a seed (``RequestSeedsModule`` declares all three), so that scoped services can depend on them.
/// `seeding` adds your own (a `ServiceContext`, an authenticated user):
///
/// ```swift
/// RequestScopeMiddleware(injector: injector) { request, context, seed in
///     seed.provide(ServiceContext.current ?? .topLevel)
/// }
/// ```
///
/// ## When the scope closes
///
/// - The handler returns a response: the scope closes after the response's body is written, or when
///   writing it fails (the client went away). Scoped instances stay usable while a streamed body is
///   written. A response that is dropped without being written (a later middleware replaced it)
///   closes the scope when it is released.
/// - The handler throws: the scope closes before the error leaves the middleware (Hummingbird then
///   writes the error's response), so an outer middleware sees the error with the scope's disposals
///   done.
///
/// Closing awaits every disposal (``Provision/AsyncDisposable`` ones too), each bounded by the
/// injector's `lifecycleHookTimeout`; a disposal that fails is logged on the request's logger at
/// `error`, never sent to the client.
///
/// ## Metrics
///
/// Three swift-metrics counters: `provision_request_scopes_opened_total`,
/// `provision_request_scopes_closed_total` and `provision_request_scope_close_failures_total`. Once
/// every response is written, opened equals closed.
public struct RequestScopeMiddleware<Context: ScopedRequestContext>: RouterMiddleware {
    /// Adds values to a request's scope seed, beside the request, logger and identifier.
    public typealias Seeding = @Sendable (Request, Context, inout ScopeSeed) -> Void

    /// The injector whose scopes the requests get.
    public let injector: Injector

    @usableFromInline let seeding: Seeding?
    @usableFromInline let seeds: DeclaredSeeds
    @usableFromInline let counters: ScopeCounters

    /// Creates the middleware.
    ///
    /// - Parameters:
    ///   - injector: The injector whose scopes the requests get.
    ///   - seeding: Adds values to each request's scope seed; none by default.
    public init(injector: Injector, seeding: Seeding? = nil) {
        self.injector = injector
        self.seeding = seeding
        self.seeds = DeclaredSeeds(injector)
        self.counters = ScopeCounters()
    }

    /// Runs `next` with the request's scope in its context, and closes the scope once the response is
    /// written (or `next` threw).
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - context: The request's context; `next` gets it with ``ScopedRequestContext/serviceScope`` set.
    ///   - next: The rest of the middleware chain and the handler.
    /// - Returns: `next`'s response, whose body closes the scope once written.
    /// - Throws: ``Provision/ProvisionError`` with code `notSeeded` when `seeding` provided a key no seed
    ///   binding declares; what `next` throws, once the scope is closed.
    @inlinable
    public func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let scope = try injector.makeScope { (seed: inout ScopeSeed) throws(ProvisionError) in
            seeds.provide(request: request, logger: context.logger, to: &seed)
            seeding?(request, context, &seed)
        }
        counters.countOpened()
        let closer = ScopeCloser(scope: scope, logger: context.logger, counters: counters)
        var context = context
        context.serviceScope = scope
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            await closer.close()
            throw error
        }
        let body = response.body
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            do {
                try await body.write(writer)
            } catch {
                await closer.close()
                throw error
            }
            await closer.close()
        }
        return response
    }
}

/// Which of the middleware's own seeds the injector declares: looked up once, not per request.
@usableFromInline
struct DeclaredSeeds: Sendable {
    let request: Bool
    let logger: Bool
    let identifier: Bool

    init(_ injector: Injector) {
        request = injector.hasSeed(Request.self)
        logger = injector.hasSeed(Logger.self)
        identifier = injector.hasSeed(RequestIdentifier.self)
    }

    /// Provides the declared ones (checked once, at the middleware's creation: not looked up again per
    /// request).
    @usableFromInline
    func provide(request: Request, logger: Logger, to seed: inout ScopeSeed) {
        if self.request { seed.provideDeclared(request) }
        if self.logger { seed.provideDeclared(logger) }
        if identifier { seed.provideDeclared(RequestIdentifier(logger: logger)) }
    }
}

/// The middleware's counters.
@usableFromInline
struct ScopeCounters: Sendable {
    let opened = Counter(label: "provision_request_scopes_opened_total")
    let closed = Counter(label: "provision_request_scopes_closed_total")
    let failures = Counter(label: "provision_request_scope_close_failures_total")

    @usableFromInline
    init() {}

    /// Counts a scope opened.
    @usableFromInline
    func countOpened() {
        opened.increment()
    }
}
