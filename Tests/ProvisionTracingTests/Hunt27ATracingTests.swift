import Dispatch
import Foundation
import InMemoryTracing
import Provision
import ProvisionTracing
import Synchronization
import Testing
import Tracing

// Hunt 27A: TracingResolutionObserver when threads race a singleton's first build, when a factory opens
// spans of its own (synchronously and after an await), when a service's hook resolves from the injector,
// and when a stop hook times out or a start fails and stops what had started.

private final class Hunt27ADatabase: Sendable {}

private final class Hunt27ARepository: Sendable {
    init(database: Hunt27ADatabase) {}
}

private final class Hunt27AHandler: Sendable {}

private final class Hunt27AServer: Sendable {}

private struct Hunt27AFailure: Error {}

@Suite("Hunt27A TracingResolutionObserver", .timeLimit(.minutes(1)))
struct Hunt27ATracingTests {
    /// A user expects (TracingResolutionObserver: a span "around each build of a singleton"; "A built
    /// singleton served from its cell is not a build and opens no span") that 8 threads racing a
    /// singleton's first request record exactly one `build` span for it, and one for its dependency, each
    /// a child of exactly one request's span.
    @Test("8 threads race a singleton's first build: exactly one span for it, under one request")
    func raceOpensOneSpan() throws {
        let tracer = InMemoryTracer()
        let injector = try Provision.Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt27ADatabase.self).to(Hunt27ADatabase.init).in(.singleton)
                    binder.bind(Hunt27ARepository.self).to(Hunt27ARepository.init(database:)).in(.singleton)
                }
            ],
            configuration: .init(observer: TracingResolutionObserver(tracer: tracer))
        )
        let group = DispatchGroup()
        let go = DispatchSemaphore(value: 0)
        for index in 0..<8 {
            group.enter()
            Thread.detachNewThread {
                _ = go.wait(timeout: .now() + 20)
                let request = tracer.startSpan("request \(index)")
                ServiceContext.withValue(request.context) {
                    _ = try? injector.get(Hunt27ARepository.self)
                }
                request.end()
                group.leave()
            }
        }
        for _ in 0..<8 { go.signal() }
        #expect(group.wait(timeout: .now() + 20) == .success)
        let spans = tracer.finishedSpans
        let builds = spans.filter { $0.operationName.hasPrefix("build") }
        #expect(builds.map(\.operationName).sorted() == ["build Hunt27ADatabase", "build Hunt27ARepository"])
        let repository = try #require(builds.first { $0.operationName == "build Hunt27ARepository" })
        let database = try #require(builds.first { $0.operationName == "build Hunt27ADatabase" })
        #expect(database.parentSpanID == repository.spanID)
        let requests = spans.filter { $0.operationName.hasPrefix("request") }
        #expect(requests.count == 8)
        #expect(requests.filter { $0.spanID == repository.parentSpanID }.count == 1)
    }

    /// A user expects (TracingResolutionObserver: the build's span "is current while the build runs, so
    /// ... the spans its factory opens are too" its children) that a span a factory opens, synchronously
    /// or after an `await` in an async factory, is a child of that factory's `build` span, in its trace.
    @Test("spans a factory opens, before and after an await, are children of its build span")
    func factorySpansNest() async throws {
        let tracer = InMemoryTracer()
        let injector = try Provision.Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt27ADatabase.self).to { () -> Hunt27ADatabase in
                        tracer.withSpan("connect") { _ in Hunt27ADatabase() }
                    }.in(.singleton)
                    binder.bind(Hunt27ARepository.self).to { (resolver: Resolver) async throws -> Hunt27ARepository in
                        await Task.yield()
                        let database: Hunt27ADatabase = try await resolver.get()
                        return await tracer.withSpan("migrate") { _ in
                            await Task.yield()
                            return Hunt27ARepository(database: database)
                        }
                    }.in(.singleton)
                }
            ],
            configuration: .init(observer: TracingResolutionObserver(tracer: tracer))
        )
        _ = try await injector.get(Hunt27ARepository.self)
        let spans = tracer.finishedSpans
        let repository = try #require(spans.first { $0.operationName == "build Hunt27ARepository" })
        let database = try #require(spans.first { $0.operationName == "build Hunt27ADatabase" })
        let connect = try #require(spans.first { $0.operationName == "connect" })
        let migrate = try #require(spans.first { $0.operationName == "migrate" })
        #expect(database.parentSpanID == repository.spanID)
        #expect(connect.parentSpanID == database.spanID)
        #expect(migrate.parentSpanID == repository.spanID)
        #expect(Set(spans.map(\.traceID)).count == 1)
    }

    /// A user expects (TracingResolutionObserver: a span "around ... each service's start and stop hook";
    /// a build's span "is a child of the span current where the build runs") that a transient a start
    /// hook resolves, when transients are traced, is a child of the `start service` span, itself a child of
    /// `start`.
    @Test("a build a start hook runs is a child of that hook's span, inside start")
    func buildInsideStartHook() async throws {
        let tracer = InMemoryTracer()
        let holder = Locked<Provision.Injector?>(nil)
        let injector = try Provision.Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt27AHandler.self).to(Hunt27AHandler.init)
                    binder.bind(Hunt27AServer.self).to(Hunt27AServer.init).in(.singleton)
                        .onStart { _ in
                            guard let injector = holder.withLock({ $0 }) else { return }
                            _ = try await injector.get(Hunt27AHandler.self)
                        }
                }
            ],
            configuration: .init(
                observer: TracingResolutionObserver(tracer: tracer, tracing: [.singleton, .transient]))
        )
        holder.withLock { $0 = injector }
        try await injector.start()
        try await injector.shutdown()
        let spans = tracer.finishedSpans
        let start = try #require(spans.first { $0.operationName == "start" })
        let hook = try #require(spans.first { $0.operationName == "start service Hunt27AServer" })
        let handler = try #require(spans.first { $0.operationName == "build Hunt27AHandler" })
        #expect(hook.parentSpanID == start.spanID)
        #expect(handler.parentSpanID == hook.spanID)
        #expect(handler.text27A("provision.path") == "Hunt27AHandler")
    }

    /// A user expects (TracingResolutionObserver: lifecycle steps get spans, a failure "ends it with an
    /// error status"; Configuration.lifecycleHookTimeout bounds a stop hook) that a stop hook that hangs
    /// past the timeout ends its `stop service` span with an error status, and the `shutdown` span too,
    /// with code `stop failed`, while another service's stop span succeeds.
    @Test("a stop hook that times out: its span and shutdown's end in error, the other stop span does not")
    func stopTimeoutSpan() async throws {
        let tracer = InMemoryTracer()
        let never = Locked<CheckedContinuation<Void, Never>?>(nil)
        let injector = try Provision.Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt27ADatabase.self).to(Hunt27ADatabase.init).in(.singleton)
                        .onStart { _ in }
                        .onStop { _ in }
                    binder.bind(Hunt27ARepository.self).to(Hunt27ARepository.init(database:)).in(.singleton)
                        .onStart { _ in }
                        .onStop { _ in
                            await withCheckedContinuation { continuation in
                                never.withLock { $0 = continuation }
                            }
                        }
                }
            ],
            configuration: .init(
                observer: TracingResolutionObserver(tracer: tracer), lifecycleHookTimeout: .milliseconds(200))
        )
        try await injector.start()
        let error = await #expect(throws: ProvisionError.self) { try await injector.shutdown() }
        never.withLock { $0.take() }?.resume()
        #expect(error?.code == .stopFailed)
        let spans = tracer.finishedSpans
        let shutdown = try #require(spans.first { $0.operationName == "shutdown" })
        let hung = try #require(spans.first { $0.operationName == "stop service Hunt27ARepository" })
        let other = try #require(spans.first { $0.operationName == "stop service Hunt27ADatabase" })
        #expect(hung.status?.code == .error)
        #expect(hung.text27A("provision.error.code") == "timed out")
        #expect(other.status == nil)
        #expect(shutdown.status?.code == .error)
        #expect(shutdown.text27A("provision.error.code") == "stop failed")
        #expect(hung.parentSpanID == shutdown.spanID && other.parentSpanID == shutdown.spanID)
    }

    /// A user expects (Injector.start(): after a failed start hook "the services that had started are
    /// stopped again"; the observer traces "each service's start and stop hook") that a failed start
    /// shows the failed `start service` span and a `stop service` span for the service stopped again, both
    /// inside the `start` span, which ends in error.
    @Test("a failed start traces the stop of the service it stopped again, inside the start span")
    func failedStartStopsAgainInsideStart() async throws {
        let tracer = InMemoryTracer()
        let injector = try Provision.Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt27ADatabase.self).to(Hunt27ADatabase.init).in(.singleton)
                        .onStart { _ in }
                        .onStop { _ in }
                    binder.bind(Hunt27ARepository.self).to(Hunt27ARepository.init(database:)).in(.singleton)
                        .onStart { _ in throw Hunt27AFailure() }
                }
            ],
            configuration: .init(observer: TracingResolutionObserver(tracer: tracer))
        )
        let error = await #expect(throws: ProvisionError.self) { try await injector.start() }
        #expect(error?.code == .startFailed)
        try await injector.shutdown()
        let spans = tracer.finishedSpans
        let start = try #require(spans.first { $0.operationName == "start" })
        let failed = try #require(spans.first { $0.operationName == "start service Hunt27ARepository" })
        let stopped = try #require(spans.first { $0.operationName == "stop service Hunt27ADatabase" })
        #expect(start.status?.code == .error)
        #expect(failed.status?.code == .error && failed.parentSpanID == start.spanID)
        #expect(stopped.status == nil && stopped.parentSpanID == start.spanID)
        #expect(spans.filter { $0.operationName.hasPrefix("stop service") }.count == 1, "stopped once")
    }
}

@Suite("Hunt27A TracingResolutionObserver in a service scope")
struct Hunt27AScopedTracingTests {
    /// A user expects (TracingResolutionObserver: a span "around each build of a singleton (and of a scoped
    /// instance)", with `provision.scope` `scoped`; a cell hit opens none) that two service scopes each
    /// record one `build` span for their scoped instance, nested in that request's span, with the singleton
    /// it depends on built (and traced) once, inside the first request's span.
    @Test("each scope's scoped build is one span under its request; the shared singleton's span is once")
    func scopedBuilds() async throws {
        let tracer = InMemoryTracer()
        let injector = try Provision.Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt27ADatabase.self).to(Hunt27ADatabase.init).in(.singleton)
                    binder.bind(Hunt27ARepository.self).to(Hunt27ARepository.init(database:)).in(.scoped)
                }
            ],
            configuration: .init(observer: TracingResolutionObserver(tracer: tracer))
        )
        for index in 0..<2 {
            let request = tracer.startSpan("request \(index)")
            let scope = injector.makeScope()
            try await ServiceContext.withValue(request.context) {
                _ = try await scope.get(Hunt27ARepository.self)
                _ = try await scope.get(Hunt27ARepository.self)
            }
            try await scope.close()
            request.end()
        }
        let spans = tracer.finishedSpans
        let requests = spans.filter { $0.operationName.hasPrefix("request") }
        let repositories = spans.filter { $0.operationName == "build Hunt27ARepository" }
        let databases = spans.filter { $0.operationName == "build Hunt27ADatabase" }
        #expect(requests.count == 2 && repositories.count == 2 && databases.count == 1)
        for (request, repository) in zip(requests, repositories) {
            #expect(repository.parentSpanID == request.spanID)
            #expect(repository.text27A("provision.scope") == "scoped")
        }
        #expect(databases.first?.parentSpanID == repositories.first?.spanID)
    }
}

extension FinishedInMemorySpan {
    /// A string attribute, a string array joined with " -> ", or an integer as text.
    fileprivate func text27A(_ name: String) -> String? {
        switch attributes.get(name) {
        case .string(let value): value
        case .stringArray(let values): values.joined(separator: " -> ")
        case .int64(let value): String(value)
        default: nil
        }
    }
}
