import Dispatch
import Foundation
import Provision
import Testing

// MARK: - Fixtures

private final class Hunt5Motor: Sendable {
    let origin: String
    init(origin: String) { self.origin = origin }
}

/// A just-in-time transient and a just-in-time singleton over the motor.
private final class Hunt5Truck: Injectable, Sendable {
    static let injection = Injection(Hunt5Truck.init(motor:))
    let motor: Hunt5Motor
    init(motor: Hunt5Motor) { self.motor = motor }
}

private final class Hunt5Depot: Injectable, Sendable {
    static let injection = Injection(Hunt5Depot.init(truck:)).in(.singleton)
    let truck: Hunt5Truck
    init(truck: Hunt5Truck) { self.truck = truck }
}

private final class Hunt5Worker: ManagedService, Disposable {
    let starts = Counter()
    let stops = Counter()
    let disposals = Counter()
    func start() async throws { starts.increment() }
    func stop() async throws { stops.increment() }
    func dispose() { disposals.increment() }
}

private final class Hunt5Consumer: Sendable {
    let worker: Hunt5Worker
    init(worker: Hunt5Worker) { self.worker = worker }
}

private final class Hunt5Tool: Sendable {
    let label: String
    init(label: String) { self.label = label }
}

// MARK: - Tests

/// `overriding` shares the original's just-in-time bindings only when they don't depend on what it
/// replaces (Injector+Overriding.swift); whichever injector asks first.
@Suite("Hunt5: just-in-time bindings in overriding injectors", .timeLimit(.minutes(1)))
struct Hunt5OverridingJustInTimeTests {
    static let original = ClosureModule { binder in binder.bind(Hunt5Motor.self).to { Hunt5Motor(origin: "real") } }

    static func fake(_ injector: Injector) throws -> Injector {
        try injector.overriding { binder in binder.override(Hunt5Motor.self).to { Hunt5Motor(origin: "fake") } }
    }

    @Test("the original asks first, then the derived injector: the derived one gets its fake")
    func originalFirst() throws {
        let injector = try Injector(Self.original)
        #expect(try injector.get(Hunt5Depot.self).truck.motor.origin == "real")
        #expect(try injector.get(Hunt5Truck.self).motor.origin == "real")
        let derived = try Self.fake(injector)
        #expect(try derived.get(Hunt5Truck.self).motor.origin == "fake")
        #expect(try derived.get(Hunt5Depot.self).truck.motor.origin == "fake")
        #expect(try derived.get(Hunt5Depot.self) !== injector.get(Hunt5Depot.self))
        #expect(try injector.get(Hunt5Depot.self).truck.motor.origin == "real")
    }

    @Test("the derived injector asks first, then the original: each keeps its own motor")
    func derivedFirst() throws {
        let injector = try Injector(Self.original)
        let derived = try Self.fake(injector)
        #expect(try derived.get(Hunt5Depot.self).truck.motor.origin == "fake")
        #expect(try injector.get(Hunt5Depot.self).truck.motor.origin == "real")
        #expect(try injector.get(Hunt5Truck.self).motor.origin == "real")
        #expect(try derived.get(Hunt5Truck.self).motor.origin == "fake")
    }

    @Test("8 threads ask the original and 8 the derived injector for the just-in-time singleton at once")
    func racingOwners() throws {
        let injector = try Injector(Self.original)
        let derived = try Self.fake(injector)
        let origins = Locked<[String]>([])
        #expect(
            runThreads(16) { index in
                let target = index % 2 == 0 ? injector : derived
                let origin = (try? target.get(Hunt5Depot.self).truck.motor.origin) ?? "error"
                origins.withLock { $0.append("\(index % 2 == 0 ? "original" : "derived"):\(origin)") }
            })
        let all = origins.withLock { $0 }
        #expect(all.filter { $0 == "original:real" }.count == 8, "\(all)")
        #expect(all.filter { $0 == "derived:fake" }.count == 8, "\(all)")
    }
}

/// Other threads arriving while `start()` builds and starts the services.
@Suite("Hunt5: requests while start() runs", .timeLimit(.minutes(1)))
struct Hunt5StartArrivalTests {
    @Test(
        "a thread and a task ask for a service's singleton while start() builds it: one build, one start",
        arguments: [false, true])
    func arrivalDuringStartBuild(asyncFactory: Bool) async throws {
        let hold = Hunt5.Hold()
        let worker = Hunt5Worker()
        let injector = try Injector(
            ClosureModule { binder in
                if asyncFactory {
                    binder.bind(Hunt5Worker.self).to { (_: Resolver) async throws -> Hunt5Worker in
                        await hold.runAsync()
                        return worker
                    }.in(.singleton)
                } else {
                    binder.bind(Hunt5Worker.self).to { () -> Hunt5Worker in
                        hold.run()
                        return worker
                    }.in(.singleton)
                }
                binder.bind(Hunt5Consumer.self).to(Hunt5Consumer.init(worker:))
            }
        )
        let start = Task { await Hunt5.error { () async throws(ProvisionError) in try await injector.start() } }
        #expect(await Hunt5.wait(for: hold.entered))
        // A thread waits for a synchronous singleton start() builds; for an async one it throws
        // requiresAsync without waiting (documented: ThreadSafety.md, BindingBuilder `to(_:)` async).
        let fromThread = Hunt5.Request { () throws(ProvisionError) in try injector.get(Hunt5Consumer.self).worker }
        let fromTask = Task { () -> Result<Hunt5Worker, ProvisionError> in
            do throws(ProvisionError) {
                return .success(try await injector.get(Hunt5Consumer.self).worker)
            } catch { return .failure(error) }
        }
        hold.release.signal()
        let startError = await start.value
        let threadResult = await fromThread.result()
        let taskResult = await fromTask.value
        #expect(startError == nil, "\(String(describing: startError))")
        if asyncFactory, let error = threadResult?.hunt5Error {
            #expect(error.code == .requiresAsync, "\(error)")
        } else {
            #expect((try? threadResult?.get()) === worker, "\(String(describing: threadResult))")
        }
        #expect((try? taskResult.get()) === worker, "\(taskResult)")
        #expect(hold.builds.value == 1)
        #expect(worker.starts.value == 1)
        #expect(injector.startedServices == [BindingKey(Hunt5Worker.self)])
        let shutdownError = await Hunt5.error { () async throws(ProvisionError) in try await injector.shutdown() }
        #expect(shutdownError == nil)
        #expect(worker.stops.value == 1)
        #expect(worker.disposals.value == 1)
    }

    @Test("a Provider with arguments and an ObjectFactory after shutdown throw shutDown and build nothing")
    func argumentHandlesAfterShutdown() async throws {
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt5Tool.self).withArguments(String.self).to { (_: Resolver, label: String) -> Hunt5Tool in
                    builds.increment()
                    return Hunt5Tool(label: label)
                }
            }
        )
        let provider = try Hunt5.result { () throws(ProvisionError) in try injector.get(Provider<Hunt5Tool>.self) }
            .get()
        let factory = try Hunt5.result { () throws(ProvisionError) in try injector.get(ObjectFactory.self) }.get()
        #expect(try provider.get(arguments: "before").label == "before")
        #expect(try factory.get(Hunt5Tool.self, arguments: "before").label == "before")
        let shutdownError = await Hunt5.error { () async throws(ProvisionError) in try await injector.shutdown() }
        #expect(shutdownError == nil)
        let viaProvider = Hunt5.result { () throws(ProvisionError) in try provider.get(arguments: "after") }
        let viaFactory = Hunt5.result { () throws(ProvisionError) in try factory.get(Hunt5Tool.self, arguments: "after")
        }
        #expect(viaProvider.hunt5Error?.code == .shutDown, "\(viaProvider)")
        #expect(viaFactory.hunt5Error?.code == .shutDown, "\(viaFactory)")
        #expect(builds.value == 2)
    }
}

private final class Hunt5Pool: Disposable {
    let disposals = Counter()
    private let disposed = Locked(false)
    var isDisposed: Bool { disposed.withLock { $0 } }
    func dispose() {
        disposals.increment()
        disposed.withLock { $0 = true }
    }
}

private final class Hunt5Clock: Sendable {
    let label: String
    init(label: String) { self.label = label }
}

private final class Hunt5Report: Sendable {
    let pool: Hunt5Pool
    let clock: Hunt5Clock
    init(pool: Hunt5Pool, clock: Hunt5Clock) {
        self.pool = pool
        self.clock = clock
    }
}

/// An injector derived with `overriding` before the original shuts down: what it shares with the original.
@Suite("Hunt5: overriding injectors when the original shuts down", .timeLimit(.minutes(1)))
struct Hunt5OverridingShutdownTests {
    fileprivate static func original(_ pool: Hunt5Pool) -> ClosureModule {
        ClosureModule { binder in
            binder.bind(Hunt5Pool.self).toInstance(pool)
            binder.bind(Hunt5Clock.self).to { Hunt5Clock(label: "real") }
            binder.bind(Hunt5Report.self).to(Hunt5Report.init(pool:clock:))
        }
    }

    // Found by the fifth hunt, fixed (Linker.crossInjectorPlan; same cause as Hunt5ChildOverShutDownParentTests): `derived.get(Hunt5Report.self)` after the
    // original's shutdown returns a new Report holding the original's disposed pool.
    @Test("a shared singleton is never handed out by the derived injector once the original disposed it")
    func sharedSingletonAfterOriginalShutdown() async throws {
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt5Pool.self).to { () -> Hunt5Pool in
                    builds.increment()
                    return Hunt5Pool()
                }.in(.singleton)
                binder.bind(Hunt5Clock.self).to { Hunt5Clock(label: "real") }
                binder.bind(Hunt5Report.self).to(Hunt5Report.init(pool:clock:))
            }
        )
        let derived = try injector.overriding { binder in
            binder.override(Hunt5Clock.self).to { Hunt5Clock(label: "fake") }
        }
        let pool = try Hunt5.result { () throws(ProvisionError) in try injector.get(Hunt5Pool.self) }.get()
        let report = try Hunt5.result { () throws(ProvisionError) in try derived.get(Hunt5Report.self) }.get()
        #expect(report.pool === pool)
        #expect(report.clock.label == "fake")
        #expect(await Hunt5.error { () async throws(ProvisionError) in try await injector.shutdown() } == nil)
        #expect(pool.disposals.value == 1)
        // The original's shutdown disposed the pool: the derived injector must not hand it out again
        // (Injector+Lifecycle.swift `shutdown()`: "every request (through the injector, its scopes, or a
        // child's fallback to it) throws shutDown").
        let afterPool = Hunt5.result { () throws(ProvisionError) in try derived.get(Hunt5Pool.self) }
        let afterReport = Hunt5.result { () throws(ProvisionError) in try derived.get(Hunt5Report.self) }
        if case .success(let handed) = afterPool { #expect(!handed.isDisposed, "a disposed singleton was handed out") }
        if case .success(let handed) = afterReport {
            #expect(!handed.pool.isDisposed, "a report over a disposed singleton was built")
        }
        #expect(afterPool.hunt5Error == nil || afterPool.hunt5Error?.code == .shutDown, "\(afterPool)")
        #expect(builds.value == 1)
        // The derived injector's own shutdown doesn't dispose the original's singleton again.
        #expect(await Hunt5.error { () async throws(ProvisionError) in try await derived.shutdown() } == nil)
        #expect(pool.disposals.value == 1)
    }

    @Test("an instance binding of the original is disposed once, by the original, however many derive from it")
    func instanceDisposedOnce() async throws {
        let pool = Hunt5Pool()
        let injector = try Injector(Self.original(pool))
        let derived = try injector.overriding { binder in
            binder.override(Hunt5Clock.self).to { Hunt5Clock(label: "fake") }
        }
        let child = try injector.makeChild()
        let report = try Hunt5.result { () throws(ProvisionError) in try derived.get(Hunt5Report.self) }.get()
        #expect(report.pool === pool)
        _ = try Hunt5.result { () throws(ProvisionError) in try child.get(Hunt5Report.self) }.get()
        #expect(await Hunt5.error { () async throws(ProvisionError) in try await derived.shutdown() } == nil)
        #expect(await Hunt5.error { () async throws(ProvisionError) in try await child.shutdown() } == nil)
        #expect(await Hunt5.error { () async throws(ProvisionError) in try await injector.shutdown() } == nil)
        // Disposable.swift: "Instances given with `toInstance(_:)` ... belong to the caller".
        #expect(pool.disposals.value == 0)
    }
}

/// A child's own binding over its parent's singleton, once the parent shut down.
@Suite("Hunt5: a child's bindings over a shut-down parent's singletons", .timeLimit(.minutes(1)))
struct Hunt5ChildOverShutDownParentTests {
    fileprivate static func parentModule(_ builds: Counter) -> ClosureModule {
        ClosureModule { binder in
            binder.bind(Hunt5Pool.self).to { () -> Hunt5Pool in
                builds.increment()
                return Hunt5Pool()
            }.in(.singleton)
        }
    }

    static let childModule = ClosureModule { binder in
        binder.bind(Hunt5Clock.self).to { Hunt5Clock(label: "child") }
        binder.bind(Hunt5Report.self).to(Hunt5Report.init(pool:clock:))
    }

    // Found by the fifth hunt, fixed (an edge into an ancestor checks its shutdown, Linker.crossInjectorPlan): once the child's binding was linked (one request before the shutdown), a synchronous request
    // through the child after the parent's shutdown builds a new Report over the parent's *disposed* pool
    // and returns it. Not linked before: shutDown, as promised. The async `get` checks `isShuttingDown` up
    // front (Async/Injector+AsyncResolution.swift) and throws shutDown; the synchronous one finds the
    // child's own node in the child's (open) registry, whose linked plan reads the parent's published
    // singleton with one atomic load, never looking at the parent's lifecycle.
    // Injector+Lifecycle.swift `shutdown()`: "From the moment shutdown() begins, every request (through the
    // injector, its scopes, or a child's fallback to it) throws shutDown, and no new instance is built".
    @Test(
        "linked before the shutdown or not, a child's transient over the parent's disposed singleton isn't built",
        arguments: [false, true])
    func childTransientOverDisposedSingleton(linkedBefore: Bool) async throws {
        let builds = Counter()
        let parent = try Injector(Self.parentModule(builds))
        let child = try parent.makeChild(Self.childModule)
        let pool = try Hunt5.result { () throws(ProvisionError) in try parent.get(Hunt5Pool.self) }.get()
        if linkedBefore {
            let report = try Hunt5.result { () throws(ProvisionError) in try child.get(Hunt5Report.self) }.get()
            #expect(report.pool === pool)
        }
        #expect(await Hunt5.error { () async throws(ProvisionError) in try await parent.shutdown() } == nil)
        #expect(pool.disposals.value == 1)
        let after = Hunt5.result { () throws(ProvisionError) in try child.get(Hunt5Report.self) }
        if case .success(let report) = after {
            #expect(!report.pool.isDisposed, "a child's transient was built over the parent's disposed singleton")
        }
        #expect(after.hunt5Error?.code == .shutDown, "\(after)")
        #expect(builds.value == 1)
    }

    @Test("the same through an overriding injector, linked before the shutdown or not", arguments: [false, true])
    func overridingTransientOverDisposedSingleton(linkedBefore: Bool) async throws {
        let builds = Counter()
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt5Pool.self).to { () -> Hunt5Pool in
                    builds.increment()
                    return Hunt5Pool()
                }.in(.singleton)
                binder.bind(Hunt5Clock.self).to { Hunt5Clock(label: "real") }
                binder.bind(Hunt5Report.self).to(Hunt5Report.init(pool:clock:))
            }
        )
        let derived = try parent.overriding { binder in
            binder.override(Hunt5Clock.self).to { Hunt5Clock(label: "fake") }
        }
        let pool = try Hunt5.result { () throws(ProvisionError) in try parent.get(Hunt5Pool.self) }.get()
        if linkedBefore {
            let report = try Hunt5.result { () throws(ProvisionError) in try derived.get(Hunt5Report.self) }.get()
            #expect(report.pool === pool)
        }
        #expect(await Hunt5.error { () async throws(ProvisionError) in try await parent.shutdown() } == nil)
        // Injector+Overriding.swift `overriding(_:)`: "this injector's shutdown ends its requests too".
        let after = Hunt5.result { () throws(ProvisionError) in try derived.get(Hunt5Report.self) }
        if case .success(let report) = after {
            #expect(!report.pool.isDisposed, "the derived injector built a report over the disposed pool")
        }
        #expect(after.hunt5Error?.code == .shutDown, "\(after)")
        let afterAsync = await Hunt5.error { () async throws(ProvisionError) in try await derived.get(Hunt5Report.self)
        }
        #expect(afterAsync?.code == .shutDown, "\(String(describing: afterAsync))")
    }
}

private final class Hunt5FlakyClock: Sendable {
    let label: String
    init(label: String) { self.label = label }
}

private final class Hunt5Audit: Sendable {
    let clock: Hunt5FlakyClock
    let pool: Hunt5Pool
    init(clock: Hunt5FlakyClock, pool: Hunt5Pool) {
        self.clock = clock
        self.pool = pool
    }
}

/// A child's plan linked to its parent's singleton before that singleton was ever built.
@Suite("Hunt5: a parent's singleton first built through a child after the parent shut down", .timeLimit(.minutes(1)))
struct Hunt5BuildAfterParentShutdownTests {
    // Injector+Lifecycle.swift `shutdown()`: "From the moment shutdown() begins, every request (through the
    // injector, its scopes, or a child's fallback to it) throws shutDown, and no new instance is built"; step
    // 3 disposes "every singleton the injector built". A singleton built after that is never disposed.
    @Test("the child's request throws shutDown and the parent's singleton is never built", arguments: [false, true])
    func unbuiltParentSingleton(overriding: Bool) async throws {
        let builds = Counter()
        let clockCalls = Counter()
        let parentModule = ClosureModule { binder in
            binder.bind(Hunt5Pool.self).to { () -> Hunt5Pool in
                builds.increment()
                return Hunt5Pool()
            }.in(.singleton)
            binder.bind(Hunt5Clock.self).to { Hunt5Clock(label: "real") }
            if overriding {
                binder.bind(Hunt5FlakyClock.self).to { Hunt5FlakyClock(label: "real") }
                binder.bind(Hunt5Audit.self).to(Hunt5Audit.init(clock:pool:))
            }
        }
        // The child's (or derived injector's) clock fails its first build, after the plan is linked and
        // before the pool is asked for.
        let flakyModule = ClosureModule { binder in
            let bind = overriding ? binder.override(Hunt5FlakyClock.self) : binder.bind(Hunt5FlakyClock.self)
            bind.to { () throws -> Hunt5FlakyClock in
                if clockCalls.increment() == 1 { throw Hunt5Boom5(id: 1) }
                return Hunt5FlakyClock(label: "child")
            }
            if !overriding { binder.bind(Hunt5Audit.self).to(Hunt5Audit.init(clock:pool:)) }
        }
        let parent = try Injector(parentModule)
        let child = overriding ? try parent.overriding(flakyModule) : try parent.makeChild(flakyModule)
        let first = Hunt5.result { () throws(ProvisionError) in try child.get(Hunt5Audit.self) }
        #expect(first.hunt5Error?.code == .factoryFailed, "\(first)")
        #expect(builds.value == 0)
        #expect(await Hunt5.error { () async throws(ProvisionError) in try await parent.shutdown() } == nil)
        let after = Hunt5.result { () throws(ProvisionError) in try child.get(Hunt5Audit.self) }
        #expect(after.hunt5Error?.code == .shutDown, "\(after)")
        #expect(builds.value == 0, "the parent's singleton was built after its shutdown (and will never be disposed)")
    }
}

private struct Hunt5Boom5: Error, Equatable {
    var id = 0
}
