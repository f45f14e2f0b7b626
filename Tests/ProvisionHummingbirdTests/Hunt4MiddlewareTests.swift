import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import ProvisionHummingbird
import Testing

@testable import Provision

/// Keeps every message logged through it, with its level.
private struct CapturingLogHandler: LogHandler {
    let messages: Locked<[String]>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        messages.withLock { $0.append("\(event.level) \(event.message)") }
    }
}

private func capturingLogger(_ messages: Locked<[String]>) -> Logger {
    Logger(label: "hunt4") { _ in CapturingLogHandler(messages: messages) }
}

/// A scoped service whose asynchronous disposal throws.
private final class FailingDisposal: AsyncDisposable {
    let census: Census
    init(census: Census) {
        self.census = census
        _ = census.made()
    }
    func dispose() async throws {
        census.disposed("dispose FailingDisposal")
        struct Refused: Error {}
        throw Refused()
    }
    deinit { census.died() }
}

/// A scoped service whose asynchronous disposal never ends unless cancelled.
private final class HangingDisposal: AsyncDisposable {
    let census: Census
    init(census: Census) {
        self.census = census
        _ = census.made()
    }
    func dispose() async throws {
        census.disposed("dispose HangingDisposal")
        try await Task.sleep(for: .seconds(3600))
    }
    deinit { census.died() }
}

@Suite("Hunt4 RequestScopeMiddleware", .timeLimit(.minutes(1)))
struct Hunt4MiddlewareTests {
    @Test(
        "the middleware twice (router and group): two scopes, each closed once, the handler gets the inner",
        arguments: [TestingSetup.router, .live])
    func middlewareTwice(setup: TestingSetup) async throws {
        let census = Census()
        let injector = try Injector(RequestSeedsModule(), WebModule(census: census))
        /// Resolves from the outer scope, between the two middlewares.
        struct Peek<Context: ScopedRequestContext>: RouterMiddleware {
            let outer: Locked<[Int]>
            func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
                async throws -> Response
            {
                let state = try await context.get(RequestState.self)
                outer.withLock { $0.append(state.number) }
                return try await next(request, context)
            }
        }
        let outer = Locked<[Int]>([])
        let router = Router(context: BasicScopedRequestContext.self)
        router.add(middleware: RequestScopeMiddleware(injector: injector))
        router.add(middleware: Peek(outer: outer))
        router.group("g").add(middleware: RequestScopeMiddleware(injector: injector)).get("x") { _, context in
            "\(try await context.get(RequestState.self).number)"
        }
        let app = Application(router: router, logger: quiet)
        try await app.test(setup) { client in
            for _ in 0..<20 {
                try await client.execute(uri: "/g/x", method: .get) { response in
                    #expect(response.status == .ok)
                    let inner = Int(String(buffer: response.body)) ?? -1
                    #expect(!outer.withLock { $0 }.contains(inner))
                }
            }
        }
        #expect(await eventually { census.disposedCount == 40 })
        #expect(await eventually { census.alive == 0 })
        #expect(census.madeCount == 40)
    }

    @Test("a streamed body that throws midway closes the scope once, after the chunks it wrote")
    func streamingBodyThrows() async throws {
        let setup = TestingSetup.router
        let (census, router) = try scopedRouter()
        let disposedWhileStreaming = Locked<[Int]>([])
        router.get("/stream") { _, context -> Response in
            let state = try await context.get(RequestState.self)
            return Response(
                status: .ok,
                body: ResponseBody { writer in
                    try await writer.write(ByteBuffer(string: "chunk \(state.number)"))
                    disposedWhileStreaming.withLock { $0.append(census.disposedCount) }
                    struct Broken: Error {}
                    throw Broken()
                })
        }
        let app = Application(router: router, logger: quiet)
        try await app.test(setup) { client in
            for _ in 0..<10 {
                _ = try? await client.execute(uri: "/stream", method: .get) { _ in }
            }
        }
        #expect(await eventually { census.disposedCount == 10 })
        #expect(await eventually { census.alive == 0 })
        #expect(census.madeCount == 10)
        // The instance was not disposed before its own chunk was written.
        let seen = disposedWhileStreaming.withLock { $0 }
        #expect(seen == Array(0..<10))
    }

    @Test("live: a streamed body that throws midway closes the scope, whatever the client sees")
    func streamingBodyThrowsLive() async throws {
        let (census, router) = try scopedRouter()
        router.get("/stream") { _, context -> Response in
            let state = try await context.get(RequestState.self)
            return Response(
                status: .ok,
                body: ResponseBody { writer in
                    try await writer.write(ByteBuffer(string: "chunk \(state.number)"))
                    struct Broken: Error {}
                    throw Broken()
                })
        }
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: quiet)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let connection = TestClient(host: "127.0.0.1", port: port, configuration: .init(timeout: .seconds(2)))
            connection.connect()
            _ = try? await connection.execute(TestClient.Request("/stream", method: .get))
            #expect(await eventually(.seconds(10)) { census.disposedCount == 1 })
            try? await connection.shutdown()
        }
        #expect(await eventually(.seconds(10)) { census.alive == 0 })
    }

    @Test(
        "300 concurrent requests, a third failing, a third streaming a failure (router) or resolving nothing (live)",
        arguments: [false, true])
    func mixedOutcomesConcurrently(live: Bool) async throws {
        let setup: TestingSetup = live ? .live : .router
        let (census, router) = try scopedRouter()
        router.get("/mixed/:kind") { _, context -> Response in
            if context.parameters.get("kind") == "nothing" {
                return Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: "none")))
            }
            let audit = try await context.get(RequestAudit.self)
            switch context.parameters.get("kind") {
            case "throw":
                throw HTTPError(.conflict)
            case "stream":
                return Response(
                    status: .ok,
                    body: ResponseBody { writer in
                        try await writer.write(ByteBuffer(string: "\(audit.state.number)"))
                        struct Broken: Error {}
                        throw Broken()
                    })
            default:
                return Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: "ok")))
            }
        }
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: quiet)
        let third = live ? "nothing" : "stream"
        try await app.test(setup) { client in
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<300 {
                    let kind = ["ok", "throw", third][index % 3]
                    group.addTask {
                        _ = try? await client.execute(uri: "/mixed/\(kind)", method: .get) { _ in }
                    }
                }
            }
        }
        let expected = live ? 400 : 600
        #expect(await eventually { census.disposedCount == expected })
        #expect(await eventually { census.alive == 0 })
        #expect(census.madeCount == expected)
    }

    @Test("an async disposal that throws is logged on the request's logger at error; the client gets its 200")
    func disposalThrows() async throws {
        let census = Census()
        let injector = try Injector(
            RequestSeedsModule(),
            WebModule(census: census),
            ClosureModule { binder in
                binder.bind(FailingDisposal.self).to(FailingDisposal.init(census:)).in(.scoped)
            })
        let router = scopedRouter(injector)
        router.get("/fail") { _, context -> String in
            _ = try await context.get(FailingDisposal.self)
            return "fine"
        }
        let messages = Locked<[String]>([])
        let app = Application(router: router, logger: capturingLogger(messages))
        try await app.test(.router) { client in
            try await client.execute(uri: "/fail", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "fine")
            }
        }
        #expect(await eventually { census.disposedCount == 1 })
        #expect(
            await eventually(.seconds(10)) {
                messages.withLock { $0 }.contains("error Closing the request's scope failed")
            })
        #expect(await eventually { census.alive == 0 })
    }

    @Test("an async disposal that hangs is bounded by lifecycleHookTimeout: the close gives up and logs")
    func disposalHangs() async throws {
        let census = Census()
        let injector = try Injector(
            modules: [
                RequestSeedsModule(),
                WebModule(census: census),
                ClosureModule { binder in
                    binder.bind(HangingDisposal.self).to(HangingDisposal.init(census:)).in(.scoped)
                },
            ],
            configuration: Injector.Configuration(lifecycleHookTimeout: .milliseconds(200)))
        let router = scopedRouter(injector)
        router.get("/hang") { _, context -> String in
            _ = try await context.get(HangingDisposal.self)
            _ = try await context.get(RequestState.self)
            return "fine"
        }
        let messages = Locked<[String]>([])
        let app = Application(router: router, logger: capturingLogger(messages))
        let started = ContinuousClock.now
        try await app.test(.router) { client in
            try await client.execute(uri: "/hang", method: .get) { response in
                #expect(String(buffer: response.body) == "fine")
            }
        }
        // RequestState (newer) disposed, then HangingDisposal gave up after 200 ms.
        #expect(await eventually(.seconds(10)) { census.disposedCount == 2 })
        #expect(
            await eventually(.seconds(10)) {
                messages.withLock { $0 }.contains("error Closing the request's scope failed")
            })
        #expect(started.duration(to: .now) < .seconds(20))
    }

    @Test("the injector shut down while a request is in flight: its scoped instance is disposed once")
    func shutdownWhileInFlight() async throws {
        let census = Census()
        let injector = try Injector(RequestSeedsModule(), WebModule(census: census))
        let router = scopedRouter(injector)
        let arrived = AsyncCountdown(2)
        let release = AsyncCountdown(2)
        let secondError = Locked<ProvisionError.Code?>(nil)
        router.get("/inflight") { _, context -> String in
            let state = try await context.get(RequestState.self)
            await arrived.arriveAndWait()
            await release.arriveAndWait()
            do {
                _ = try await context.get(RequestAudit.self)
            } catch {
                secondError.withLock { $0 = (error as? ProvisionError)?.code }
            }
            return "\(state.number)"
        }
        let app = Application(router: router, logger: quiet)
        try await app.test(.router) { client in
            async let answer = client.execute(uri: "/inflight", method: .get) { String(buffer: $0.body) }
            await arrived.arriveAndWait()
            try? await injector.shutdown()
            await release.arriveAndWait()
            let value = try await answer
            #expect(value == "1")
        }
        #expect(secondError.withLock { $0 } == .shutDown)
        #expect(await eventually { census.disposedCount == 1 })
        try await Task.sleep(for: .milliseconds(100))
        #expect(census.disposedCount == 1)
        #expect(await eventually { census.alive == 0 })
    }

    @Test("after the injector shut down, a handler that resolves a scoped service gets shutDown (a 500)")
    func requestAfterShutdown() async throws {
        let census = Census()
        let injector = try Injector(RequestSeedsModule(), WebModule(census: census))
        let router = scopedRouter(injector)
        try await injector.shutdown()
        let code = Locked<ProvisionError.Code?>(nil)
        router.get("/late") { _, context -> String in
            do {
                _ = try await context.get(RequestState.self)
            } catch {
                code.withLock { $0 = (error as? ProvisionError)?.code }
                throw error
            }
            return "served"
        }
        let app = Application(router: router, logger: quiet)
        try await app.test(.router) { client in
            try await client.execute(uri: "/late", method: .get) { response in
                #expect(response.status == .internalServerError)
            }
        }
        #expect(code.withLock { $0 } == .shutDown)
        #expect(census.madeCount == 0)
    }

    @Test("the seeding closure may replace a declared seed: its identifier is the one scoped services get")
    func seedingReplacesIdentifier() async throws {
        let census = Census()
        let injector = try Injector(RequestSeedsModule(), WebModule(census: census))
        let router = Router(context: BasicScopedRequestContext.self)
        router.add(
            middleware: RequestScopeMiddleware(injector: injector) { _, _, seed in
                seed.provide(RequestIdentifier("custom"))
            })
        router.get("/id") { _, context -> String in
            let state = try await context.get(RequestState.self)
            let id = try await context.get(RequestIdentifier.self)
            return "\(state.requestID) \(id)"
        }
        let app = Application(router: router, logger: quiet)
        try await app.test(.router) { client in
            try await client.execute(uri: "/id", method: .get) { response in
                #expect(String(buffer: response.body) == "custom custom")
            }
        }
    }

    @Test(
        "two requests' identifiers differ, and equal the request logger's hb.request.id",
        arguments: [TestingSetup.router, .live])
    func identifiersDiffer(setup: TestingSetup) async throws {
        let (_, router) = try scopedRouter()
        router.get("/rid") { _, context -> String in
            let id = try await context.get(RequestIdentifier.self)
            return "\(id.value)|\(context.logger[metadataKey: "hb.request.id"]?.description ?? "none")"
        }
        let app = Application(router: router, logger: quiet)
        let answers = try await app.test(setup) { client in
            var answers: [String] = []
            for _ in 0..<5 {
                answers.append(try await client.execute(uri: "/rid", method: .get) { String(buffer: $0.body) })
            }
            return answers
        }
        for answer in answers {
            let parts = answer.split(separator: "|")
            #expect(parts.count == 2 && parts[0] == parts[1])
            #expect(parts.first != "unidentified")
        }
        #expect(Set(answers).count == 5)
    }

    @Test(
        "a streamed body may resolve new scoped instances while it is written; they are disposed after",
        arguments: [TestingSetup.router, .live])
    func resolveWhileStreaming(setup: TestingSetup) async throws {
        let (census, router) = try scopedRouter()
        let disposedDuringWrite = Locked<[Int]>([])
        router.get("/late") { _, context -> Response in
            Response(
                status: .ok,
                body: ResponseBody { writer in
                    let audit = try await context.get(RequestAudit.self)
                    disposedDuringWrite.withLock { $0.append(census.disposedCount) }
                    try await writer.write(ByteBuffer(string: "\(audit.state.number)"))
                    try await writer.finish(nil)
                })
        }
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: quiet)
        try await app.test(setup) { client in
            for _ in 0..<3 {
                try await client.execute(uri: "/late", method: .get) { response in
                    #expect(response.status == .ok)
                }
            }
        }
        #expect(await eventually(.seconds(10)) { census.disposedCount == 6 })
        #expect(await eventually(.seconds(10)) { census.alive == 0 })
        #expect(disposedDuringWrite.withLock { $0 } == [0, 2, 4])
    }
}
