import Dispatch
import Foundation
import MetricsTestKit
import ProvisionMetrics
import Synchronization
import Testing

@testable import Provision

// Hunt 27A: exact counts of MetricsResolutionObserver when threads and tasks race a singleton's first
// build, when a factory recovers from a failed dependency, and an observer that resolves from the
// injector inside its own events.

private final class Hunt27AConfig: Sendable {}

private final class Hunt27AService: Sendable {
    init(config: Hunt27AConfig) {}
}

private final class Hunt27AOptional: Sendable {}

private final class Hunt27AAudit: Sendable {}

private struct Hunt27ABroken: Error {}

/// Spins (bounded) until `count` waiters are registered at `T`'s singleton gate.
private func hunt27AAwaitWaiters<T>(
    _ injector: Injector,
    _ type: T.Type,
    count: Int,
    _ measure: @escaping (GateEntry) -> Int
) -> Bool {
    let key = BindingKey(type)
    let deadline = Date().addingTimeInterval(20)
    while Date() < deadline {
        let waiting = injector.registry.stripe(for: key).withState { state in
            state.gates.values.reduce(0) { $0 + measure($1) }
        }
        if waiting >= count { return true }
        sched_yield()
    }
    return false
}

@Suite("Hunt27A MetricsResolutionObserver", .timeLimit(.minutes(1)))
struct Hunt27AMetricsTests {
    /// An injector whose singleton `Hunt27AConfig` blocks in its factory until `release`, then returns
    /// (or throws if `fails`).
    private static func injector(
        _ metrics: TestMetrics,
        entered: DispatchSemaphore,
        release: DispatchSemaphore,
        fails: Bool
    ) throws -> Injector {
        try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt27AConfig.self).to { () throws -> Hunt27AConfig in
                        entered.signal()
                        _ = release.wait(timeout: .now() + 20)
                        if fails { throw Hunt27ABroken() }
                        return Hunt27AConfig()
                    }.in(.singleton)
                    binder.bind(Hunt27AService.self).to(Hunt27AService.init(config:))
                }
            ],
            configuration: .init(observer: MetricsResolutionObserver(factory: metrics)))
    }

    /// Runs `threads` threads that each request `Hunt27AService`; the first builds the singleton, the
    /// others start once it is inside the factory and are released once all of them wait at the gate.
    private static func race(
        _ injector: Injector,
        threads: Int,
        entered: DispatchSemaphore,
        release: DispatchSemaphore
    ) -> [ProvisionError.Code?] {
        let outcomes = Locked<[ProvisionError.Code?]>([])
        let done = DispatchGroup()
        for index in 0..<threads {
            if index == 1 { #expect(entered.wait(timeout: .now() + 20) == .success) }
            done.enter()
            Thread.detachNewThread {
                do {
                    _ = try injector.get(Hunt27AService.self)
                    outcomes.withLock { $0.append(nil) }
                } catch {
                    outcomes.withLock { $0.append((error as? ProvisionError)?.code) }
                }
                done.leave()
            }
        }
        #expect(hunt27AAwaitWaiters(injector, Hunt27AConfig.self, count: threads - 1) { $0.waiters })
        release.signal()
        #expect(done.wait(timeout: .now() + 20) == .success)
        return outcomes.withLock { $0 }
    }

    /// A user expects (the metrics table: `provision_builds_total` counts "every value a binding built",
    /// `provision_singleton_wait_duration` "each wait of a thread ... for another one's build of a
    /// singleton") that 8 threads racing a singleton's first build count exactly 1 build of it and 7 waits,
    /// 8 builds of the transient around it, and no failure.
    @Test("8 threads race a singleton's first build: 1 build, 7 waits, 8 transient builds, 0 failures")
    func threadsRaceFirstBuild() throws {
        let metrics = TestMetrics()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let injector = try Self.injector(metrics, entered: entered, release: release, fails: false)
        let outcomes = Self.race(injector, threads: 8, entered: entered, release: release)
        #expect(outcomes == Array(repeating: nil, count: 8))
        let builds = "provision_builds_total"
        #expect(
            metrics.counterTotal(label: builds, dimensions: [("binding", "Hunt27AConfig"), ("scope", "singleton")]) == 1
        )
        #expect(
            metrics.counterTotal(label: builds, dimensions: [("binding", "Hunt27AService"), ("scope", "transient")])
                == 8)
        let waits = try metrics.expectTimer("provision_singleton_wait_duration", [("binding", "Hunt27AConfig")])
        #expect(waits.values.count == 7)
        #expect(metrics.counterTotal(label: "provision_build_failures_total") == 0)
    }

    /// A user expects (`provision_build_failures_total` counts "every failed request, once, by the binding
    /// where it failed (... a singleton whose build it waited for failed ...)") that 6 threads racing a
    /// failing singleton count exactly 6 failures, all under the singleton, none under the transient they
    /// failed through, and 5 waits.
    @Test("6 threads race a failing singleton: 6 failures at the singleton, 5 waits, none at the transient")
    func threadsRaceFailingBuild() throws {
        let metrics = TestMetrics()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let injector = try Self.injector(metrics, entered: entered, release: release, fails: true)
        let outcomes = Self.race(injector, threads: 6, entered: entered, release: release)
        #expect(outcomes == Array(repeating: .factoryFailed, count: 6))
        let failures = "provision_build_failures_total"
        #expect(metrics.counterTotal(label: failures) == 6)
        #expect(
            metrics.counterTotal(
                label: failures, dimensions: [("binding", "Hunt27AConfig"), ("code", "factory failed")])
                == 6)
        let waits = try metrics.expectTimer("provision_singleton_wait_duration", [("binding", "Hunt27AConfig")])
        #expect(waits.values.count == 5)
        #expect(metrics.counterTotal(label: "provision_builds_total") == 0)
    }

    /// A user expects the same exact counts when the waiters are tasks (`await injector.get`) suspended
    /// while a thread builds the singleton: 1 build of it, 5 waits, 6 builds of the transient.
    @Test("5 tasks wait for a thread's first build of a singleton: 1 build, 5 waits, 6 transient builds")
    func tasksWaitForThreadBuild() async throws {
        let metrics = TestMetrics()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let injector = try Self.injector(metrics, entered: entered, release: release, fails: false)
        let builder = DispatchGroup()
        builder.enter()
        Thread.detachNewThread {
            _ = try? injector.get(Hunt27AService.self)
            builder.leave()
        }
        #expect(entered.wait(timeout: .now() + 20) == .success)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<5 {
                group.addTask { _ = try await injector.get(Hunt27AService.self) }
            }
            #expect(hunt27AAwaitWaiters(injector, Hunt27AConfig.self, count: 5) { $0.suspended.count })
            release.signal()
            try await group.waitForAll()
        }
        #expect(builder.wait(timeout: .now() + 20) == .success)
        #expect(
            metrics.counterTotal(
                label: "provision_builds_total", dimensions: [("binding", "Hunt27AConfig"), ("scope", "singleton")])
                == 1)
        #expect(
            metrics.counterTotal(
                label: "provision_builds_total", dimensions: [("binding", "Hunt27AService"), ("scope", "transient")])
                == 6)
        let waits = try metrics.expectTimer("provision_singleton_wait_duration", [("binding", "Hunt27AConfig")])
        #expect(waits.values.count == 5)
    }

    /// Found by hunt 27A, fixed: a build frame records which failures were counted inside it (by where
    /// they started), not only that one was; the recovered dependency's failure had hidden the
    /// factory's own.
    ///
    /// A user expects (`provision_build_failures_total`: "every failed request, once, by the binding where
    /// it failed (a build whose factory threw ...)") that a request failing because `Hunt27AService`'s own
    /// factory threw is counted once, under `Hunt27AService` — also when that factory had earlier tried an
    /// optional dependency (`try? resolver.get(...)`) that failed and recovered from it. The recovered
    /// dependency's failure may be counted under its own binding, but the request's failure must not be
    /// lost.
    @Test("a factory that recovers from a failed optional dependency, then throws: its failure is counted")
    func failureAfterRecoveredDependency() throws {
        let metrics = TestMetrics()
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt27AOptional.self).to { () throws -> Hunt27AOptional in throw Hunt27ABroken() }
                    binder.bind(Hunt27AService.self).to { (resolver: Resolver) throws -> Hunt27AService in
                        _ = try? resolver.get(Hunt27AOptional.self)
                        throw Hunt27ABroken()
                    }
                }
            ],
            configuration: .init(observer: MetricsResolutionObserver(factory: metrics)))
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt27AService.self) }
        #expect(error?.code == .factoryFailed)
        #expect(error?.key == BindingKey(Hunt27AService.self))
        let failures = "provision_build_failures_total"
        #expect(
            metrics.counterTotal(
                label: failures, dimensions: [("binding", "Hunt27AOptional"), ("code", "factory failed")]) == 1)
        #expect(metrics.counterTotal(label: failures) == 2, "two requests failed: the optional one and the outer one")
        #expect(
            metrics.counterTotal(
                label: failures, dimensions: [("binding", "Hunt27AService"), ("code", "factory failed")]) == 1,
            "the request failed in Hunt27AService's factory but is counted under no binding of its own")
    }

    /// Found by hunt 27A, fixed: the exporter's own `built` event was delivered inside its build before
    /// the singleton was stored, so the observer's lookup of it there was a re-entry, reported as a cycle
    /// (`Hunt27AAudit depends on itself`). An observed singleton build now publishes the instance before
    /// the hook's build returns (`Node.observing(_:publishingIn:)`).
    ///
    /// A user expects (ResolutionObserver: "Events are delivered ... with no Provision lock held, so an
    /// observer may resolve from the injector") that an observer that looks up a singleton of the same
    /// injector in each event (an exporter it reports to, built on first use) gets it every time: when a
    /// transient's build event makes it build the exporter, the exporter's own build event, delivered
    /// inside that lookup, must find the same exporter, not fail.
    @Test("an observer that resolves a singleton from the injector in its events, including that singleton's")
    func observerResolvesInItsOwnEvent() throws {
        final class Resolving: ResolutionObserver {
            let injector = Locked<Injector?>(nil)
            let seen = Locked<[ObjectIdentifier]>([])
            let errors = Locked<[String]>([])
            func receive(_ event: ResolutionEvent) {
                guard event.kind == .built, let injector = injector.withLock({ $0 }) else { return }
                do {
                    let exporter = try injector.get(Hunt27AAudit.self)
                    seen.withLock { $0.append(ObjectIdentifier(exporter)) }
                } catch {
                    errors.withLock { $0.append("\(error)") }
                }
            }
        }
        let observer = Resolving()
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt27AAudit.self).to(Hunt27AAudit.init).in(.singleton)
                    binder.bind(Hunt27AOptional.self).to(Hunt27AOptional.init)
                }
            ],
            configuration: .init(observer: observer))
        observer.injector.withLock { $0 = injector }
        let finished = DispatchSemaphore(value: 0)
        let requested = Locked<Bool>(false)
        Thread.detachNewThread {
            requested.withLock { $0 = (try? injector.get(Hunt27AOptional.self)) != nil }
            finished.signal()
        }
        #expect(finished.wait(timeout: .now() + 5) == .success, "the request deadlocked in its own observer")
        #expect(requested.withLock { $0 })
        let exporter = ObjectIdentifier(try injector.get(Hunt27AAudit.self))
        #expect(observer.errors.withLock { $0 } == [])
        #expect(observer.seen.withLock { $0 } == [exporter, exporter])
    }

    /// A user expects (`provision_build_failures_total`: a request counted once "by the binding where it
    /// failed (... a singleton whose build it waited for failed or the wait timed out)") that a thread
    /// whose wait for another thread's slow build exceeds `singletonWaitTimeout` is counted once under
    /// the singleton with code `timed out`, its wait timed, and that the slow build, finishing afterwards,
    /// is counted as one build and no failure.
    @Test("a wait that times out is one failure at the singleton (timed out); the slow build still counts once")
    func waitTimeout() throws {
        let metrics = TestMetrics()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt27AConfig.self).to { () -> Hunt27AConfig in
                        entered.signal()
                        _ = release.wait(timeout: .now() + 20)
                        return Hunt27AConfig()
                    }.in(.singleton)
                    binder.bind(Hunt27AService.self).to(Hunt27AService.init(config:))
                }
            ],
            configuration: .init(
                singletonWaitTimeout: .milliseconds(100), observer: MetricsResolutionObserver(factory: metrics)))
        let builder = DispatchGroup()
        builder.enter()
        Thread.detachNewThread {
            _ = try? injector.get(Hunt27AService.self)
            builder.leave()
        }
        #expect(entered.wait(timeout: .now() + 20) == .success)
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt27AService.self) }
        release.signal()
        #expect(builder.wait(timeout: .now() + 20) == .success)
        let code = try #require(error?.code)
        #expect(code == .timedOut)
        let failures = "provision_build_failures_total"
        #expect(metrics.counterTotal(label: failures) == 1)
        #expect(
            metrics.counterTotal(label: failures, dimensions: [("binding", "Hunt27AConfig"), ("code", "timed out")])
                == 1)
        let waits = try metrics.expectTimer("provision_singleton_wait_duration", [("binding", "Hunt27AConfig")])
        #expect(waits.values.count == 1)
        #expect(
            metrics.counterTotal(
                label: "provision_builds_total", dimensions: [("binding", "Hunt27AConfig"), ("scope", "singleton")])
                == 1)
        #expect(
            metrics.counterTotal(
                label: "provision_builds_total", dimensions: [("binding", "Hunt27AService"), ("scope", "transient")])
                == 1)
    }

    /// A user expects (`provision_cycle_errors_total`: "the failures among those whose code is cycle", once
    /// per failing request) that a cycle through async closures, found at run time while awaiting, is
    /// counted once as a failure and once as a cycle error, under the binding where it closed.
    @Test("a cycle through async closures is counted once as a failure and once as a cycle")
    func asyncCycle() async throws {
        let metrics = TestMetrics()
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt27AConfig.self).to { (resolver: Resolver) async throws -> Hunt27AConfig in
                        await Task.yield()
                        _ = try await resolver.get(Hunt27AService.self)
                        return Hunt27AConfig()
                    }
                    binder.bind(Hunt27AService.self).to { (resolver: Resolver) async throws -> Hunt27AService in
                        await Task.yield()
                        return Hunt27AService(config: try await resolver.get())
                    }
                }
            ],
            configuration: .init(observer: MetricsResolutionObserver(factory: metrics)))
        let error = await #expect(throws: ProvisionError.self) { try await injector.get(Hunt27AService.self) }
        #expect(error?.code == .cycle)
        #expect(metrics.counterTotal(label: "provision_build_failures_total") == 1)
        #expect(metrics.counterTotal(label: "provision_cycle_errors_total") == 1)
        #expect(metrics.counterTotal(label: "provision_builds_total") == 0)
    }
}
