import ArgumentParser
import Foundation

/// di-bench: Provision's resolution speed on wide and deep graphs, beside hand-wired code, Swinject and
/// swift-dependencies.
@main
struct DIBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "di-bench",
        abstract:
            "Measures Provision beside hand-wired construction, Swinject and swift-dependencies on the same graphs."
    )

    @Option(help: "Run only scenarios whose name contains this text (case-insensitive).")
    var filter: String?

    @Flag(help: "A few seconds in all: fewer, shorter samples (for CI smoke tests).")
    var quick = false

    @Option(help: "Write every sample and the machine's description as JSON to this path.")
    var json: String?

    @Option(help: "Compare with an earlier --json file and flag changes beyond the noise.")
    var compare: String?

    @Flag(help: "List the scenarios and exit.")
    var list = false

    @Flag(help: "Run in a debug build anyway (its figures mean nothing).")
    var allowDebug = false

    @Option(
        name: .customLong("run"),
        help: "Run one scenario's operation --iterations times and print its checksum only (for callgrind)."
    )
    var scenarioToRun: String?

    @Option(help: "With --run: provision, hand-wired, swinject or swift-dependencies.")
    var implementation: String = "provision"

    @Option(help: "With --run: how many operations to run after one warm-up operation.")
    var iterations: Int = 1_000

    @Option(
        help: "Print an example graph instead of measuring: dot (Graphviz), mermaid, or report (its validation)."
    )
    var graph: GraphFormat?

    @Option(help: "With --graph: daemon (a small web daemon), broken (the same with four mistakes) or mixed.")
    var example: GraphExample = .daemon

    func run() throws {
        if let graph {
            print(try GraphCommand.render(graph, example: example), terminator: "")
            return
        }
        if list {
            for scenario in Scenarios.all { print(scenario.name) }
            print("throughput: mixed daemon graph\nthroughput: singleton hit\nfirst-access storm\nmemory per binding")
            return
        }
        #if DEBUG
            if !allowDebug {
                print(
                    "di-bench refuses to measure a debug build: run `swift run -c release di-bench` (or pass --allow-debug)."
                )
                throw ExitCode(2)
            }
            print("WARNING: debug build; these figures mean nothing.")
        #endif
        if let name = scenarioToRun {
            try runOne(name)
            return
        }
        try runSuite()
    }

    private func matches(_ name: String) -> Bool {
        guard let filter, !filter.isEmpty else { return true }
        return name.lowercased().contains(filter.lowercased())
    }

    /// One scenario, one implementation, a fixed number of operations: for instruction counting.
    private func runOne(_ name: String) throws {
        guard let scenario = Scenarios.all.first(where: { $0.name == name }) else {
            throw ValidationError("no scenario named \"\(name)\"; see --list")
        }
        guard let which = Scenario.Implementation(rawValue: implementation) else {
            throw ValidationError("--implementation must be provision, hand-wired, swinject or swift-dependencies")
        }
        if let reason = scenario.unsupported[which] {
            throw ValidationError("\(implementation) can't run \"\(name)\": \(reason)")
        }
        let workload = try scenario.setup(which)
        globalSink &+= try workload(1)
        globalSink &+= try workload(iterations)
        print("checksum \(globalSink & 0xFFFF)")
    }

    private func runSuite() throws {
        let plan: SamplingPlan = quick ? .quick : .standard
        var report = BenchReport(quick: quick)
        var selected = 0
        var completed = 0
        let started = Date()

        for scenario in Scenarios.all where matches(scenario.name) {
            selected += 1
            let implementations = scenario.implementations
            let workloads = try implementations.map(scenario.setup)
            let measurements = try Sampler.measure(workloads, plan: plan)
            var results: [String: Measurement] = [:]
            for (implementation, measurement) in zip(implementations, measurements) {
                results[implementation.rawValue] = measurement
            }
            if results.count == scenario.implementations.count { completed += 1 }
            let unsupported = scenario.unsupported
            report.scenarios.append(
                .init(
                    name: scenario.name, results: results,
                    unsupported: unsupported.isEmpty
                        ? nil : Dictionary(uniqueKeysWithValues: unsupported.map { ($0.key.rawValue, $0.value) })
                )
            )
        }

        let throughputSeconds = quick ? 0.05 : 0.4
        let throughputGroups = ["throughput: mixed daemon graph", "throughput: singleton hit"].filter(matches)
        selected += throughputGroups.count
        report.throughput = try Throughput.run(seconds: throughputSeconds, filter: matches)
        for group in throughputGroups {
            let rows = report.throughput.filter { "throughput: \($0.scenario)" == group }
            if rows.count == Throughput.threadCounts.count
                && rows.allSatisfy({ $0.opsPerSecond.count == Scenario.Implementation.allCases.count })
            {
                completed += 1
            }
        }

        var stormFailed = false
        if matches("first-access storm") {
            selected += 1
            report.storms = try Storm.run(threads: 8, rounds: quick ? 30 : 300)
            if report.storms.count == 2 { completed += 1 }
            stormFailed = report.storms.contains { $0.implementation == "provision" && $0.badRounds > 0 }
        }

        if matches("memory per binding") {
            selected += 1
            let footprint = try Footprint.run(copies: quick ? 2 : 10)
            report.footprint = footprint
            if footprint.count == 3 { completed += 1 }
        }

        print("di-bench — \(report.cpu), \(report.cores) cores, \(report.toolchain), \(report.date)")
        print(
            "medians over \(plan.samples) interleaved samples of at least \(plan.sampleNanoseconds / 1_000) µs each\n")
        if !report.scenarios.isEmpty { print(report.resolutionTable() + "\n") }
        if !report.throughput.isEmpty { print(report.throughputTable() + "\n") }
        if !report.storms.isEmpty { print(report.stormTable() + "\n") }
        if report.footprint?.isEmpty == false { print(report.footprintTable() + "\n") }
        if let compare { print(try Compare.report(current: report, baselinePath: compare) + "\n") }
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(report).write(to: URL(fileURLWithPath: json))
            print("wrote \(json)")
        }
        print(
            String(
                format: "elapsed: %.1f s (checksum %u)", Date().timeIntervalSince(started), UInt32(globalSink & 0xFFFF))
        )
        print("scenarios: \(selected), completed: \(completed)")
        if completed != selected || stormFailed {
            if stormFailed { print("FAILED: a Provision storm round ran the singleton factory other than once") }
            throw ExitCode.failure
        }
    }
}
