import Dispatch
import Testing

@testable import Provision

@Suite("Cross-thread singleton cycles")
struct CrossThreadCycleTests {
    final class Left: Sendable {}
    final class Right: Sendable {}

    /// Two singletons that need each other through closures, each waiting at a barrier before asking
    /// for the other, so that each thread holds one gate and wants the other.
    private func makeInjector(_ barrier: Barrier) throws -> Injector {
        try Injector(
            ClosureModule { binder in
                binder.bind(Left.self).to { resolver in
                    barrier.arriveAndWait()
                    _ = try resolver.get(Right.self)
                    return Left()
                }.in(.singleton)
                binder.bind(Right.self).to { resolver in
                    barrier.arriveAndWait()
                    _ = try resolver.get(Left.self)
                    return Right()
                }.in(.singleton)
            }
        )
    }

    @Test("two threads each building one half of a singleton cycle get cycle errors, never a deadlock")
    func crossThreadCycle() throws {
        let rounds = 10_000
        let codes = Locked<[ProvisionError.Code]>([])
        let messages = Locked<[String]>([])
        let longest = Locked<UInt64>(0)
        for _ in 0..<rounds {
            let barrier = Barrier(count: 2)
            let injector = try makeInjector(barrier)
            let started = DispatchTime.now().uptimeNanoseconds
            let finished = runThreads(2, timeout: 30) { index in
                do throws(ProvisionError) {
                    if index == 0 {
                        _ = try injector.get(Left.self)
                    } else {
                        _ = try injector.get(Right.self)
                    }
                } catch {
                    codes.withLock { $0.append(error.code) }
                    messages.withLock { $0.append(error.description) }
                }
            }
            let elapsed = DispatchTime.now().uptimeNanoseconds - started
            longest.withLock { $0 = max($0, elapsed) }
            #expect(finished, "a round deadlocked")
            if !finished { return }
        }
        let allCodes = codes.withLock { $0 }
        #expect(allCodes.count == 2 * rounds, "every thread of every round ends with an error")
        #expect(allCodes.allSatisfy { $0 == .cycle })
        let texts = messages.withLock { $0 }
        #expect(texts.contains { $0.contains("another thread") })
        // This thread's own path, once (not repeated by the frames the error passes through).
        let (left, right) = ("CrossThreadCycleTests.Left", "CrossThreadCycleTests.Right")
        #expect(
            texts.contains { $0.contains("path: \(left) -> \(right)\n") || $0.contains("path: \(right) -> \(left)\n") })
        // The error names both threads' paths: its own (Left -> Right or Right -> Left) and the other's.
        #expect(
            texts.contains {
                $0.contains("the other thread's path: \(left) -> \(right)")
                    || $0.contains("the other thread's path: \(right) -> \(left)")
            }
        )
        let longestNanoseconds = longest.withLock { $0 }
        #expect(longestNanoseconds < 5_000_000_000, "a round took longer than 5 s")
        print("cross-thread cycles: \(rounds) rounds, longest round \(longestNanoseconds / 1_000) µs")
    }

    @Test("a waiter gives up after the configured timeout with a coded error naming the key")
    func waitTimeout() throws {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Engine.self).to { _ in
                        entered.signal()
                        release.wait()
                        return Engine()
                    }.in(.singleton)
                }
            ],
            configuration: Injector.Configuration(singletonWaitTimeout: .milliseconds(50))
        )
        let waiterError = Locked<ProvisionError?>(nil)
        let builderSucceeded = Locked(false)
        let finished = runThreads(2) { index in
            if index == 0 {
                builderSucceeded.withLock { $0 = (try? injector.get(Engine.self)) != nil }
            } else {
                entered.wait()
                do throws(ProvisionError) {
                    _ = try injector.get(Engine.self)
                } catch {
                    waiterError.withLock { $0 = error }
                }
                release.signal()
            }
        }
        #expect(finished)
        let error = waiterError.withLock { $0 }
        #expect(error?.code == .timedOut)
        #expect(error?.key == BindingKey(Engine.self))
        #expect(error?.message.contains("0.05 seconds") == true)
        #expect(builderSucceeded.withLock { $0 })
        _ = try injector.get(Engine.self)
    }
}
