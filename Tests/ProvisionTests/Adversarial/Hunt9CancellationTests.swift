import Dispatch
import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

/// A singleton whose first build honours its task's cancellation.
private final class H9Inner: Sendable {
    let attempt: Int
    init(attempt: Int) { self.attempt = attempt }
}

/// A singleton over `H9Inner`, built by a request that was not cancelled.
private final class H9Outer: Sendable {
    let inner: H9Inner
    init(inner: H9Inner) { self.inner = inner }
}

/// A transient value read through a `Lazy` whose first read honours its task's cancellation.
private final class H9Report: Sendable {
    let attempt: Int
    init(attempt: Int) { self.attempt = attempt }
}

/// Holds a `Lazy` of the transient report: one handle shared by several readers.
private final class H9ReportHolder: Sendable {
    let report: Lazy<H9Report>
    init(report: Lazy<H9Report>) { self.report = report }
}

/// A scoped unit of work whose first build honours its task's cancellation.
private final class H9Unit: Sendable {
    let attempt: Int
    init(attempt: Int) { self.attempt = attempt }
}

@Suite("Hunt9: builds whose factory threw CancellationError", .timeLimit(.minutes(1)))
struct Hunt9CancellationTests {
    /// A cancelled task builds the inner singleton (its synchronous factory honours the cancellation);
    /// a thread that builds the outer singleton, not cancelled, waits at the inner one's gate. It must
    /// not inherit the cancelled builder's failure: it builds the inner singleton itself, then the outer.
    @Test("a nested singleton: the outer builder (a thread) waits for a cancelled task's inner build")
    func nestedWaiterIsAThread() async throws {
        let hold = Hunt5.Hold()
        let attempts = Counter()
        let outerBuilds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H9Inner.self).to { () throws -> H9Inner in
                    let attempt = attempts.increment()
                    if attempt == 1 {
                        hold.run()
                        try Task.checkCancellation()
                    }
                    return H9Inner(attempt: attempt)
                }.in(.singleton)
                binder.bind(H9Outer.self).to { (inner: H9Inner) -> H9Outer in
                    outerBuilds.increment()
                    return H9Outer(inner: inner)
                }.in(.singleton)
            }
        )
        let builder = Task { () async -> ProvisionError? in
            await Hunt5.error { () async throws(ProvisionError) in try await injector.get(H9Inner.self) }
        }
        #expect(await Hunt5.wait(for: hold.entered))
        let outer = Hunt5.Request { () throws(ProvisionError) in try injector.get(H9Outer.self) }
        #expect(await Hunt5.until { injector.gateWaiters(of: H9Inner.self)?.threads == 1 })
        // A second thread waits for the outer singleton's build.
        let second = Hunt5.Request { () throws(ProvisionError) in try injector.get(H9Outer.self) }
        #expect(await Hunt5.until { injector.gateWaiters(of: H9Outer.self)?.threads == 1 })
        builder.cancel()
        hold.release.signal()
        #expect(await builder.value?.cause is CancellationError)
        let built = await outer.result()
        let waited = await second.result()
        #expect(built?.hunt5Error == nil, "\(String(describing: built))")
        #expect(waited?.hunt5Error == nil, "\(String(describing: waited))")
        if case .success(let a) = built, case .success(let b) = waited {
            #expect(a === b)
            #expect(a.inner.attempt == 2)
        }
        #expect(attempts.value == 2)
        #expect(outerBuilds.value == 1)
    }

    /// The same with the outer singleton built by an async request that was not cancelled.
    @Test("a nested singleton: the outer builder (a task) waits for a cancelled task's inner build")
    func nestedWaiterIsATask() async throws {
        let hold = Hunt5.Hold()
        let attempts = Counter()
        let outerBuilds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H9Inner.self).to { (_: Resolver) async throws -> H9Inner in
                    let attempt = attempts.increment()
                    if attempt == 1 {
                        await hold.runAsync()
                        try Task.checkCancellation()
                    }
                    return H9Inner(attempt: attempt)
                }.in(.singleton)
                binder.bind(H9Outer.self).to { (inner: H9Inner) -> H9Outer in
                    outerBuilds.increment()
                    return H9Outer(inner: inner)
                }.in(.singleton)
            }
        )
        let builder = Task { () async -> ProvisionError? in
            await Hunt5.error { () async throws(ProvisionError) in try await injector.get(H9Inner.self) }
        }
        #expect(await Hunt5.wait(for: hold.entered))
        let outer = Task { () async -> Result<H9Outer, ProvisionError> in
            do throws(ProvisionError) { return .success(try await injector.get(H9Outer.self)) } catch {
                return .failure(error)
            }
        }
        #expect(await Hunt5.until { injector.gateWaiters(of: H9Inner.self)?.tasks == 1 })
        builder.cancel()
        hold.release.signal()
        #expect(await builder.value?.cause is CancellationError)
        let built = await outer.value
        #expect(built.hunt5Error == nil, "\(String(describing: built.hunt5Error))")
        #expect(attempts.value == 2)
        #expect(outerBuilds.value == 1)
    }

    /// Control: a synchronous factory that throws `CancellationError` on a plain thread (no task, so
    /// nothing was cancelled): the waiters, a thread and a task, inherit the failure; one attempt.
    @Test("control: CancellationError thrown on a plain thread is inherited by a thread and a task")
    func cancellationErrorOnAThreadIsInherited() async throws {
        let hold = Hunt5.Hold()
        let attempts = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H9Inner.self).to { () throws -> H9Inner in
                    let attempt = attempts.increment()
                    if attempt == 1 {
                        hold.run()
                        throw CancellationError()
                    }
                    return H9Inner(attempt: attempt)
                }.in(.singleton)
            }
        )
        let builder = Hunt5.Request { () throws(ProvisionError) in try injector.get(H9Inner.self) }
        #expect(await Hunt5.wait(for: hold.entered))
        let thread = Hunt5.Request { () throws(ProvisionError) in try injector.get(H9Inner.self) }
        #expect(await Hunt5.until { injector.gateWaiters(of: H9Inner.self)?.threads == 1 })
        let task = Task { () async -> ProvisionError? in
            await Hunt5.error { () async throws(ProvisionError) in try await injector.get(H9Inner.self) }
        }
        #expect(await Hunt5.until { injector.gateWaiters(of: H9Inner.self)?.tasks == 1 })
        hold.release.signal()
        #expect((await builder.result())?.hunt5Error?.cause is CancellationError)
        let threaded = await thread.result()
        #expect(threaded?.hunt5Error?.code == .factoryFailed)
        #expect(threaded?.hunt5Error?.cause is CancellationError)
        let tasked = await task.value
        #expect(tasked?.code == .factoryFailed)
        #expect(tasked?.cause is CancellationError)
        #expect(attempts.value == 1)
        // A retry builds.
        #expect(try await injector.get(H9Inner.self).attempt == 2)
    }

    /// A scoped instance: the cancelled task's build in a scope, a thread of the same scope waiting.
    @Test("a scoped build whose factory honoured its task's cancellation: the scope's waiter builds it")
    func scopedWaiterRebuilds() async throws {
        let hold = Hunt5.Hold()
        let attempts = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H9Unit.self).to { () throws -> H9Unit in
                    let attempt = attempts.increment()
                    if attempt == 1 {
                        hold.run()
                        try Task.checkCancellation()
                    }
                    return H9Unit(attempt: attempt)
                }.in(.scoped)
            }
        )
        let scope = injector.makeScope()
        let builder = Task { () async -> ProvisionError? in
            await Hunt5.error { () async throws(ProvisionError) in try await scope.get(H9Unit.self) }
        }
        #expect(await Hunt5.wait(for: hold.entered))
        let waiter = Hunt5.Request { () throws(ProvisionError) in try scope.get(H9Unit.self) }
        #expect(await Hunt5.until { scope.h9GateWaiters == 1 })
        builder.cancel()
        hold.release.signal()
        #expect(await builder.value?.cause is CancellationError)
        let waited = await waiter.result()
        #expect(waited?.hunt5Error == nil, "\(String(describing: waited))")
        #expect(attempts.value == 2)
        try await scope.close()
    }

    // Found by hunt 9, decided and fixed: a thread waiting for a cancelled task's read of the same
    // `Lazy` (of a transient binding) inherited the task's `CancellationError`. A failure that is the
    // reader's own cancellation is now not passed on (`ProvisionError.isOwnCancellation`, the rule of a
    // singleton's cancelled builder): the waiter reads again and gets a value.
    @Test("a Lazy's read by a cancelled task whose factory honoured it: a waiting thread reads again")
    func lazyReadOfCancelledTask() async throws {
        let hold = Hunt5.Hold()
        let attempts = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H9Report.self).to { () throws -> H9Report in
                    let attempt = attempts.increment()
                    if attempt == 1 {
                        hold.run()
                        try Task.checkCancellation()
                    }
                    return H9Report(attempt: attempt)
                }
                binder.bind(H9ReportHolder.self).to(H9ReportHolder.init(report:)).in(.singleton)
            }
        )
        let holder = try await injector.get(H9ReportHolder.self)
        let reader = Task { () -> Result<H9Report, ProvisionError> in
            do throws(ProvisionError) { return .success(try holder.report.value) } catch { return .failure(error) }
        }
        #expect(await Hunt5.wait(for: hold.entered))
        let waiter = Hunt5.Request { () throws(ProvisionError) in try holder.report.value }
        #expect(await Hunt5.until { holder.report.waitingReaders == 1 })
        reader.cancel()
        hold.release.signal()
        #expect((await reader.value).hunt5Error?.cause is CancellationError)
        let waited = await waiter.result()
        #expect(
            waited?.hunt5Error == nil,
            "the waiter inherited the cancelled reader's failure: \(String(describing: waited))")
        #expect(attempts.value == 2)
    }
}

extension ServiceScope {
    /// The threads waiting on the gates of this scope's builds in progress.
    fileprivate var h9GateWaiters: Int {
        withGates { gates in gates.values.reduce(0) { $0 + $1.waiters } }
    }
}
