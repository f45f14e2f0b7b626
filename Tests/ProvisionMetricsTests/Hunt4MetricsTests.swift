import Dispatch
import Foundation
import MetricsTestKit
import ProvisionMetrics
import Testing

@testable import Provision

private final class Hunt4Config: Sendable {}

private final class Hunt4Service: Sendable {
    init(config: Hunt4Config) {}
}

@Suite("Hunt4 MetricsResolutionObserver", .timeLimit(.minutes(1)))
struct Hunt4MetricsTests {
    /// An injector whose singleton `Hunt4Config` blocks in its factory until `release` is signalled,
    /// then throws; `Hunt4Service` depends on it.
    private static func injector(
        _ metrics: TestMetrics,
        entered: DispatchSemaphore,
        release: DispatchSemaphore
    ) throws -> Injector {
        try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt4Config.self).to { () throws -> Hunt4Config in
                        entered.signal()
                        _ = release.wait(timeout: .now() + 20)
                        struct Broken: Error {}
                        throw Broken()
                    }.in(.singleton)
                    binder.bind(Hunt4Service.self).to(Hunt4Service.init(config:))
                }
            ],
            configuration: .init(observer: MetricsResolutionObserver(factory: metrics)))
    }

    /// Spins until `count` of the singleton's gate reaches one: the second request waits there.
    private static func awaitWaiter(
        _ injector: Injector,
        _ count: @escaping (GateEntry) -> Int
    ) -> Bool {
        let key = BindingKey(Hunt4Config.self)
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let waiting = injector.registry.stripe(for: key).withState { state in
                state.gates.values.reduce(0) { $0 + count($1) }
            }
            if waiting > 0 { return true }
            sched_yield()
        }
        return false
    }

    /// Both requests fail at `Hunt4Config`: the builder's factory threw, the waiter inherited it. Neither
    /// is counted under `Hunt4Service`, which they only failed through; the wait is timed once.
    private static func expectCountedAtTheSingleton(_ metrics: TestMetrics) throws {
        let failures = "provision_build_failures_total"
        #expect(metrics.counterTotal(label: failures) == 2)
        #expect(
            metrics.counterTotal(label: failures, dimensions: [("binding", "Hunt4Config"), ("code", "factory failed")])
                == 2)
        #expect(
            metrics.counterTotal(
                label: failures, dimensions: [("binding", "Hunt4Service"), ("code", "factory failed")])
                == 0)
        let waits = try metrics.expectTimer("provision_singleton_wait_duration", [("binding", "Hunt4Config")])
        #expect(waits.values.count == 1)
    }

    @Test("a thread that waited for another thread's failing singleton build counts the failure once, there")
    func waiterCountsOnce() throws {
        let metrics = TestMetrics()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let injector = try Self.injector(metrics, entered: entered, release: release)
        let done = DispatchGroup()
        let failures = Locked<[ProvisionError.Code?]>([])
        for index in 0..<2 {
            // The second thread starts once the first is inside the singleton's factory.
            if index == 1 { #expect(entered.wait(timeout: .now() + 20) == .success) }
            done.enter()
            Thread.detachNewThread {
                do {
                    _ = try injector.get(Hunt4Service.self)
                } catch {
                    failures.withLock { $0.append((error as? ProvisionError)?.code) }
                }
                done.leave()
            }
        }
        // Released once the second thread is registered at the singleton's gate.
        #expect(Self.awaitWaiter(injector) { $0.waiters })
        release.signal()
        #expect(done.wait(timeout: .now() + 20) == .success)
        #expect(failures.withLock { $0 } == [.factoryFailed, .factoryFailed])
        try Self.expectCountedAtTheSingleton(metrics)
    }

    @Test("a task that waited for a thread's failing singleton build counts the failure once, there")
    func suspendedWaiterCountsOnce() async throws {
        let metrics = TestMetrics()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let injector = try Self.injector(metrics, entered: entered, release: release)
        let builder = DispatchGroup()
        builder.enter()
        Thread.detachNewThread {
            _ = try? injector.get(Hunt4Service.self)
            builder.leave()
        }
        #expect(entered.wait(timeout: .now() + 20) == .success)
        let waiter = Task { () async -> ProvisionError.Code? in
            do {
                _ = try await injector.get(Hunt4Service.self)
                return nil
            } catch {
                return (error as? ProvisionError)?.code
            }
        }
        // Released once the task is suspended at the singleton's gate.
        #expect(Self.awaitWaiter(injector) { $0.suspended.count })
        release.signal()
        #expect(await waiter.value == .factoryFailed)
        #expect(builder.wait(timeout: .now() + 20) == .success)
        try Self.expectCountedAtTheSingleton(metrics)
    }
}
