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
    // Open defect: the doc table says provision_build_failures_total counts "every failed request, once, by the binding
    // where it failed (a build whose factory threw ...), not by every binding it failed through". The thread that
    // waited at the singleton's gate and got the builder's error passed on ran no build of Hunt4Config, so its failure
    // is counted by Hunt4Service, a binding it only failed through (MetricsResolutionObserver.record: no nested frame
    // marked the failure as counted). Open defect (fourth hunt): a request that waited at a singleton's gate for
    // another thread's failing build runs no build of that singleton, so the observer charges its failure to the
    // binding it was building (Hunt4Service) instead of the singleton. The test also times the second thread's arrival
    // with a sleep; both are for the next session.
    @Test(
        "a thread that waited for another thread's failing singleton build counts the failure once",
        .disabled("open defect: a waiter's inherited failure is counted under the binding it was building")
    )
    func waiterCountsOnce() throws {
        let metrics = TestMetrics()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt4Config.self).to { () throws -> Hunt4Config in
                        entered.signal()
                        _ = release.wait(timeout: .now() + 10)
                        struct Broken: Error {}
                        throw Broken()
                    }.in(.singleton)
                    binder.bind(Hunt4Service.self).to(Hunt4Service.init(config:))
                }
            ],
            configuration: .init(observer: MetricsResolutionObserver(factory: metrics)))
        let done = DispatchGroup()
        for index in 0..<2 {
            if index == 1 { #expect(entered.wait(timeout: .now() + 10) == .success) }
            done.enter()
            Thread.detachNewThread {
                _ = try? injector.get(Hunt4Service.self)
                done.leave()
            }
        }
        // The second thread reaches the singleton's gate while the first builds it.
        Thread.sleep(forTimeInterval: 0.3)
        release.signal()
        #expect(done.wait(timeout: .now() + 20) == .success)
        let failures = "provision_build_failures_total"
        #expect(metrics.counterTotal(label: failures) == 2)
        #expect(
            metrics.counterTotal(label: failures, dimensions: [("binding", "Hunt4Config"), ("code", "factory failed")])
                == 2)
        #expect(
            metrics.counterTotal(
                label: failures, dimensions: [("binding", "Hunt4Service"), ("code", "factory failed")])
                == 0)
    }
}
