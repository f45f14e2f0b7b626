import Synchronization
import Testing

@testable import Provision

/// Records the lifecycle steps it wraps, as `begin`/`end` lines, running each body exactly once.
final class LifecycleRecorder: ResolutionObserver {
    private let lines = Locked<[String]>([])
    let events = RecordingObserver()

    var recorded: [String] {
        lines.withLock { $0 }
    }

    func receive(_ event: ResolutionEvent) {
        events.receive(event)
    }

    func observeLifecycle(
        _ operation: LifecycleOperation,
        _ body: () async throws(ProvisionError) -> Void
    ) async throws(ProvisionError) {
        lines.withLock { $0.append("begin \(operation)") }
        do throws(ProvisionError) {
            try await body()
            lines.withLock { $0.append("end \(operation)") }
        } catch {
            lines.withLock { $0.append("fail \(operation): \(error.code)") }
            throw error
        }
    }
}

@Suite("Resolution observers: lifecycle steps and link failures")
struct LifecycleHookTests {
    @Test("start() and shutdown() are wrapped, each service's hooks inside them, in order")
    func lifecycleSteps() async throws {
        let observer = LifecycleRecorder()
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Engine.self).to(Engine.init).in(.singleton).onStart { _ in }.onStop { _ in }
                    binder.bind(Brakes.self).to(Brakes.init).in(.singleton).onStop { _ in }
                }
            ],
            configuration: .init(observer: observer)
        )
        try await injector.start()
        try await injector.shutdown()
        let lines = observer.recorded
        #expect(lines.first == "begin start")
        #expect(lines.contains("begin start service Engine") && lines.contains("end start service Engine"))
        #expect(!lines.contains("begin start service Brakes"), "a service without a start hook runs none")
        let endStart = try #require(lines.firstIndex(of: "end start"))
        let stops = lines.indices.filter { lines[$0].hasPrefix("begin stop service") }
        #expect(stops.count == 2 && stops.allSatisfy { $0 > endStart })
        #expect(lines.last == "end shutdown")
        #expect(LifecycleOperation.startService(BindingKey(Engine.self)).description == "start service Engine")
        #expect(LifecycleOperation.stopService(BindingKey(Engine.self)).kind == .stopService)
    }

    @Test("a failing hook fails its step, and start fails around it; the default hook runs the body")
    func failingHooks() async throws {
        let observer = LifecycleRecorder()
        let injector = try Injector(
            modules: [
                ClosureModule {
                    $0.bind(Engine.self).to(Engine.init).in(.singleton).onStart { _ in throw ExpectedFailure() }
                }
            ],
            configuration: .init(observer: observer)
        )
        await #expect(throws: ProvisionError.self) { try await injector.start() }
        #expect(observer.recorded.contains { $0.hasPrefix("fail start service Engine: ") })
        #expect(observer.recorded.last == "fail start: start failed")

        // An observer that implements none of the hooks: start and shutdown run as without one.
        let plain = try Injector(
            modules: [ClosureModule { $0.bind(Engine.self).to(Engine.init).in(.singleton).onStart { _ in } }],
            configuration: .init(observer: RecordingObserver())
        )
        try await plain.start()
        #expect(plain.startedServices == [BindingKey(Engine.self)])
        try await plain.shutdown()
    }

    @Test("a request that fails while its binding is linked is reported once, with its error, sync and async")
    func linkFailures() async throws {
        let observer = RecordingObserver()
        let injector = try Injector(
            modules: [ClosureModule { $0.bind(Car.self).to(Car.init(engine:brakes:)) }],
            configuration: .init(validatesOnCreation: false, observer: observer)
        )
        for _ in 0..<2 {
            #expect(throws: ProvisionError.self) { try resolveSynchronously(Car.self, in: injector) }
        }
        await #expect(throws: ProvisionError.self) { try await injector.get(Car.self) }
        let failures = observer.recorded.filter { $0.kind == .linkFailed }
        #expect(failures.count == 3)
        #expect(failures.allSatisfy { $0.key == BindingKey(Car.self) && $0.error?.code == .notBound })
        #expect(failures.first?.description == "link failed Car (transient): not bound")
        #expect(observer.lines(.failed).isEmpty, "nothing was built, so no build failed")
    }
}

/// A synchronous request, from an async test.
private func resolveSynchronously<T>(_ type: T.Type, in injector: Injector) throws(ProvisionError) -> T {
    try injector.get(type)
}
