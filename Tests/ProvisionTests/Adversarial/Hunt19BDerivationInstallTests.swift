import Dispatch
import Foundation
import Testing

@testable import Provision

// Hunt 19 (B): run-time installs, derived and child injectors, validation, self-declaring types and
// lifecycles, combined.

// MARK: - Fixtures

private protocol Hunt19BDClock: Sendable {
    var now: Int { get }
}

private struct Hunt19BDFixedClock: Hunt19BDClock {
    let now: Int
}

/// A singleton of a plugin module that doesn't depend on the clock; logs its disposal.
private final class Hunt19BDAudit: Disposable {
    let log: EventLog
    init(log: EventLog) { self.log = log }
    func dispose() { log.append("dispose audit") }
}

/// A singleton of a plugin module that depends on the clock; logs its disposal with its clock.
private final class Hunt19BDReporter: Disposable {
    let clock: any Hunt19BDClock
    let log: EventLog
    init(clock: any Hunt19BDClock, log: EventLog) {
        self.clock = clock
        self.log = log
    }

    func dispose() { log.append("dispose reporter \(clock.now)") }
}

/// Counts builds of the plugin module's singletons.
private final class Hunt19BDBuilds: Sendable {
    let audits = Counter()
    let reporters = Counter()
}

private struct Hunt19BDBaseModule: Module {
    let log: EventLog
    func configure(_ binder: Binder) {
        binder.bind(EventLog.self).toInstance(log)
        binder.bind((any Hunt19BDClock).self).toInstance(Hunt19BDFixedClock(now: 1))
    }
}

private struct Hunt19BDPluginModule: Module {
    let builds: Hunt19BDBuilds
    func configure(_ binder: Binder) {
        let builds = builds
        binder.bind(Hunt19BDAudit.self).to { (log: EventLog) in
            builds.audits.increment()
            return Hunt19BDAudit(log: log)
        }.in(.singleton)
        binder.bind(Hunt19BDReporter.self).to { (clock: any Hunt19BDClock, log: EventLog) in
            builds.reporters.increment()
            return Hunt19BDReporter(clock: clock, log: log)
        }.in(.singleton)
    }
}

private final class Hunt19BDMissing: Sendable {}

private final class Hunt19BDNeedsMissing: Sendable {
    let missing: Hunt19BDMissing
    init(missing: Hunt19BDMissing) { self.missing = missing }
}

/// A module with a binding whose dependency nothing binds.
private struct Hunt19BDBrokenModule: Module {
    func configure(_ binder: Binder) {
        binder.bind(Hunt19BDNeedsMissing.self).to(Hunt19BDNeedsMissing.init(missing:))
    }
}

private final class Hunt19BDConsumer: Sendable {
    let audit: Hunt19BDAudit
    init(audit: Hunt19BDAudit) { self.audit = audit }
}

private final class Hunt19BDLeaf: Sendable {}

/// A self-declaring disposable singleton with no dependencies.
private final class Hunt19BDDeclaredCache: Injectable, Disposable {
    nonisolated(unsafe) static var log: EventLog?
    static let injection = Injection(Hunt19BDDeclaredCache.init).in(.singleton)
    let serial: Int
    init() {
        Hunt19BDDeclaredCache.builds.increment()
        serial = Hunt19BDDeclaredCache.builds.value
    }

    static let builds = Counter()
    func dispose() { Hunt19BDDeclaredCache.log?.append("dispose declared \(serial)") }
}

/// Something only a child binds.
private struct Hunt19BDTenant: Sendable {
    let name: String
}

/// A self-declaring disposable singleton that depends on what only children bind.
private final class Hunt19BDTenantCache: Injectable, Disposable {
    static let injection = Injection(Hunt19BDTenantCache.init(tenant:log:)).in(.singleton)
    let tenant: Hunt19BDTenant
    let log: EventLog
    init(tenant: Hunt19BDTenant, log: EventLog) {
        self.tenant = tenant
        self.log = log
    }

    func dispose() { log.append("dispose tenant cache \(tenant.name)") }
}

/// Managed services of a parent and of a child that depends on it.
private final class Hunt19BDParentService: ManagedService {
    let log: EventLog
    init(log: EventLog) { self.log = log }
    func start() async throws { log.append("start parent") }
    func stop() async throws { log.append("stop parent") }
}

private final class Hunt19BDChildService: ManagedService {
    let parent: Hunt19BDParentService
    init(parent: Hunt19BDParentService) { self.parent = parent }
    func start() async throws { parent.log.append("start child") }
    func stop() async throws { parent.log.append("stop child") }
}

/// A multibinding element that depends on the clock, and one that doesn't.
private protocol Hunt19BDFeature: AnyObject, Sendable {
    var label: String { get }
}

private final class Hunt19BDTimedFeature: Hunt19BDFeature {
    let clock: any Hunt19BDClock
    init(clock: any Hunt19BDClock) { self.clock = clock }
    var label: String { "timed \(clock.now)" }
}

private final class Hunt19BDPlainFeature: Hunt19BDFeature {
    var label: String { "plain" }
}

/// A singleton holding the object factory.
private final class Hunt19BDFactoryHolder: Sendable {
    let factory: ObjectFactory
    init(factory: ObjectFactory) { self.factory = factory }
}

// MARK: - Tests

@Suite("Hunt19B: installs, derived and child injectors, validation and self-declared types", .timeLimit(.minutes(1)))
struct Hunt19BDerivationInstallTests {
    /// The brief's example: an overriding injector of an injector that installed a module at run time.
    /// The installed singleton that doesn't depend on the replaced clock is shared (built once); the one
    /// that does is re-created with the fake; each injector disposes only its own.
    @Test("overriding an injector that installed a module: shares the independent singleton, re-creates the other")
    func overridingAfterInstall() async throws {
        let log = EventLog()
        let builds = Hunt19BDBuilds()
        let app = try Injector(Hunt19BDBaseModule(log: log))
        try app.install(Hunt19BDPluginModule(builds: builds))
        let appAudit = try app.syncGet(Hunt19BDAudit.self)
        let test = try app.overriding { binder in
            binder.bind((any Hunt19BDClock).self).toInstance(Hunt19BDFixedClock(now: 42))
        }
        #expect(try test.syncGet(Hunt19BDAudit.self) === appAudit)
        #expect(try test.syncGet(Hunt19BDReporter.self).clock.now == 42)
        #expect(try app.syncGet(Hunt19BDReporter.self).clock.now == 1)
        #expect(builds.audits.value == 1)
        #expect(builds.reporters.value == 2)
        try await test.shutdown()
        #expect(log.all == ["dispose reporter 42"])
        try await app.shutdown()
        #expect(log.all == ["dispose reporter 42", "dispose reporter 1", "dispose audit"])
    }

    /// A module installed into the original after the derivation is seen by the derived injector as it
    /// is in the original: the same singleton.
    @Test("a module installed after overriding is seen by the derived injector, sharing its singleton")
    func installAfterOverriding() throws {
        let log = EventLog()
        let builds = Hunt19BDBuilds()
        let app = try Injector(Hunt19BDBaseModule(log: log))
        let test = try app.overriding { binder in
            binder.bind((any Hunt19BDClock).self).toInstance(Hunt19BDFixedClock(now: 42))
        }
        try app.install(Hunt19BDPluginModule(builds: builds))
        let fromTest = try test.syncGet(Hunt19BDAudit.self)
        #expect(fromTest === (try app.syncGet(Hunt19BDAudit.self)))
        #expect(builds.audits.value == 1)
    }

    /// `with` and `without` configure the installed modules again: new singletons, and `without` can
    /// drop an installed module by its type.
    @Test("with() re-creates an installed module's singletons; without() drops the installed module")
    func withAndWithoutAfterInstall() throws {
        let log = EventLog()
        let builds = Hunt19BDBuilds()
        let app = try Injector(Hunt19BDBaseModule(log: log))
        try app.install(Hunt19BDPluginModule(builds: builds))
        let appAudit = try app.syncGet(Hunt19BDAudit.self)
        let widened = try app.with(ClosureModule { binder in binder.bind(Hunt19BDLeaf.self).to(Hunt19BDLeaf.init) })
        #expect(try widened.syncGet(Hunt19BDAudit.self) !== appAudit)
        #expect(builds.audits.value == 2)
        let narrowed = try app.without(Hunt19BDPluginModule.self)
        #expect(!narrowed.hasBinding(for: Hunt19BDAudit.self))
        #expect(narrowed.hasBinding(for: (any Hunt19BDClock).self))
        #expect(app.hasBinding(for: Hunt19BDAudit.self))
    }

    /// The brief's example: validate() of a child whose parent installed a broken module. The child's
    /// own creation checks only what its bindings reach; validate() checks its ancestors' bindings too.
    @Test("validate() of a child reports the broken module its parent installed")
    func validateChildOfParentWithBrokenInstall() throws {
        let app = try Injector(Hunt19BDBaseModule(log: EventLog()))
        try app.install(Hunt19BDBrokenModule())
        let child = try app.makeChild(
            ClosureModule { binder in binder.bind(Hunt19BDLeaf.self).to(Hunt19BDLeaf.init) })
        #expect(!child.validationReport().isValid)
        do {
            _ = try child.validate()
            Issue.record("the child validated")
        } catch {
            #expect(error.code == .validationFailed)
            let missing = error.underlyingErrors.filter { $0.code == .notBound }
            #expect(missing.count == 1, "\(error)")
            #expect(missing.first?.key == BindingKey(Hunt19BDMissing.self), "\(error)")
        }
        do {
            _ = try app.validate()
            Issue.record("the parent validated")
        } catch {
            #expect(error.code == .validationFailed)
        }
    }

    /// An injector created unvalidated with a missing dependency, fixed by a module installed at run
    /// time: validate() then passes and the graph resolves.
    @Test("an install that binds the missing key makes validate() pass")
    func installFixesGraph() throws {
        let injector = try Injector.unvalidated(Hunt19BDBrokenModule())
        #expect(!injector.validationReport().isValid)
        try injector.install(ClosureModule { binder in binder.bind(Hunt19BDMissing.self).to(Hunt19BDMissing.init) })
        let report = try injector.validate()
        #expect(report.isValid)
        _ = try injector.syncGet(Hunt19BDNeedsMissing.self)
    }

    /// A child made after its parent installed a module may depend on the installed bindings: its
    /// creation validates, and it shares the parent's singleton. Installing a key the parent binds into
    /// the running child is refused; a new key installed into the child stays the child's.
    @Test("a child over an installed module: depends on it, shares it, can't re-install its key")
    func childOverInstalledModule() throws {
        let log = EventLog()
        let builds = Hunt19BDBuilds()
        let app = try Injector(Hunt19BDBaseModule(log: log))
        try app.install(Hunt19BDPluginModule(builds: builds))
        let child = try app.makeChild(
            ClosureModule { binder in binder.bind(Hunt19BDConsumer.self).to(Hunt19BDConsumer.init(audit:)) })
        #expect(try child.syncGet(Hunt19BDConsumer.self).audit === app.syncGet(Hunt19BDAudit.self))
        #expect(builds.audits.value == 1)
        do {
            try child.install(Hunt19BDPluginModule(builds: builds))
            Issue.record("the child re-bound its parent's key")
        } catch {
            #expect(error.code == .duplicateBinding, "\(error)")
        }
        try child.install(ClosureModule { binder in binder.bind(Hunt19BDLeaf.self).to(Hunt19BDLeaf.init) })
        #expect(child.hasBinding(for: Hunt19BDLeaf.self))
        #expect(!app.hasBinding(for: Hunt19BDLeaf.self))
    }

    /// The brief's example: a self-declaring singleton first resolved in a child gets its binding in the
    /// parent (it builds it the same way): shared, disposed once by the parent's shutdown, not by the
    /// child's; after the parent shut down, the child never hands out the disposed instance.
    @Test("an Injectable singleton first resolved in a child, then the parent shut down")
    func declaredSingletonFirstInChildThenParentShutDown() async throws {
        let log = EventLog()
        Hunt19BDDeclaredCache.log = log
        let before = Hunt19BDDeclaredCache.builds.value
        let parent = try Injector()
        let child = try parent.makeChild()
        let fromChild = try child.syncGet(Hunt19BDDeclaredCache.self)
        #expect(try parent.syncGet(Hunt19BDDeclaredCache.self) === fromChild)
        #expect(Hunt19BDDeclaredCache.builds.value == before + 1)
        try await child.shutdown()
        #expect(log.all.isEmpty, "the child disposed its parent's singleton")
        let sibling = try parent.makeChild()
        try await parent.shutdown()
        #expect(log.all == ["dispose declared \(fromChild.serial)"])
        do {
            let again = try sibling.syncGet(Hunt19BDDeclaredCache.self)
            #expect(again !== fromChild, "a disposed singleton was handed out")
        } catch {
            #expect(error.code == .shutDown, "\(error)")
        }
        #expect(log.all == ["dispose declared \(fromChild.serial)"])
    }

    /// A self-declaring singleton that depends on what each child binds: each child has its own, disposed
    /// by that child's shutdown only; the parent can't build it.
    @Test("an Injectable singleton over a child's binding: one per child, disposed by that child")
    func declaredSingletonPerChild() async throws {
        let log = EventLog()
        let parent = try Injector(ClosureModule { binder in binder.bind(EventLog.self).toInstance(log) })
        let red = try parent.makeChild(
            ClosureModule { binder in binder.bind(Hunt19BDTenant.self).toInstance(Hunt19BDTenant(name: "red")) })
        let blue = try parent.makeChild(
            ClosureModule { binder in binder.bind(Hunt19BDTenant.self).toInstance(Hunt19BDTenant(name: "blue")) })
        let redCache = try red.syncGet(Hunt19BDTenantCache.self)
        let blueCache = try blue.syncGet(Hunt19BDTenantCache.self)
        #expect(redCache !== blueCache)
        #expect(try red.syncGet(Hunt19BDTenantCache.self) === redCache)
        #expect(redCache.tenant.name == "red")
        #expect(blueCache.tenant.name == "blue")
        do {
            _ = try parent.syncGet(Hunt19BDTenantCache.self)
            Issue.record("the parent built a tenant cache")
        } catch {
            #expect(error.code == .notBound, "\(error)")
        }
        try await red.shutdown()
        #expect(log.all == ["dispose tenant cache red"])
        #expect(try blue.syncGet(Hunt19BDTenantCache.self) === blueCache)
        try await blue.shutdown()
        try await parent.shutdown()
        #expect(log.all == ["dispose tenant cache red", "dispose tenant cache blue"])
    }

    /// A child's service depending on its parent's: each injector starts and stops only its own.
    @Test("start/shutdown of a child starts and stops only its own service, not its parent's")
    func childAndParentServices() async throws {
        let log = EventLog()
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(EventLog.self).toInstance(log)
                binder.bind(Hunt19BDParentService.self).to(Hunt19BDParentService.init(log:)).in(.singleton)
            })
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(Hunt19BDChildService.self).to(Hunt19BDChildService.init(parent:)).in(.singleton)
            })
        try await parent.start()
        try await child.start()
        #expect(log.all == ["start parent", "start child"])
        #expect(child.startedServices == [BindingKey(Hunt19BDChildService.self)])
        try await child.shutdown()
        #expect(log.all == ["start parent", "start child", "stop child"])
        try await parent.shutdown()
        #expect(log.all == ["start parent", "start child", "stop child", "stop parent"])
    }

    /// A module installed before start(): its services start with the others, in dependency order,
    /// and stop in reverse.
    @Test("an installed module's service depending on a module's service: start and stop order")
    func installedServiceOrder() async throws {
        let log = EventLog()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(EventLog.self).toInstance(log)
                binder.bind(Hunt19BDParentService.self).to(Hunt19BDParentService.init(log:)).in(.singleton)
            })
        try injector.install(
            ClosureModule { binder in
                binder.bind(Hunt19BDChildService.self).to(Hunt19BDChildService.init(parent:)).in(.singleton)
            })
        try await injector.start()
        #expect(log.all == ["start parent", "start child"])
        try await injector.shutdown()
        #expect(log.all == ["start parent", "start child", "stop child", "stop parent"])
    }

    /// An overriding injector re-creates the multibinding elements that depend on the replaced key and
    /// shares the singleton element that doesn't.
    @Test("overriding re-creates the element that depends on the replaced key, shares the other")
    func overridingMultibindingElements() throws {
        let plainBuilds = Counter()
        let app = try Injector(
            ClosureModule { binder in
                binder.bind((any Hunt19BDClock).self).toInstance(Hunt19BDFixedClock(now: 1))
                binder.multibind((any Hunt19BDFeature).self).to(Hunt19BDTimedFeature.init(clock:)).in(.singleton)
                binder.multibind((any Hunt19BDFeature).self).to { () -> Hunt19BDPlainFeature in
                    plainBuilds.increment()
                    return Hunt19BDPlainFeature()
                }.in(.singleton)
            })
        let appFeatures = try app.getAll((any Hunt19BDFeature).self)
        let test = try app.overriding { binder in
            binder.bind((any Hunt19BDClock).self).toInstance(Hunt19BDFixedClock(now: 42))
        }
        let testFeatures = try test.getAll((any Hunt19BDFeature).self)
        #expect(testFeatures.map(\.label) == ["timed 42", "plain"])
        #expect(appFeatures.map(\.label) == ["timed 1", "plain"])
        #expect(testFeatures[1] === appFeatures[1])
        #expect(testFeatures[0] !== appFeatures[0])
        #expect(plainBuilds.value == 1)
    }

    /// A singleton holding an ObjectFactory is re-created by an overriding injector, and its factory
    /// resolves in the derived injector.
    @Test("a singleton holding ObjectFactory is re-created by overriding; its factory sees the fake")
    func overridingObjectFactoryHolder() throws {
        let app = try Injector(
            ClosureModule { binder in
                binder.bind((any Hunt19BDClock).self).toInstance(Hunt19BDFixedClock(now: 1))
                binder.bind(Hunt19BDFactoryHolder.self).to(Hunt19BDFactoryHolder.init(factory:)).in(.singleton)
            })
        let appHolder = try app.syncGet(Hunt19BDFactoryHolder.self)
        let test = try app.overriding { binder in
            binder.bind((any Hunt19BDClock).self).toInstance(Hunt19BDFixedClock(now: 42))
        }
        let testHolder = try test.syncGet(Hunt19BDFactoryHolder.self)
        #expect(testHolder !== appHolder)
        #expect(try testHolder.factory.get((any Hunt19BDClock).self).now == 42)
        #expect(try appHolder.factory.get((any Hunt19BDClock).self).now == 1)
    }

    /// with() of a child keeps the child's parent: the new injector shares the parent's singletons and
    /// re-creates the child's own.
    @Test("with() of a child: shares the parent's singletons, builds its own anew")
    func withOfChild() throws {
        let log = EventLog()
        let builds = Hunt19BDBuilds()
        let parent = try Injector(Hunt19BDBaseModule(log: log), Hunt19BDPluginModule(builds: builds))
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(Hunt19BDConsumer.self).to(Hunt19BDConsumer.init(audit:)).in(.singleton)
            })
        let childConsumer = try child.syncGet(Hunt19BDConsumer.self)
        let widened = try child.with(ClosureModule { binder in binder.bind(Hunt19BDLeaf.self).to(Hunt19BDLeaf.init) })
        let widenedConsumer = try widened.syncGet(Hunt19BDConsumer.self)
        #expect(widenedConsumer !== childConsumer)
        #expect(widenedConsumer.audit === childConsumer.audit)
        #expect(builds.audits.value == 1)
        #expect(!child.hasBinding(for: Hunt19BDLeaf.self))
    }

    /// validate() of an overriding injector whose original installed a broken module reports it.
    @Test("validate() of an overriding injector reports the broken module its original installed")
    func validateOverrideOfBrokenInstall() throws {
        let app = try Injector(Hunt19BDBaseModule(log: EventLog()))
        try app.install(Hunt19BDBrokenModule())
        do {
            let derived = try app.overriding { binder in
                binder.bind((any Hunt19BDClock).self).toInstance(Hunt19BDFixedClock(now: 42))
            }
            let report = derived.validationReport()
            #expect(!report.isValid)
            #expect(report.problems.contains { $0.key == BindingKey(Hunt19BDMissing.self) }, "\(report)")
        } catch {
            #expect(error.code == .validationFailed, "\(error)")
        }
    }

    /// with() of an overriding injector whose original installed a module: with() is documented as
    /// "a new injector made of this injector's modules (those it was created with, then those installed
    /// since) followed by modules", and the derived injector resolves the installed bindings, so the
    /// widened injector must keep them (and the override). without() of another module type likewise.
    /// Found by hunt 19, fixed.
    @Test("with()/without() of an overriding injector keep the original's installed module and the override")
    func withOfOverrideAfterInstall() throws {
        let builds = Hunt19BDBuilds()
        let app = try Injector(Hunt19BDBaseModule(log: EventLog()))
        try app.install(Hunt19BDPluginModule(builds: builds))
        let test = try app.overriding { binder in
            binder.bind((any Hunt19BDClock).self).toInstance(Hunt19BDFixedClock(now: 42))
        }
        #expect(test.hasBinding(for: Hunt19BDReporter.self))
        #expect(try test.syncGet(Hunt19BDReporter.self).clock.now == 42)
        let widened = try test.with(ClosureModule { binder in binder.bind(Hunt19BDLeaf.self).to(Hunt19BDLeaf.init) })
        let narrowed = try test.without(Hunt19BDBrokenModule.self)
        for (name, derived) in [("with", widened), ("without", narrowed)] {
            #expect(derived.hasBinding(for: Hunt19BDReporter.self), "\(name)() dropped the installed module")
            #expect(try derived.syncGet((any Hunt19BDClock).self).now == 42, "\(name)() dropped the override")
            do {
                #expect(try derived.syncGet(Hunt19BDReporter.self).clock.now == 42)
            } catch {
                Issue.record("\(name)(): \(error)")
            }
        }
    }
}
