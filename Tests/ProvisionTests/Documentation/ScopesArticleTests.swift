import Foundation
import Provision
import Testing

// The "Scopes and lifetimes" article's example, verbatim between the markers.
// SCOPES-EXAMPLE-BEGIN
final class ConnectionPool: AsyncDisposable {
    static func open(size: Int) async throws -> ConnectionPool { ConnectionPool(size: size) }

    let size: Int
    private init(size: Int) { self.size = size }

    func dispose() async {} // closes the connections
}

final class RequestContext: Disposable {
    let requestID: Int
    init(requestID: Int) { self.requestID = requestID }

    func dispose() {} // flushes the request's log lines
}

final class OrderStore: Sendable {
    let pool: ConnectionPool
    let context: RequestContext

    init(pool: ConnectionPool, context: RequestContext) {
        self.pool = pool
        self.context = context
    }
}

final class MetricsReporter: ManagedService {
    func start() async throws {} // connects to the collector
    func stop() async throws {} // flushes what is buffered
}

struct ShopModule: Module {
    let nextRequestID: @Sendable () -> Int

    func configure(_ binder: Binder) {
        // One pool for the process, opened asynchronously, closed at shutdown.
        binder.bind(ConnectionPool.self).to { _ async throws in
            try await ConnectionPool.open(size: 8)
        }.in(.singleton)
        // One context per request, disposed when the request's scope closes.
        binder.bind(RequestContext.self).to { _ in RequestContext(requestID: nextRequestID()) }.in(.scoped)
        // A new store for every use, sharing the request's context.
        binder.bind(OrderStore.self).to(OrderStore.init(pool:context:))
        binder.bind(MetricsReporter.self).to(MetricsReporter.init).in(.singleton)
    }
}

func handleTwoRequests() async throws -> [Int] {
    let counter = RequestCounter()
    let injector = try Injector(ShopModule(nextRequestID: counter.next))
    try await injector.start() // opens the pool, starts the reporter

    var handled: [Int] = []
    for _ in 0..<2 {
        let id = try await injector.withScope { scope in
            let first = try await scope.get(OrderStore.self)
            let second = try await scope.get(OrderStore.self)
            precondition(first.context === second.context) // one context per scope
            return first.context.requestID
        } // the request's context is disposed here
        handled.append(id)
    }

    try await injector.shutdown() // stops the reporter, then disposes the pool
    return handled
}
// SCOPES-EXAMPLE-END

final class RequestCounter: Sendable {
    private let value = Locked(0)

    @Sendable func next() -> Int {
        value.withLock { value in
            value += 1
            return value
        }
    }
}

@Suite("Documentation: scopes and lifetimes")
struct ScopesArticleTests {
    @Test("the article's example runs as written: one context per request")
    func exampleRuns() async throws {
        #expect(try await handleTwoRequests() == [1, 2])
    }

    @Test("the article shows exactly the example this test runs")
    func articleMatchesTest() throws {
        let root = URLPath.packageRoot(from: #filePath)
        let article = try String(
            contentsOfFile: root + "/Sources/Provision/Provision.docc/ScopesAndLifetimes.md",
            encoding: .utf8
        )
        let test = try String(contentsOfFile: #filePath, encoding: .utf8)
        let example = try #require(URLPath.between("// SCOPES-EXAMPLE-BEGIN\n", "// SCOPES-EXAMPLE-END", in: test))
        #expect(article.contains(example), "ScopesAndLifetimes.md's example differs from ScopesArticleTests.swift")
    }
}
