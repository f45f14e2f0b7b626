import Hummingbird
import Logging
import ProvisionHummingbird

@testable import Provision

/// Counts instances alive and disposed, across every task and thread.
final class Census: Sendable {
    private let counts = Locked((made: 0, alive: 0, disposed: 0))
    private let events = Locked<[String]>([])

    func made() -> Int {
        counts.withLock { counts in
            counts.made += 1
            counts.alive += 1
            return counts.made
        }
    }

    func died() {
        counts.withLock { $0.alive -= 1 }
    }

    func disposed(_ event: String) {
        counts.withLock { $0.disposed += 1 }
        events.withLock { $0.append(event) }
    }

    var alive: Int { counts.withLock { $0.alive } }
    var madeCount: Int { counts.withLock { $0.made } }
    var disposedCount: Int { counts.withLock { $0.disposed } }
    var log: [String] { events.withLock { $0 } }
}

/// A per-request service: numbered, counted alive until its deinit, disposed when its scope closes.
final class RequestState: Disposable {
    let number: Int
    let path: String
    let requestID: RequestIdentifier
    let census: Census

    init(request: Request, requestID: RequestIdentifier, census: Census) {
        self.census = census
        self.number = census.made()
        self.path = request.uri.path
        self.requestID = requestID
    }

    func dispose() {
        census.disposed("dispose RequestState \(number)")
    }

    deinit {
        census.died()
    }
}

/// A second per-request service, made after (and from) the first: disposed before it.
final class RequestAudit: AsyncDisposable {
    let state: RequestState
    let logger: Logger
    let census: Census

    init(state: RequestState, logger: Logger, census: Census) {
        self.state = state
        self.logger = logger
        self.census = census
        _ = census.made()
    }

    func dispose() async {
        await Task.yield()
        census.disposed("dispose RequestAudit \(state.number)")
    }

    deinit {
        census.died()
    }
}

/// A singleton shared by every request.
final class Greeter: Sendable {
    func greet(_ number: Int) -> String { "hello \(number)" }
}

/// The bindings of the tests: the seeds, a singleton and two scoped services.
struct WebModule: Module {
    let census: Census

    func configure(_ binder: Binder) {
        binder.bind(Census.self).toInstance(census)
        binder.bind(Greeter.self).to(Greeter.init).in(.singleton)
        binder.bind(RequestState.self).to(RequestState.init(request:requestID:census:)).in(.scoped)
        binder.bind(RequestAudit.self).to(RequestAudit.init(state:logger:census:)).in(.scoped)
    }
}

/// A logger that prints only critical messages, and keeps its metadata (the request id Hummingbird adds).
let quiet: Logger = {
    var logger = Logger(label: "provision.hummingbird.tests") { StreamLogHandler.standardError(label: $0) }
    logger.logLevel = .critical
    return logger
}()

/// A router with the middleware, for `injector`.
func scopedRouter(_ injector: Injector) -> Router<BasicScopedRequestContext> {
    let router = Router(context: BasicScopedRequestContext.self)
    router.add(middleware: RequestScopeMiddleware(injector: injector))
    return router
}

/// A census, and a router whose middleware opens the scopes of an injector of the request seeds and
/// ``WebModule``.
func scopedRouter() throws -> (Census, Router<BasicScopedRequestContext>) {
    let census = Census()
    let injector = try Injector(RequestSeedsModule(), WebModule(census: census))
    return (census, scopedRouter(injector))
}

/// Waits (suspending, yielding between checks) until `condition` holds; `false` after `limit`.
///
/// The limit is generous and the condition is checked once more after it: on 2 busy cores (the whole
/// suite under ThreadSanitizer) a check may come seconds late, and only a condition that never held is
/// a failure.
func eventually(_ limit: Duration = .seconds(60), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < deadline else { return condition() }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return true
}
