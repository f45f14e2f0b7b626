import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import ProvisionHummingbird
import ProvisionServiceLifecycle
import ServiceLifecycle
import Testing

@testable import Provision

/// A singleton with a start and a stop, recorded in a census.
final class Hunt28AStoppable: ManagedService {
    let census: Hunt28ACensus
    init(census: Hunt28ACensus) { self.census = census }
    func start() async throws { census.record("start") }
    func stop() async throws { census.record("stop") }
}

/// Resolves `type` through the request context asynchronously, as a `Result`.
private func hunt28AResolve<T>(
    _ type: T.Type,
    _ context: BasicScopedRequestContext
) async -> Result<T, ProvisionError> {
    do {
        return .success(try await context.get(type))
    } catch {
        return .failure(error)
    }
}

@Suite("Hunt28A server integration", .timeLimit(.minutes(2)))
struct Hunt28AServerTests {
    /// The bindings of most tests: a slow async singleton (its own census), an async scoped unit over
    /// it, a plain scoped service.
    private static func injector(
        census: Hunt28ACensus, singletonCensus: Hunt28ACensus, singletonBuilds: Locked<Int>,
        configuration: Injector.Configuration = Injector.Configuration(),
        extra: @escaping @Sendable (Binder) -> Void = { _ in }
    ) throws -> Injector {
        try Injector(
            modules: [
                RequestSeedsModule(),
                ClosureModule { binder in
                    binder.bind(Hunt28ACensus.self).toInstance(census)
                    binder.bind(Hunt28ASlowSingleton.self).to { _ async throws in
                        singletonBuilds.withLock { $0 += 1 }
                        for _ in 0..<50 { await Task.yield() }
                        return Hunt28ASlowSingleton(census: singletonCensus)
                    }.in(.singleton)
                    binder.bind(Hunt28ARequestUnit.self).to { resolver async throws in
                        await Task.yield()
                        return Hunt28ARequestUnit(
                            census: try await resolver.get(Hunt28ACensus.self),
                            singleton: try await resolver.get(Hunt28ASlowSingleton.self))
                    }.in(.scoped)
                    binder.bind(Hunt28APlain.self).to(Hunt28APlain.init(census:)).in(.scoped)
                    extra(binder)
                },
            ],
            configuration: configuration)
    }

    @Test(
        "100 concurrent requests: each its own scoped unit (shared within the request), the async singleton built once",
        arguments: [TestingSetup.router, .live])
    func hundredConcurrentRequests(setup: TestingSetup) async throws {
        let census = Hunt28ACensus()
        let singletonCensus = Hunt28ACensus()
        let builds = Locked(0)
        let injector = try Self.injector(census: census, singletonCensus: singletonCensus, singletonBuilds: builds)
        let router = Router(context: BasicScopedRequestContext.self)
        router.add(middleware: RequestScopeMiddleware(injector: injector))
        router.get("/unit") { _, context -> String in
            let units = try await withThrowingTaskGroup(of: Hunt28ARequestUnit.self) { group in
                for _ in 0..<3 {
                    group.addTask { try await context.get(Hunt28ARequestUnit.self) }
                }
                var units: [Hunt28ARequestUnit] = []
                for try await unit in group { units.append(unit) }
                return units
            }
            let singleton = try await context.get(Hunt28ASlowSingleton.self)
            let shared = units.allSatisfy { $0 === units[0] && $0.singleton === singleton }
            return "\(units[0].number) \(shared) \(singleton.number)"
        }
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: hunt28AQuiet)
        let answers = try await app.test(setup) { client in
            try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<100 {
                    group.addTask {
                        try await client.execute(uri: "/unit", method: .get) { response in
                            "\(response.status.code) \(String(buffer: response.body))"
                        }
                    }
                }
                var answers: [String] = []
                for try await answer in group { answers.append(answer) }
                return answers
            }
        }
        #expect(answers.count == 100)
        let parts = answers.map { $0.split(separator: " ").map(String.init) }
        #expect(parts.allSatisfy { $0.count == 4 && $0[0] == "200" && $0[2] == "true" && $0[3] == "1" })
        #expect(Set(parts.map { $0.count > 1 ? $0[1] : "" }).count == 100)
        #expect(builds.withLock { $0 } == 1)
        #expect(singletonCensus.madeCount == 1)
        #expect(census.madeCount == 100)
        #expect(await hunt28AEventually { census.disposedCount == 100 })
        #expect(await hunt28AEventually { census.alive == 0 })
        #expect(!census.log.contains { $0.contains("cancelled=true") })
        try await injector.shutdown()
        #expect(singletonCensus.disposedCount == 1)
    }

    @Test("live: a scoped factory that throws gives a 500 that leaks nothing; what it built first is disposed once")
    func factoryThrowsLive() async throws {
        let census = Hunt28ACensus()
        let injector = try Self.injector(
            census: census, singletonCensus: Hunt28ACensus(), singletonBuilds: Locked(0)
        ) { binder in
            binder.bind(Hunt28AGated.self).to { resolver async throws -> Hunt28AGated in
                _ = try await resolver.get(Hunt28APlain.self)
                throw Hunt28ASecretFailure()
            }.in(.scoped)
        }
        let router = Router(context: BasicScopedRequestContext.self)
        router.add(middleware: RequestScopeMiddleware(injector: injector))
        router.get("/broken") { _, context -> String in
            _ = try await context.get(Hunt28AGated.self)
            return "never"
        }
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: hunt28AQuiet)
        try await app.test(.live) { client in
            for _ in 0..<3 {
                try await client.execute(uri: "/broken", method: .get) { response in
                    #expect(response.status == .internalServerError)
                    let body = String(buffer: response.body)
                    #expect(!body.contains("hunter2"))
                    #expect(!body.contains("Hunt28A"))
                }
            }
        }
        #expect(census.madeCount == 3)
        #expect(await hunt28AEventually { census.disposedCount == 3 })
        #expect(await hunt28AEventually { census.alive == 0 })
    }

    @Test("a scoped build started by a handler's task outlives the close's wait: disposed once, outsideScope")
    func buildOutlivesCloseWait() async throws {
        let census = Hunt28ACensus()
        let entered = Hunt28AGate()
        let release = Hunt28AGate()
        let injector = try Self.injector(
            census: census, singletonCensus: Hunt28ACensus(), singletonBuilds: Locked(0),
            configuration: Injector.Configuration(lifecycleHookTimeout: .milliseconds(300))
        ) { binder in
            binder.bind(Hunt28AGated.self).to { resolver async throws -> Hunt28AGated in
                entered.open()
                _ = await release.wait()
                return Hunt28AGated(census: try await resolver.get(Hunt28ACensus.self))
            }.in(.scoped)
        }
        let spawned = Locked<Task<Result<Hunt28AGated, ProvisionError>, Never>?>(nil)
        let router = Router(context: BasicScopedRequestContext.self)
        router.add(middleware: RequestScopeMiddleware(injector: injector))
        router.get("/spawn") { _, context -> String in
            let task = Task { await hunt28AResolve(Hunt28AGated.self, context) }
            spawned.withLock { $0 = task }
            return await entered.wait() ? "ok" : "factory never entered"
        }
        let app = Application(router: router, logger: hunt28AQuiet)
        try await app.test(.router) { client in
            try await client.execute(uri: "/spawn", method: .get) { response in
                #expect(String(buffer: response.body) == "ok")
            }
        }
        // The response was written, so the close returned (it gave up waiting after 300 ms).
        #expect(census.disposedCount == 0)
        release.open()
        let task = try #require(spawned.withLock { $0 })
        let result = await task.value
        switch result {
        case .success(let gated):
            Issue.record("the late build was handed out after its scope closed: \(gated.number)")
        case .failure(let error):
            #expect(error.code == .outsideScope)
        }
        #expect(await hunt28AEventually { census.disposedCount == 1 })
        #expect(census.madeCount == 1)
        #expect(census.log == ["dispose Hunt28AGated 1"])
    }

    @Test("a scoped build in flight when the handler returns is waited for: its request gets it, disposed once")
    func buildInFlightAtClose() async throws {
        let census = Hunt28ACensus()
        let entered = Hunt28AGate()
        let release = Hunt28AGate()
        let injector = try Self.injector(
            census: census, singletonCensus: Hunt28ACensus(), singletonBuilds: Locked(0)
        ) { binder in
            binder.bind(Hunt28AGated.self).to { resolver async throws -> Hunt28AGated in
                entered.open()
                _ = await release.wait()
                return Hunt28AGated(census: try await resolver.get(Hunt28ACensus.self))
            }.in(.scoped)
        }
        let spawned = Locked<Task<Result<Hunt28AGated, ProvisionError>, Never>?>(nil)
        let router = Router(context: BasicScopedRequestContext.self)
        router.add(middleware: RequestScopeMiddleware(injector: injector))
        router.get("/spawn") { _, context -> String in
            let task = Task { await hunt28AResolve(Hunt28AGated.self, context) }
            spawned.withLock { $0 = task }
            return await entered.wait() ? "ok" : "factory never entered"
        }
        let app = Application(router: router, logger: hunt28AQuiet)
        try await app.test(.router) { client in
            async let answer = client.execute(uri: "/spawn", method: .get) { String(buffer: $0.body) }
            #expect(await entered.wait())
            release.open()
            let value = try await answer
            #expect(value == "ok")
        }
        let task = try #require(spawned.withLock { $0 })
        let result = await task.value
        if case .failure(let error) = result {
            Issue.record("the build the close waited for was refused: \(error)")
        }
        #expect(await hunt28AEventually { census.disposedCount == 1 })
        #expect(census.madeCount == 1)
    }

    @Test("a request cancelled mid-build: every scoped instance it made is disposed once, outside the cancellation")
    func cancelledRequest() async throws {
        let census = Hunt28ACensus()
        let entered = Hunt28AGate()
        let release = Hunt28AGate()
        let injector = try Self.injector(
            census: census, singletonCensus: Hunt28ACensus(), singletonBuilds: Locked(0)
        ) { binder in
            binder.bind(Hunt28AGated.self).to { resolver async throws -> Hunt28AGated in
                entered.open()
                _ = await release.wait()
                return Hunt28AGated(census: try await resolver.get(Hunt28ACensus.self))
            }.in(.scoped)
        }
        let router = Router(context: BasicScopedRequestContext.self)
        router.add(middleware: RequestScopeMiddleware(injector: injector))
        let reachedEnd = Locked(false)
        router.get("/cancel") { _, context -> String in
            let unit = try await context.get(Hunt28ARequestUnit.self)
            let gated = try await context.get(Hunt28AGated.self)
            try Task.checkCancellation()
            reachedEnd.withLock { $0 = true }
            return "\(unit.number) \(gated.number)"
        }
        let app = Application(router: router, logger: hunt28AQuiet)
        try await app.test(.router) { client in
            let request = Task { try await client.execute(uri: "/cancel", method: .get) { $0.status } }
            #expect(await entered.wait())
            request.cancel()
            release.open()
            let status = try? await request.value
            #expect(status != .ok)
        }
        #expect(!reachedEnd.withLock { $0 })
        #expect(census.madeCount == 2)
        #expect(await hunt28AEventually { census.disposedCount == 2 })
        #expect(census.log.sorted() == ["dispose Hunt28AGated 2", "dispose Hunt28ARequestUnit 1 cancelled=false"])
        #expect(await hunt28AEventually { census.alive == 0 })
    }

    @Test(
        "one request, 8 tasks resolving the same slow async scoped service: built once per request",
        arguments: [TestingSetup.router, .live])
    func concurrentWithinOneRequest(setup: TestingSetup) async throws {
        let census = Hunt28ACensus()
        let injector = try Self.injector(
            census: census, singletonCensus: Hunt28ACensus(), singletonBuilds: Locked(0))
        let router = Router(context: BasicScopedRequestContext.self)
        router.add(middleware: RequestScopeMiddleware(injector: injector))
        router.get("/fan") { _, context -> String in
            let numbers = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await context.get(Hunt28ARequestUnit.self).number }
                }
                var numbers: Set<Int> = []
                for try await number in group { numbers.insert(number) }
                return numbers
            }
            return "\(numbers.count)"
        }
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: hunt28AQuiet)
        try await app.test(setup) { client in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        try await client.execute(uri: "/fan", method: .get) { response in
                            #expect(response.status == .ok)
                            #expect(String(buffer: response.body) == "1")
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        #expect(census.madeCount == 20)
        #expect(await hunt28AEventually { census.disposedCount == 20 })
    }

    @Test("after shutdown, a singleton built before it: shutDown (sync and async), not the disposed instance")
    func singletonAfterShutdown() async throws {
        let census = Hunt28ACensus()
        let singletonCensus = Hunt28ACensus()
        let injector = try Self.injector(
            census: census, singletonCensus: singletonCensus, singletonBuilds: Locked(0)
        ) { binder in
            binder.bind(Hunt28AStoppable.self).to { _ in Hunt28AStoppable(census: singletonCensus) }.in(.singleton)
        }
        try await injector.start()
        let router = Router(context: BasicScopedRequestContext.self)
        router.add(middleware: RequestScopeMiddleware(injector: injector))
        router.get("/sync") { _, context -> String in
            do {
                _ = try context.get(Hunt28AStoppable.self)
                return "served"
            } catch {
                return "\((error as? ProvisionError)?.code.description ?? "other")"
            }
        }
        router.get("/async") { _, context -> String in
            switch await hunt28AResolve(Hunt28ASlowSingleton.self, context) {
            case .success: return "served"
            case .failure(let error): return "\(error.code)"
            }
        }
        let app = Application(router: router, logger: hunt28AQuiet)
        try await app.test(.router) { client in
            try await client.execute(uri: "/sync", method: .get) { #expect(String(buffer: $0.body) == "served") }
            try await injector.shutdown()
            #expect(singletonCensus.disposedCount == 1)
            try await client.execute(uri: "/sync", method: .get) {
                #expect(String(buffer: $0.body) == "\(ProvisionError.Code.shutDown)")
            }
            try await client.execute(uri: "/async", method: .get) {
                #expect(String(buffer: $0.body) == "\(ProvisionError.Code.shutDown)")
            }
        }
    }

    @Test("live: a HEAD request whose handler resolved a scoped service still closes its scope once")
    func headRequest() async throws {
        let census = Hunt28ACensus()
        let injector = try Self.injector(
            census: census, singletonCensus: Hunt28ACensus(), singletonBuilds: Locked(0))
        let router = Router(context: BasicScopedRequestContext.self)
        router.add(middleware: RequestScopeMiddleware(injector: injector))
        router.head("/thing") { _, context -> Response in
            _ = try await context.get(Hunt28APlain.self)
            return Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: "hello")))
        }
        router.get("/thing") { _, context -> String in
            "\(try await context.get(Hunt28APlain.self).number)"
        }
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: hunt28AQuiet)
        try await app.test(.live) { client in
            for _ in 0..<3 {
                try await client.execute(uri: "/thing", method: .head) { response in
                    #expect(response.status == .ok)
                }
            }
            try await client.execute(uri: "/thing", method: .get) { response in
                #expect(String(buffer: response.body) == "4")
            }
        }
        #expect(census.madeCount == 4)
        #expect(await hunt28AEventually { census.disposedCount == 4 })
        #expect(await hunt28AEventually { census.alive == 0 })
    }

    @Test("graceful shutdown with a request in flight: it resolves its services, then the injector stops after it")
    func gracefulShutdownInFlight() async throws {
        let census = Hunt28ACensus()
        let injector = try Injector(
            RequestSeedsModule(),
            ClosureModule { binder in
                binder.bind(Hunt28ACensus.self).toInstance(census)
                binder.bind(Hunt28AStoppable.self).to(Hunt28AStoppable.init(census:)).in(.singleton)
                binder.bind(Hunt28APlain.self).to(Hunt28APlain.init(census:)).in(.scoped)
            })
        let arrived = Hunt28AGate()
        let release = Hunt28AGate()
        let router = Router(context: BasicScopedRequestContext.self)
        router.add(middleware: RequestScopeMiddleware(injector: injector))
        router.get("/slow") { _, context -> String in
            arrived.open()
            guard await release.wait() else { return "never released" }
            let plain = try await context.get(Hunt28APlain.self)
            let service = try await context.get(Hunt28AStoppable.self)
            return "plain \(plain.number) \(service.census === census)"
        }
        let port = Locked<Int?>(nil)
        let running = Hunt28AGate()
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                port.withLock { $0 = channel.localAddress?.port }
                running.open()
            },
            logger: hunt28AQuiet)
        let service = InjectorService(injector: injector, services: [app], logger: hunt28AQuiet)
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [service], logger: hunt28AQuiet))
        let runner = Task { try await group.run() }
        #expect(await running.wait())
        let serverPort = try #require(port.withLock { $0 })
        let client = TestClient(host: "127.0.0.1", port: serverPort, configuration: .init(timeout: .seconds(20)))
        client.connect()
        let response = Task { try await client.get("/slow") }
        #expect(await arrived.wait())
        await group.triggerGracefulShutdown()
        release.open()
        let answer = try await response.value
        #expect(answer.status == .ok)
        #expect(answer.body.map { String(buffer: $0) } == "plain 1 true")
        try? await client.shutdown()
        try await runner.value
        #expect(census.log == ["start", "dispose Hunt28APlain 1", "stop"])
    }

    @Test("in one request, the task building a scoped service is cancelled: a second waiting task still gets one")
    func cancelledBuilderInRequest() async throws {
        let census = Hunt28ACensus()
        let entered = Hunt28AGate()
        let never = Hunt28AGate()
        let attempts = Locked(0)
        let injector = try Self.injector(
            census: census, singletonCensus: Hunt28ACensus(), singletonBuilds: Locked(0)
        ) { binder in
            binder.bind(Hunt28AGated.self).to { resolver async throws -> Hunt28AGated in
                let attempt = attempts.withLock { value -> Int in
                    value += 1
                    return value
                }
                if attempt == 1 {
                    entered.open()
                    _ = await never.wait(cancellable: true)
                    try Task.checkCancellation()
                }
                return Hunt28AGated(census: try await resolver.get(Hunt28ACensus.self))
            }.in(.scoped)
        }
        let router = Router(context: BasicScopedRequestContext.self)
        router.add(middleware: RequestScopeMiddleware(injector: injector))
        router.get("/race") { _, context -> String in
            let builder = Task { await hunt28AResolve(Hunt28AGated.self, context) }
            guard await entered.wait() else { return "factory never entered" }
            let waiter = Task { await hunt28AResolve(Hunt28AGated.self, context) }
            builder.cancel()
            let first = await builder.value
            let second = await waiter.value
            let firstText: String
            switch first {
            case .success(let gated): firstText = "built \(gated.number)"
            case .failure(let error):
                // The builder's own cancellation: `cancelled`, or its factory's CancellationError.
                let own = error.code == .cancelled || (error.code == .factoryFailed && error.cause is CancellationError)
                firstText = own ? "own cancellation" : "\(error.code)"
            }
            let secondText: String
            switch second {
            case .success(let gated): secondText = "built \(gated.number)"
            case .failure(let error): secondText = "\(error.code)"
            }
            return "\(firstText) | \(secondText)"
        }
        let app = Application(router: router, logger: hunt28AQuiet)
        try await app.test(.router) { client in
            try await client.execute(uri: "/race", method: .get) { response in
                #expect(String(buffer: response.body) == "own cancellation | built 1")
            }
        }
        #expect(census.madeCount == 1)
        #expect(await hunt28AEventually { census.disposedCount == 1 })
        #expect(attempts.withLock { $0 } == 2)
    }

}
