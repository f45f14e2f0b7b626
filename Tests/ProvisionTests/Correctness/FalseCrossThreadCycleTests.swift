import Dispatch
import Foundation
import Testing

@testable import Provision

/// Defect 1 of the correctness issue: an acyclic graph reported a cross-thread cycle, because a waiter's
/// record in the waits-for graph outlived its wait.
///
/// Singletons A and B, where B's factory resolves A, and a transient C that resolves A, then B. Thread 1
/// requests C and builds A; thread 2 requests B, whose factory waits on A's gate. When A is built,
/// thread 1 goes on to B, which thread 2 is still building: thread 1 must wait for it, not report that B
/// waits for a singleton thread 1 is building (A is finished).
@Suite("Correctness: no false cross-thread cycle")
struct FalseCrossThreadCycleTests {
    final class A: Sendable {}
    final class B: Sendable {
        init(a: A) {}
    }
    final class C: Sendable {
        init(a: A, b: B) {}
    }

    /// The ways users write the graph: closures or initializers for B and C.
    enum Shape: CaseIterable {
        case closures
        case initializers
        case mixed
    }

    /// A graph whose A factory holds its gate until thread 2 waits on it (plus a random spin), so that
    /// thread 1 reaches B's gate right after A's build ended, while thread 2 is waking up.
    private func makeInjector(_ shape: Shape, aStarted: DispatchSemaphore, spin: Int) throws -> Injector {
        let slot = Locked<Injector?>(nil)
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(A.self).to { _ in
                    aStarted.signal()
                    // Thread 2 is waiting on A's gate (an observed state, not a sleep)...
                    _ = waitUntil(timeout: 10) {
                        (slot.withLock { $0 }?.gateWaiters(of: A.self)?.threads ?? 0) > 0
                    }
                    // ...and a random few iterations more.
                    var x = 0
                    for i in 0..<spin { x &+= i }
                    _ = x
                    return A()
                }.in(.singleton)
                switch shape {
                case .closures:
                    binder.bind(B.self).to { r in B(a: try r.get(A.self)) }.in(.singleton)
                    binder.bind(C.self).to { r in C(a: try r.get(A.self), b: try r.get(B.self)) }
                case .initializers:
                    binder.bind(B.self).to(B.init(a:)).in(.singleton)
                    binder.bind(C.self).to(C.init(a:b:))
                case .mixed:
                    binder.bind(B.self).to { r in B(a: try r.get(A.self)) }.in(.singleton)
                    binder.bind(C.self).to(C.init(a:b:))
                }
            }
        )
        slot.withLock { $0 = injector }
        return injector
    }

    @Test("falseCrossThreadCycle: 10,000 randomized rounds of an acyclic graph, sync, get no cycle error")
    func falseCrossThreadCycle() async throws {
        try await offPool { try self.falseCrossThreadCycleRounds() }
    }

    private func falseCrossThreadCycleRounds() throws {
        let rounds = stressRounds(10_000)
        let failures = Locked<[String]>([])
        var generator = SystemRandomNumberGenerator()
        for round in 0..<rounds {
            let shape = Shape.allCases.randomElement(using: &generator) ?? .closures
            let aStarted = DispatchSemaphore(value: 0)
            let injector = try makeInjector(shape, aStarted: aStarted, spin: Int.random(in: 0..<2_000))
            let finished = runThreads(2, timeout: 30) { index in
                do throws(ProvisionError) {
                    if index == 0 {
                        _ = try injector.get(C.self)
                    } else {
                        aStarted.wait()
                        _ = try injector.get(B.self)
                    }
                } catch {
                    failures.withLock { $0.append("round \(round) (\(shape)), thread \(index + 1): \(error)") }
                }
            }
            #expect(finished, "round \(round) deadlocked")
            if !finished { return }
        }
        let found = failures.withLock { $0 }
        #expect(found.isEmpty, "\(found.count) false errors, first: \(found.first ?? "")")
    }

    @Test(
        "falseCrossThreadCycle (async): randomized rounds with async factories get no cycle error",
        .timeLimit(.minutes(5))
    )
    func falseCrossThreadCycleAsync() async throws {
        let rounds = stressRounds(2_000)
        var falseErrors: [String] = []
        for round in 0..<rounds {
            let aStarted = AsyncLatch()
            let slot = Locked<Injector?>(nil)
            let spin = Int.random(in: 0..<2_000)
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(A.self).to { _ async throws in
                        aStarted.open()
                        while (slot.withLock { $0 }?.gateWaiters(of: A.self)?.tasks ?? 0) == 0 {
                            await Task.yield()
                        }
                        var x = 0
                        for i in 0..<spin { x &+= i }
                        _ = x
                        return A()
                    }.in(.singleton)
                    binder.bind(B.self).to { r async throws in B(a: try await r.get(A.self)) }.in(.singleton)
                    binder.bind(C.self).to { r async throws in
                        C(a: try await r.get(A.self), b: try await r.get(B.self))
                    }
                }
            )
            slot.withLock { $0 = injector }
            async let first: Void = {
                _ = try await injector.get(C.self)
            }()
            async let second: Void = {
                await aStarted.wait()
                _ = try await injector.get(B.self)
            }()
            do { try await first } catch { falseErrors.append("round \(round), task 1: \(error)") }
            do { try await second } catch { falseErrors.append("round \(round), task 2: \(error)") }
        }
        #expect(falseErrors.isEmpty, "\(falseErrors.count) false errors, first: \(falseErrors.first ?? "")")
    }

    @Test("a real cross-task cycle between async singletons is still reported, never a hang", .timeLimit(.minutes(1)))
    func realCrossTaskCycleIsReported() async throws {
        final class Left: Sendable {}
        final class Right: Sendable {}
        for _ in 0..<stressRounds(200) {
            let barrier = AsyncBarrier(count: 2)
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Left.self).to { r async throws in
                        await barrier.arrive()
                        _ = try await r.get(Right.self)
                        return Left()
                    }.in(.singleton)
                    binder.bind(Right.self).to { r async throws in
                        await barrier.arrive()
                        _ = try await r.get(Left.self)
                        return Right()
                    }.in(.singleton)
                }
            )
            async let left: ProvisionError.Code? = {
                do { _ = try await injector.get(Left.self) } catch let error as ProvisionError {
                    return error.code
                } catch { return nil }
                return nil
            }()
            async let right: ProvisionError.Code? = {
                do { _ = try await injector.get(Right.self) } catch let error as ProvisionError {
                    return error.code
                } catch { return nil }
                return nil
            }()
            let codes = await [left, right]
            // The task that closes the cycle gets `cycle`; the other gets the same error from its
            // dependency's failed build, or `cycle` of its own.
            #expect(codes.allSatisfy { $0 == .cycle })
        }
    }

    @Test(
        "a cycle through a factory's child tasks (async let) is reported, and siblings sharing a singleton wait",
        .timeLimit(.minutes(1))
    )
    func childTaskCycle() async throws {
        final class Parent: Sendable {}
        final class Shared: Sendable {}
        final class Loop: Sendable {}
        let builds = Counter()
        // `Resolver` is not Sendable: child tasks resolve through the injector, and the factory's path
        // comes with them (the ambient path of the build).
        let slot = Locked<Injector?>(nil)
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Shared.self).to { _ async throws in
                    builds.increment()
                    await Task.yield()
                    return Shared()
                }.in(.singleton)
                // Two child tasks need the same singleton: one builds, the other waits (no false cycle).
                binder.bind(Parent.self).to { _ async throws -> Parent in
                    guard let injector = slot.withLock({ $0 }) else { throw ExpectedFailure() }
                    async let one: Shared = injector.get(Shared.self)
                    async let two: Shared = injector.get(Shared.self)
                    let (a, b) = try await (one, two)
                    #expect(a === b)
                    return Parent()
                }.in(.singleton)
                // A child task that comes back to the singleton its parent is building: a cycle.
                binder.bind(Loop.self).to { _ async throws -> Loop in
                    guard let injector = slot.withLock({ $0 }) else { throw ExpectedFailure() }
                    async let again: Loop = injector.get(Loop.self)
                    _ = try await again
                    return Loop()
                }.in(.singleton)
            }
        )
        slot.withLock { $0 = injector }
        _ = try await injector.get(Parent.self)
        #expect(builds.value == 1)
        await #expect(throws: ProvisionError.self) {
            _ = try await injector.get(Loop.self)
        }
        do {
            _ = try await injector.get(Loop.self)
        } catch {
            #expect(error.code == .cycle)
        }
    }
}
