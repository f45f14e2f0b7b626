import Synchronization
import Testing

@testable import Provision

/// A per-request service that logs its disposal.
private final class ScopedContext: Disposable {
    let id: Int
    let log: EventLog

    init(id: Int, log: EventLog) {
        self.id = id
        self.log = log
    }

    func dispose() {
        log.append("dispose context \(id)")
    }
}

private final class UnitOfWork: AsyncDisposable {
    let context: ScopedContext
    let log: EventLog

    init(context: ScopedContext, log: EventLog) {
        self.context = context
        self.log = log
    }

    func dispose() async {
        await Task.yield()
        log.append("dispose unit \(context.id)")
    }
}

private final class Handler: Sendable {
    let unit: UnitOfWork

    init(unit: UnitOfWork) {
        self.unit = unit
    }
}

private final class Cache: Sendable {
    let context: ScopedContext

    init(context: ScopedContext) {
        self.context = context
    }
}

@Suite("Service scopes")
struct ServiceScopeTests {
    private static func module(log: EventLog, counter: Counter = Counter()) -> ClosureModule {
        ClosureModule { binder in
            binder.bind(EventLog.self).toInstance(log)
            binder.bind(ScopedContext.self).to { resolver in
                ScopedContext(id: counter.increment(), log: try resolver.get(EventLog.self))
            }.in(.scoped)
            binder.bind(UnitOfWork.self).to(UnitOfWork.init(context:log:)).in(.scoped)
            binder.bind(Handler.self).to(Handler.init(unit:))
        }
    }

    @Test("a scoped binding is one instance per scope, shared by every request of the scope")
    func oneInstancePerScope() async throws {
        let injector = try Injector(Self.module(log: EventLog()))
        let first = injector.makeScope()
        let second = injector.makeScope()
        let a = try first.syncGet(Handler.self)
        let b = try first.syncGet(Handler.self)
        let c = try second.syncGet(Handler.self)
        #expect(a !== b) // transient
        #expect(a.unit === b.unit)
        #expect(a.unit.context === b.unit.context)
        #expect(a.unit !== c.unit)
        #expect(a.unit.context !== c.unit.context)
        try await first.close()
        try await second.close()
    }

    @Test("closing a scope disposes its instances once, in reverse creation order, awaiting async ones")
    func disposalInReverseCreationOrder() async throws {
        let log = EventLog()
        let injector = try Injector(Self.module(log: log))
        try await injector.withScope { scope in
            _ = try scope.syncGet(Handler.self)
            #expect(log.all.isEmpty)
        }
        // The context was built first (the unit depends on it), so it is disposed last.
        #expect(log.all == ["dispose unit 1", "dispose context 1"])

        let scope = injector.makeScope()
        _ = try await scope.get(UnitOfWork.self)
        try await scope.close()
        try await scope.close()
        #expect(log.all.suffix(2) == ["dispose unit 2", "dispose context 2"])
        #expect(log.all.count == 4)
    }

    @Test("withScope closes the scope when its body throws, and rethrows the body's error")
    func withScopeClosesOnError() async throws {
        let log = EventLog()
        let injector = try Injector(Self.module(log: log))
        await #expect(throws: ExpectedFailure(id: 4)) {
            try await injector.withScope { scope in
                _ = try scope.syncGet(ScopedContext.self)
                throw ExpectedFailure(id: 4)
            }
        }
        #expect(log.all == ["dispose context 1"])
    }

    @Test("a scoped binding requested outside any scope, or through a closed scope, is an outsideScope error")
    func outsideScope() async throws {
        let injector = try Injector(Self.module(log: EventLog()))
        let outside = #expect(throws: ProvisionError.self) { try injector.syncGet(Handler.self) }
        #expect(outside?.code == .outsideScope)
        #expect(outside?.pathDescription == "Handler -> UnitOfWork")
        #expect(outside?.hint.contains("withScope") == true)

        let scope = injector.makeScope()
        try scope.syncClose()
        let closed = #expect(throws: ProvisionError.self) { try scope.syncGet(ScopedContext.self) }
        #expect(closed?.code == .outsideScope)
        #expect(closed?.message.contains("closed") == true)
    }

    @Test("a singleton that depends on a scoped binding is a captive dependency, found when it is linked")
    func captiveDependencyThroughAConstructor() throws {
        let injector = try Injector.unvalidated(
            Self.module(log: EventLog()),
            ClosureModule { binder in
                binder.bind(Cache.self).to(Cache.init(context:)).in(.singleton)
            }
        )
        let error = #expect(throws: ProvisionError.self) { try injector.makeScope().syncGet(Cache.self) }
        #expect(error?.code == .captiveDependency)
        #expect(error?.pathDescription == "Cache -> ScopedContext")
        #expect(error?.message.contains("Cache (singleton) depends on ScopedContext (scoped)") == true)
        // Validation reports it too, without building anything.
        let report = injector.validationReport()
        #expect(report.problems.contains { $0.code == .captiveDependency })
    }

    @Test("a singleton closure that resolves a scoped binding is a captive dependency at run time")
    func captiveDependencyThroughAClosure() throws {
        let injector = try Injector(
            Self.module(log: EventLog()),
            ClosureModule { binder in
                binder.bind(Cache.self).to { resolver in Cache(context: try resolver.get(ScopedContext.self)) }
                    .in(.singleton)
            }
        )
        let error = #expect(throws: ProvisionError.self) { try injector.makeScope().syncGet(Cache.self) }
        #expect(error?.code == .captiveDependency)
        #expect(error?.pathDescription == "Cache -> ScopedContext")
    }

    @Test("threads sharing one scope build its scoped instance exactly once")
    func concurrentRequestsInOneScope() throws {
        let builds = Counter()
        let entered = Barrier(count: 8)
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(EventLog.self).toInstance(EventLog())
                binder.bind(ScopedContext.self).to { resolver in
                    ScopedContext(id: builds.increment(), log: try resolver.get(EventLog.self))
                }.in(.scoped)
            }
        )
        for _ in 0..<20 {
            let scope = injector.makeScope()
            let seen = Locked<Set<ObjectIdentifier>>([])
            let finished = runThreads(8) { _ in
                entered.arriveAndWait()
                if let context = try? scope.get(ScopedContext.self) {
                    seen.withLock { _ = $0.insert(ObjectIdentifier(context)) }
                }
            }
            #expect(finished)
            #expect(seen.withLock { $0.count } == 1)
            try scope.syncClose()
        }
        #expect(builds.value == 20)
    }

    @Test("a synchronous close disposes Disposable instances and reports AsyncDisposable ones")
    func synchronousCloseWithAsyncDisposable() throws {
        let log = EventLog()
        let injector = try Injector(Self.module(log: log))
        let scope = injector.makeScope()
        _ = try scope.syncGet(UnitOfWork.self)
        let error = #expect(throws: ProvisionError.self) { try scope.syncClose() }
        #expect(error?.code == .stopFailed)
        #expect(error?.underlyingErrors.first?.code == .requiresAsync)
        #expect(log.all == ["dispose context 1"])
    }

    @Test("a scoped async binding is built once per scope through the async API")
    func scopedAsyncBinding() async throws {
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Engine.self).to { _ async in
                    builds.increment()
                    return Engine()
                }.in(.scoped)
            }
        )
        try await injector.withScope { scope in
            let first = try await scope.get(Engine.self)
            #expect(try await scope.get(Engine.self) === first)
            // Built: the synchronous API of the same scope serves it.
            #expect(try scope.syncGet(Engine.self) === first)
        }
        try await injector.withScope { scope in
            #expect(throws: ProvisionError.requiresAsyncError) { try scope.syncGet(Engine.self) }
            _ = try await scope.get(Engine.self)
        }
        #expect(builds.value == 2)
    }
}

@Suite("Service scopes: bindings with arguments")
struct ScopedArgumentBindingTests {
    @Test("a binding with arguments can't be scoped")
    func argumentsCantBeScoped() {
        let error = #expect(throws: ProvisionError.self) {
            try Injector(
                ClosureModule { binder in
                    binder.bind(Headlight.self).withArguments(String.self).to { _, brand in Headlight(brand: brand) }
                        .in(.scoped)
                }
            )
        }
        #expect(error?.code == .invalidLifecycle)
        #expect(error?.key == BindingKey(Headlight.self))
    }
}
