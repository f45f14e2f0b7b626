import Dispatch
import Foundation
import Testing

@testable import Provision

// Behaviours Guice's own tests check (child injectors and their just-in-time bindings, Provider<T>,
// singletons in cycles through providers, eager singletons, multibindings, overrides, errors that name
// the chain), on Provision's API.

// MARK: - Fixtures

/// Bound only by a child injector.
private final class Hunt15Printer: Sendable {
    let label: String
    init(label: String) { self.label = label }
}

/// A self-declaring singleton that needs only what the child binds.
private final class Hunt15Spool: Injectable, Sendable {
    static let injection = Injection(Hunt15Spool.init(printer:)).in(.singleton)
    static let builds = Counter()
    let printer: Hunt15Printer
    init(printer: Hunt15Printer) {
        self.printer = printer
        Hunt15Spool.builds.increment()
    }
}

/// A self-declaring transient that reaches the child's binding only through another declared type.
private struct Hunt15Report: Injectable, Sendable {
    static let injection = Injection(Hunt15Report.init(spool:))
    let spool: Hunt15Spool
}

/// A self-declaring singleton that needs nothing: Guice makes its just-in-time binding in the parent.
private final class Hunt15Clock: Injectable, Sendable {
    static let injection = Injection(Hunt15Clock.init).in(.singleton)
    static let builds = Counter()
    init() { Hunt15Clock.builds.increment() }
}

private final class Hunt15Ticket: Sendable {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}

private final class Hunt15Registry: Sendable {}

/// Holds providers of a transient, a singleton and a named binding.
private struct Hunt15Dispatcher: Sendable {
    let tickets: Provider<Hunt15Ticket>
    let registries: Provider<Hunt15Registry>
}

/// Guice's singleton cycle through a provider: A holds a Provider<B>, B needs A.
private final class Hunt15CycleA: Sendable {
    static let builds = Counter()
    let b: Provider<Hunt15CycleB>
    init(b: Provider<Hunt15CycleB>) {
        self.b = b
        Hunt15CycleA.builds.increment()
    }
}

private final class Hunt15CycleB: Sendable {
    static let builds = Counter()
    let a: Hunt15CycleA
    init(a: Hunt15CycleA) {
        self.a = a
        Hunt15CycleB.builds.increment()
    }
}

private protocol Hunt15Plugin: Sendable {
    var id: String { get }
}

private final class Hunt15NamedPlugin: Hunt15Plugin {
    let id: String
    init(id: String) { self.id = id }
}

private struct Hunt15PluginHost: Sendable {
    let plugins: [any Hunt15Plugin]
}

private final class Hunt15Log: Sendable {
    let events = EventLog()
}

private final class Hunt15Eager: Sendable {
    let name: String
    init(name: String, log: Hunt15Log, dependency: Hunt15EagerDependency?) {
        self.name = name
        log.events.append("build \(name)")
    }
}

private final class Hunt15EagerDependency: Sendable {}

// A chain for the error tests.
private struct Hunt15ChainA: Sendable {
    let b: Hunt15ChainB
}

private struct Hunt15ChainB: Sendable {
    let c: Hunt15ChainC
}

private struct Hunt15ChainC: Sendable {
    let d: Hunt15ChainD
}

private struct Hunt15ChainD: Sendable {}

private protocol Hunt15TimeSource: Sendable {
    var now: Int { get }
}

private struct Hunt15RealTime: Hunt15TimeSource {
    var now: Int { 1 }
}

private struct Hunt15FakeTime: Hunt15TimeSource {
    var now: Int { 42 }
}

private final class Hunt15Database: Sendable {
    static let builds = Counter()
    init() { Hunt15Database.builds.increment() }
}

private final class Hunt15Scheduler: Sendable {
    let time: any Hunt15TimeSource
    let database: Hunt15Database
    init(time: any Hunt15TimeSource, database: Hunt15Database) {
        self.time = time
        self.database = database
    }
}

// MARK: - Tests

@Suite("Hunt15: Guice's behaviours on Provision", .timeLimit(.minutes(1)))
struct Hunt15GuiceTests {
    /// Guice: a just-in-time binding a child makes because it needs the child's bindings stays in the
    /// child; the parent can't build the type and doesn't gain a binding for it. A second child with a
    /// binding of its own gets its own singleton.
    @Test("a just-in-time binding made in a child for the child's binding doesn't leak to the parent")
    func childJustInTimeDoesNotLeak() throws {
        let parent = try Injector()
        let left = try parent.makeChild(
            ClosureModule { binder in binder.bind(Hunt15Printer.self).toInstance(Hunt15Printer(label: "left")) })
        let right = try parent.makeChild(
            ClosureModule { binder in binder.bind(Hunt15Printer.self).toInstance(Hunt15Printer(label: "right")) })
        let before = Hunt15Spool.builds.value
        let report = try left.get(Hunt15Report.self)
        #expect(report.spool.printer.label == "left")
        #expect(try left.get(Hunt15Spool.self) === report.spool)
        #expect(!parent.hasBinding(for: Hunt15Spool.self))
        #expect(!parent.hasBinding(for: Hunt15Report.self))
        let fromParent = Hunt5.result { () throws(ProvisionError) in try parent.get(Hunt15Report.self) }
        #expect(fromParent.hunt5Error?.code == .notBound)
        #expect(fromParent.hunt5Error?.key == BindingKey(Hunt15Printer.self))
        #expect(
            fromParent.hunt5Error?.path
                == [BindingKey(Hunt15Report.self), BindingKey(Hunt15Spool.self), BindingKey(Hunt15Printer.self)])
        let rightSpool = try right.get(Hunt15Spool.self)
        #expect(rightSpool.printer.label == "right")
        #expect(rightSpool !== report.spool)
        #expect(Hunt15Spool.builds.value - before == 2)
        // The left child's singleton stays its own.
        #expect(try left.get(Hunt15Report.self).spool === report.spool)
    }

    /// Guice: a just-in-time singleton that depends on nothing the child binds lives in the parent, so
    /// whichever injector asks first, parent and children share it, built once even when they race.
    @Test("a parent's just-in-time singleton is shared by children asking first, racing from 12 threads")
    func parentJustInTimeShared() throws {
        let parent = try Injector()
        let children = try (0..<3).map { index in
            try parent.makeChild(
                ClosureModule { binder in
                    binder.bind(Hunt15Printer.self).toInstance(Hunt15Printer(label: "\(index)"))
                })
        }
        let injectors = children + [parent]
        let before = Hunt15Clock.builds.value
        let barrier = Barrier(count: 12)
        let seen = Locked<Set<ObjectIdentifier>>([])
        let failures = Counter()
        let finished = runThreads(12, timeout: 20) { index in
            barrier.arriveAndWait()
            do throws(ProvisionError) {
                let clock = try injectors[index % injectors.count].get(Hunt15Clock.self)
                seen.withLock { _ = $0.insert(ObjectIdentifier(clock)) }
            } catch {
                failures.increment()
            }
        }
        #expect(finished)
        #expect(failures.value == 0)
        #expect(seen.withLock { $0.count } == 1)
        #expect(Hunt15Clock.builds.value - before == 1)
        #expect(try children[0].get(Hunt15Clock.self) === (try parent.get(Hunt15Clock.self)))
    }

    /// Guice: `Provider<T>.get()` gives a new instance of a transient each time and the one instance of a
    /// singleton; a provider of a named binding gives the named binding.
    @Test("Provider.get() gives fresh transients, the one singleton, and honours names")
    func providerSemantics() throws {
        let serials = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt15Ticket.self).to { Hunt15Ticket(serial: serials.increment()) }
                binder.bind(Hunt15Ticket.self, named: "vip").to { Hunt15Ticket(serial: -1) }.in(.singleton)
                binder.bind(Hunt15Registry.self).to(Hunt15Registry.init).in(.singleton)
                binder.bind(Hunt15Dispatcher.self).to(Hunt15Dispatcher.init(tickets:registries:))
                binder.bind(Hunt15Ticket.self, named: "via-provider").to { resolver in
                    try resolver.get(Provider<Hunt15Ticket>.self, named: "vip").get()
                }
            })
        let dispatcher = try injector.get(Hunt15Dispatcher.self)
        let first = try dispatcher.tickets.get()
        let second = try dispatcher.tickets.get()
        #expect(first !== second)
        #expect(first.serial != second.serial)
        #expect(try dispatcher.registries.get() === dispatcher.registries.get())
        #expect(try dispatcher.registries.get() === injector.get(Hunt15Registry.self))
        let vip = try injector.get(Hunt15Ticket.self, named: "via-provider")
        #expect(vip.serial == -1)
        #expect(vip === (try injector.get(Hunt15Ticket.self, named: "vip")))
        #expect(dispatcher.tickets.providedKey == BindingKey(Hunt15Ticket.self))
    }

    /// Guice: two singletons in a cycle broken by a provider (A holds Provider<B>, B needs A). Asked from
    /// either side, and by 8 threads at once from both sides: one A, one B, wired to each other.
    @Test("singletons in a cycle through a provider: one of each from either side and from 8 threads")
    func singletonCycleThroughProvider() throws {
        func module() -> ClosureModule {
            ClosureModule { binder in
                binder.bind(Hunt15CycleA.self).to(Hunt15CycleA.init(b:)).in(.singleton)
                binder.bind(Hunt15CycleB.self).to(Hunt15CycleB.init(a:)).in(.singleton)
            }
        }
        let aFirst = try Injector(module())
        let a = try aFirst.get(Hunt15CycleA.self)
        #expect(try a.b.get().a === a)
        let bFirst = try Injector(module())
        let b = try bFirst.get(Hunt15CycleB.self)
        #expect(try b.a.b.get() === b)

        let raced = try Injector(module())
        let aBefore = Hunt15CycleA.builds.value
        let bBefore = Hunt15CycleB.builds.value
        let barrier = Barrier(count: 8)
        let failures = Counter()
        let pairs = Locked<Set<[ObjectIdentifier]>>([])
        let finished = runThreads(8, timeout: 20) { index in
            barrier.arriveAndWait()
            do throws(ProvisionError) {
                let b =
                    index.isMultiple(of: 2)
                    ? try raced.get(Hunt15CycleA.self).b.get() : try raced.get(Hunt15CycleB.self)
                let pair = [ObjectIdentifier(b.a), ObjectIdentifier(b)]
                pairs.withLock { _ = $0.insert(pair) }
            } catch {
                failures.increment()
            }
        }
        #expect(finished)
        #expect(failures.value == 0)
        #expect(pairs.withLock { $0.count } == 1)
        #expect(Hunt15CycleA.builds.value - aBefore == 1)
        #expect(Hunt15CycleB.builds.value - bBefore == 1)
    }

    /// Guice: eager singletons are built when the injector is created, dependencies first, each once,
    /// and asking for them later builds nothing; an eager singleton of a child uses its parent's
    /// singleton.
    @Test("eager singletons are built at creation, dependencies first, once; a child's uses the parent's")
    func eagerSingletons() throws {
        let log = Hunt15Log()
        let dependencyBuilds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt15Log.self).toInstance(log)
                binder.bind(Hunt15Eager.self, named: "first").to { resolver in
                    Hunt15Eager(
                        name: "first", log: try resolver.get(Hunt15Log.self),
                        dependency: try resolver.get(Hunt15EagerDependency.self))
                }.asEagerSingleton()
                binder.bind(Hunt15EagerDependency.self).to { () -> Hunt15EagerDependency in
                    dependencyBuilds.increment()
                    log.events.append("build dependency")
                    return Hunt15EagerDependency()
                }.asEagerSingleton()
                binder.bind(Hunt15Eager.self, named: "second").to { (dependency: Hunt15EagerDependency) in
                    Hunt15Eager(name: "second", log: log, dependency: dependency)
                }.in(.singleton)
                binder.eager(Hunt15Eager.self, named: "second")
            })
        // Each built once, the dependency before both of its dependents (the order of the two roots is
        // not asserted: `eager(_:)` keys and `asEagerSingleton()` bindings are collected separately).
        let events = log.events.all
        #expect(events.sorted() == ["build dependency", "build first", "build second"])
        #expect(events.first == "build dependency")
        #expect(dependencyBuilds.value == 1)
        _ = try injector.get(Hunt15Eager.self, named: "first")
        _ = try injector.get(Hunt15Eager.self, named: "second")
        #expect(log.events.all.count == 3)

        let child = try injector.makeChild(
            ClosureModule { binder in
                binder.bind(Hunt15Eager.self, named: "child").to { (dependency: Hunt15EagerDependency) in
                    Hunt15Eager(name: "child", log: log, dependency: dependency)
                }.asEagerSingleton()
            })
        #expect(log.events.all.count == 4)
        #expect(log.events.all.last == "build child")
        #expect(dependencyBuilds.value == 1)
        _ = try child.get(Hunt15Eager.self, named: "child")
        #expect(log.events.all.count == 4)
    }

    /// Guice's multibinder: elements from several modules in module order, then binding order;
    /// duplicates kept (Provision documents that elements accumulate); a singleton element is one
    /// instance across requests, a transient one is fresh; the injected `[T]` matches `getAll`; a named
    /// collection is separate.
    @Test("multibinding order across modules, duplicates, element scopes, injected list, named collection")
    func multibindingOrder() throws {
        let shared = Hunt15NamedPlugin(id: "dup")
        let injector = try Injector(
            ClosureModule { binder in
                binder.multibind((any Hunt15Plugin).self).to { Hunt15NamedPlugin(id: "m1-a") }
                binder.multibind((any Hunt15Plugin).self).toInstance(shared)
                binder.bind(Hunt15PluginHost.self).to(Hunt15PluginHost.init(plugins:))
            },
            ClosureModule { binder in
                binder.multibind((any Hunt15Plugin).self, named: "admin").to { Hunt15NamedPlugin(id: "admin") }
                binder.multibind((any Hunt15Plugin).self).to { Hunt15NamedPlugin(id: "m2-single") }.in(.singleton)
                binder.multibind((any Hunt15Plugin).self).toInstance(shared)
            },
            ClosureModule { binder in
                binder.multibind((any Hunt15Plugin).self).to { Hunt15NamedPlugin(id: "m3-a") }
            })
        let first = try injector.getAll((any Hunt15Plugin).self)
        #expect(first.map(\.id) == ["m1-a", "dup", "m2-single", "dup", "m3-a"])
        let second = try injector.getAll((any Hunt15Plugin).self)
        #expect((first[2] as? Hunt15NamedPlugin) === (second[2] as? Hunt15NamedPlugin))
        #expect((first[0] as? Hunt15NamedPlugin) !== (second[0] as? Hunt15NamedPlugin))
        #expect((first[1] as? Hunt15NamedPlugin) === (first[3] as? Hunt15NamedPlugin))
        #expect(try injector.get(Hunt15PluginHost.self).plugins.map(\.id) == first.map(\.id))
        #expect(try injector.get([any Hunt15Plugin].self).map(\.id) == first.map(\.id))
        #expect(try injector.getAll((any Hunt15Plugin).self, named: "admin").map(\.id) == ["admin"])
    }

    /// Guice rejects a child module that contributes to a set its parent's multibinder owns; .NET and
    /// Swinject have no child contributions. Provision documents that elements "accumulate across the
    /// modules of an injector", and that a child's binding of a key wins in the child.
    ///
    /// QUESTION: what should a child that multibinds more elements of its parent's collection see? The
    /// parent's elements followed by its own (accumulation), or an error when the child is made (Guice)?
    /// Hunt 15: Provision gives the child only its own elements: the child's collection silently hides
    /// the parent's, so a plugin a child adds makes every plugin of the parent disappear from the
    /// child's `getAll` and from every `[T]` the child injects. Expected [p1, p2, c1] (or a
    /// duplicateBinding error at makeChild); actual: see the failure. The collection node is made per
    /// injector in `Injector.collections(of:injector:)` (Multibinding.swift) from the injector's own
    /// modules only.
    @Test("a child's multibinding of its parent's collection: accumulated, or refused, not shadowing")
    func childContributesToParentsCollection() throws {
        let parent = try Injector(
            ClosureModule { binder in
                binder.multibind((any Hunt15Plugin).self).to { Hunt15NamedPlugin(id: "p1") }
                binder.multibind((any Hunt15Plugin).self).to { Hunt15NamedPlugin(id: "p2") }
            })
        let made = Hunt5.result { () throws(ProvisionError) in
            try parent.makeChild(
                ClosureModule { binder in
                    binder.multibind((any Hunt15Plugin).self).to { Hunt15NamedPlugin(id: "c1") }
                    binder.bind(Hunt15PluginHost.self).to(Hunt15PluginHost.init(plugins:))
                })
        }
        guard case .success(let child) = made else {
            // Refused like Guice: acceptable.
            #expect(made.hunt5Error?.code == .duplicateBinding)
            return
        }
        // Found by hunt 15, fixed (decided: a child's elements add to its parent's, as in Dagger's
        // subcomponents): it was ["c1"], the parent's elements silently hidden.
        let all = try child.getAll((any Hunt15Plugin).self).map(\.id)
        #expect(all == ["p1", "p2", "c1"], "child's getAll: \(all)")
        let injected = try child.get(Hunt15PluginHost.self).plugins.map(\.id)
        #expect(injected == ["p1", "p2", "c1"], "child's injected list: \(injected)")
        #expect(try parent.getAll((any Hunt15Plugin).self).map(\.id) == ["p1", "p2"])
    }

    /// Guice's `Modules.override`: the replaced binding is used everywhere it is injected, a singleton
    /// that doesn't depend on it is shared with the original, and the original is unchanged.
    @Test("overriding replaces a binding where it is injected, shares independent singletons")
    func overridingLikeModulesOverride() throws {
        let original = try Injector(
            ClosureModule { binder in
                binder.bind((any Hunt15TimeSource).self).to { Hunt15RealTime() }.in(.singleton)
                binder.bind(Hunt15Database.self).to(Hunt15Database.init).in(.singleton)
                binder.bind(Hunt15Scheduler.self).to(Hunt15Scheduler.init(time:database:)).in(.singleton)
            })
        let before = Hunt15Database.builds.value
        let originalScheduler = try original.get(Hunt15Scheduler.self)
        let test = try original.overriding { binder in
            binder.bind((any Hunt15TimeSource).self).to { Hunt15FakeTime() }
        }
        let testScheduler = try test.get(Hunt15Scheduler.self)
        #expect(testScheduler.time.now == 42)
        #expect(testScheduler !== originalScheduler)
        #expect(testScheduler.database === originalScheduler.database)
        #expect(try original.get(Hunt15Scheduler.self).time.now == 1)
        #expect(try test.get((any Hunt15TimeSource).self).now == 42)
        #expect(Hunt15Database.builds.value - before == 1)
    }

    /// Guice's errors name the whole chain. A missing binding four levels down fails creation with the
    /// path; a factory failing four levels down fails the request with the path and the cause; the same
    /// through a child whose binding sits above the parent's chain.
    @Test("errors name the chain: a missing binding and a failing factory four levels down, via a child too")
    func errorsNameTheChain() throws {
        let chain = [
            BindingKey(Hunt15ChainA.self), BindingKey(Hunt15ChainB.self), BindingKey(Hunt15ChainC.self),
            BindingKey(Hunt15ChainD.self),
        ]
        let missing = Hunt5.result { () throws(ProvisionError) in
            try Injector(
                ClosureModule { binder in
                    binder.bind(Hunt15ChainA.self).to(Hunt15ChainA.init(b:))
                    binder.bind(Hunt15ChainB.self).to(Hunt15ChainB.init(c:))
                    binder.bind(Hunt15ChainC.self).to(Hunt15ChainC.init(d:))
                })
        }
        let problem = missing.hunt5Error?.underlyingErrors.first ?? missing.hunt5Error
        #expect(missing.hunt5Error?.code == .validationFailed)
        #expect(problem?.code == .notBound)
        #expect(problem?.path == chain)

        let failing = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt15ChainB.self).to(Hunt15ChainB.init(c:))
                binder.bind(Hunt15ChainC.self).to(Hunt15ChainC.init(d:))
                binder.bind(Hunt15ChainD.self).to { () throws -> Hunt15ChainD in throw ExpectedFailure(id: 4) }
            })
        let child = try failing.makeChild(
            ClosureModule { binder in binder.bind(Hunt15ChainA.self).to(Hunt15ChainA.init(b:)) })
        let failed = Hunt5.result { () throws(ProvisionError) in try child.get(Hunt15ChainA.self) }
        let error = try #require(failed.hunt5Error)
        #expect(error.code == .factoryFailed)
        #expect(error.path == chain)
        #expect((error.cause as? ExpectedFailure)?.id == 4)
        #expect(error.description.contains("Hunt15ChainA -> Hunt15ChainB -> Hunt15ChainC -> Hunt15ChainD"))
    }
}
