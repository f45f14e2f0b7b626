import Hummingbird
import HummingbirdTesting
import Logging
import ProvisionHummingbird
import Testing

@testable import Provision

@Suite("RequestScopeMiddleware")
struct RequestScopeMiddlewareTests {
    @Test(
        "each request gets its own scoped instances, shared within the request, and the seeds",
        arguments: [
            TestingSetup.router, .live,
        ])
    func perRequestInstances(setup: TestingSetup) async throws {
        let (census, router) = try scopedRouter()
        router.get("/state/:name") { request, context -> String in
            let state = try await context.get(RequestState.self)
            let again = try await context.get(RequestState.self)
            let audit = try await context.get(RequestAudit.self)
            let logger = try await context.get(Logger.self)
            let id = logger[metadataKey: "hb.request.id"]?.description
            let greeting = try await context.get(Greeter.self).greet(state.number)
            return
                "\(greeting) \(state === again && audit.state === state) \(state.path) \(state.requestID.value == id)"
        }
        let app = Application(router: router, logger: quiet)
        try await app.test(setup) { client in
            try await client.execute(uri: "/state/a", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "hello 1 true /state/a true")
            }
            try await client.execute(uri: "/state/b", method: .get) { response in
                // The second request's RequestState is number 3: number 2 was the first request's audit.
                #expect(String(buffer: response.body) == "hello 3 true /state/b true")
            }
        }
        #expect(await eventually { census.disposedCount == 4 })
        #expect(await eventually { census.alive == 0 })
    }

    @Test(
        "a scope's instances are disposed newest first, after the response is written",
        arguments: [
            TestingSetup.router, .live,
        ])
    func disposalOrder(setup: TestingSetup) async throws {
        let (census, router) = try scopedRouter()
        let disposedBeforeReturn = Locked(-1)
        router.get("/audit") { _, context -> String in
            let audit = try await context.get(RequestAudit.self)
            disposedBeforeReturn.withLock { $0 = census.disposedCount }
            return "\(audit.state.number)"
        }
        let app = Application(router: router, logger: quiet)
        try await app.test(setup) { client in
            try await client.execute(uri: "/audit", method: .get) { response in
                #expect(String(buffer: response.body) == "1")
            }
        }
        #expect(disposedBeforeReturn.withLock { $0 } == 0)
        #expect(await eventually { census.disposedCount == 2 })
        #expect(census.log == ["dispose RequestAudit 1", "dispose RequestState 1"])
        #expect(await eventually { census.alive == 0 })
    }

    @Test(
        "a handler that throws gets its scope disposed, and its error's response",
        arguments: [
            TestingSetup.router, .live,
        ])
    func disposalOnError(setup: TestingSetup) async throws {
        let (census, router) = try scopedRouter()
        router.get("/fail") { _, context -> String in
            _ = try await context.get(RequestAudit.self)
            throw HTTPError(.conflict, message: "no")
        }
        router.get("/crash") { _, context -> String in
            _ = try await context.get(RequestState.self)
            struct Crash: Error {}
            throw Crash()
        }
        let app = Application(router: router, logger: quiet)
        try await app.test(setup) { client in
            try await client.execute(uri: "/fail", method: .get) { response in
                #expect(response.status == .conflict)
            }
            try await client.execute(uri: "/crash", method: .get) { response in
                #expect(response.status == .internalServerError)
            }
        }
        #expect(await eventually { census.disposedCount == 3 })
        #expect(census.log == ["dispose RequestAudit 1", "dispose RequestState 1", "dispose RequestState 3"])
        #expect(await eventually { census.alive == 0 })
    }

    @Test("1,000 concurrent requests each get their own scope, and no instance outlives its request")
    func thousandConcurrentRequests() async throws {
        let (census, router) = try scopedRouter()
        // Every request holds its instance until all 1,000 have theirs: they are all in flight at once.
        let barrier = AsyncCountdown(1000)
        router.get("/concurrent") { _, context -> String in
            let state = try await context.get(RequestState.self)
            await barrier.arriveAndWait()
            return "\(state.number) \(state.requestID)"
        }
        let app = Application(router: router, logger: quiet)
        let answers = try await app.test(.router) { client in
            try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<1000 {
                    group.addTask {
                        try await client.execute(uri: "/concurrent", method: .get) { String(buffer: $0.body) }
                    }
                }
                var answers: [String] = []
                for try await answer in group { answers.append(answer) }
                return answers
            }
        }
        #expect(answers.count == 1000)
        #expect(Set(answers.map { $0.split(separator: " ")[0] }).count == 1000)
        #expect(Set(answers.map { $0.split(separator: " ")[1] }).count == 1000)
        #expect(census.madeCount == 1000)
        #expect(await eventually { census.disposedCount == 1000 })
        #expect(await eventually { census.alive == 0 })
    }

    @Test("1,000 requests over 50 live connections: every scope closed, every instance released")
    func liveConnections() async throws {
        let (census, router) = try scopedRouter()
        router.get("/n") { _, context -> String in
            "\(try await context.get(RequestAudit.self).state.number)"
        }
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: quiet)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        let connection = TestClient(host: "127.0.0.1", port: port)
                        connection.connect()
                        for _ in 0..<20 {
                            let response = try await connection.get("/n")
                            #expect(response.status == .ok)
                        }
                        try await connection.shutdown()
                    }
                }
                try await group.waitForAll()
            }
        }
        #expect(census.madeCount == 2000)
        #expect(await eventually { census.disposedCount == 2000 })
        #expect(await eventually { census.alive == 0 })
    }

    @Test("a client that disconnects before its response still gets its scope disposed")
    func clientDisconnects() async throws {
        let (census, router) = try scopedRouter()
        let arrived = AsyncCountdown(2)
        let release = AsyncCountdown(2)
        router.get("/slow") { _, context -> String in
            _ = try await context.get(RequestAudit.self)
            await arrived.arriveAndWait()
            await release.arriveAndWait()
            return String(repeating: "x", count: 100_000)
        }
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: quiet)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let connection = TestClient(host: "127.0.0.1", port: port)
            connection.connect()
            try await connection.executeAndDontWaitForResponse(TestClient.Request("/slow", method: .get))
            await arrived.arriveAndWait()
            // The client goes away while the handler still runs.
            try await connection.shutdown()
            await release.arriveAndWait()
            #expect(await eventually { census.disposedCount == 2 })
        }
        #expect(census.log == ["dispose RequestAudit 1", "dispose RequestState 1"])
        #expect(await eventually { census.alive == 0 })
    }

    @Test("a response that an outer middleware drops unwritten still gets its scope closed")
    func droppedResponse() async throws {
        /// Replaces every response by an error after the inner middleware made it.
        struct Dropping<Context: RequestContext>: RouterMiddleware {
            func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
                async throws -> Response
            {
                _ = try await next(request, context)
                throw HTTPError(.serviceUnavailable)
            }
        }
        let census = Census()
        let injector = try Injector(RequestSeedsModule(), WebModule(census: census))
        let router = Router(context: BasicScopedRequestContext.self)
        router.add(middleware: Dropping())
        router.add(middleware: RequestScopeMiddleware(injector: injector))
        router.get("/dropped") { _, context -> String in
            "\(try await context.get(RequestAudit.self).state.number)"
        }
        let app = Application(router: router, logger: quiet)
        try await app.test(.router) { client in
            try await client.execute(uri: "/dropped", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
            }
        }
        #expect(await eventually { census.disposedCount == 2 })
        #expect(census.log == ["dispose RequestAudit 1", "dispose RequestState 1"])
        #expect(await eventually { census.alive == 0 })
    }

    @Test("resolving without the middleware throws outsideScope with the fix")
    func withoutMiddleware() async throws {
        let router = Router(context: BasicScopedRequestContext.self)
        let caught = Locked<ProvisionError?>(nil)
        router.get("/unscoped") { _, context -> String in
            do throws(ProvisionError) {
                return try await context.get(Greeter.self).greet(0)
            } catch {
                caught.withLock { $0 = error }
                throw error
            }
        }
        let app = Application(router: router, logger: quiet)
        try await app.test(.router) { client in
            try await client.execute(uri: "/unscoped", method: .get) { response in
                #expect(response.status == .internalServerError)
            }
        }
        let error = try #require(caught.withLock { $0 })
        #expect(error.code == .outsideScope)
        #expect(error.hint.contains("RequestScopeMiddleware"))
    }

    @Test("seeds the injector doesn't declare are not provided; a custom seed is")
    func seedsDeclaredOnly() async throws {
        struct Tenant: Sendable { let name: String }
        final class TenantView: Sendable {
            let tenant: Tenant
            init(tenant: Tenant) { self.tenant = tenant }
        }
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Tenant.self).toSeed()
                binder.bind(TenantView.self).to(TenantView.init(tenant:)).in(.scoped)
            }
        )
        #expect(!injector.hasSeed(Request.self))
        let router = Router(context: BasicScopedRequestContext.self)
        router.add(
            middleware: RequestScopeMiddleware(injector: injector) { request, _, seed in
                seed.provide(Tenant(name: request.uri.queryParameters.get("tenant") ?? "none"))
            })
        router.get("/tenant") { _, context in try await context.get(TenantView.self).tenant.name }
        let app = Application(router: router, logger: quiet)
        try await app.test(.router) { client in
            try await client.execute(uri: "/tenant?tenant=acme", method: .get) { response in
                #expect(String(buffer: response.body) == "acme")
            }
        }
    }

    @Test("RequestSeedsModule(.logger) declares the logger alone: the scope has the request's logger, not the request")
    func loggerSeedOnly() async throws {
        final class RequestLog: Sendable {
            let id: String?
            init(logger: Logger) { id = logger[metadataKey: "hb.request.id"]?.description }
        }
        let injector = try Injector(
            RequestSeedsModule(.logger),
            ClosureModule { binder in
                binder.bind(RequestLog.self).to(RequestLog.init(logger:)).in(.scoped)
            }
        )
        #expect(injector.hasSeed(Logger.self))
        #expect(!injector.hasSeed(Request.self))
        #expect(!injector.hasSeed(RequestIdentifier.self))
        #expect(RequestSeedsModule().seeds == .all)
        let router = Router(context: BasicScopedRequestContext.self)
        router.add(middleware: RequestScopeMiddleware(injector: injector))
        router.get("/log") { _, context -> String in
            let log = try await context.get(RequestLog.self)
            var requestCode = "resolved"
            do {
                _ = try await context.get(Request.self)
            } catch let error as ProvisionError {
                requestCode = error.code == .notBound ? "notBound" : "\(error.code)"
            }
            return "\(log.id == context.logger[metadataKey: "hb.request.id"]?.description) \(requestCode)"
        }
        let app = Application(router: router, logger: quiet)
        try await app.test(.router) { client in
            try await client.execute(uri: "/log", method: .get) { response in
                #expect(String(buffer: response.body) == "true notBound")
            }
        }
    }
}
