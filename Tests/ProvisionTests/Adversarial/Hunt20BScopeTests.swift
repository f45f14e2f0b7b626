import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Provision

// Hunt 20 (B): request scopes as a server uses them. Many scopes open at once on many threads, each
// seeded with its request; scoped services built once per scope and disposed once, newest first, when
// it closes; a scope closed while another thread still builds in it; scopes of a child injector.

// MARK: - Fixtures

/// The request a scope is seeded with; disposable, but the caller's.
private final class H20BRequest: Disposable {
    let id: Int
    let disposals = Counter()
    init(id: Int) { self.id = id }
    func dispose() { disposals.increment() }
}

/// The request's context, scoped and disposable.
private final class H20BContext: Disposable {
    let request: H20BRequest
    let log: EventLog
    init(request: H20BRequest, log: EventLog) {
        self.request = request
        self.log = log
    }

    func dispose() { log.append("dispose context \(request.id)") }
}

/// The request's unit of work, scoped, built from its context.
private final class H20BWork: Disposable {
    let context: H20BContext
    init(context: H20BContext) { self.context = context }
    func dispose() { context.log.append("dispose work \(context.request.id)") }
}

/// A transaction that commits asynchronously when disposed.
private final class H20BTransaction: AsyncDisposable {
    let work: H20BWork
    init(work: H20BWork) { self.work = work }
    func dispose() async {
        await Task.yield()
        work.context.log.append("dispose transaction \(work.context.request.id)")
    }
}

/// A transient request handler over the unit of work.
private final class H20BRequestHandler: Sendable {
    let work: H20BWork
    init(work: H20BWork) { self.work = work }
}

/// Binds the seeded request, the scoped context and unit of work, the async-disposed transaction and the
/// transient handler.
private struct H20BRequestModule: Module {
    let log: EventLog
    let works: Counter

    func configure(_ binder: Binder) {
        let works = works
        binder.bind(EventLog.self).toInstance(log)
        binder.bind(H20BRequest.self).toSeed()
        binder.bind(H20BContext.self).to(H20BContext.init(request:log:)).in(.scoped)
        binder.bind(H20BWork.self).to { (context: H20BContext) in
            works.increment()
            return H20BWork(context: context)
        }.in(.scoped)
        binder.bind(H20BTransaction.self).to(H20BTransaction.init(work:)).in(.scoped)
        binder.bind(H20BRequestHandler.self).to(H20BRequestHandler.init(work:))
    }
}

/// A scoped disposable whose disposal is counted, with a serial per build.
private final class H20BCounted: Disposable {
    let serial: Int
    let disposals: Counter
    init(serial: Int, disposals: Counter) {
        self.serial = serial
        self.disposals = disposals
    }

    func dispose() { disposals.increment() }
}

/// A scoped service over a held scoped dependency.
private final class H20BOuter: Disposable {
    let inner: H20BCounted
    let log: EventLog
    init(inner: H20BCounted, log: EventLog) {
        self.inner = inner
        self.log = log
    }

    func dispose() { log.append("dispose outer") }
}

/// A scoped disposable whose disposal fails.
private final class H20BFailingDisposal: Disposable {
    struct Failure: Error {}
    func dispose() throws { throw Failure() }
}

// MARK: - Tests

@Suite("Hunt 20B: request scopes under concurrency", .timeLimit(.minutes(1)))
struct Hunt20BScopeTests {
    /// Sixteen threads each serve one request: a seeded scope, the handler resolved five times, then
    /// closed. Every scope builds its unit of work once, sees its own request, and disposes the unit of
    /// work, then the context, once each.
    @Test func sixteenSeededScopesOnSixteenThreads() async throws {
        let log = EventLog()
        let works = Counter()
        let injector = try Injector(H20BRequestModule(log: log, works: works))
        let failures = Locked<[String]>([])
        let finished = try await offPool {
            runThreads(16) { index in
                do {
                    let scope = try injector.makeScope { seed in seed.provide(H20BRequest(id: index)) }
                    var works: Set<ObjectIdentifier> = []
                    for _ in 0..<5 {
                        let handler = try scope.get(H20BRequestHandler.self)
                        works.insert(ObjectIdentifier(handler.work))
                        if handler.work.context.request.id != index {
                            failures.withLock {
                                $0.append("scope \(index) saw request \(handler.work.context.request.id)")
                            }
                        }
                    }
                    if works.count != 1 { failures.withLock { $0.append("scope \(index) built \(works.count) works") } }
                    try scope.close()
                } catch {
                    failures.withLock { $0.append("scope \(index): \(error)") }
                }
            }
        }
        #expect(finished)
        #expect(failures.withLock { $0 } == [])
        #expect(works.value == 16)
        for index in 0..<16 {
            let events = log.all.filter { $0.hasSuffix(" \(index)") }
            #expect(events == ["dispose work \(index)", "dispose context \(index)"])
        }
    }

    /// Eight threads of one request resolve its unit of work at the same moment: one build, one
    /// instance, one disposal.
    @Test func eightThreadsOfOneScopeShareOneBuild() async throws {
        let disposals = Counter()
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H20BCounted.self).to {
                    H20BCounted(serial: builds.increment(), disposals: disposals)
                }.in(.scoped)
            }
        )
        let scope = injector.makeScope()
        let serials = Locked<Set<Int>>([])
        let finished = try await offPool {
            runThreads(8) { _ in
                if let counted = try? scope.get(H20BCounted.self) {
                    serials.withLock { _ = $0.insert(counted.serial) }
                }
            }
        }
        #expect(finished)
        #expect(serials.withLock { $0 } == [1])
        #expect(builds.value == 1)
        try await scope.close()
        try await scope.close()
        #expect(disposals.value == 1)
    }

    /// A scope's seed is the caller's: closing the scope disposes the context made from it, never the
    /// seed itself, though it is `Disposable`.
    @Test func seedIsNeverDisposedByItsScope() async throws {
        let log = EventLog()
        let injector = try Injector(H20BRequestModule(log: log, works: Counter()))
        let request = H20BRequest(id: 3)
        let id = try await injector.withScope { seed in
            seed.provide(request)
        } body: { scope in
            try await scope.get(H20BRequestHandler.self).work.context.request.id
        }
        #expect(id == 3)
        #expect(request.disposals.value == 0)
        #expect(log.all == ["dispose work 3", "dispose context 3"])
    }

    /// The scoped transaction is `AsyncDisposable` and was made last: `await close()` awaits it first,
    /// then the unit of work, then the context (reverse creation order across sync and async disposal).
    @Test func asyncCloseDisposesMixedKindsNewestFirst() async throws {
        let log = EventLog()
        let injector = try Injector(H20BRequestModule(log: log, works: Counter()))
        try await injector.withScope { seed in
            seed.provide(H20BRequest(id: 9))
        } body: { scope in
            _ = try await scope.get(H20BTransaction.self)
        }
        #expect(log.all == ["dispose transaction 9", "dispose work 9", "dispose context 9"])
    }

    /// Thirty-two requests served concurrently by a task group, each in its own seeded scope: each
    /// handler sees its own request, never another scope's context.
    @Test func concurrentSeededScopesDoNotLeak() async throws {
        let log = EventLog()
        let works = Counter()
        let injector = try Injector(H20BRequestModule(log: log, works: works))
        let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<32 {
                group.addTask {
                    try await injector.withScope { seed in
                        seed.provide(H20BRequest(id: index))
                    } body: { scope in
                        let first = try await scope.get(H20BRequestHandler.self)
                        let second = try await scope.get(H20BRequestHandler.self)
                        let same = first.work === second.work && first !== second
                        return first.work.context.request.id == index && same ? 0 : 1
                    }
                }
            }
            var mismatches = 0
            for try await mismatch in group { mismatches += mismatch }
            return mismatches
        }
        #expect(mismatches == 0)
        #expect(works.value == 32)
        #expect(log.with("dispose context ").count == 32)
    }

    /// A scope is closed by one thread while another thread is still building its scoped service (a
    /// scoped outer over a scoped inner whose factory is held). Whatever the interleaving, every instance
    /// built is disposed exactly once, the outer before the inner; if the request received the outer, it
    /// was disposed by the close; and later requests through the scope throw `outsideScope`.
    @Test func scopeClosedWhileAnotherThreadBuildsDeep() async throws {
        let hold = Hunt5.Hold()
        let disposals = Counter()
        let log = EventLog()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(EventLog.self).toInstance(log)
                binder.bind(H20BCounted.self).to {
                    hold.run()
                    log.append("built inner")
                    return H20BCounted(serial: 1, disposals: disposals)
                }.in(.scoped)
                binder.bind(H20BOuter.self).to(H20BOuter.init(inner:log:)).in(.scoped)
            }
        )
        let scope = injector.makeScope()
        let request = Hunt5.Request { () throws(ProvisionError) in try scope.get(H20BOuter.self) }
        #expect(await Hunt5.wait(for: hold.entered))
        let closed = Hunt5.Request { () throws(ProvisionError) in try scope.close() }
        #expect(await Hunt5.until { scope.isClosed })
        hold.release.signal()
        let outcome = try #require(await request.result())
        let closeOutcome = try #require(await closed.result())
        #expect(closeOutcome.hunt5Error == nil)
        #expect(disposals.value == 1)
        switch outcome {
        case .success:
            #expect(log.all == ["built inner", "dispose outer"])
        case .failure(let error):
            #expect(error.code == .outsideScope)
            #expect(log.all == ["built inner"])
        }
        let later = Hunt5.result { () throws(ProvisionError) in try scope.get(H20BOuter.self) }
        #expect(later.hunt5Error?.code == .outsideScope)
    }

    /// Three scoped instances, the middle one's disposal failing: the close still disposes the other
    /// two and reports the one failure, naming its key.
    @Test func failingDisposalDoesNotStopTheOthers() async throws {
        let disposals = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H20BCounted.self, named: "first").to { H20BCounted(serial: 1, disposals: disposals) }.in(
                    .scoped)
                binder.bind(H20BFailingDisposal.self).to(H20BFailingDisposal.init).in(.scoped)
                binder.bind(H20BCounted.self, named: "last").to { H20BCounted(serial: 3, disposals: disposals) }.in(
                    .scoped)
            }
        )
        let scope = injector.makeScope()
        _ = try await scope.get(H20BCounted.self, named: "first")
        _ = try await scope.get(H20BFailingDisposal.self)
        _ = try await scope.get(H20BCounted.self, named: "last")
        let error = try #require(await Hunt5.error { () async throws(ProvisionError) in try await scope.close() })
        #expect(error.code == .stopFailed)
        #expect(error.underlyingErrors.count == 1)
        #expect(error.description.contains("H20BFailingDisposal"))
        #expect(disposals.value == 2)
    }

    /// A scope outlives its injector's shutdown (its owner closes it): shutdown leaves the scoped
    /// instances alone, and the scope's close disposes each of them exactly once.
    @Test func scopeClosedAfterInjectorShutdownDisposesItsInstances() async throws {
        let log = EventLog()
        let injector = try Injector(H20BRequestModule(log: log, works: Counter()))
        let scope = try injector.makeScope { seed in seed.provide(H20BRequest(id: 4)) }
        _ = try await scope.get(H20BRequestHandler.self)
        try await injector.shutdown()
        #expect(log.all == [])
        try await scope.close()
        #expect(log.all == ["dispose work 4", "dispose context 4"])
    }

    /// A child injector's scopes build the parent's scoped bindings once per scope, seeded with the
    /// child's scope's request, and dispose them when the child's scope closes; the parent's own scopes
    /// are independent.
    @Test func childInjectorScopesBuildParentsScopedBindings() async throws {
        let log = EventLog()
        let parent = try Injector(H20BRequestModule(log: log, works: Counter()))
        let child = try parent.makeChild(ClosureModule { _ in })
        let childScope = try child.makeScope { seed in seed.provide(H20BRequest(id: 1)) }
        let parentScope = try parent.makeScope { seed in seed.provide(H20BRequest(id: 2)) }
        let childWork = try await childScope.get(H20BWork.self)
        let parentWork = try await parentScope.get(H20BWork.self)
        #expect(childWork.context.request.id == 1)
        #expect(parentWork.context.request.id == 2)
        #expect(try await childScope.get(H20BRequestHandler.self).work === childWork)
        try await childScope.close()
        #expect(log.all == ["dispose work 1", "dispose context 1"])
        try await parentScope.close()
        #expect(log.all == ["dispose work 1", "dispose context 1", "dispose work 2", "dispose context 2"])
    }

    /// A transient handler that needs the scoped unit of work, asked for outside any scope: the error is
    /// `outsideScope`, and its path runs from the handler to the first scoped key, the unit of work.
    @Test func scopedDependencyOutsideAnyScope() async throws {
        let injector = try Injector(H20BRequestModule(log: EventLog(), works: Counter()))
        let result = Hunt5.result { () throws(ProvisionError) in try injector.get(H20BRequestHandler.self) }
        let error = try #require(result.hunt5Error)
        #expect(error.code == .outsideScope)
        #expect(error.path.first == BindingKey(H20BRequestHandler.self))
        #expect(error.path.contains(BindingKey(H20BWork.self)))
        #expect(error.description.contains("H20BRequestHandler -> H20BWork"))
    }

    /// The task closing a scope is cancelled while the close waits for another thread's build: the close
    /// stops waiting at once (documented: "a cancelled async close stops waiting at once"); the build,
    /// ending later, disposes its own instance once and its request throws `outsideScope`.
    @Test func cancelledAsyncCloseStopsWaitingForBuild() async throws {
        let hold = Hunt5.Hold()
        let disposals = Counter()
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(H20BCounted.self).to {
                        hold.run()
                        return H20BCounted(serial: 1, disposals: disposals)
                    }.in(.scoped)
                }
            ],
            configuration: Injector.Configuration(lifecycleHookTimeout: .seconds(20))
        )
        let scope = injector.makeScope()
        let request = Hunt5.Request { () throws(ProvisionError) in try scope.get(H20BCounted.self) }
        #expect(await Hunt5.wait(for: hold.entered))
        let clock = ContinuousClock()
        let started = clock.now
        let close = Task { await Hunt5.error { () async throws(ProvisionError) in try await scope.close() } }
        #expect(await Hunt5.until { scope.isClosed })
        close.cancel()
        #expect(await close.value == nil)
        #expect(clock.now - started < .seconds(10))
        #expect(disposals.value == 0)
        hold.release.signal()
        let outcome = try #require(await request.result())
        #expect(outcome.hunt5Error?.code == .outsideScope)
        #expect(await Hunt5.until { disposals.value == 1 })
        #expect(hold.builds.value == 1)
    }
}
