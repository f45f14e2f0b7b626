import Dispatch
import Foundation
import Testing

@testable import Provision

// Hunt 19 (B): feature interactions around scopes. Scoped, seeded and child scopes combined with
// multibindings, handles, delegations and derived injectors, the way request-serving code combines them.

// MARK: - Fixtures

private struct Hunt19BRequest: Sendable {
    let id: Int
}

private protocol Hunt19BPlugin: AnyObject, Sendable {
    var label: String { get }
}

/// A scoped multibinding element built from the scope's seeded request; logs its disposal.
private final class Hunt19BAuditPlugin: Hunt19BPlugin, Disposable {
    let request: Hunt19BRequest
    let log: EventLog
    init(request: Hunt19BRequest, log: EventLog) {
        self.request = request
        self.log = log
    }

    var label: String { "audit \(request.id)" }
    func dispose() { log.append("dispose audit \(request.id)") }
}

/// A singleton multibinding element; logs its disposal.
private final class Hunt19BMetricsPlugin: Hunt19BPlugin, Disposable {
    let log: EventLog
    init(log: EventLog) { self.log = log }
    var label: String { "metrics" }
    func dispose() { log.append("dispose metrics") }
}

/// A transient holding a provider of the whole multibinding.
private final class Hunt19BPluginRunner: Sendable {
    let plugins: Provider<[any Hunt19BPlugin]>
    init(plugins: Provider<[any Hunt19BPlugin]>) { self.plugins = plugins }
}

/// A scoped, disposable request context.
private final class Hunt19BContext: Disposable {
    let serial: Int
    let log: EventLog
    init(serial: Int, log: EventLog) {
        self.serial = serial
        self.log = log
    }

    func dispose() { log.append("dispose context \(serial)") }
}

/// A transient holding a lazy handle of the scoped context.
private final class Hunt19BLazyHolder: Sendable {
    let context: Lazy<Hunt19BContext>
    init(context: Lazy<Hunt19BContext>) { self.context = context }
}

/// A transient holding the object factory.
private final class Hunt19BFactoryHolder: Sendable {
    let factory: ObjectFactory
    init(factory: ObjectFactory) { self.factory = factory }
}

private protocol Hunt19BStore: AnyObject, Sendable {}

/// A disposable store: the target of delegations.
private final class Hunt19BSQLStore: Hunt19BStore, Disposable {
    let serial: Int
    let log: EventLog
    init(serial: Int, log: EventLog) {
        self.serial = serial
        self.log = log
    }

    func dispose() { log.append("dispose store \(serial)") }
}

/// A singleton holding a provider of the plugin list (one of whose elements is scoped): captive.
private final class Hunt19BPluginCache: Sendable {
    let plugins: Provider<[any Hunt19BPlugin]>
    init(plugins: Provider<[any Hunt19BPlugin]>) { self.plugins = plugins }
}

private protocol Hunt19BClock: Sendable {
    var now: Int { get }
}

private struct Hunt19BFixedClock: Hunt19BClock {
    let now: Int
}

/// A scoped service of the original that doesn't depend on the clock: built from the seeded request.
private final class Hunt19BRequestLog: Sendable {
    let request: Hunt19BRequest
    init(request: Hunt19BRequest) { self.request = request }
}

/// A transient that depends on the clock and the scoped request log.
private final class Hunt19BStamp: Sendable {
    let clock: any Hunt19BClock
    let log: Hunt19BRequestLog
    init(clock: any Hunt19BClock, log: Hunt19BRequestLog) {
        self.clock = clock
        self.log = log
    }
}

/// A scoped disposable of a parent, and one of a child built from it.
private final class Hunt19BInner: Disposable {
    let log: EventLog
    init(log: EventLog) { self.log = log }
    func dispose() { log.append("dispose inner") }
}

private final class Hunt19BOuter: Disposable {
    let inner: Hunt19BInner
    init(inner: Hunt19BInner) { self.inner = inner }
    func dispose() { inner.log.append("dispose outer") }
}

/// Binds the event log, the seed, and two plugin elements (one scoped from the seed, one singleton).
private struct Hunt19BPluginParentModule: Module {
    let log: EventLog
    let audits: Counter

    func configure(_ binder: Binder) {
        let log = log
        let audits = audits
        binder.bind(EventLog.self).toInstance(log)
        binder.bind(Hunt19BRequest.self).toSeed()
        binder.multibind((any Hunt19BPlugin).self).to { (request: Hunt19BRequest, log: EventLog) in
            audits.increment()
            return Hunt19BAuditPlugin(request: request, log: log)
        }.in(.scoped)
        binder.multibind((any Hunt19BPlugin).self).to(Hunt19BMetricsPlugin.init(log:)).in(.singleton)
    }
}

// MARK: - Tests

@Suite("Hunt19B: scopes combined with seeds, children, multibindings, handles and delegations", .timeLimit(.minutes(1)))
struct Hunt19BScopeMatrixTests {
    /// The brief's own example: a multibinding element that is scoped (and built from the scope's seed),
    /// resolved through a Provider held by a transient, inside a seeded scope of a child injector.
    @Test("a scoped element reached through a transient's Provider in seeded scopes of a child: one per scope")
    func scopedElementThroughProviderInChildSeededScope() throws {
        let log = EventLog()
        let audits = Counter()
        let parent = try Injector(Hunt19BPluginParentModule(log: log, audits: audits))
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(Hunt19BPluginRunner.self).to(Hunt19BPluginRunner.init(plugins:))
            })
        let first = try child.makeScope { seed in seed.provide(Hunt19BRequest(id: 1)) }
        let second = try child.makeScope { seed in seed.provide(Hunt19BRequest(id: 2)) }

        let a1 = try first.get(Hunt19BPluginRunner.self).plugins.get()
        let a2 = try first.get(Hunt19BPluginRunner.self).plugins.get()
        let b1 = try second.get(Hunt19BPluginRunner.self).plugins.get()
        #expect(a1.map(\.label) == ["audit 1", "metrics"])
        #expect(b1.map(\.label) == ["audit 2", "metrics"])
        #expect(a1[0] === a2[0], "one audit plugin per scope")
        #expect(a1[0] !== b1[0])
        #expect(a1[1] === b1[1], "the singleton element is shared by every scope")
        #expect(audits.value == 2)

        try first.close()
        #expect(log.all == ["dispose audit 1"])
        try second.close()
        #expect(log.all == ["dispose audit 1", "dispose audit 2"])
        #expect(audits.value == 2)
    }

    /// The parent's scoped element resolved outside any scope: the request names the scope problem.
    @Test("the same plugin list requested from the child with no scope throws outsideScope")
    func scopedElementOutsideScope() throws {
        let parent = try Injector(Hunt19BPluginParentModule(log: EventLog(), audits: Counter()))
        let child = try parent.makeChild()
        #expect(throws: ProvisionError.self) { try child.getAll((any Hunt19BPlugin).self) }
        do {
            _ = try child.getAll((any Hunt19BPlugin).self)
        } catch {
            #expect(error.code == .outsideScope, "\(error)")
        }
    }

    /// A singleton holding a Provider of a list with a scoped element is a captive dependency, found by
    /// the validation that creating the injector runs.
    @Test("a singleton holding Provider<[T]> where an element is scoped: captiveDependency at creation")
    func captiveThroughProviderOfList() {
        let log = EventLog()
        do {
            _ = try Injector(
                Hunt19BPluginParentModule(log: log, audits: Counter()),
                ClosureModule { binder in
                    binder.bind(Hunt19BPluginCache.self).to(Hunt19BPluginCache.init(plugins:)).in(.singleton)
                })
            Issue.record("the injector was created")
        } catch {
            #expect(error.code == .validationFailed)
            let codes = error.underlyingErrors.map(\.code)
            #expect(codes.contains(.captiveDependency), "\(error)")
        }
        #expect(log.all.isEmpty)
    }

    /// A lazy handle made in a scope reads that scope's instance; read before the scope closed it keeps
    /// the value; never read, it throws outsideScope afterwards. Each context is disposed once.
    @Test("Lazy<scoped> held by a transient: read in scope, read after close, never read then closed")
    func lazyOfScopedAcrossClose() throws {
        let log = EventLog()
        let serials = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt19BContext.self).to { Hunt19BContext(serial: serials.increment(), log: log) }
                    .in(.scoped)
                binder.bind(Hunt19BLazyHolder.self).to(Hunt19BLazyHolder.init(context:))
            })
        let scope = injector.makeScope()
        let readHolder = try scope.get(Hunt19BLazyHolder.self)
        let unreadHolder = try scope.get(Hunt19BLazyHolder.self)
        let direct = try scope.get(Hunt19BContext.self)
        #expect(try readHolder.context.value === direct)
        try scope.close()
        #expect(log.all == ["dispose context 1"])
        #expect(try readHolder.context.value === direct, "a resolved lazy keeps its value")
        do {
            _ = try unreadHolder.context.value
            Issue.record("a lazy of a closed scope resolved")
        } catch {
            #expect(error.code == .outsideScope, "\(error)")
        }
        #expect(serials.value == 1)
        #expect(log.all == ["dispose context 1"])
    }

    /// An ObjectFactory held by a transient made in a scope resolves the scope's scoped instance; one
    /// resolved from the injector itself belongs to no scope.
    @Test("ObjectFactory made in a scope resolves its scoped instance; the injector's throws outsideScope")
    func objectFactoryScopeMemory() throws {
        let log = EventLog()
        let serials = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt19BContext.self).to { Hunt19BContext(serial: serials.increment(), log: log) }
                    .in(.scoped)
                binder.bind(Hunt19BFactoryHolder.self).to(Hunt19BFactoryHolder.init(factory:))
            })
        let scope = injector.makeScope()
        let holder = try scope.get(Hunt19BFactoryHolder.self)
        let direct = try scope.get(Hunt19BContext.self)
        #expect(try holder.factory.get(Hunt19BContext.self) === direct)
        let unscoped = try injector.get(Hunt19BFactoryHolder.self)
        do {
            _ = try unscoped.factory.get(Hunt19BContext.self)
            Issue.record("an unscoped factory built a scoped instance")
        } catch {
            #expect(error.code == .outsideScope, "\(error)")
        }
        try scope.close()
        #expect(log.all == ["dispose context 1"])
        #expect(serials.value == 1)
    }

    /// A transient delegation to a scoped disposable target: both keys hand out the scope's instance,
    /// disposed once by the target's binding.
    @Test("a transient delegation to a scoped Disposable: same instance under both keys, disposed once")
    func delegationToScoped() throws {
        let log = EventLog()
        let serials = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt19BSQLStore.self).to { Hunt19BSQLStore(serial: serials.increment(), log: log) }
                    .in(.scoped)
                binder.bind((any Hunt19BStore).self).to(binding: Hunt19BSQLStore.self)
            })
        for round in 1...2 {
            let scope = injector.makeScope()
            let viaDelegation = try scope.get((any Hunt19BStore).self)
            let viaDelegationAgain = try scope.get((any Hunt19BStore).self)
            let target = try scope.get(Hunt19BSQLStore.self)
            #expect(viaDelegation === target)
            #expect(viaDelegationAgain === target)
            try scope.close()
            #expect(log.with("dispose store ") == (1...round).map(String.init), "round \(round)")
        }
        #expect(serials.value == 2)
    }

    /// A scoped delegation to a transient disposable target owns the instance its scope keeps: one per
    /// scope, disposed once when the scope closes; the target alone still builds anew.
    @Test("a scoped delegation to a transient Disposable: one per scope, disposed once at close")
    func scopedDelegationToTransient() throws {
        let log = EventLog()
        let serials = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt19BSQLStore.self).to { Hunt19BSQLStore(serial: serials.increment(), log: log) }
                binder.bind((any Hunt19BStore).self).to(binding: Hunt19BSQLStore.self).in(.scoped)
            })
        let scope = injector.makeScope()
        let first = try scope.get((any Hunt19BStore).self)
        let second = try scope.get((any Hunt19BStore).self)
        #expect(first === second)
        #expect(serials.value == 1)
        try scope.close()
        #expect(log.all == ["dispose store 1"])
    }

    /// A child's scoped service built from its parent's scoped service, in a scope of the child: the
    /// outer is disposed before the inner it was built from, each once.
    @Test("child scoped built from parent scoped in a child's scope: disposal newest first, once each")
    func childScopedOverParentScoped() throws {
        let log = EventLog()
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(EventLog.self).toInstance(log)
                binder.bind(Hunt19BInner.self).to(Hunt19BInner.init(log:)).in(.scoped)
            })
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(Hunt19BOuter.self).to(Hunt19BOuter.init(inner:)).in(.scoped)
            })
        let scope = child.makeScope()
        let outer = try scope.get(Hunt19BOuter.self)
        #expect(try scope.get(Hunt19BInner.self) === outer.inner)
        try scope.close()
        #expect(log.all == ["dispose outer", "dispose inner"])
    }

    /// A scope of an overriding injector is seeded with the original's seed declaration: the original's
    /// scoped binding (not re-created) and the re-created transient above the overridden clock both see
    /// that scope's request, and the request log is one per scope.
    @Test("a seeded scope of an overriding injector: shared and re-created bindings see its seed")
    func seededScopeOfOverride() throws {
        let app = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt19BRequest.self).toSeed()
                binder.bind(Hunt19BRequestLog.self).to(Hunt19BRequestLog.init(request:)).in(.scoped)
                binder.bind((any Hunt19BClock).self).toInstance(Hunt19BFixedClock(now: 1))
                binder.bind(Hunt19BStamp.self).to(Hunt19BStamp.init(clock:log:))
            })
        let test = try app.overriding { binder in
            binder.bind((any Hunt19BClock).self).toInstance(Hunt19BFixedClock(now: 42))
        }
        let scope = try test.makeScope { seed in seed.provide(Hunt19BRequest(id: 7)) }
        let stamp = try scope.get(Hunt19BStamp.self)
        #expect(stamp.clock.now == 42)
        #expect(stamp.log.request.id == 7)
        #expect(try scope.get(Hunt19BRequestLog.self) === stamp.log)
        let appScope = try app.makeScope { seed in seed.provide(Hunt19BRequest(id: 8)) }
        let appStamp = try appScope.get(Hunt19BStamp.self)
        #expect(appStamp.clock.now == 1)
        #expect(appStamp.log.request.id == 8)
        #expect(appStamp.log !== stamp.log)
        try scope.close()
        try appScope.close()
    }

    /// A singleton multibinding element of a parent is the same instance for the parent, a child, and a
    /// scope of the child (through `[T]` injection).
    @Test("a singleton element is one instance across parent getAll, child getAll and a child scope's [T]")
    func singletonElementAcrossChildAndScope() throws {
        let builds = Counter()
        let log = EventLog()
        let parent = try Injector(
            ClosureModule { binder in
                binder.multibind((any Hunt19BPlugin).self).to { () -> Hunt19BMetricsPlugin in
                    builds.increment()
                    return Hunt19BMetricsPlugin(log: log)
                }.in(.singleton)
            })
        let child = try parent.makeChild()
        let scope = child.makeScope()
        let fromChildScope = try scope.get([any Hunt19BPlugin].self)
        let fromChild = try child.getAll((any Hunt19BPlugin).self)
        let fromParent = try parent.getAll((any Hunt19BPlugin).self)
        #expect(fromChildScope.count == 1)
        #expect(fromChildScope[0] === fromChild[0])
        #expect(fromChild[0] === fromParent[0])
        #expect(builds.value == 1)
        try scope.close()
        #expect(log.all.isEmpty, "a scope never disposes a singleton")
    }
}
