import Dispatch

/// Statistics of one measured operation: nanoseconds per operation over repeated samples.
struct Measurement: Codable, Sendable {
    var samples: [Double]

    var median: Double { percentile(0.5) }
    var p10: Double { percentile(0.1) }
    var p90: Double { percentile(0.9) }

    func percentile(_ fraction: Double) -> Double {
        guard !samples.isEmpty else { return .nan }
        let sorted = samples.sorted()
        let position = fraction * Double(sorted.count - 1)
        let lower = Int(position)
        let upper = min(lower + 1, sorted.count - 1)
        let weight = position - Double(lower)
        return sorted[lower] * (1 - weight) + sorted[upper] * weight
    }
}

/// How long and how often to sample.
struct SamplingPlan: Sendable {
    /// The shortest time one sample runs, so that the clock's resolution and the loop's overhead vanish.
    var sampleNanoseconds: UInt64
    var samples: Int
    var warmupSamples: Int

    static let standard = SamplingPlan(sampleNanoseconds: 4_000_000, samples: 21, warmupSamples: 3)
    static let quick = SamplingPlan(sampleNanoseconds: 300_000, samples: 5, warmupSamples: 1)
}

/// Runs batch workloads repeatedly: calibrates each batch size to the plan's sample length, warms up,
/// then records nanoseconds per operation for each sample.
enum Sampler {
    /// A workload runs `count` operations and returns a checksum of what it built.
    typealias Workload = (Int) throws -> UInt

    /// Measures several workloads of one scenario (one per implementation) with their samples
    /// interleaved: sample 1 of each, then sample 2 of each, and so on. A machine whose speed drifts
    /// during the run (other tenants, frequency changes, allocator state) then affects every column
    /// alike, so the ratios between them hold even when absolute times move.
    static func measure(_ workloads: [Workload], plan: SamplingPlan) throws -> [Measurement] {
        var batches: [Int] = []
        for workload in workloads {
            batches.append(try calibratedBatch(workload, plan: plan))
        }
        for _ in 0..<plan.warmupSamples {
            for (workload, batch) in zip(workloads, batches) {
                _ = try time(workload, batch)
            }
        }
        var samples = [[Double]](repeating: [], count: workloads.count)
        for _ in 0..<plan.samples {
            for (index, (workload, batch)) in zip(workloads, batches).enumerated() {
                samples[index].append(Double(try time(workload, batch)) / Double(batch))
            }
        }
        return samples.map(Measurement.init(samples:))
    }

    /// Doubles the batch (at most 16 times at once) until one batch takes at least the sample length.
    ///
    /// The workload's first operation runs untimed first. It does the one-time work of its
    /// implementation (Provision links the plans, singletons are built, the Swift runtime fills its
    /// metadata and conformance caches), which can take longer than a whole sample: timed, it would stop
    /// the calibration at a batch of one, and every sample would then be a single operation run on
    /// caches the other implementations' samples had just evicted.
    private static func calibratedBatch(_ workload: Workload, plan: SamplingPlan) throws -> Int {
        globalSink &+= try workload(1)
        var batch = 1
        while true {
            let elapsed = try time(workload, batch)
            if elapsed >= plan.sampleNanoseconds || batch >= 1 << 30 { return batch }
            let factor = elapsed == 0 ? 16 : min(16, max(2, Int(plan.sampleNanoseconds / max(elapsed, 1)) + 1))
            batch *= factor
        }
    }

    private static func time(_ workload: Workload, _ batch: Int) throws -> UInt64 {
        let start = DispatchTime.now().uptimeNanoseconds
        let checksum = try workload(batch)
        let end = DispatchTime.now().uptimeNanoseconds
        globalSink &+= checksum
        return end - start
    }
}
