import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Provision

final class HSA: Sendable {}
final class HSB: Sendable {}

/// Two threads meet inside two factories: each waits until both factories have started.
final class HSMeeting: Sendable {
    let barrier = Barrier(count: 2)
    let first = Atomic(true)
    func meetOnce() {
        // Only the first run of each factory meets (a factory may run again after a failure).
        barrier.arriveAndWait()
    }
}

@Suite("Hunt: cross-thread cycles of scoped instances", .timeLimit(.minutes(1)))
struct HuntScopedCycleTests {
    static func module(_ meeting: HSMeeting, scope: Scope, runsA: Counter, runsB: Counter) -> ClosureModule {
        ClosureModule { binder in
            binder.bind(HSA.self).to { resolver in
                if runsA.increment() == 1 { meeting.meetOnce() }
                _ = try resolver.get(HSB.self)
                return HSA()
            }.in(scope)
            binder.bind(HSB.self).to { resolver in
                if runsB.increment() == 1 { meeting.meetOnce() }
                _ = try resolver.get(HSA.self)
                return HSB()
            }.in(scope)
        }
    }

    @Test(
        "two threads building the two halves of a cycle of scoped instances in one scope: cycle errors, no hang",
        arguments: [Scope.scoped, .singleton])
    func scopedCrossThreadCycle(scope: Scope) async throws {
        let meeting = HSMeeting()
        let runsA = Counter()
        let runsB = Counter()
        let injector = try Injector(
            modules: [Self.module(meeting, scope: scope, runsA: runsA, runsB: runsB)],
            configuration: Injector.Configuration(singletonWaitTimeout: .seconds(20))
        )
        let serviceScope = injector.makeScope()
        let codes = Locked<[ProvisionError.Code]>([])
        let finished = try await offPool {
            runThreads(2, timeout: 40) { index in
                do {
                    if index == 0 {
                        _ = try serviceScope.syncGet(HSA.self)
                    } else {
                        _ = try serviceScope.syncGet(HSB.self)
                    }
                    codes.withLock { $0.append(.factoryFailed) }
                } catch let error as ProvisionError {
                    codes.withLock { $0.append(error.code) }
                } catch {
                    codes.withLock { $0.append(.configurationFailed) }
                }
            }
        }
        #expect(finished)
        let seen = codes.withLock { $0 }
        #expect(seen.count == 2)
        // Both requests fail; at least one with a cycle, none with a timeout.
        #expect(seen.contains(.cycle), "\(seen)")
        #expect(!seen.contains(.timedOut), "\(seen)")
        try serviceScope.syncClose()
    }

    static func code(_ body: @Sendable () async throws -> Void) async -> ProvisionError.Code? {
        do {
            try await body()
            return nil
        } catch {
            return (error as? ProvisionError)?.code
        }
    }

    @Test("two tasks building the two halves of a cycle of async scoped instances in one scope: cycle errors, no hang")
    func scopedCrossTaskCycle() async throws {
        let started = AsyncBarrier(count: 2)
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(HSA.self).to { resolver async throws in
                        await started.arrive()
                        _ = try await resolver.get(HSB.self)
                        return HSA()
                    }.in(.scoped)
                    binder.bind(HSB.self).to { resolver async throws in
                        await started.arrive()
                        _ = try await resolver.get(HSA.self)
                        return HSB()
                    }.in(.scoped)
                }
            ],
            configuration: Injector.Configuration(singletonWaitTimeout: .seconds(20))
        )
        let scope = injector.makeScope()
        async let a = Self.code { _ = try await scope.get(HSA.self) }
        async let b = Self.code { _ = try await scope.get(HSB.self) }
        let codes = await [a, b]
        #expect(codes.contains(.cycle), "\(codes)")
        #expect(!codes.contains(.timedOut), "\(codes)")
        try await scope.close()
    }
}
