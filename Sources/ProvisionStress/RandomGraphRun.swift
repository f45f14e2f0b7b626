import Dispatch
import Foundation
import Provision
import Synchronization

/// The graph scenario: round after round, a random service graph (see ``GraphSpec``) and an injector for
/// it, hammered by threads and tasks that resolve random keys (synchronously and asynchronously, through
/// the injector, scopes and child injectors), a scope manager that opens and closes scopes, a thread
/// that installs plugins, and a lifecycle task whose `start()` and `shutdown()` race the rest. Every
/// outcome is checked against what the graph and the moment allow (see ``RoundState``).
struct RandomGraphRun {
    let seconds: Double
    let seed: UInt64
    let firstRound: Int
    let rounds: Int?
    let threads: Int
    /// Goes on after a round with violations, and reports every failing round's (for triage).
    var keepsGoing = false
    /// Parts of the scenario to leave out, to tell one defect's violations from another's (for triage):
    /// `scope-close-race` (scopes are closed only after the workers finished), `installs`.
    var leftOut: Set<String> = []

    /// Runs rounds until the time is up (or `rounds` ran); returns the first failing round's
    /// violations, empty when every invariant held.
    func run() -> [String] {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        let began = DispatchTime.now().uptimeNanoseconds
        var totals = GraphTotals()
        var number = firstRound
        var failed: [String] = []
        var kinds: [String: Int] = [:]
        while rounds.map({ number < firstRound + $0 }) ?? (DispatchTime.now().uptimeNanoseconds < deadline) {
            let state = runRound(number)
            totals.add(state)
            let violations = state.violations.withLock { $0 }
            if keepsGoing && !violations.isEmpty {
                for violation in violations {
                    FileHandle.standardError.write(Data("round \(number): \(violation)\n".utf8))
                    let kind = String(violation.prefix(while: { $0 != ":" }).filter { !$0.isNumber }.prefix(160))
                    kinds[kind, default: 0] += 1
                }
                failed.append("round \(number) (\(state.spec.summary)): \(violations[0].prefix(300))")
            } else if !violations.isEmpty {
                totals.print(elapsed: elapsed(since: began), seed: seed, threads: threads)
                return ["round \(number) (graph: \(state.spec.summary))"] + violations + [
                    "replay (the same graph and choices; the interleaving differs): Scripts/stress.sh --perturb "
                        + "--threads \(threads) --seed \(seed) --round \(number) --rounds 1"
                ]
            }
            number += 1
        }
        totals.print(elapsed: elapsed(since: began), seed: seed, threads: threads)
        if !failed.isEmpty {
            print("failing rounds: \(failed.count); violations by kind:")
            for (kind, count) in kinds.sorted(by: { $0.value > $1.value }) { print("  \(count) x \(kind)") }
        }
        return failed
    }

    private func elapsed(since began: UInt64) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9
    }

    /// The seed of round `number`'s graph and workers.
    static func roundSeed(_ seed: UInt64, _ number: Int) -> UInt64 {
        var random = SeededGenerator(seed: seed &+ UInt64(number) &* 0xD1B5_4A32_D192_ED03)
        return random.next()
    }

    private func runRound(_ number: Int) -> RoundState {
        let spec = GraphSpec.generate(seed: RandomGraphRun.roundSeed(seed, number))
        activeGraph.withLock { $0 = spec }
        defer { activeGraph.withLock { $0 = nil } }
        let state = RoundState(spec: spec, number: number)
        let workers = max(1, threads / 2)
        let driver = RoundDriver(
            state: state, syncWorkers: workers, asyncWorkers: workers, operationsPerWorker: 100,
            racesScopeCloses: !leftOut.contains("scope-close-race"), installs: !leftOut.contains("installs"))
        var injector: Injector?
        do {
            injector = try Injector(
                modules: [GraphModule(round: state)],
                configuration: Injector.Configuration(lifecycleHookTimeout: .seconds(20))
            )
        } catch {
            state.violation("creating the round's injector threw \(error)")
            return state
        }
        driver.run(injector)
        injector = nil
        // Threads and tasks release their closures a moment after they finish.
        let wait = DispatchTime.now().uptimeNanoseconds + 2_000_000_000
        while GraphLive.count.load(ordering: .relaxed) != 0 && DispatchTime.now().uptimeNanoseconds < wait {
            usleep(1_000)
        }
        let live = GraphLive.count.load(ordering: .relaxed)
        if live != 0 {
            state.violation("\(live) objects outlived the round (its injector, scopes and children were dropped)")
        }
        return state
    }
}
