import Dispatch
import Foundation
import MetricsTestKit
import ProvisionMetrics
import Testing

@testable import Provision

private final class Hunt6Failing: Sendable {}

private final class Hunt6OnFailing: Sendable {
    init(failing: Hunt6Failing) {}
}

private final class Hunt6Top: Sendable {
    init(onFailing: Hunt6OnFailing) {}
}

private struct Hunt6Broken: Error {}

@Suite("Hunt6 MetricsResolutionObserver: nested waits", .timeLimit(.minutes(1)))
struct Hunt6MetricsTests {
    /// The waiters registered at the gate of `type`'s singleton.
    private static func waiters<T>(_ injector: Injector, _ type: T.Type) -> Int {
        let key = BindingKey(type)
        guard let cell = injector.lookup(key, as: type)?.cell else { return 0 }
        return injector.registry.stripe(for: key).withState { $0.gates[ObjectIdentifier(cell)]?.waiters ?? 0 }
    }

    private static func spin(until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if condition() { return true }
            sched_yield()
        }
        return false
    }

    /// Thread 1 builds `Failing` (blocked, then throws); thread 2 builds `OnFailing` and waits for
    /// `Failing`; thread 3 asks for `Top` and waits for `OnFailing`. Three failed requests, each counted
    /// once where it failed: two at `Failing` (the builder, the waiter that inherited its failure), one
    /// at `OnFailing` (the wait for it failed); none at `Top`, which thread 3 only failed through.
    @Test("three requests failing through nested waits are counted three times, each once")
    func nestedWaitsCountedOnce() throws {
        let metrics = TestMetrics()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt6Failing.self).to { () throws -> Hunt6Failing in
                        entered.signal()
                        _ = release.wait(timeout: .now() + 20)
                        throw Hunt6Broken()
                    }.in(.singleton)
                    binder.bind(Hunt6OnFailing.self).to(Hunt6OnFailing.init(failing:)).in(.singleton)
                    binder.bind(Hunt6Top.self).to(Hunt6Top.init(onFailing:))
                }
            ],
            configuration: .init(observer: MetricsResolutionObserver(factory: metrics)))
        let failures = Locked<[ProvisionError.Code?]>([])
        let done = DispatchGroup()
        func request(_ body: @escaping @Sendable () throws -> Void) {
            done.enter()
            Thread.detachNewThread {
                do { try body() } catch { failures.withLock { $0.append((error as? ProvisionError)?.code) } }
                done.leave()
            }
        }
        request { _ = try injector.get(Hunt6Failing.self) }
        #expect(entered.wait(timeout: .now() + 20) == .success)
        request { _ = try injector.get(Hunt6OnFailing.self) }
        #expect(Self.spin { Self.waiters(injector, Hunt6Failing.self) == 1 })
        request { _ = try injector.get(Hunt6Top.self) }
        #expect(Self.spin { Self.waiters(injector, Hunt6OnFailing.self) == 1 })
        release.signal()
        #expect(done.wait(timeout: .now() + 20) == .success)
        #expect(failures.withLock { $0 } == [.factoryFailed, .factoryFailed, .factoryFailed])
        let label = "provision_build_failures_total"
        #expect(metrics.counterTotal(label: label) == 3)
        #expect(
            metrics.counterTotal(label: label, dimensions: [("binding", "Hunt6Failing"), ("code", "factory failed")])
                == 2)
        #expect(
            metrics.counterTotal(label: label, dimensions: [("binding", "Hunt6OnFailing"), ("code", "factory failed")])
                == 1)
        #expect(
            metrics.counterTotal(label: label, dimensions: [("binding", "Hunt6Top"), ("code", "factory failed")]) == 0)
        let onFailingWaits = try metrics.expectTimer(
            "provision_singleton_wait_duration", [("binding", "Hunt6OnFailing")])
        #expect(onFailingWaits.values.count == 1)
        let failingWaits = try metrics.expectTimer("provision_singleton_wait_duration", [("binding", "Hunt6Failing")])
        #expect(failingWaits.values.count == 1)
    }
}
