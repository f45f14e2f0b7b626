import Foundation

/// Compares a run with an earlier one: a Provision median that left the earlier run's p10–p90 band
/// and moved by more than 5% is flagged as a change beyond the noise.
enum Compare {
    static func report(current: BenchReport, baselinePath: String) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: baselinePath))
        let baseline = try JSONDecoder().decode(BenchReport.self, from: data)
        var rows: [[String]] = []
        for scenario in current.scenarios {
            guard let now = scenario.results["provision"],
                let before = baseline.scenarios.first(where: { $0.name == scenario.name })?.results["provision"]
            else { continue }
            let change = now.median / before.median - 1
            let outside = now.median < before.p10 || now.median > before.p90
            let verdict = outside && abs(change) > 0.05 ? (change < 0 ? "faster" : "SLOWER") : "within noise"
            rows.append([
                scenario.name, TextTable.nanoseconds(before.median), TextTable.nanoseconds(now.median),
                String(format: "%+.1f%%", change * 100), verdict,
            ])
        }
        return "compared with \(baselinePath) (\(baseline.date)):\n"
            + TextTable.render(["scenario", "before ns/op", "now ns/op", "change", "verdict"], rows)
    }
}
