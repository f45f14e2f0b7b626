import Dependencies
import Dispatch
import Provision
import Swinject
import Synchronization

/// Multi-thread throughput: threads resolving from one shared injector (or container, or hand-wired
/// graph, or swift-dependencies' process-wide live values) for a fixed time; total operations per second, and scaling against one thread.
struct ThroughputResult: Codable, Sendable {
    var scenario: String
    var threads: Int
    /// Operations per second, keyed by implementation.
    var opsPerSecond: [String: Double]
}

enum Throughput {
    static let threadCounts = [1, 2, 4, 8]

    /// A workload that threads share: made once, called from every thread.
    struct Shared: @unchecked Sendable {
        // The closures resolve from Sendable injectors, Swinject's synchronized resolver, or immutable
        // hand-wired graphs; each is safe to call from any thread.
        let run: Sampler.Workload
    }

    static func scenarios() throws -> [(String, [Scenario.Implementation: Shared])] {
        let injector = try Injector(MixedGraphModule(), SmallModule())
        _ = try injector.get(BenchSingleton.self)
        let hand = MixedGraphHandWired()
        let holder = SingletonHolder()
        let resolver = makeMixedGraphContainer().synchronize()
        let small = makeSmallContainer().synchronize()
        return [
            (
                "mixed daemon graph",
                [
                    .provision: Shared { count in
                        var sink: UInt = 0
                        for _ in 0..<count { sink ^= try MixedGraph.resolveRoots(injector) }
                        return sink
                    },
                    .handWired: Shared { count in
                        var sink: UInt = 0
                        for _ in 0..<count { sink ^= MixedGraph.makeRoots(hand) }
                        return sink
                    },
                    .swinject: Shared { count in
                        var sink: UInt = 0
                        for _ in 0..<count { sink ^= MixedGraph.resolveRoots(resolver) }
                        return sink
                    },
                    .swiftDependencies: Shared(run: Scenarios.mixedSwiftDependencies()),
                ]
            ),
            (
                "singleton hit",
                [
                    .provision: Shared { count in try inlinedLoop(count) { try injector.get(BenchSingleton.self) } },
                    .handWired: Shared { count in inlinedLoop(count) { holder.singleton } },
                    .swinject: Shared { count in inlinedLoop(count) { resolved(small, BenchSingleton.self) } },
                    .swiftDependencies: Shared(run: readingDependency(\.benchSingleton) { $0 }),
                ]
            ),
        ]
    }

    /// Runs every scenario at every thread count for `seconds` each.
    static func run(seconds: Double, filter: (String) -> Bool) throws -> [ThroughputResult] {
        var results: [ThroughputResult] = []
        for (name, implementations) in try scenarios() where filter("throughput: \(name)") {
            // Every thread count and implementation is measured in each of several short rounds, in
            // turn, and the median round is reported: a machine whose speed drifts during the run then
            // affects every thread count and implementation alike, so the scaling ratios (2 threads ÷
            // 1 thread, taken from one run) hold better than one long measurement of each.
            for shared in implementations.values {
                _ = try? shared.run(100) // warm-up: links plans and fills caches once
            }
            var samples: [Int: [String: [Double]]] = [:]
            for _ in 0..<rounds {
                for threads in threadCounts {
                    for implementation in Scenario.Implementation.allCases {
                        guard let shared = implementations[implementation] else { continue }
                        let opsPerSecond = measure(shared, threads: threads, seconds: seconds / Double(rounds))
                        samples[threads, default: [:]][implementation.rawValue, default: []].append(opsPerSecond)
                    }
                }
            }
            for threads in threadCounts {
                var result = ThroughputResult(scenario: name, threads: threads, opsPerSecond: [:])
                for (implementation, values) in samples[threads] ?? [:] {
                    result.opsPerSecond[implementation] = Measurement(samples: values).median
                }
                results.append(result)
            }
        }
        return results
    }

    /// Operations per batch, between two looks at the deadline: 256, or fewer when one operation is
    /// slow, so that a thread's last batch overruns the window by about a tenth of it at most. One
    /// operation, timed on the calling thread, sets it. With a fixed 256, a debug build's Swinject and
    /// swift-dependencies (1.5 and 4.9 ms per resolve of the mixed graph) turned the quick run's 10-ms
    /// windows into seconds each: 90 of the CI smoke run's 103 s.
    private static func batchSize(_ shared: Shared, seconds: Double) -> Int {
        let started = DispatchTime.now().uptimeNanoseconds
        globalSink &+= (try? shared.run(1)) ?? 0
        let perOperation = max(1, DispatchTime.now().uptimeNanoseconds - started)
        let budget = UInt64(seconds * 1e9 / 10)
        return Int(max(1, min(256, budget / perOperation)))
    }

    /// How many rounds each throughput figure is the median of.
    static let rounds = 5

    private static func measure(_ shared: Shared, threads: Int, seconds: Double) -> Double {
        let batch = batchSize(shared, seconds: seconds)
        let operations = Atomic<Int>(0)
        let sink = Atomic<UInt>(0)
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        let started = DispatchTime.now().uptimeNanoseconds
        onThreads(threads) { _ in
            var done = 0
            var local: UInt = 0
            while DispatchTime.now().uptimeNanoseconds < deadline {
                local ^= (try? shared.run(batch)) ?? 0
                done += batch
            }
            operations.add(done, ordering: .relaxed)
            sink.add(local, ordering: .relaxed)
        }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        globalSink &+= sink.load(ordering: .relaxed)
        return Double(operations.load(ordering: .relaxed)) / elapsed
    }
}
