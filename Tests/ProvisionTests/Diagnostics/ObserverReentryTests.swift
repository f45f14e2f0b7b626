import Dispatch
import Synchronization
import Testing

@testable import Provision

/// An exporter: a singleton the observers below report to, resolved from the injector inside events.
private final class ReentryExporter: Sendable {
    static let built = Atomic<Int>(0)
    init() { Self.built.add(1, ordering: .relaxed) }
}

private final class ReentryWorker: Sendable {
    init() {}
}

/// An observer whose build hook resolves the binding it has just built, after `build()` returns: the
/// singleton is served from then on, so the lookup gets the instance the build made.
private final class ResolvingHook: ResolutionObserver {
    let injector = Locked<Injector?>(nil)
    let found = Locked<[ObjectIdentifier]>([])
    let errors = Locked<[ProvisionError]>([])

    func observeBuild<T>(
        of key: BindingKey,
        scope: Scope,
        _ build: () throws(ProvisionError) -> T
    ) throws(ProvisionError) -> T {
        let value = try build()
        if key == BindingKey(ReentryExporter.self), let injector = injector.withLock({ $0 }) {
            do {
                let exporter = try injector.get(ReentryExporter.self)
                found.withLock { $0.append(ObjectIdentifier(exporter)) }
            } catch {
                errors.withLock { $0.append(error) }
            }
        }
        return value
    }
}

/// An observer that breaks its contract: its hook throws after the build returned.
private final class ThrowingAfterBuild: ResolutionObserver {
    let thrown = Atomic<Int>(0)

    func observeBuild<T>(
        of key: BindingKey,
        scope: Scope,
        _ build: () throws(ProvisionError) -> T
    ) throws(ProvisionError) -> T {
        let value = try build()
        if thrown.add(1, ordering: .relaxed).newValue == 1 {
            throw ProvisionError.shutDown(key)
        }
        return value
    }
}

/// An observer that resolves the exporter in every `built` event the default hooks deliver, from a
/// synchronous or an async request.
private final class ResolvingReceiver: ResolutionObserver {
    let injector = Locked<Injector?>(nil)
    let found = Locked<[ObjectIdentifier]>([])
    let errors = Locked<[ProvisionError]>([])

    func receive(_ event: ResolutionEvent) {
        guard event.kind == .built, let injector = injector.withLock({ $0 }) else { return }
        do {
            let exporter = try injector.get(ReentryExporter.self)
            found.withLock { $0.append(ObjectIdentifier(exporter)) }
        } catch {
            errors.withLock { $0.append(error) }
        }
    }
}

/// An observed singleton is served from the moment its build returns inside the observer's hook (found
/// by hunt 27A: the lookup was a re-entry, reported as a cycle).
@Suite("Observers resolving the binding they observe", .serialized)
struct ObserverReentryTests {
    @Test("8 threads arrive at once: the singleton is built once, and each hook's lookup finds it")
    func hookResolvesItsSingleton() throws {
        let observer = ResolvingHook()
        let injector = try Injector(
            modules: [ClosureModule { $0.bind(ReentryExporter.self).to(ReentryExporter.init).in(.singleton) }],
            configuration: .init(observer: observer))
        observer.injector.withLock { $0 = injector }
        let before = ReentryExporter.built.load(ordering: .relaxed)
        let barrier = Barrier(count: 8)
        let got = Locked<[ObjectIdentifier]>([])
        let finished = runThreads(8) { _ in
            barrier.arriveAndWait()
            if let exporter = try? injector.get(ReentryExporter.self) {
                got.withLock { $0.append(ObjectIdentifier(exporter)) }
            }
        }
        #expect(finished)
        #expect(ReentryExporter.built.load(ordering: .relaxed) - before == 1, "the factory ran exactly once")
        #expect(observer.errors.withLock { $0 }.map(\.code) == [])
        let instances = got.withLock { $0 }
        #expect(instances.count == 8)
        #expect(Set(instances).count == 1)
        #expect(observer.found.withLock { $0 } == [instances[0]], "one build, one hook, the same instance")
    }

    @Test("an async singleton's built event resolves it, synchronously and asynchronously")
    func asyncBuildEvent() async throws {
        let observer = ResolvingReceiver()
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(ReentryExporter.self).to { (_: Resolver) async -> ReentryExporter in
                        await Task.yield()
                        return ReentryExporter()
                    }.in(.singleton)
                    binder.bind(ReentryWorker.self).to { (_: Resolver) async -> ReentryWorker in ReentryWorker() }
                }
            ],
            configuration: .init(observer: observer))
        observer.injector.withLock { $0 = injector }
        let exporter = try await injector.get(ReentryExporter.self)
        _ = try await injector.get(ReentryWorker.self)
        #expect(observer.errors.withLock { $0 }.map(\.code) == [])
        // The exporter's own event and the worker's.
        #expect(observer.found.withLock { $0 } == [ObjectIdentifier(exporter), ObjectIdentifier(exporter)])
    }

    @Test("inside the hook's build, before it returns, resolving the binding being built is still a cycle")
    func lookupInsideTheBuild() throws {
        let injector = Locked<Injector?>(nil)
        let inner = Locked<ProvisionError.Code?>(nil)
        let module = ClosureModule { binder in
            binder.bind(ReentryWorker.self).to { () -> ReentryWorker in
                do {
                    _ = try injector.withLock { $0 }?.get(ReentryWorker.self)
                } catch {
                    inner.withLock { $0 = (error as? ProvisionError)?.code }
                }
                return ReentryWorker()
            }.in(.singleton)
        }
        let made = try Injector(modules: [module], configuration: .init(observer: RecordingObserver()))
        injector.withLock { $0 = made }
        _ = try made.get(ReentryWorker.self)
        #expect(inner.withLock { $0 } == .cycle)
    }

    @Test("a hook that throws after its build returned fails that request; the singleton it built is kept")
    func hookThrowsAfterBuild() throws {
        let builds = Atomic<Int>(0)
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(ReentryWorker.self).to { () -> ReentryWorker in
                        builds.add(1, ordering: .relaxed)
                        return ReentryWorker()
                    }.in(.singleton)
                }
            ],
            configuration: .init(observer: ThrowingAfterBuild()))
        let error = #expect(throws: ProvisionError.self) { try injector.get(ReentryWorker.self) }
        #expect(error?.code == .shutDown)
        let first = try injector.get(ReentryWorker.self)
        let second = try injector.get(ReentryWorker.self)
        #expect(first === second)
        #expect(builds.load(ordering: .relaxed) == 1, "the published instance is the singleton")
    }
}
