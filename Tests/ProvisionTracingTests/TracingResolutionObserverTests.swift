import Dispatch
import Foundation
import InMemoryTracing
import Provision
import ProvisionTracing
import Synchronization
import Testing
import Tracing

// A span per singleton build (with its dependencies' spans inside), around start() and shutdown() and
// each service's hooks, with the dependency path as attributes, recorded by swift-distributed-tracing's
// in-memory tracer.

final class Logger: Sendable {}

final class Store: Sendable {
    init(logger: Logger) {}
}

final class App: Sendable {
    init(store: Store) {}
}

/// A singleton whose factory fails on purpose.
final class Broken: Sendable {}

struct ExpectedFailure: Error {}

/// A module made of a closure.
func module(_ body: @escaping @Sendable (Binder) -> Void) -> ClosureModule {
    ClosureModule(body)
}

extension FinishedInMemorySpan {
    /// A string attribute, or a string array attribute joined with " -> ".
    func text(_ name: String) -> String? {
        switch attributes.get(name) {
        case .string(let value): value
        case .stringArray(let values): values.joined(separator: " -> ")
        case .int64(let value): String(value)
        default: nil
        }
    }
}

@Suite("TracingResolutionObserver")
struct TracingResolutionObserverTests {
    private static let graph = module { binder in
        binder.bind(Logger.self).to(Logger.init)
        binder.bind(Store.self).to(Store.init(logger:)).in(.singleton)
        binder.bind(App.self).to(App.init(store:)).in(.singleton)
    }

    @Test("a singleton's build is a span, its dependencies' spans inside it; transients get none by default")
    func nestedSpans() throws {
        let tracer = InMemoryTracer()
        let injector = try Injector(
            modules: [Self.graph], configuration: .init(observer: TracingResolutionObserver(tracer: tracer)))
        _ = try injector.get(App.self)
        _ = try injector.get(App.self)
        let spans = tracer.finishedSpans
        #expect(spans.map(\.operationName) == ["build Store", "build App"], "one span per build, none per hit")
        let store = try #require(spans.first { $0.operationName == "build Store" })
        let app = try #require(spans.first { $0.operationName == "build App" })
        #expect(store.parentSpanID == app.spanID)
        #expect(store.traceID == app.traceID)
        #expect(app.parentSpanID == nil)
        #expect(store.text("provision.path") == "App -> Store")
        #expect(store.text("provision.binding") == "Store")
        #expect(store.text("provision.scope") == "singleton")
        #expect(store.text("provision.depth") == "2")
        #expect(store.status == nil && store.errors.isEmpty)
    }

    @Test("transient builds are on the path even untraced, and traced when asked for")
    func transients() throws {
        let tracer = InMemoryTracer()
        let observer = TracingResolutionObserver(tracer: tracer, tracing: [.singleton, .transient])
        let injector = try Injector(modules: [Self.graph], configuration: .init(observer: observer))
        _ = try injector.get(App.self)
        let logger = try #require(tracer.finishedSpans.first { $0.operationName == "build Logger" })
        #expect(logger.text("provision.path") == "App -> Store -> Logger")
        #expect(logger.text("provision.scope") == "transient")
        let store = try #require(tracer.finishedSpans.first { $0.operationName == "build Store" })
        #expect(logger.parentSpanID == store.spanID)
    }

    @Test("a failing build records its error and an error status, and so does each build it failed through")
    func failures() throws {
        let tracer = InMemoryTracer()
        let injector = try Injector(
            modules: [
                module { binder in
                    binder.bind(Broken.self).to { () throws -> Broken in throw ExpectedFailure() }.in(.singleton)
                    binder.bind(String.self).to { (_: Broken) in "never" }.in(.singleton)
                }
            ],
            configuration: .init(observer: TracingResolutionObserver(tracer: tracer))
        )
        #expect(throws: ProvisionError.self) { try injector.get(String.self) }
        let spans = tracer.finishedSpans
        #expect(spans.map(\.operationName) == ["build Broken", "build String"])
        for span in spans {
            #expect(span.status?.code == .error)
            #expect(span.errors.count == 1)
            #expect(span.text("provision.error.code") == "factory failed")
        }
        #expect(spans.first?.text("provision.path") == "String -> Broken")
    }

    @Test("start() and shutdown() are spans, with the builds and each service's hooks inside")
    func lifecycle() async throws {
        let tracer = InMemoryTracer()
        let injector = try Injector(
            modules: [
                module { binder in
                    binder.bind(Logger.self).to(Logger.init).in(.singleton)
                        .onStart { _ in }
                        .onStop { _ in }
                }
            ],
            configuration: .init(observer: TracingResolutionObserver(tracer: tracer))
        )
        try await injector.start()
        try await injector.shutdown()
        let spans = tracer.finishedSpans
        let start = try #require(spans.first { $0.operationName == "start" })
        let shutdown = try #require(spans.first { $0.operationName == "shutdown" })
        let build = try #require(spans.first { $0.operationName == "build Logger" })
        let startHook = try #require(spans.first { $0.operationName == "start service Logger" })
        let stopHook = try #require(spans.first { $0.operationName == "stop service Logger" })
        #expect(build.parentSpanID == start.spanID)
        #expect(startHook.parentSpanID == start.spanID)
        #expect(stopHook.parentSpanID == shutdown.spanID)
        #expect(startHook.text("provision.binding") == "Logger")
        #expect(shutdown.parentSpanID == nil)
    }

    @Test("a failed start is an error span")
    func failedStart() async throws {
        let tracer = InMemoryTracer()
        let injector = try Injector(
            modules: [
                module { $0.bind(Logger.self).to(Logger.init).in(.singleton).onStart { _ in throw ExpectedFailure() } }
            ],
            configuration: .init(observer: TracingResolutionObserver(tracer: tracer))
        )
        await #expect(throws: ProvisionError.self) { try await injector.start() }
        let start = try #require(tracer.finishedSpans.first { $0.operationName == "start" })
        #expect(start.status?.code == .error)
        #expect(start.text("provision.error.code") == "start failed")
        let hook = try #require(tracer.finishedSpans.first { $0.operationName == "start service Logger" })
        #expect(hook.status?.code == .error)
        try await injector.shutdown()
    }

    @Test("builds on 8 threads at once each nest under their own request's span")
    func threads() throws {
        let tracer = InMemoryTracer()
        let injector = try Injector(
            modules: [
                module { binder in
                    for index in 0..<8 {
                        binder.bind(Logger.self, named: "\(index)").to(Logger.init).in(.singleton)
                        binder.bind(Store.self, named: "\(index)").to { resolver in
                            Store(logger: try resolver.get(named: "\(index)"))
                        }.in(.singleton)
                    }
                }
            ],
            configuration: .init(observer: TracingResolutionObserver(tracer: tracer))
        )
        let group = DispatchGroup()
        let start = DispatchSemaphore(value: 0)
        for index in 0..<8 {
            group.enter()
            Thread {
                start.wait()
                let request = tracer.startSpan("request \(index)")
                ServiceContext.withValue(request.context) {
                    _ = try? injector.get(Store.self, named: "\(index)")
                }
                request.end()
                group.leave()
            }.start()
        }
        for _ in 0..<8 { start.signal() }
        #expect(group.wait(timeout: .now() + 60) == .success)
        let spans = tracer.finishedSpans
        for index in 0..<8 {
            let request = try #require(spans.first { $0.operationName == "request \(index)" })
            let store = try #require(spans.first { $0.operationName == "build Store named \"\(index)\"" })
            let logger = try #require(spans.first { $0.operationName == "build Logger named \"\(index)\"" })
            #expect(store.parentSpanID == request.spanID)
            #expect(logger.parentSpanID == store.spanID)
            #expect(logger.text("provision.path") == "Store named \"\(index)\" -> Logger named \"\(index)\"")
        }
    }

    @Test("async builds nest too")
    func asyncBuilds() async throws {
        let tracer = InMemoryTracer()
        let injector = try Injector(
            modules: [
                module { binder in
                    binder.bind(Logger.self).to { (_: Resolver) async -> Logger in
                        await Task.yield()
                        return Logger()
                    }.in(.singleton)
                    binder.bind(Store.self).to(Store.init(logger:)).in(.singleton)
                }
            ],
            configuration: .init(observer: TracingResolutionObserver(tracer: tracer))
        )
        _ = try await injector.get(Store.self)
        let store = try #require(tracer.finishedSpans.first { $0.operationName == "build Store" })
        let logger = try #require(tracer.finishedSpans.first { $0.operationName == "build Logger" })
        #expect(logger.parentSpanID == store.spanID)
        #expect(logger.text("provision.path") == "Store -> Logger")
    }
}
