import Foundation

/// Everything one run measured, as written by `--json` and read by `--compare`.
struct BenchReport: Codable {
    struct ScenarioResult: Codable {
        var name: String
        /// Nanoseconds per operation, keyed by implementation (`provision`, `hand-wired`, `swinject`,
        /// `swift-dependencies`).
        var results: [String: Measurement]
        /// Implementations that can't run the scenario, with the reason, keyed like `results`.
        var unsupported: [String: String]? = nil
    }

    var toolchain: String
    var cpu: String
    var cores: Int
    var date: String
    var quick: Bool
    var scenarios: [ScenarioResult] = []
    var throughput: [ThroughputResult] = []
    var storms: [StormResult] = []
    /// Absent from reports written before it was measured.
    var footprint: [Footprint.Result]? = nil

    init(quick: Bool) {
        #if compiler(>=6.3)
            toolchain = "Swift 6.3 or later"
        #else
            toolchain = "Swift before 6.3"
        #endif
        cpu = Self.cpuModel()
        cores = ProcessInfo.processInfo.activeProcessorCount
        date = ISO8601DateFormatter().string(from: Date())
        self.quick = quick
    }

    private static func cpuModel() -> String {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
            let value = line.split(separator: ":", maxSplits: 1).last
        else { return "unknown" }
        return value.trimmingCharacters(in: .whitespaces)
    }
}

/// Plain-text tables.
enum TextTable {
    static func render(_ header: [String], _ rows: [[String]]) -> String {
        var widths = header.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                let pad = String(repeating: " ", count: widths[index] - cell.count)
                return index == 0 ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        return ([line(header), rule] + rows.map(line)).joined(separator: "\n")
    }

    /// Nanoseconds, readable: `12.8`, `6,290`, `1.02 ms`.
    static func nanoseconds(_ value: Double) -> String {
        guard value.isFinite else { return "-" }
        if value >= 1_000_000 { return String(format: "%.2f ms", value / 1_000_000) }
        if value >= 100 { return grouped(Int(value.rounded())) }
        return String(format: "%.1f", value)
    }

    static func ratio(_ value: Double) -> String {
        guard value.isFinite else { return "-" }
        return value >= 100 ? String(format: "%.0fx", value) : String(format: "%.2fx", value)
    }

    static func grouped(_ value: Int) -> String {
        let digits = String(value)
        var result = ""
        for (index, character) in digits.reversed().enumerated() {
            if index > 0 && index % 3 == 0 { result.append(",") }
            result.append(character)
        }
        return String(result.reversed())
    }
}

extension BenchReport {
    func resolutionTable() -> String {
        let rows = scenarios.map { scenario -> [String] in
            let provision = scenario.results["provision"]
            let hand = scenario.results["hand-wired"]
            let swinject = scenario.results["swinject"]
            let dependencies = scenario.results["swift-dependencies"]
            let provisionCell = provision.map {
                "\(TextTable.nanoseconds($0.median)) (\(TextTable.nanoseconds($0.p10))–\(TextTable.nanoseconds($0.p90)))"
            }
            func peer(_ measurement: Measurement?, _ key: String) -> String {
                measurement.map { TextTable.nanoseconds($0.median) } ?? scenario.unsupported?[key] ?? "-"
            }
            return [
                scenario.name,
                provisionCell ?? "-",
                hand.map { TextTable.nanoseconds($0.median) } ?? "-",
                peer(swinject, "swinject"),
                peer(dependencies, "swift-dependencies"),
                ratio(provision, over: hand),
                ratio(swinject, over: provision),
                ratio(dependencies, over: provision),
            ]
        }
        return TextTable.render(
            [
                "scenario", "Provision ns/op (p10–p90)", "hand-wired", "Swinject", "swift-dependencies",
                "Provision ÷ hand", "Swinject ÷ Provision", "swift-deps ÷ Provision",
            ],
            rows
        )
    }

    func throughputTable() -> String {
        var rows: [[String]] = []
        for result in throughput {
            let single = throughput.first { $0.scenario == result.scenario && $0.threads == 1 }
            func ops(_ key: String) -> String {
                result.opsPerSecond[key].map { TextTable.grouped(Int($0)) } ?? "-"
            }
            func scaling(_ key: String) -> String {
                guard let now = result.opsPerSecond[key], let base = single?.opsPerSecond[key], base > 0 else {
                    return "-"
                }
                return TextTable.ratio(now / base)
            }
            rows.append([
                result.scenario, "\(result.threads)", ops("provision"), ops("hand-wired"), ops("swinject"),
                ops("swift-dependencies"), scaling("provision"), scaling("hand-wired"), scaling("swinject"),
                scaling("swift-dependencies"),
            ])
        }
        return TextTable.render(
            [
                "throughput", "threads", "Provision ops/s", "hand-wired ops/s", "Swinject ops/s", "swift-deps ops/s",
                "Provision scaling", "hand scaling", "Swinject scaling", "swift-deps scaling",
            ],
            rows
        )
    }

    func stormTable() -> String {
        let rows = storms.map { storm in
            [
                storm.implementation, "\(storm.threads)", "\(storm.rounds)",
                "\(TextTable.nanoseconds(storm.roundTime.median)) (\(TextTable.nanoseconds(storm.roundTime.p10))–"
                    + "\(TextTable.nanoseconds(storm.roundTime.p90)))",
                "\(storm.badRounds)",
            ]
        }
        return TextTable.render(
            [
                "first-access storm", "threads", "rounds", "ns until all hold it (p10–p90)",
                "rounds with factory runs ≠ 1",
            ],
            rows
        )
    }

    func footprintTable() -> String {
        let results = footprint ?? []
        let handWired = results.first { $0.implementation == "hand-wired" }?.bytesPerBinding
        let rows = results.map { row in
            [
                row.implementation, "\(Int(row.bytesPerBinding.rounded())) B",
                handWired.map { $0 > 0 ? TextTable.ratio(row.bytesPerBinding / $0) : "-" } ?? "-",
            ]
        }
        return TextTable.render(["memory, injector of 10k bindings", "per binding", "÷ hand-wired"], rows)
    }

    private func ratio(_ numerator: Measurement?, over denominator: Measurement?) -> String {
        guard let numerator, let denominator, denominator.median > 0 else { return "-" }
        return TextTable.ratio(numerator.median / denominator.median)
    }
}
