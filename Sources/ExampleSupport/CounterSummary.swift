package import CoreMetrics
import Provision
import Synchronization

/// A swift-metrics backend that keeps every counter's total in memory, for the summary the example
/// server and daemon log. Other metric types are accepted and dropped. (A deployment bootstraps a real
/// backend, such as swift-prometheus, instead.)
package final class CounterSummary: MetricsFactory {
    private let counters = Locked<[String: SummedCounter]>([:])

    /// Creates an empty backend; bootstrap it with `MetricsSystem.bootstrap(_:)`.
    package init() {}

    /// The total of counter `label` with `dimensions`, 0 when it was never made.
    package func total(_ label: String, _ dimensions: [(String, String)] = []) -> Int64 {
        counters.withLock { $0[Self.name(label, dimensions)]?.total ?? 0 }
    }

    package func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        counters.withLock { counters in
            let name = Self.name(label, dimensions)
            if let existing = counters[name] { return existing }
            let counter = SummedCounter()
            counters[name] = counter
            return counter
        }
    }

    package func makeFloatingPointCounter(label: String, dimensions: [(String, String)])
        -> any FloatingPointCounterHandler
    {
        NOOPMetricsHandler.instance
    }

    package func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        NOOPMetricsHandler.instance
    }

    package func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        NOOPMetricsHandler.instance
    }

    package func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        NOOPMetricsHandler.instance
    }

    package func destroyCounter(_ handler: any CounterHandler) {}
    package func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {}
    package func destroyMeter(_ handler: any MeterHandler) {}
    package func destroyRecorder(_ handler: any RecorderHandler) {}
    package func destroyTimer(_ handler: any TimerHandler) {}

    private static func name(_ label: String, _ dimensions: [(String, String)]) -> String {
        dimensions.isEmpty ? label : label + "{" + dimensions.map { "\($0)=\($1)" }.joined(separator: ",") + "}"
    }
}

/// One counter's total.
final class SummedCounter: CounterHandler {
    private let value = Atomic<Int64>(0)

    var total: Int64 { value.load(ordering: .relaxed) }

    func increment(by amount: Int64) {
        value.add(amount, ordering: .relaxed)
    }

    func reset() {
        value.store(0, ordering: .relaxed)
    }
}
