import Dispatch
import Foundation
import Testing

@testable import Provision

/// Defect 8 of the correctness issue: async callers of a synchronous singleton under construction
/// blocked threads of Swift's cooperative pool on the gate's semaphore (with 8 such callers, an empty
/// detached task waited 0.9 s). They must suspend, and a cancelled waiter must stop waiting at once.
@Suite("Correctness: async callers suspend, never block", .timeLimit(.minutes(1)))
struct AsyncWaiterTests {
    final class Slow: Sendable {}
    final class Root: Sendable {
        init(slow: Slow) {}
    }
    final class ClosureRoot: Sendable {
        init(slow: Slow) {}
    }

    /// A synchronous singleton whose factory, on a thread of its own, holds its gate until `release`.
    private func makeInjector(entered: DispatchSemaphore, release: DispatchSemaphore, builds: Counter) throws
        -> Injector
    {
        try Injector(
            ClosureModule { binder in
                binder.bind(Slow.self).to { _ -> Slow in
                    builds.increment()
                    entered.signal()
                    _ = release.wait(timeout: .now() + 30)
                    return Slow()
                }.in(.singleton)
                binder.bind(Root.self).to(Root.init(slow:))
                binder.bind(ClosureRoot.self).to { r in ClosureRoot(slow: try r.get(Slow.self)) }.in(.singleton)
            }
        )
    }

    @Test("asyncCallersSuspend: 16 async callers of a sync singleton being built leave the pool free")
    func asyncCallersSuspend() async throws {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let builds = Counter()
        let injector = try makeInjector(entered: entered, release: release, builds: builds)
        // The build runs on a plain thread.
        let builder = Thread { _ = try? injector.syncGet(Slow.self) }
        builder.start()
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                entered.wait()
                continuation.resume()
            }
        }
        // 16 callers, more than the pool's threads: directly, through a constructor, through a
        // singleton closure.
        let callers = (0..<16).map { index in
            Task.detached { () -> ObjectIdentifier? in
                switch index % 3 {
                case 0: return try? ObjectIdentifier(await injector.get(Slow.self))
                case 1: return (try? await injector.get(Root.self)).map { _ in ObjectIdentifier(Slow.self) }
                default: return (try? await injector.get(ClosureRoot.self)).map { _ in ObjectIdentifier(Slow.self) }
                }
            }
        }
        // Every direct caller is suspended on the gate (an observed state)...
        while (injector.gateWaiters(of: Slow.self)?.tasks ?? 0) < 6 { await Task.yield() }
        // ...and the pool still runs other work: an empty detached task completes while the build waits.
        let empty = Task.detached { 42 }
        #expect(await empty.value == 42)
        #expect(injector.gateWaiters(of: Slow.self) != nil, "the build is still in progress")
        release.signal()
        var values: [ObjectIdentifier?] = []
        for caller in callers { values.append(await caller.value) }
        #expect(values.allSatisfy { $0 != nil })
        #expect(builds.value == 1, "the factory ran exactly once")
    }

    @Test("cancelledAsyncWaiter: a cancelled waiter stops waiting at once with a coded error")
    func cancelledAsyncWaiter() async throws {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let builds = Counter()
        let injector = try makeInjector(entered: entered, release: release, builds: builds)
        let builder = Thread { _ = try? injector.syncGet(Slow.self) }
        builder.start()
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                entered.wait()
                continuation.resume()
            }
        }
        let waiter = Task { () -> ProvisionError.Code? in
            do {
                _ = try await injector.get(Slow.self)
                return nil
            } catch let error as ProvisionError {
                return error.code
            } catch {
                return nil
            }
        }
        while (injector.gateWaiters(of: Slow.self)?.tasks ?? 0) < 1 { await Task.yield() }
        waiter.cancel()
        // Answered while the build still runs.
        #expect(await waiter.value == .cancelled)
        #expect(injector.gateWaiters(of: Slow.self) != nil)
        // A task cancelled before it asks doesn't wait either.
        let early = Task { () -> ProvisionError.Code? in
            withUnsafeCurrentTask { $0?.cancel() }
            do {
                _ = try await injector.get(Slow.self)
                return nil
            } catch let error as ProvisionError {
                return error.code
            } catch {
                return nil
            }
        }
        #expect(await early.value == .cancelled)
        release.signal()
        // The build went on for everyone else.
        _ = try await injector.get(Slow.self)
        #expect(builds.value == 1)
    }
}
