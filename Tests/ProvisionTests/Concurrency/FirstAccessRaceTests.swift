import Synchronization
import Testing

@testable import Provision

@Suite("First-access races")
struct FirstAccessRaceTests {
    /// One round's shared state: the injector all threads hit, and what they got.
    final class Round: Sendable {
        let injector: Injector
        let factoryRuns = Counter()
        let instances = Locked<[ObjectIdentifier]>([])
        let failures = Counter()

        init() throws {
            let runs = factoryRuns
            injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Engine.self).to { _ in
                        runs.increment()
                        return Engine()
                    }.in(.singleton)
                }
            )
        }
    }

    @Test("64 threads released together onto an unbuilt singleton: one factory run, one instance, 1,000 rounds")
    func sixtyFourThreads() throws {
        let threads = 64
        let rounds = 1_000
        let allRounds = try (0..<rounds).map { _ in try Round() }
        let barrier = Barrier(count: threads)

        let finished = runThreads(threads, timeout: 300) { _ in
            for round in allRounds {
                barrier.arriveAndWait()
                do {
                    let engine = try round.injector.get(Engine.self)
                    round.instances.withLock { $0.append(ObjectIdentifier(engine)) }
                } catch {
                    round.failures.increment()
                }
            }
        }

        #expect(finished, "the threads did not finish: a deadlock or a lost wake-up")
        var badRounds = 0
        for round in allRounds {
            let instances = round.instances.withLock { $0 }
            let good =
                round.factoryRuns.value == 1 && instances.count == threads
                && Set(instances).count == 1 && round.failures.value == 0
            if !good { badRounds += 1 }
        }
        #expect(
            badRounds == 0, "\(badRounds) of \(rounds) rounds ran the factory other than once or split the instance")
    }

    @Test("a singleton shared by a whole graph is built once when many threads build the graph at once")
    func sharedDependency() throws {
        let threads = 16
        let built = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Engine.self).to { _ in
                    built.increment()
                    return Engine()
                }.in(.singleton)
                binder.bind(Brakes.self).to(Brakes.init)
                binder.bind(Car.self).to(Car.init(engine:brakes:))
            }
        )
        let barrier = Barrier(count: threads)
        let engines = Locked<Set<ObjectIdentifier>>([])
        let finished = runThreads(threads) { _ in
            barrier.arriveAndWait()
            for _ in 0..<200 {
                if let car = try? injector.get(Car.self) {
                    engines.withLock { _ = $0.insert(ObjectIdentifier(car.engine)) }
                }
            }
        }
        #expect(finished)
        #expect(built.value == 1)
        #expect(engines.withLock { $0.count } == 1)
    }
}
