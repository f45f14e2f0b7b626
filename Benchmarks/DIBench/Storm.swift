import Dispatch
import Provision
import Swinject
import Synchronization

/// First-access storm: threads released together onto the same unbuilt singleton of a fresh injector
/// (or container), many rounds. Measures the time until every thread holds the instance, and counts
/// factory runs: exactly one per round is the only correct answer.
struct StormResult: Codable, Sendable {
    var implementation: String
    var threads: Int
    var rounds: Int
    /// Nanoseconds from the release of the threads until the last one holds the singleton.
    var roundTime: Measurement
    /// Rounds in which the factory did not run exactly once, or threads got different instances.
    var badRounds: Int
}

final class StormTarget: Sendable {}

enum Storm {
    /// One round's subject: a fresh container and the count of its factory runs.
    struct Round: @unchecked Sendable {
        // `resolve` is Provision's injector or Swinject's synchronized resolver: both thread-safe.
        let resolve: () -> AnyObject?
        let factoryRuns: FactoryCount
    }

    final class FactoryCount: Sendable {
        let value = Atomic<Int>(0)
    }

    static func makeRound(_ implementation: Scenario.Implementation) throws -> Round {
        let runs = FactoryCount()
        switch implementation {
        case .provision:
            let injector = try Injector(
                StormModule(runs: runs)
            )
            return Round(resolve: { try? injector.get(StormTarget.self) }, factoryRuns: runs)
        // Only Provision and Swinject are stormed (`run`): hand-wired code has no lazy singleton, and
        // swift-dependencies caches its live values process-wide, so it has no fresh container per round.
        case .swinject, .handWired, .swiftDependencies:
            let container = Container()
            container.register(StormTarget.self) { _ in
                runs.value.add(1, ordering: .relaxed)
                return StormTarget()
            }.inObjectScope(.container)
            let resolver = container.synchronize()
            return Round(resolve: { resolver.resolve(StormTarget.self) }, factoryRuns: runs)
        }
    }

    static func run(threads: Int, rounds: Int) throws -> [StormResult] {
        try [Scenario.Implementation.provision, .swinject].map { implementation in
            var times: [Double] = []
            var bad = 0
            for _ in 0..<rounds {
                let round = try makeRound(implementation)
                let line = StartLine(count: threads)
                // Signed on purpose: `Atomic<UInt64>.min` compared as signed on this toolchain, so an
                // unsigned `.max` start value was never replaced.
                let firstStart = Atomic<Int>(.max)
                let lastEnd = Atomic<Int>(0)
                let instances = Atomic<Int>(0)
                let first = Atomic<UInt>(0)
                let mismatches = Atomic<Int>(0)
                onThreads(threads) { _ in
                    line.arriveAndWait()
                    let start = Int(DispatchTime.now().uptimeNanoseconds)
                    let object = round.resolve()
                    let end = Int(DispatchTime.now().uptimeNanoseconds)
                    firstStart.min(start, ordering: .relaxed)
                    lastEnd.max(end, ordering: .relaxed)
                    guard let object else { return }
                    instances.add(1, ordering: .relaxed)
                    let id = UInt(bitPattern: ObjectIdentifier(object))
                    let (exchanged, original) = first.compareExchange(expected: 0, desired: id, ordering: .relaxed)
                    if !exchanged && original != id { mismatches.add(1, ordering: .relaxed) }
                }
                times.append(Double(lastEnd.load(ordering: .relaxed) &- firstStart.load(ordering: .relaxed)))
                if round.factoryRuns.value.load(ordering: .relaxed) != 1
                    || instances.load(ordering: .relaxed) != threads
                    || mismatches.load(ordering: .relaxed) != 0
                {
                    bad += 1
                }
            }
            return StormResult(
                implementation: implementation.rawValue,
                threads: threads,
                rounds: rounds,
                roundTime: Measurement(samples: times),
                badRounds: bad
            )
        }
    }
}

struct StormModule: Module {
    let runs: Storm.FactoryCount

    func configure(_ binder: Binder) {
        let runs = self.runs
        binder.bind(StormTarget.self).to { _ in
            runs.value.add(1, ordering: .relaxed)
            return StormTarget()
        }.in(.singleton)
    }
}
