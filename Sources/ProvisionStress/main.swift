import Foundation

// provision-stress: checks Provision's concurrency invariants under load.
//
// Scenarios (--scenario):
//   mix    many threads hammer one injector with a seeded random mix of operations (the default)
//   graph  round after round, a random service graph raced by threads, tasks, scopes, child injectors,
//          installs, start() and shutdown() (see RandomGraphRun.swift); --round and --rounds replay rounds.
//          For triage: --keep-going 1 runs on after a failing round and counts the violations by kind;
//          --leave-out scope-close-race,installs leaves those parts out
//
// Usage: provision-stress [--scenario mix|graph] [--seconds S] [--threads N] [--seed X] [--round R] [--rounds N]
//                         [--keep-going 1] [--leave-out LIST]
let usage =
    "usage: provision-stress [--scenario mix|graph] [--seconds S] [--threads N] [--seed X] [--round R] [--rounds N] "
    + "[--keep-going 1] [--leave-out scope-close-race,installs]"
var scenario = "mix"
var seconds = 60.0
var threads = 8
var seed: UInt64 = 20_261_122
var firstRound = 0
var rounds: Int?
var keepsGoing = false
var leftOut: Set<String> = []
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
    guard let value = arguments.popFirst() else {
        print(usage)
        exit(64)
    }
    switch flag {
    case "--scenario" where value == "mix" || value == "graph": scenario = value
    case "--seconds": seconds = Double(value) ?? seconds
    case "--threads": threads = max(1, Int(value) ?? threads)
    case "--seed": seed = UInt64(value) ?? seed
    case "--round": firstRound = max(0, Int(value) ?? 0)
    case "--rounds": rounds = Int(value).map { max(1, $0) }
    case "--keep-going": keepsGoing = value == "1" || value == "yes"
    case "--leave-out": leftOut = Set(value.split(separator: ",").map(String.init))
    default:
        print("unknown option \(flag) \(value); \(usage)")
        exit(64)
    }
}

let violations: [String]
if scenario == "graph" {
    var run = RandomGraphRun(seconds: seconds, seed: seed, firstRound: firstRound, rounds: rounds, threads: threads)
    run.keepsGoing = keepsGoing
    run.leftOut = leftOut
    violations = run.run()
} else {
    do {
        violations = try StressRun(threads: threads, seconds: seconds, seed: seed).run()
    } catch {
        print("the stress run could not start: \(error)")
        exit(1)
    }
}
if violations.isEmpty {
    print("invariants: all held")
    exit(0)
}
print("invariants: \(violations.count) violated")
for violation in violations { print("  - \(violation)") }
exit(1)
