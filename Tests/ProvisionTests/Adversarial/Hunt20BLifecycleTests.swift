import Dispatch
import Foundation
import Testing

@testable import Provision

// Hunt 20 (B): a daemon's lifecycle. Services start after what they depend on and stop in reverse; a
// start hook failing in the middle of a chain; shutdown called twice, concurrently, or while start()
// runs; requests after shutdown; every kind of instance disposed exactly once.

// MARK: - Fixtures

/// A managed service that logs its start and stop, and its disposal; `failStart`/`failStop` make the
/// hook throw, and `startGate` (when set) makes the start wait for it.
private class H20BManaged: ManagedService, Disposable, @unchecked Sendable {
    struct Failure: Error {}
    let name: String
    let log: EventLog
    let failStart: Bool
    let failStop: Bool

    init(_ name: String, log: EventLog, failStart: Bool = false, failStop: Bool = false) {
        self.name = name
        self.log = log
        self.failStart = failStart
        self.failStop = failStop
        log.append("build \(name)")
    }

    func start() async throws {
        log.append("start \(name)")
        if failStart { throw Failure() }
    }

    func stop() async throws {
        log.append("stop \(name)")
        if failStop { throw Failure() }
    }

    func dispose() { log.append("dispose \(name)") }
}

private final class H20BBase: H20BManaged, @unchecked Sendable {}
private final class H20BLeft: H20BManaged, @unchecked Sendable {}
private final class H20BRight: H20BManaged, @unchecked Sendable {}
private final class H20BTop: H20BManaged, @unchecked Sendable {}

/// The five links of a chain of services: each depends on the previous one.
private struct H20BLink<Tag>: Sendable {}

/// A disposable whose disposals are counted.
private final class H20BDisposable: Disposable {
    let disposals = Counter()
    func dispose() { disposals.increment() }
}

/// An async-disposable singleton.
private final class H20BAsyncDisposable: AsyncDisposable {
    let disposals = Counter()
    func dispose() async {
        await Task.yield()
        disposals.increment()
    }
}

/// A transient disposable: the caller's.
private final class H20BTransientDisposable: Disposable {
    let disposals: Counter
    init(disposals: Counter) { self.disposals = disposals }
    func dispose() { disposals.increment() }
}

/// A scoped disposable.
private final class H20BScopedDisposable: Disposable {
    let disposals: Counter
    init(disposals: Counter) { self.disposals = disposals }
    func dispose() { disposals.increment() }
}

/// A diamond of services: top needs left and right, both need base.
private struct H20BDiamondModule: Module {
    let log: EventLog

    func configure(_ binder: Binder) {
        let log = log
        binder.bind(H20BTop.self).to { (_: H20BLeft, _: H20BRight) in H20BTop("top", log: log) }.in(.singleton)
        binder.bind(H20BLeft.self).to { (_: H20BBase) in H20BLeft("left", log: log) }.in(.singleton)
        binder.bind(H20BRight.self).to { (_: H20BBase) in H20BRight("right", log: log) }.in(.singleton)
        binder.bind(H20BBase.self).to { H20BBase("base", log: log) }.in(.singleton)
    }
}

private enum H20BL1 {}
private enum H20BL2 {}
private enum H20BL3 {}
private enum H20BL4 {}
private enum H20BL5 {}

/// A chain of five services s1 <- s2 <- ... <- s5 (each needs the previous one), bound as the managed
/// service under a named key per link; `failing` is the link whose start or stop throws.
private struct H20BChainModule: Module {
    let log: EventLog
    let failingStart: Int?
    let failingStop: Int?

    func configure(_ binder: Binder) {
        let log = log
        let failingStart = failingStart
        let failingStop = failingStop
        let service: @Sendable (Int) -> H20BManaged = { index in
            H20BManaged("s\(index)", log: log, failStart: failingStart == index, failStop: failingStop == index)
        }
        binder.bind(H20BManaged.self, named: "s1").to(dependencies: []) { _ in service(1) }.in(.singleton)
        for index in 2...5 {
            binder.bind(H20BManaged.self, named: "s\(index)").to(
                dependencies: [BindingKey(H20BManaged.self, named: "s\(index - 1)")]
            ) { resolver in
                _ = try resolver.get(H20BManaged.self, named: "s\(index - 1)")
                return service(index)
            }.in(.singleton)
        }
    }
}

// MARK: - Tests

@Suite("Hunt 20B: start, shutdown and disposal", .timeLimit(.minutes(1)))
struct Hunt20BLifecycleTests {
    /// A diamond of services: base starts first and top last, stop is the exact reverse of the start
    /// order as `startedServices` reports it, and disposal follows, newest first.
    ///
    /// Fixed (flaky): it compared `startedServices` (the order start hooks returned) with the order the
    /// hooks were entered, which can differ for left and right, started concurrently in one batch.
    @Test func diamondStartsDependenciesFirstAndStopsInReverse() async throws {
        let log = EventLog()
        let injector = try Injector(H20BDiamondModule(log: log))
        try await injector.start()
        let starts = log.with("start ")
        #expect(starts.first == "base")
        #expect(starts.last == "top")
        #expect(Set(starts) == ["base", "left", "right", "top"])
        let names: [BindingKey: String] = [
            BindingKey(H20BBase.self): "base", BindingKey(H20BLeft.self): "left",
            BindingKey(H20BRight.self): "right", BindingKey(H20BTop.self): "top",
        ]
        // `startedServices` is the order the start hooks returned: left and right start concurrently (one
        // batch), so it may differ from the order their hooks were entered, which `starts` logs.
        let started = injector.startedServices.compactMap { names[$0] }
        #expect(Set(started) == Set(starts))
        #expect(started.first == "base")
        #expect(started.last == "top")
        try await injector.shutdown()
        #expect(log.with("stop ") == Array(started.reversed()))
        let builds = log.with("build ")
        #expect(log.with("dispose ") == Array(builds.reversed()))
        let lastStop = try #require(log.all.lastIndex { $0.hasPrefix("stop ") })
        let firstDispose = try #require(log.all.firstIndex { $0.hasPrefix("dispose ") })
        #expect(lastStop < firstDispose)
    }

    /// The third service of a chain of five fails to start: the first two are stopped again, second
    /// first; the fourth and fifth never start; start() throws `startFailed` naming the third. Shutdown
    /// then stops nothing more and disposes all five built services once, newest first.
    @Test func startHookFailingAtPositionThree() async throws {
        let log = EventLog()
        let injector = try Injector(H20BChainModule(log: log, failingStart: 3, failingStop: nil))
        let error = try #require(await Hunt5.error { () async throws(ProvisionError) in try await injector.start() })
        #expect(error.code == .startFailed)
        #expect(error.underlyingErrors.contains { $0.key == BindingKey(H20BManaged.self, named: "s3") })
        #expect(log.with("start ") == ["s1", "s2", "s3"])
        #expect(log.with("stop ") == ["s2", "s1"])
        #expect(injector.startedServices.isEmpty || injector.startedServices.count == 2)
        try await injector.shutdown()
        #expect(log.with("stop ") == ["s2", "s1"])
        #expect(log.with("dispose ") == ["s5", "s4", "s3", "s2", "s1"])
    }

    /// The middle service's stop hook throws: shutdown still stops the others in reverse order and
    /// disposes everything, then throws `stopFailed` listing the one failure, naming its key.
    @Test func stopHookFailingInTheMiddle() async throws {
        let log = EventLog()
        let injector = try Injector(H20BChainModule(log: log, failingStart: nil, failingStop: 3))
        try await injector.start()
        let error = try #require(await Hunt5.error { () async throws(ProvisionError) in try await injector.shutdown() })
        #expect(error.code == .stopFailed)
        #expect(error.underlyingErrors.count == 1)
        #expect(error.underlyingErrors.first?.key == BindingKey(H20BManaged.self, named: "s3"))
        #expect(log.with("stop ") == ["s5", "s4", "s3", "s2", "s1"])
        #expect(log.with("dispose ") == ["s5", "s4", "s3", "s2", "s1"])
    }

    /// Two tasks call shutdown() at the same moment, a third after both: the services stop once and
    /// dispose once, and neither concurrent call returns before the stops and disposals are done.
    @Test func concurrentShutdownsEachReturnAfterTheWork() async throws {
        let log = EventLog()
        let injector = try Injector(H20BDiamondModule(log: log))
        try await injector.start()
        let seen = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    try await injector.shutdown()
                    return log.with("dispose ").count
                }
            }
            var seen: [Int] = []
            for try await count in group { seen.append(count) }
            return seen
        }
        #expect(seen == [4, 4])
        try await injector.shutdown()
        #expect(log.with("stop ").count == 4)
        #expect(log.with("dispose ").count == 4)
    }

    /// Shutdown begins while start() is inside the first service's start hook: the hook finishes, its
    /// service is stopped exactly once before shutdown returns, the services above it never start, and
    /// start() throws `shutDown`.
    @Test func shutdownWhileStartHookRuns() async throws {
        let log = EventLog()
        let hold = Hunt5.Hold()
        let injector = try Injector(
            ClosureModule { binder in
                // Hooks on the binding replace the type's ManagedService conformance.
                binder.bind(H20BBase.self).to { H20BBase("base", log: log) }.in(.singleton)
                    .onStart { _ in
                        log.append("start base")
                        await hold.runAsync()
                    }
                    .onStop { _ in log.append("stop base") }
                binder.bind(H20BTop.self).to { (_: H20BBase) in H20BTop("top", log: log) }.in(.singleton)
            }
        )
        let start = Task { await Hunt5.error { () async throws(ProvisionError) in try await injector.start() } }
        #expect(await Hunt5.wait(for: hold.entered))
        let shutdown = Task { () async throws(ProvisionError) -> [String] in
            try await injector.shutdown()
            return log.all
        }
        #expect(await Hunt5.until { injector.isShuttingDown })
        hold.release.signal()
        let startError = try #require(await start.value)
        #expect(startError.code == .shutDown)
        let atReturn = try await shutdown.value
        #expect(atReturn.filter { $0.hasPrefix("stop ") || $0.hasPrefix("start ") } == ["start base", "stop base"])
        #expect(atReturn.filter { $0.hasPrefix("dispose ") } == ["dispose top", "dispose base"])
    }

    /// After shutdown, every kind of request fails with `shutDown`, naming the key and what to do: a
    /// built singleton, a transient, an async request, a scope's request, a scope seeded afterwards.
    @Test func requestsAfterShutdownSayShutDown() async throws {
        let log = EventLog()
        let injector = try Injector(
            H20BDiamondModule(log: log),
            ClosureModule { binder in
                binder.bind(H20BDisposable.self).to(H20BDisposable.init)
                binder.bind(Config.self).toSeed()
            }
        )
        _ = try await injector.get(H20BTop.self)
        let scope = injector.makeScope()
        try await injector.shutdown()
        let singleton = Hunt5.result { () throws(ProvisionError) in try injector.get(H20BTop.self) }
        let transient = Hunt5.result { () throws(ProvisionError) in try injector.get(H20BDisposable.self) }
        let viaScope = Hunt5.result { () throws(ProvisionError) in try scope.get(H20BBase.self) }
        let async = await Hunt5.error { () async throws(ProvisionError) in try await injector.get(H20BLeft.self) }
        let seeded = Hunt5.result { () throws(ProvisionError) in try injector.makeScope { $0.provide(Config(port: 1)) }
        }
        for error in [singleton.hunt5Error, transient.hunt5Error, viaScope.hunt5Error, async, seeded.hunt5Error] {
            #expect(error?.code == .shutDown)
            #expect(error?.description.contains("shut down") == true)
        }
        #expect(singleton.hunt5Error?.description.contains("H20BTop") == true)
        #expect(transient.hunt5Error?.key == BindingKey(H20BDisposable.self))
    }

    /// Each kind of instance is disposed by its owner exactly once: a singleton, an eager singleton and an
    /// async singleton by shutdown; a scoped instance by its scope (and never again by shutdown); an
    /// instance binding's value and a transient never.
    @Test func everyKindDisposedExactlyOnceByItsOwner() async throws {
        let singleton = H20BDisposable()
        let eager = H20BDisposable()
        let asyncSingleton = H20BAsyncDisposable()
        let instance = H20BDisposable()
        let transients = Counter()
        let scoped = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H20BDisposable.self, named: "singleton").to { singleton }.in(.singleton)
                binder.bind(H20BDisposable.self, named: "eager").to { eager }.asEagerSingleton()
                binder.bind(H20BAsyncDisposable.self).to { _ async in asyncSingleton }.in(.singleton)
                binder.bind(H20BDisposable.self, named: "instance").toInstance(instance)
                binder.bind(H20BTransientDisposable.self).to { H20BTransientDisposable(disposals: transients) }
                binder.bind(H20BScopedDisposable.self).to { H20BScopedDisposable(disposals: scoped) }.in(.scoped)
            }
        )
        try await injector.start()
        _ = try await injector.get(H20BTransientDisposable.self)
        _ = try await injector.get(H20BDisposable.self, named: "instance")
        try await injector.withScope { scope in
            _ = try scope.get(H20BScopedDisposable.self)
            _ = try scope.get(H20BTransientDisposable.self)
        }
        #expect(scoped.value == 1)
        try await injector.shutdown()
        try await injector.shutdown()
        #expect(singleton.disposals.value == 1)
        #expect(eager.disposals.value == 1)
        #expect(asyncSingleton.disposals.value == 1)
        #expect(instance.disposals.value == 0)
        #expect(transients.value == 0)
        #expect(scoped.value == 1)
    }

    /// An eager singleton is built when the injector is created, once; requests from eight threads, and
    /// start(), get that instance; shutdown disposes it once.
    @Test func eagerSingletonAlsoRequestedLazily() async throws {
        let builds = Counter()
        let instance = H20BDisposable()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H20BDisposable.self).to {
                    builds.increment()
                    return instance
                }.asEagerSingleton()
            }
        )
        #expect(builds.value == 1)
        let mismatches = Counter()
        let finished = try await offPool {
            runThreads(8) { _ in
                if (try? injector.get(H20BDisposable.self)) !== instance { mismatches.increment() }
            }
        }
        #expect(finished)
        #expect(mismatches.value == 0)
        try await injector.start()
        #expect(builds.value == 1)
        try await injector.shutdown()
        #expect(instance.disposals.value == 1)
    }

    /// Two services that don't depend on each other start concurrently: each one's start hook waits
    /// until the other's has begun (five seconds at most), which only succeeds when both run at once.
    @Test func independentServicesStartConcurrently() async throws {
        let leftEntered = DispatchSemaphore(value: 0)
        let rightEntered = DispatchSemaphore(value: 0)
        let log = EventLog()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H20BLeft.self).to { H20BLeft("left", log: log) }.in(.singleton)
                    .onStart { _ in
                        leftEntered.signal()
                        if await !Hunt5.wait(for: rightEntered, seconds: 5) { throw H20BManaged.Failure() }
                    }
                binder.bind(H20BRight.self).to { H20BRight("right", log: log) }.in(.singleton)
                    .onStart { _ in
                        rightEntered.signal()
                        if await !Hunt5.wait(for: leftEntered, seconds: 5) { throw H20BManaged.Failure() }
                    }
            }
        )
        try await injector.start()
        #expect(Set(injector.startedServices) == [BindingKey(H20BLeft.self), BindingKey(H20BRight.self)])
        try await injector.shutdown()
    }

    /// An async singleton factory fails during start(), after two disposable singletons were built:
    /// start() throws `startFailed` with the factory's failure; shutdown disposes the two built ones once.
    @Test func buildFailureDuringStartLeavesBuiltOnesToShutdown() async throws {
        let first = H20BDisposable()
        let second = H20BDisposable()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H20BDisposable.self, named: "first").to { first }.in(.singleton)
                binder.bind(H20BDisposable.self, named: "second").to { second }.in(.singleton)
                binder.bind(H20BAsyncDisposable.self).to { _ async throws -> H20BAsyncDisposable in
                    throw ExpectedFailure(id: 5)
                }.in(.singleton)
            }
        )
        let error = try #require(await Hunt5.error { () async throws(ProvisionError) in try await injector.start() })
        #expect(error.code == .startFailed)
        #expect(
            error.underlyingErrors.contains {
                $0.code == .factoryFailed && $0.key == BindingKey(H20BAsyncDisposable.self)
            })
        let again = await Hunt5.error { () async throws(ProvisionError) in try await injector.start() }
        #expect(again?.code == .invalidLifecycle)
        try await injector.shutdown()
        #expect(first.disposals.value == 1)
        #expect(second.disposals.value == 1)
        let afterShutdown = await Hunt5.error { () async throws(ProvisionError) in try await injector.start() }
        #expect(afterShutdown?.code == .shutDown)
    }

    /// Two tasks call start() at once: one starts the services, the other throws `invalidLifecycle`;
    /// every service starts exactly once.
    @Test func concurrentStartsStartEachServiceOnce() async throws {
        let log = EventLog()
        let injector = try Injector(H20BDiamondModule(log: log))
        let errors = await withTaskGroup(of: ProvisionError?.self) { group in
            for _ in 0..<2 {
                group.addTask { await Hunt5.error { () async throws(ProvisionError) in try await injector.start() } }
            }
            var errors: [ProvisionError?] = []
            for await error in group { errors.append(error) }
            return errors
        }
        #expect(errors.compactMap { $0?.code } == [.invalidLifecycle])
        #expect(log.with("start ").sorted() == ["base", "left", "right", "top"])
        #expect(log.with("build ").count == 4)
        try await injector.shutdown()
        #expect(log.with("stop ").count == 4)
    }

    /// Two independent services start in the same batch; one fails after the other has started: the
    /// one that started is stopped again, start() throws `startFailed` naming the failed one, and
    /// shutdown stops nothing more.
    @Test func failureInAConcurrentBatchStopsItsSibling() async throws {
        let log = EventLog()
        let leftStarted = DispatchSemaphore(value: 0)
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H20BLeft.self).to { H20BLeft("left", log: log) }.in(.singleton)
                    .onStart { _ in
                        log.append("start left")
                        leftStarted.signal()
                    }
                    .onStop { _ in log.append("stop left") }
                binder.bind(H20BRight.self).to { H20BRight("right", log: log) }.in(.singleton)
                    .onStart { _ in
                        _ = await Hunt5.wait(for: leftStarted, seconds: 5)
                        log.append("start right")
                        throw H20BManaged.Failure()
                    }
                    .onStop { _ in log.append("stop right") }
            }
        )
        let error = try #require(await Hunt5.error { () async throws(ProvisionError) in try await injector.start() })
        #expect(error.code == .startFailed)
        #expect(error.underlyingErrors.map(\.key) == [BindingKey(H20BRight.self)])
        #expect(log.with("stop ") == ["left"])
        try await injector.shutdown()
        #expect(log.with("stop ") == ["left"])
        #expect(log.with("dispose ").sorted() == ["left", "right"])
    }

    /// Found by hunt 20B, fixed: an injector whose creation fails on its second eager singleton never disposes
    /// the first one, which it built: nobody holds the injector to shut it down.
    ///
    /// `Disposable`'s contract: "The injector calls dispose() exactly once for every instance it built
    /// whose type conforms". A daemon whose eager connection pool opened before an eager, misconfigured
    /// service failed leaks the pool's connections.
    @Test func failedCreationDisposesEagerSingletonsItBuilt() throws {
        let pool = H20BDisposable()
        let creation = Hunt5.result { () throws(ProvisionError) in
            try Injector(
                ClosureModule { binder in
                    binder.bind(H20BDisposable.self).to { pool }.asEagerSingleton()
                    binder.bind(H20BAsyncDisposable.self).to { () throws -> H20BAsyncDisposable in
                        throw ExpectedFailure(id: 2)
                    }.asEagerSingleton()
                }
            )
        }
        #expect(creation.hunt5Error?.code == .factoryFailed)
        #expect(pool.disposals.value == 1)
    }
}
