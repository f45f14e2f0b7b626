import Foundation

// provision-stress: hammers one injector from many threads with a seeded random mix of operations and
// checks the invariants. Usage: provision-stress [--seconds S] [--threads N] [--seed X]
var seconds = 60.0
var threads = 8
var seed: UInt64 = 20_261_122
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
    guard let value = arguments.popFirst() else {
        print("usage: provision-stress [--seconds S] [--threads N] [--seed X]")
        exit(64)
    }
    switch flag {
    case "--seconds": seconds = Double(value) ?? seconds
    case "--threads": threads = max(1, Int(value) ?? threads)
    case "--seed": seed = UInt64(value) ?? seed
    default:
        print("unknown option \(flag); usage: provision-stress [--seconds S] [--threads N] [--seed X]")
        exit(64)
    }
}

do {
    let violations = try StressRun(threads: threads, seconds: seconds, seed: seed).run()
    if violations.isEmpty {
        print("invariants: all held")
        exit(0)
    }
    print("invariants: \(violations.count) violated")
    for violation in violations { print("  - \(violation)") }
    exit(1)
} catch {
    print("the stress run could not start: \(error)")
    exit(1)
}
