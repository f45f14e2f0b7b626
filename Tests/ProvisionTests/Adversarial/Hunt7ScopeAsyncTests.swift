import Dispatch
import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

/// Records its disposal, in order, in a shared log.
private final class Hunt7Logged: Disposable {
    let name: String
    let log: Locked<[String]>
    init(_ name: String, log: Locked<[String]>) {
        self.name = name
        self.log = log
    }
    func dispose() { log.withLock { $0.append(name) } }
}

private final class Hunt7Unit: Disposable {
    let disposals: Counter
    let seed: Int
    init(disposals: Counter, seed: Int = 0) {
        self.disposals = disposals
        self.seed = seed
    }
    func dispose() { disposals.increment() }
}

/// Scoped: the outer unit depends on the inner one, which an async factory builds.
private final class Hunt7Inner: Disposable {
    let log: Locked<[String]>
    init(log: Locked<[String]>) { self.log = log }
    func dispose() { log.withLock { $0.append("inner") } }
}

private final class Hunt7Outer: Disposable {
    let inner: Hunt7Inner
    let log: Locked<[String]>
    init(inner: Hunt7Inner, log: Locked<[String]>) {
        self.inner = inner
        self.log = log
    }
    func dispose() { log.withLock { $0.append("outer") } }
}

private struct Hunt7RequestID: Sendable {
    let value: Int
}

/// A singleton a thread builds while a test holds it.
private final class Hunt7Held: Sendable {}

// MARK: - Tests

@Suite("Hunt7: scopes with async scoped factories, closes racing builds", .timeLimit(.minutes(1)))
struct Hunt7ScopeAsyncTests {
    /// Two tasks ask one scope for an async scoped instance while its factory is suspended, and a third
    /// closes the scope: `close()` (ServiceScope.swift) "Scoped instances that other tasks or threads are
    /// still building are waited for ... and disposed with the others, while their requests still
    /// receive them". Both requests get the one instance, and it is disposed once, before close returns.
    @Test("two tasks and a close racing an async scoped build: one instance, disposed once before close returns")
    func twoTasksAndClose() async throws {
        let hold = Hunt5.Hold()
        let disposals = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt7Unit.self).to { (_: Resolver) async throws -> Hunt7Unit in
                    await hold.runAsync()
                    return Hunt7Unit(disposals: disposals)
                }.in(.scoped)
            })
        let scope = injector.makeScope()
        let first = Task { try await scope.get(Hunt7Unit.self) }
        #expect(await Hunt5.wait(for: hold.entered))
        let second = Task { try await scope.get(Hunt7Unit.self) }
        let closed = Counter()
        let close = Task {
            try await scope.close()
            // The disposals seen when close returned.
            closed.increment()
            return disposals.value
        }
        #expect(await Hunt5.until { scope.isClosed })
        #expect(closed.value == 0)
        hold.release.signal()
        let disposedAtClose = try await close.value
        #expect(disposedAtClose == 1)
        let a = try await first.value
        // The second request either waited at the gate (the instance) or arrived after the close began.
        switch await second.result {
        case .success(let b): #expect(a === b)
        case .failure(let error): #expect((error as? ProvisionError)?.code == .outsideScope)
        }
        #expect(hold.builds.value == 1)
        #expect(disposals.value == 1)
    }

    /// A close whose task is cancelled stops waiting (ThreadSafety.md: "a cancelled async close stops
    /// waiting at once"); the build that ends later is refused, disposes its own instance, and its
    /// request throws: disposed exactly once overall, never served.
    @Test("a cancelled close stops waiting; the late async build disposes its instance once and throws")
    func cancelledClose() async throws {
        let hold = Hunt5.Hold()
        let disposals = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt7Unit.self).to { (_: Resolver) async throws -> Hunt7Unit in
                    await hold.runAsync()
                    return Hunt7Unit(disposals: disposals)
                }.in(.scoped)
            })
        let scope = injector.makeScope()
        let request = Task { () async -> ProvisionError? in
            await Hunt5.error { () async throws(ProvisionError) in try await scope.get(Hunt7Unit.self) }
        }
        #expect(await Hunt5.wait(for: hold.entered))
        let close = Task { try await scope.close() }
        #expect(await Hunt5.until { scope.isClosed })
        close.cancel()
        try await close.value
        #expect(disposals.value == 0)
        hold.release.signal()
        let error = await request.value
        #expect(error?.code == .outsideScope)
        #expect(disposals.value == 1)
        // A second close disposes nothing more.
        try await scope.close()
        #expect(disposals.value == 1)
    }

    /// Reverse creation order with async factories, in a seeded scope: the inner unit (async factory) is
    /// created before the outer one that needs it, then a unit that reads the seed; the close disposes
    /// them in exact reverse order of creation.
    @Test("async scoped instances are disposed in reverse creation order, in a seeded scope")
    func reverseOrderSeeded() async throws {
        let log = Locked<[String]>([])
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt7RequestID.self).toSeed()
                binder.bind(Hunt7Inner.self).to { (_: Resolver) async throws -> Hunt7Inner in Hunt7Inner(log: log) }
                    .in(.scoped)
                binder.bind(Hunt7Outer.self).to { (inner: Hunt7Inner) in Hunt7Outer(inner: inner, log: log) }.in(
                    .scoped)
                binder.bind(Hunt7Logged.self).to { resolver async throws -> Hunt7Logged in
                    let id = try await resolver.get(Hunt7RequestID.self)
                    return Hunt7Logged("logged-\(id.value)", log: log)
                }.in(.scoped)
            })
        let scope = try injector.makeScope { seed in seed.provide(Hunt7RequestID(value: 4)) }
        let outer = try await scope.get(Hunt7Outer.self)
        #expect(try await scope.get(Hunt7Inner.self) === outer.inner)
        _ = try await scope.get(Hunt7Logged.self)
        try await scope.close()
        #expect(log.withLock { $0 } == ["logged-4", "outer", "inner"])
    }

    /// An async scoped factory is suspended when the close begins; when it resumes it asks for another
    /// scoped binding of the same scope, not built yet. Design question: that build can't begin in a
    /// closing scope (ThreadSafety.md, "no factory runs for a closed scope"), so the request in flight
    /// fails with `outsideScope`, although `close()` says builds in flight are waited for and "their
    /// requests still receive them". This test records what happens, and that nothing leaks.
    @Test("design: an async scoped build in flight that needs an unbuilt scoped dependency after close began")
    func dependencyAfterCloseBegan() async throws {
        let hold = Hunt5.Hold()
        let log = Locked<[String]>([])
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt7Inner.self).to { Hunt7Inner(log: log) }.in(.scoped)
                binder.bind(Hunt7Outer.self).to { resolver async throws -> Hunt7Outer in
                    await hold.runAsync()
                    return Hunt7Outer(inner: try await resolver.get(Hunt7Inner.self), log: log)
                }.in(.scoped)
            })
        let scope = injector.makeScope()
        let request = Task { () async -> ProvisionError? in
            await Hunt5.error { () async throws(ProvisionError) in try await scope.get(Hunt7Outer.self) }
        }
        #expect(await Hunt5.wait(for: hold.entered))
        let close = Task { try await scope.close() }
        #expect(await Hunt5.until { scope.isClosed })
        hold.release.signal()
        try await close.value
        let error = await request.value
        // What happens today: the dependency's build is refused.
        #expect(error?.code == .outsideScope)
        #expect(log.withLock { $0 }.isEmpty)
    }

    /// withScope around a body whose task group builds one async scoped instance from 4 child tasks:
    /// built once, disposed once when withScope returns.
    @Test("withScope: four child tasks build one async scoped instance; disposed once at the end")
    func withScopeChildTasks() async throws {
        let disposals = Counter()
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt7Unit.self).to { (_: Resolver) async throws -> Hunt7Unit in
                    builds.increment()
                    await Task.yield()
                    return Hunt7Unit(disposals: disposals)
                }.in(.scoped)
            })
        let identities = try await injector.withScope { scope in
            try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
                for _ in 0..<4 {
                    group.addTask { ObjectIdentifier(try await scope.get(Hunt7Unit.self)) }
                }
                var all = Set<ObjectIdentifier>()
                for try await id in group { all.insert(id) }
                return all
            }
        }
        #expect(identities.count == 1)
        #expect(builds.value == 1)
        #expect(disposals.value == 1)
    }

    /// The builder of an async scoped instance is cancelled while its factory waits for a singleton a
    /// thread builds: `cancelled`; another task of the scope then builds the instance itself, a close
    /// racing that build waits for it, and the instance is disposed once (the failed build left nothing
    /// to dispose and no build counted in flight).
    @Test("a scoped builder cancelled in its factory's wait; the scope's other task builds it; close disposes once")
    func scopedBuilderCancelled() async throws {
        let hold = Hunt5.Hold()
        let disposals = Counter()
        let attempts = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt7Held.self).to { () -> Hunt7Held in
                    hold.run()
                    return Hunt7Held()
                }.in(.singleton)
                binder.bind(Hunt7Unit.self).to { resolver async throws -> Hunt7Unit in
                    let attempt = attempts.increment()
                    _ = try await resolver.get(Hunt7Held.self)
                    return Hunt7Unit(disposals: disposals, seed: attempt)
                }.in(.scoped)
            })
        let thread = Hunt5.Request { () throws(ProvisionError) in try injector.get(Hunt7Held.self) }
        #expect(await Hunt5.wait(for: hold.entered))
        let scope = injector.makeScope()
        let builder = Task { () async -> ProvisionError? in
            await Hunt5.error { () async throws(ProvisionError) in try await scope.get(Hunt7Unit.self) }
        }
        #expect(await Hunt5.until { injector.gateWaiters(of: Hunt7Held.self)?.tasks == 1 })
        let other = Task { try await scope.get(Hunt7Unit.self) }
        builder.cancel()
        #expect(await builder.value?.code == .cancelled)
        // The other task builds it (its factory waits for the thread in turn).
        #expect(await Hunt5.until { injector.gateWaiters(of: Hunt7Held.self)?.tasks == 2 })
        let close = Task { try await scope.close() }
        #expect(await Hunt5.until { scope.isClosed })
        hold.release.signal()
        let unit = try await other.value
        try await close.value
        #expect(unit.seed == 2)
        #expect(attempts.value == 2)
        #expect(disposals.value == 1)
        #expect((try? await thread.result()?.get()) != nil)
    }

    /// A task waiting at the scope's gate for another task's async build is cancelled: `cancelled` (or,
    /// if it came late, the instance); the build goes on and the close disposes the instance once.
    @Test("a task cancelled while it waits for another task's async scoped build; disposed once")
    func scopedWaiterCancelled() async throws {
        let hold = Hunt5.Hold()
        let disposals = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt7Unit.self).to { (_: Resolver) async throws -> Hunt7Unit in
                    await hold.runAsync()
                    return Hunt7Unit(disposals: disposals)
                }.in(.scoped)
            })
        let scope = injector.makeScope()
        let builder = Task { try await scope.get(Hunt7Unit.self) }
        #expect(await Hunt5.wait(for: hold.entered))
        let waiter = Task { () async -> Result<Hunt7Unit, ProvisionError> in
            await hunt7ScopeResult { () async throws(ProvisionError) in try await scope.get(Hunt7Unit.self) }
        }
        #expect(await Hunt5.until { !WaitGraph.isEmpty })
        waiter.cancel()
        let waited = await waiter.value
        hold.release.signal()
        let unit = try await builder.value
        switch waited {
        case .success(let other): #expect(other === unit)
        case .failure(let error): #expect(error.code == .cancelled)
        }
        #expect(try await scope.get(Hunt7Unit.self) === unit)
        try await scope.close()
        #expect(disposals.value == 1)
        #expect(hold.builds.value == 1)
    }

    /// Two nested async scoped builds in flight (the outer's factory waits for the inner's, suspended)
    /// when the close begins: the close waits for both, the request receives the outer instance, and
    /// both are disposed once, newest first, before the close returns.
    @Test("a close while nested async scoped builds are suspended: both disposed, outer first, before close returns")
    func closeDuringNestedBuilds() async throws {
        let hold = Hunt5.Hold()
        let log = Locked<[String]>([])
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt7Inner.self).to { (_: Resolver) async throws -> Hunt7Inner in
                    await hold.runAsync()
                    return Hunt7Inner(log: log)
                }.in(.scoped)
                binder.bind(Hunt7Outer.self).to { (inner: Hunt7Inner) in Hunt7Outer(inner: inner, log: log) }.in(
                    .scoped)
            })
        let scope = injector.makeScope()
        let request = Task { try await scope.get(Hunt7Outer.self) }
        #expect(await Hunt5.wait(for: hold.entered))
        let close = Task {
            try await scope.close()
            return log.withLock { $0 }
        }
        #expect(await Hunt5.until { scope.isClosed })
        hold.release.signal()
        let atClose = try await close.value
        let outer = try await request.value
        #expect(atClose == ["outer", "inner"])
        #expect(ObjectIdentifier(outer.inner) != ObjectIdentifier(outer))
        #expect(hold.builds.value == 1)
    }
}

/// The outcome of an async request, as a value.
private func hunt7ScopeResult<T>(_ body: () async throws(ProvisionError) -> T) async -> Result<T, ProvisionError> {
    do {
        return .success(try await body())
    } catch {
        return .failure(error)
    }
}
