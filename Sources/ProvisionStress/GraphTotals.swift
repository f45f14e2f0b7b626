import Dispatch
import Foundation
import Provision
import Synchronization

/// What a run did, over all its rounds.
struct GraphTotals {
    var rounds = 0
    var cyclicRounds = 0
    var nodes = 0
    var requests = 0
    var outcomes: [String: Int] = [:]
    var factoriesRun = 0
    var lateTransientRuns = 0
    var servicesStarted = 0
    var servicesStopped = 0
    var disposed = 0
    var children = 0
    var scopes = 0
    var installs = 0
    var starts: [String: Int] = [:]

    mutating func add(_ state: RoundState) {
        rounds += 1
        cyclicRounds += state.spec.cyclic ? 1 : 0
        nodes += state.spec.nodes.count
        requests += state.requests.load(ordering: .relaxed)
        for (outcome, count) in state.errorCounts.withLock({ $0 }) { outcomes[outcome, default: 0] += count }
        factoriesRun += state.factoryRuns.load(ordering: .relaxed)
        lateTransientRuns += state.lateTransientRuns.load(ordering: .relaxed)
        servicesStarted += state.startLog.withLock { $0.count }
        servicesStopped += state.stopLog.withLock { $0.count }
        disposed += state.disposed.load(ordering: .relaxed)
        children += state.children.load(ordering: .relaxed)
        scopes += state.scopesOpened.load(ordering: .relaxed)
        installs += state.installs.load(ordering: .relaxed)
        starts[state.startOutcome.withLock { $0 }, default: 0] += 1
    }

    func print(elapsed: Double, seed: UInt64, threads: Int) {
        func list(_ counts: [String: Int]) -> String {
            counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        }
        Swift.print(
            "scenario: random graphs, seed: \(seed), threads: \(threads), seconds: \(String(format: "%.2f", elapsed))")
        Swift.print(
            "rounds: \(rounds) (cyclic \(cyclicRounds)), nodes: \(nodes), requests: \(requests) "
                + "(\(Int(Double(requests) / max(elapsed, 0.001))) per second)")
        Swift.print("outcomes: \(list(outcomes))")
        Swift.print(
            "factories run: \(factoriesRun) (transients after shutdown returned, in requests begun before: "
                + "\(lateTransientRuns))")
        Swift.print("start(): \(list(starts))")
        Swift.print(
            "services started: \(servicesStarted), stopped: \(servicesStopped), instances disposed: \(disposed)")
        Swift.print("child injectors: \(children), scopes: \(scopes), plugins installed: \(installs)")
        Swift.print("objects created: \(GraphLive.created.load(ordering: .relaxed))")
    }
}
