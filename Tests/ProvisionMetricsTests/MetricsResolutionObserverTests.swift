import Dispatch
import Foundation
import Metrics
import MetricsTestKit
import ProvisionMetrics
import Synchronization
import Testing

@testable import Provision

// Builds, failures (once, where they started), cycle errors and waits as swift-metrics counters and
// timers, recorded by swift-metrics' test backend.

final class Logger: Sendable {}

final class Store: Sendable {
    init(logger: Logger) {}
}

final class App: Sendable {
    init(store: Store) {}
}

struct ExpectedFailure: Error {}

@Suite("MetricsResolutionObserver")
struct MetricsResolutionObserverTests {
    private static func injector(
        _ metrics: TestMetrics,
        validated: Bool = true,
        _ body: @escaping @Sendable (Binder) -> Void
    ) throws -> Injector {
        try Injector(
            modules: [ClosureModule(body)],
            configuration: .init(
                validatesOnCreation: validated, observer: MetricsResolutionObserver(factory: metrics))
        )
    }

    @Test("every build is counted and timed by binding and scope; a singleton's hits are not builds")
    func builds() throws {
        let metrics = TestMetrics()
        let injector = try Self.injector(metrics) { binder in
            binder.bind(Logger.self).to(Logger.init)
            binder.bind(Store.self).to(Store.init(logger:)).in(.singleton)
            binder.bind(App.self).to(App.init(store:))
        }
        for _ in 0..<3 { _ = try injector.get(App.self) }
        let builds = "provision_builds_total"
        #expect(metrics.counterTotal(label: builds, dimensions: [("binding", "App"), ("scope", "transient")]) == 3)
        #expect(metrics.counterTotal(label: builds, dimensions: [("binding", "Store"), ("scope", "singleton")]) == 1)
        #expect(metrics.counterTotal(label: builds, dimensions: [("binding", "Logger"), ("scope", "transient")]) == 1)
        let timer = try metrics.expectTimer("provision_build_duration", [("binding", "App"), ("scope", "transient")])
        #expect(timer.values.count == 3)
        #expect(metrics.counterTotal(label: "provision_build_failures_total") == 0)
    }

    @Test("a failure is counted once per request, by the binding where it started, with its code")
    func failuresWhereTheyStart() throws {
        let metrics = TestMetrics()
        let injector = try Self.injector(metrics) { binder in
            binder.bind(Logger.self).to { () throws -> Logger in throw ExpectedFailure() }
            binder.bind(Store.self).to(Store.init(logger:))
            binder.bind(App.self).to(App.init(store:)).in(.singleton)
        }
        for _ in 0..<4 { _ = try? injector.get(App.self) }
        let failures = "provision_build_failures_total"
        #expect(metrics.counterTotal(label: failures) == 4)
        #expect(
            metrics.counterTotal(label: failures, dimensions: [("binding", "Logger"), ("code", "factory failed")]) == 4)
        #expect(metrics.counterTotal(label: "provision_cycle_errors_total") == 0)
        #expect(metrics.counterTotal(label: "provision_builds_total") == 0)
    }

    @Test("cycle errors are counted once per failing request, found at run time or when linking")
    func cycles() throws {
        let metrics = TestMetrics()
        // A cycle through closures: found when it closes, at run time.
        let dynamic = try Self.injector(metrics) { binder in
            binder.bind(Store.self).to { resolver in
                _ = try resolver.get(App.self)
                return Store(logger: Logger())
            }
            binder.bind(App.self).to { resolver in App(store: try resolver.get()) }
        }
        for _ in 0..<3 { _ = try? dynamic.get(App.self) }
        #expect(metrics.counterTotal(label: "provision_cycle_errors_total") == 3)
        #expect(
            metrics.counterTotal(
                label: "provision_build_failures_total", dimensions: [("binding", "App"), ("code", "cycle")]) == 3)

        // A cycle of constructors in an injector not validated on creation: found when first linked.
        let linked = TestMetrics()
        let unvalidated = try Self.injector(linked, validated: false) { binder in
            binder.bind(Store.self).to { (_: App) in Store(logger: Logger()) }
            binder.bind(App.self).to(App.init(store:))
        }
        for _ in 0..<2 { _ = try? unvalidated.get(App.self) }
        #expect(linked.counterTotal(label: "provision_cycle_errors_total", dimensions: [("binding", "App")]) == 2)
        #expect(linked.counterTotal(label: "provision_build_failures_total") == 2)
    }

    @Test("a missing binding found while a build links a dependency is counted once, by the request it failed")
    func linkFailureInsideABuild() throws {
        let metrics = TestMetrics()
        let injector = try Self.injector(metrics, validated: false) { binder in
            binder.bind(Store.self).to(Store.init(logger:))
            binder.bind(App.self).to { resolver in App(store: try resolver.get()) }
        }
        _ = try? injector.get(App.self)
        #expect(metrics.counterTotal(label: "provision_build_failures_total") == 1)
        #expect(
            metrics.counterTotal(
                label: "provision_build_failures_total", dimensions: [("binding", "Store"), ("code", "not bound")]) == 1
        )
    }

    @Test("a wait for another thread's singleton build is timed, by the binding waited for")
    func waits() throws {
        let metrics = TestMetrics()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let injector = try Self.injector(metrics) { binder in
            binder.bind(Logger.self).to { () -> Logger in
                entered.signal()
                release.wait()
                return Logger()
            }.in(.singleton)
        }
        let key = BindingKey(Logger.self)
        let group = DispatchGroup()
        group.enter()
        Thread {
            _ = try? injector.get(Logger.self)
            group.leave()
        }.start()
        entered.wait()
        group.enter()
        Thread {
            _ = try? injector.get(Logger.self)
            group.leave()
        }.start()
        // Released once the second thread waits on the singleton's gate.
        let deadline = Date().addingTimeInterval(30)
        while injector.registry.stripe(for: key).withState({ $0.gates.values.reduce(0) { $0 + $1.waiters } }) == 0,
            Date() < deadline
        {
            sched_yield()
        }
        release.signal()
        #expect(group.wait(timeout: .now() + 30) == .success)
        let waits = try metrics.expectTimer("provision_singleton_wait_duration", [("binding", "Logger")])
        #expect(waits.values.count == 1)
        #expect(metrics.counterTotal(label: "provision_builds_total") == 1)
    }

    @Test("the label prefix is configurable, and 8 threads' builds are all counted")
    func prefixAndThreads() throws {
        let metrics = TestMetrics()
        let injector = try Injector(
            modules: [ClosureModule { $0.bind(Logger.self).to(Logger.init) }],
            configuration: .init(observer: MetricsResolutionObserver(labelPrefix: "di", factory: metrics))
        )
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<250 { _ = try? injector.get(Logger.self) }
        }
        #expect(metrics.counterTotal(label: "di_builds_total") == 2_000)
        #expect(metrics.counterTotal(label: "provision_builds_total") == 0)
    }
}
