import Dispatch
import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

/// A synchronous singleton a thread builds while the tests hold it.
private final class Hunt7Slow: Sendable {}

/// An async singleton whose factory awaits `Hunt7Slow`.
private final class Hunt7OnSlow: Sendable {
    let id: Int
    init(id: Int) { self.id = id }
}

/// An async singleton built first, then one another task holds.
private final class Hunt7First: Sendable {}
private final class Hunt7Second: Sendable {}

/// A transient that needs both, in that order.
private final class Hunt7Pair: Sendable {
    let first: Hunt7First
    let second: Hunt7Second
    init(first: Hunt7First, second: Hunt7Second) {
        self.first = first
        self.second = second
    }
}

/// An async singleton whose factory honours cancellation.
private final class Hunt7Polite: Sendable {}

/// A synchronous singleton over a singleton a thread builds (settled by async requests).
private final class Hunt7Settled: Sendable {
    init(slow: Hunt7Slow) {}
}

/// An event a task can await; ends the wait of every task when signalled (or when it is cancelled).
private final class Hunt7Event: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self)
    }

    func signal() { continuation.finish() }

    /// Returns when signalled, or at once when the task is cancelled.
    func wait() async {
        for await _ in stream {}
    }
}

/// The outcome of an async request, as a value.
private func hunt7Result<T>(_ body: () async throws(ProvisionError) -> T) async -> Result<T, ProvisionError> {
    do {
        return .success(try await body())
    } catch {
        return .failure(error)
    }
}

// MARK: - Tests

@Suite("Hunt7: task cancellation at each step of an async request", .timeLimit(.minutes(1)))
struct Hunt7CancellationTests {
    /// The builder of an async singleton is cancelled while its factory awaits a synchronous singleton a
    /// thread builds: it throws `cancelled`; a task waiting for the same async singleton doesn't inherit
    /// that failure (ThreadSafety.md: "A waiter gets the builder's outcome, except for two failures that
    /// are the builder's own: its task was cancelled"), builds it itself, and it is built once for good.
    @Test("a builder cancelled inside its factory's wait: cancelled; the waiting task builds it itself")
    func builderCancelledInsideFactory() async throws {
        let hold = Hunt5.Hold()
        let attempts = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt7Slow.self).to { () -> Hunt7Slow in
                    hold.run()
                    return Hunt7Slow()
                }.in(.singleton)
                binder.bind(Hunt7OnSlow.self).to { resolver async throws -> Hunt7OnSlow in
                    let id = attempts.increment()
                    _ = try await resolver.get(Hunt7Slow.self)
                    return Hunt7OnSlow(id: id)
                }.in(.singleton)
            })
        let thread = Hunt5.Request { () throws(ProvisionError) in try injector.get(Hunt7Slow.self) }
        #expect(await Hunt5.wait(for: hold.entered))
        let builder = Task {
            await hunt7Result { () async throws(ProvisionError) in try await injector.get(Hunt7OnSlow.self) }
        }
        #expect(await Hunt5.until { injector.gateWaiters(of: Hunt7Slow.self)?.tasks == 1 })
        let waiter = Task {
            await hunt7Result { () async throws(ProvisionError) in try await injector.get(Hunt7OnSlow.self) }
        }
        #expect(await Hunt5.until { injector.gateWaiters(of: Hunt7OnSlow.self)?.tasks == 1 })
        builder.cancel()
        let cancelled = await builder.value
        #expect(cancelled.hunt5Error?.code == .cancelled)
        // The waiter builds it again and waits for the thread's build in turn.
        #expect(await Hunt5.until { injector.gateWaiters(of: Hunt7Slow.self)?.tasks == 2 })
        hold.release.signal()
        let served = try #require(try? await waiter.value.get())
        #expect(served.id == 2)
        #expect(attempts.value == 2)
        #expect(hold.builds.value == 1)
        #expect((try? await thread.result()?.get()) != nil)
        #expect(try await injector.get(Hunt7OnSlow.self) === served)
        #expect(try injector.syncGet(Hunt7OnSlow.self) === served)
    }

    /// Cancelled between two dependencies: the first is built (once, for good), the wait for the second
    /// throws `cancelled` with the path; the other task's build goes on, and a later request builds the
    /// pair from the two singletons, each built once.
    @Test("a task cancelled between two dependencies: cancelled; each singleton built once")
    func cancelledBetweenDependencies() async throws {
        let hold = Hunt5.Hold()
        let firstBuilds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt7First.self).to { (_: Resolver) async throws -> Hunt7First in
                    firstBuilds.increment()
                    return Hunt7First()
                }.in(.singleton)
                binder.bind(Hunt7Second.self).to { (_: Resolver) async throws -> Hunt7Second in
                    await hold.runAsync()
                    return Hunt7Second()
                }.in(.singleton)
                binder.bind(Hunt7Pair.self).to(Hunt7Pair.init(first:second:))
            })
        let other = Task { try await injector.get(Hunt7Second.self) }
        #expect(await Hunt5.wait(for: hold.entered))
        let request = Task { () async -> ProvisionError? in
            await Hunt5.error { () async throws(ProvisionError) in try await injector.get(Hunt7Pair.self) }
        }
        #expect(await Hunt5.until { injector.gateWaiters(of: Hunt7Second.self)?.tasks == 1 })
        #expect(firstBuilds.value == 1)
        request.cancel()
        let error = await request.value
        #expect(error?.code == .cancelled)
        #expect(error?.path == [BindingKey(Hunt7Pair.self), BindingKey(Hunt7Second.self)])
        hold.release.signal()
        let second = try await other.value
        let pair = try await injector.get(Hunt7Pair.self)
        #expect(pair.second === second)
        #expect(firstBuilds.value == 1)
        #expect(hold.builds.value == 1)
    }

    /// The async `getAll` of async singleton elements, cancelled while another task builds an element:
    /// `cancelled`; the element is built once, and a later `getAll` serves it.
    @Test("an async getAll cancelled while another task builds an element: cancelled; built once")
    func getAllCancelled() async throws {
        let hold = Hunt5.Hold()
        let injector = try Injector(
            ClosureModule { binder in
                binder.multibind(Hunt7Second.self).to { (_: Resolver) async throws -> Hunt7Second in
                    await hold.runAsync()
                    return Hunt7Second()
                }.in(.singleton)
            })
        let first = Task { try await injector.getAll(Hunt7Second.self) }
        #expect(await Hunt5.wait(for: hold.entered))
        let second = Task { () async -> ProvisionError? in
            await Hunt5.error { () async throws(ProvisionError) in try await injector.getAll(Hunt7Second.self) }
        }
        // No gate inspection for an element's key: wait for the second request to reach the gate by
        // watching the stripe of every node of the injector.
        #expect(
            await Hunt5.until {
                injector.registry.nodes.contains { node in
                    injector.registry.stripe(for: node.key).withState { state in
                        state.gates.values.contains { !$0.suspended.isEmpty }
                    }
                }
            })
        second.cancel()
        #expect(await second.value?.code == .cancelled)
        hold.release.signal()
        let built = try await first.value
        #expect(built.count == 1)
        #expect(try await injector.getAll(Hunt7Second.self).first === built.first)
        #expect(hold.builds.value == 1)
    }

    /// A factory that honours cancellation throws `CancellationError` when its (building) task is
    /// cancelled. Raised by the seventh hunt as a design question, decided: a task waiting for that build
    /// was not cancelled, so it doesn't inherit the builder's own failure (as with the code `cancelled`);
    /// it decides again and builds the singleton itself.
    @Test("a waiter of a build whose factory threw CancellationError builds it itself")
    func waiterOfCancelledFactory() async throws {
        let entered = DispatchSemaphore(value: 0)
        let event = Hunt7Event()
        let attempts = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt7Polite.self).to { (_: Resolver) async throws -> Hunt7Polite in
                    let attempt = attempts.increment()
                    if attempt == 1 {
                        entered.signal()
                        await event.wait()
                        try Task.checkCancellation()
                    }
                    return Hunt7Polite()
                }.in(.singleton)
            })
        let builder = Task { () async -> ProvisionError? in
            await Hunt5.error { () async throws(ProvisionError) in try await injector.get(Hunt7Polite.self) }
        }
        #expect(await Hunt5.wait(for: entered))
        let waiter = Task {
            await hunt7Result { () async throws(ProvisionError) in try await injector.get(Hunt7Polite.self) }
        }
        #expect(await Hunt5.until { injector.gateWaiters(of: Hunt7Polite.self)?.tasks == 1 })
        builder.cancel()
        let builderError = await builder.value
        #expect(builderError?.code == .factoryFailed)
        #expect(builderError?.cause is CancellationError)
        let waited = await waiter.value
        #expect(waited.hunt5Error == nil, "\(String(describing: waited.hunt5Error))")
        #expect(attempts.value == 2)
        // Built once for good: a later request gets the waiter's instance.
        let later = try await injector.get(Hunt7Polite.self)
        #expect((try? waited.get()) === later)
        #expect(attempts.value == 2)
        event.signal()
    }

    /// An async request of a synchronous singleton settles its dependency, which a thread builds; the task
    /// is cancelled there: `cancelled` at once, nothing built by it; once the thread is done, the
    /// singleton is built once and a synchronous request on a plain thread gets the same instance.
    @Test("a task cancelled while settling: cancelled; the gate isn't leaked, built once")
    func cancelledWhileSettling() async throws {
        let hold = Hunt5.Hold()
        let settledBuilds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt7Slow.self).to { () -> Hunt7Slow in
                    hold.run()
                    return Hunt7Slow()
                }.in(.singleton)
                binder.bind(Hunt7Settled.self).to { (slow: Hunt7Slow) -> Hunt7Settled in
                    settledBuilds.increment()
                    return Hunt7Settled(slow: slow)
                }.in(.singleton)
            })
        let thread = Hunt5.Request { () throws(ProvisionError) in try injector.get(Hunt7Slow.self) }
        #expect(await Hunt5.wait(for: hold.entered))
        let request = Task { () async -> ProvisionError? in
            await Hunt5.error { () async throws(ProvisionError) in try await injector.get(Hunt7Settled.self) }
        }
        #expect(await Hunt5.until { injector.gateWaiters(of: Hunt7Slow.self)?.tasks == 1 })
        request.cancel()
        let error = await request.value
        #expect(error?.code == .cancelled)
        #expect(injector.gateWaiters(of: Hunt7Settled.self) == nil)
        #expect(settledBuilds.value == 0)
        hold.release.signal()
        #expect((try? await thread.result()?.get()) != nil)
        let later = Hunt5.Request { () throws(ProvisionError) in try injector.get(Hunt7Settled.self) }
        let a = try #require(try await later.result()?.get())
        #expect(try await injector.get(Hunt7Settled.self) === a)
        #expect(settledBuilds.value == 1)
        #expect(hold.builds.value == 1)
    }

    /// `start()` in a task cancelled while it waits for another request's build of an async singleton:
    /// it throws (`startFailed` with the cancellation); the singleton is built once and the shutdown
    /// disposes it once.
    @Test("start() cancelled while it waits for another task's build: throws, built and disposed once")
    func startCancelled() async throws {
        let hold = Hunt5.Hold()
        let disposals = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt7Disposable.self).to { (_: Resolver) async throws -> Hunt7Disposable in
                    await hold.runAsync()
                    return Hunt7Disposable(disposals: disposals)
                }.in(.singleton)
            })
        let other = Task { try await injector.get(Hunt7Disposable.self) }
        #expect(await Hunt5.wait(for: hold.entered))
        let start = Task { () async -> ProvisionError? in
            await Hunt5.error { () async throws(ProvisionError) in try await injector.start() }
        }
        #expect(await Hunt5.until { injector.gateWaiters(of: Hunt7Disposable.self)?.tasks == 1 })
        start.cancel()
        let error = await start.value
        #expect(error != nil)
        let codes = [error?.code] + (error?.underlyingErrors.map(\.code) ?? [])
        #expect(codes.contains(.cancelled))
        hold.release.signal()
        _ = try await other.value
        try await injector.shutdown()
        #expect(disposals.value == 1)
        #expect(hold.builds.value == 1)
    }
}

private final class Hunt7Disposable: Disposable {
    let disposals: Counter
    init(disposals: Counter) { self.disposals = disposals }
    func dispose() { disposals.increment() }
}
