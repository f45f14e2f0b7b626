import Testing

@testable import Provision

/// Defect 5 of the correctness issue: an async factory that resolves through the injector itself (not
/// its `Resolver`) and comes back to its own key hung forever; the sync form reported a cycle.
@Suite("Correctness: re-entry through the injector is a cycle, sync and async", .timeLimit(.minutes(1)))
struct AsyncReentryTests {
    final class Loop: Sendable {}
    final class Other: Sendable {}

    @Test("asyncReentryThroughInjector: an async singleton asking the injector for itself gets cycle")
    func asyncReentryThroughInjector() async throws {
        let slot = Locked<Injector?>(nil)
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Loop.self).to { _ async throws -> Loop in
                    guard let injector = slot.withLock({ $0 }) else { throw ExpectedFailure() }
                    _ = try await injector.get(Loop.self)
                    return Loop()
                }.in(.singleton)
            }
        )
        slot.withLock { $0 = injector }
        do {
            _ = try await injector.get(Loop.self)
            Issue.record("expected a cycle error")
        } catch {
            #expect(error.code == .cycle)
            #expect(error.path == [BindingKey(Loop.self), BindingKey(Loop.self)])
        }
    }

    @Test("asyncReentryThroughInjector: through another binding, the error shows the whole path")
    func asyncReentryThroughAnotherBinding() async throws {
        let slot = Locked<Injector?>(nil)
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Loop.self).to { _ async throws -> Loop in
                    guard let injector = slot.withLock({ $0 }) else { throw ExpectedFailure() }
                    _ = try await injector.get(Other.self)
                    return Loop()
                }.in(.singleton)
                binder.bind(Other.self).to { r async throws -> Other in
                    _ = try await r.get(Loop.self)
                    return Other()
                }.in(.singleton)
            }
        )
        slot.withLock { $0 = injector }
        do {
            _ = try await injector.get(Loop.self)
            Issue.record("expected a cycle error")
        } catch {
            #expect(error.code == .cycle)
            #expect(
                error.description.contains(
                    "AsyncReentryTests.Loop -> AsyncReentryTests.Other -> AsyncReentryTests.Loop"), "\(error)")
        }
    }

    @Test("asyncReentryThroughInjector: a child task of the factory coming back is a cycle too")
    func asyncReentryFromChildTask() async throws {
        let slot = Locked<Injector?>(nil)
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Loop.self).to { _ async throws -> Loop in
                    guard let injector = slot.withLock({ $0 }) else { throw ExpectedFailure() }
                    async let again: Loop = injector.get(Loop.self)
                    _ = try await again
                    return Loop()
                }.in(.singleton)
            }
        )
        slot.withLock { $0 = injector }
        do {
            _ = try await injector.get(Loop.self)
            Issue.record("expected a cycle error")
        } catch {
            #expect(error.code == .cycle)
        }
    }

    @Test("syncReentryThroughInjector: a sync singleton asking the injector for itself gets cycle")
    func syncReentryThroughInjector() throws {
        let slot = Locked<Injector?>(nil)
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Loop.self).to { _ -> Loop in
                    guard let injector = slot.withLock({ $0 }) else { throw ExpectedFailure() }
                    _ = try injector.get(Loop.self)
                    return Loop()
                }.in(.singleton)
            }
        )
        slot.withLock { $0 = injector }
        #expect(throws: ProvisionError.self) { try injector.get(Loop.self) }
        do {
            _ = try injector.get(Loop.self)
        } catch {
            #expect(error.code == .cycle)
        }
    }

    @Test("a sync request made inside an async factory (sync code in the task) coming back is a cycle")
    func syncRequestInsideAsyncFactory() async throws {
        let slot = Locked<Injector?>(nil)
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Other.self).to { _ -> Other in
                    guard let injector = slot.withLock({ $0 }) else { throw ExpectedFailure() }
                    _ = try injector.syncGet(Loop.self)
                    return Other()
                }.in(.singleton)
                binder.bind(Loop.self).to { r async throws -> Loop in
                    _ = try await r.get(Other.self)
                    return Loop()
                }.in(.singleton)
            }
        )
        slot.withLock { $0 = injector }
        do {
            _ = try await injector.get(Loop.self)
            Issue.record("expected an error")
        } catch {
            // The synchronous request can't build an async singleton: it reports the cycle or that
            // the binding needs the async path, never hangs.
            #expect(error.code == .cycle || error.code == .requiresAsync, "\(error)")
        }
    }
}
