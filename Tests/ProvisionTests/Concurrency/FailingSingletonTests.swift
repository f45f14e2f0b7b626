import Dispatch
import Synchronization
import Testing

@testable import Provision

@Suite("Failing singletons")
struct FailingSingletonTests {
    /// A singleton factory that fails while `failing` is set, can be held inside the factory until
    /// released, and records how many runs overlapped.
    final class Factory: Sendable {
        let failing = Atomic(true)
        let hold = Atomic(false)
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let runs = Counter()
        let running = Atomic(0)
        let maxRunning = Atomic(0)

        func make() throws -> Engine {
            runs.increment()
            let now = running.add(1, ordering: .sequentiallyConsistent).newValue
            maxRunning.max(now, ordering: .sequentiallyConsistent)
            defer { running.subtract(1, ordering: .sequentiallyConsistent) }
            if hold.load(ordering: .sequentiallyConsistent) {
                entered.signal()
                release.wait()
            }
            if failing.load(ordering: .sequentiallyConsistent) { throw ExpectedFailure(id: 7) }
            return Engine()
        }
    }

    private func makeInjector(_ factory: Factory) throws -> Injector {
        try Injector(
            ClosureModule { binder in
                binder.bind(Engine.self).to { _ in try factory.make() }.in(.singleton)
            }
        )
    }

    private func waiters(on injector: Injector) -> Int {
        let key = BindingKey(Engine.self)
        return injector.registry.stripe(for: key).withState { $0.gates.values.reduce(0) { $0 + $1.waiters } }
    }

    @Test("every waiter gets the builder's error, the factory ran once, and the next request succeeds")
    func waitersShareTheFailure() throws {
        let factory = Factory()
        factory.hold.store(true, ordering: .sequentiallyConsistent)
        let injector = try makeInjector(factory)
        let requesters = 8
        let codes = Locked<[ProvisionError.Code]>([])
        let causes = Locked<[Int]>([])
        let allQueued = Atomic(false)

        // Thread 0 watches: once one requester is inside the factory and the other seven are queued on
        // the key's gate, it lets the factory fail. The others request the singleton at once.
        let finished = runThreads(requesters + 1) { index in
            if index == 0 {
                factory.entered.wait()
                let queued = waitUntil { self.waiters(on: injector) == requesters - 1 }
                allQueued.store(queued, ordering: .sequentiallyConsistent)
                factory.release.signal()
                return
            }
            do throws(ProvisionError) {
                _ = try injector.get(Engine.self)
            } catch {
                codes.withLock { $0.append(error.code) }
                if let cause = error.cause as? ExpectedFailure {
                    causes.withLock { $0.append(cause.id) }
                }
            }
        }
        #expect(finished)
        let queued = allQueued.load(ordering: .sequentiallyConsistent)
        #expect(queued, "the requesters never all queued on the gate")
        #expect(factory.runs.value == 1, "the factory ran again instead of the waiters sharing its error")
        #expect(codes.withLock { $0 } == Array(repeating: .factoryFailed, count: requesters))
        #expect(causes.withLock { $0 } == Array(repeating: 7, count: requesters))
        #expect(factory.maxRunning.load(ordering: .sequentiallyConsistent) == 1)
        #expect(waiters(on: injector) == 0)

        // Nothing was cached: once the factory stops failing, the next request builds it.
        factory.hold.store(false, ordering: .sequentiallyConsistent)
        factory.failing.store(false, ordering: .sequentiallyConsistent)
        let engine = try injector.get(Engine.self)
        #expect(try injector.get(Engine.self) === engine)
        #expect(factory.runs.value == 2)
    }

    @Test("under contention a failing factory never runs concurrently with itself, and recovers", arguments: [0, 1, 2])
    func contendedFailures(seed: Int) throws {
        let factory = Factory()
        let injector = try makeInjector(factory)
        let threads = 16
        let rounds = 50
        let barrier = Barrier(count: threads)
        let successes = Counter()
        let failures = Counter()
        let finished = runThreads(threads) { _ in
            for _ in 0..<rounds {
                barrier.arriveAndWait()
                do throws(ProvisionError) {
                    _ = try injector.get(Engine.self)
                    successes.increment()
                } catch  where error.code == .factoryFailed && error.cause is ExpectedFailure {
                    failures.increment()
                } catch {
                    // Any other error is a defect; counted as neither.
                }
            }
        }
        #expect(finished)
        #expect(failures.value == threads * rounds)
        #expect(successes.value == 0)
        #expect(factory.maxRunning.load(ordering: .sequentiallyConsistent) == 1)
        #expect(factory.runs.value <= threads * rounds)

        factory.failing.store(false, ordering: .sequentiallyConsistent)
        let instances = Locked<Set<ObjectIdentifier>>([])
        let recovered = runThreads(threads) { _ in
            barrier.arriveAndWait()
            if let engine = try? injector.get(Engine.self) {
                instances.withLock { _ = $0.insert(ObjectIdentifier(engine)) }
            }
        }
        #expect(recovered)
        #expect(instances.withLock { $0.count } == 1)
        #expect(factory.maxRunning.load(ordering: .sequentiallyConsistent) == 1)
    }
}
