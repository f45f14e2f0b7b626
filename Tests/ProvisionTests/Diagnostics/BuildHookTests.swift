import Dispatch
import Synchronization
import Testing

@testable import Provision

/// An observer that wraps each build (the hooks a tracer uses), recording when each one begins and ends
/// and checking that it runs the build exactly once.
final class WrappingObserver: ResolutionObserver {
    private let lines = Locked<[String]>([])
    /// Events delivered to `receive(_:)`: none, since the hooks are overridden.
    let received = Atomic<Int>(0)

    var recorded: [String] {
        lines.withLock { $0 }
    }

    func receive(_ event: ResolutionEvent) {
        received.add(1, ordering: .relaxed)
    }

    func observeBuild<T>(
        of key: BindingKey,
        scope: Scope,
        _ build: () throws(ProvisionError) -> T
    ) throws(ProvisionError) -> T {
        lines.withLock { $0.append("begin \(key)") }
        do throws(ProvisionError) {
            let value = try build()
            lines.withLock { $0.append("end \(key)") }
            return value
        } catch {
            lines.withLock { $0.append("fail \(key): \(error.code)") }
            throw error
        }
    }

    func observeAsyncBuild<T>(
        of key: BindingKey,
        scope: Scope,
        _ build: () async throws(ProvisionError) -> T
    ) async throws(ProvisionError) -> T {
        lines.withLock { $0.append("begin async \(key)") }
        let value = try await build()
        lines.withLock { $0.append("end async \(key)") }
        return value
    }
}

@Suite("Resolution observers: build hooks")
struct BuildHookTests {
    private let transientChain = ClosureModule { binder in
        binder.bind(GraphLogger.self).to(GraphLogger.init)
        binder.bind(GraphStore.self).to(GraphStore.init(logger:))
        binder.bind(GraphService.self).to(GraphService.init(store:))
    }

    @Test("the hook wraps each build once, with the dependencies' builds nested inside the dependent's")
    func nesting() throws {
        let observer = WrappingObserver()
        let injector = try Injector(modules: [transientChain], configuration: .init(observer: observer))
        _ = try injector.get(GraphService.self)
        #expect(
            observer.recorded == [
                "begin GraphService", "begin GraphStore", "begin GraphLogger",
                "end GraphLogger", "end GraphStore", "end GraphService",
            ])
        // Overriding the hooks replaces the default events.
        #expect(observer.received.load(ordering: .relaxed) == 0)
    }

    @Test("a singleton's build is wrapped once, however many threads request it")
    func singletonOnce() throws {
        let observer = WrappingObserver()
        let injector = try Injector(
            modules: [ClosureModule { $0.bind(GraphLogger.self).to(GraphLogger.init).in(.singleton) }],
            configuration: .init(observer: observer)
        )
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<100 { _ = try? injector.get(GraphLogger.self) }
        }
        #expect(observer.recorded == ["begin GraphLogger", "end GraphLogger"])
    }

    @Test("a failing build's error passes through every hook on its path unchanged")
    func failures() throws {
        let observer = WrappingObserver()
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(GraphLogger.self).to { () throws -> GraphLogger in throw ExpectedFailure(id: 4) }
                    binder.bind(GraphStore.self).to(GraphStore.init(logger:))
                }
            ],
            configuration: .init(observer: observer)
        )
        let error = #expect(throws: ProvisionError.self) { try injector.get(GraphStore.self) }
        #expect(error?.code == .factoryFailed)
        #expect(error?.path == [BindingKey(GraphStore.self), BindingKey(GraphLogger.self)])
        #expect(
            observer.recorded == [
                "begin GraphStore", "begin GraphLogger", "fail GraphLogger: factory failed",
                "fail GraphStore: factory failed",
            ])
    }

    @Test("an async factory's build goes through the async hook")
    func asyncBuilds() async throws {
        let observer = WrappingObserver()
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(GraphLogger.self).to { _ async in GraphLogger() }
                    binder.bind(GraphStore.self).to(GraphStore.init(logger:))
                }
            ],
            configuration: .init(observer: observer)
        )
        _ = try await injector.get(GraphStore.self)
        #expect(
            observer.recorded == [
                "begin async GraphStore", "begin async GraphLogger", "end async GraphLogger", "end async GraphStore",
            ])
    }

    @Test("an observer that implements only receive(_:) still gets timed built events (the default hook)")
    func defaultHookDeliversEvents() throws {
        let observer = RecordingObserver()
        let injector = try Injector(modules: [transientChain], configuration: .init(observer: observer))
        _ = try injector.get(GraphService.self)
        #expect(observer.lines() == ["built GraphLogger", "built GraphStore", "built GraphService"])
        #expect(observer.recorded.allSatisfy { $0.duration >= .zero })
    }
}
