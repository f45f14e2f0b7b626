import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Provision

/// A service that logs its start, stop and disposal, and can be told to fail.
private final class Part: ManagedService, Disposable {
    let name: String
    let log: EventLog
    let failsToStart: Bool
    let failsToStop: Bool

    init(_ name: String, log: EventLog, failsToStart: Bool = false, failsToStop: Bool = false) {
        self.name = name
        self.log = log
        self.failsToStart = failsToStart
        self.failsToStop = failsToStop
    }

    func start() async throws {
        if failsToStart { throw ExpectedFailure(id: 1) }
        log.append("start \(name)")
    }

    func stop() async throws {
        log.append("stop \(name)")
        if failsToStop { throw ExpectedFailure(id: 2) }
    }

    func dispose() {
        log.append("dispose \(name)")
    }
}

private final class Store: Sendable {
    let part: Part
    init(part: Part) { self.part = part }
}

private final class Queue: Sendable {
    let store: Store
    init(store: Store) { self.store = store }
}

private final class Workers: Sendable {
    let queue: Queue
    let metrics: Part
    init(queue: Queue, metrics: Part) {
        self.queue = queue
        self.metrics = metrics
    }
}

@Suite("Lifecycle: start, shutdown, disposal")
struct LifecycleTests {
    /// Database <- Store <- Queue <- Workers -> Metrics, each a started service (Store, Queue and Workers
    /// through binding hooks, Database and Metrics as ManagedService).
    private static func daemon(
        log: EventLog,
        failing: String? = nil,
        failingStop: Set<String> = [],
        stuckStop: String? = nil
    ) -> ClosureModule {
        ClosureModule { binder in
            binder.bind(Part.self).to {
                Part(
                    "Database", log: log, failsToStart: failing == "Database",
                    failsToStop: failingStop.contains("Database"))
            }.in(.singleton)
            binder.bind(Part.self, named: "metrics").to {
                Part(
                    "Metrics", log: log, failsToStart: failing == "Metrics",
                    failsToStop: failingStop.contains("Metrics"))
            }.in(.singleton)
            binder.bind(Store.self).to(Store.init(part:)).in(.singleton)
                .onStart { _ in
                    if failing == "Store" { throw ExpectedFailure(id: 3) }
                    log.append("start Store")
                }
                .onStop { _ in
                    log.append("stop Store")
                    if failingStop.contains("Store") { throw ExpectedFailure(id: 4) }
                }
            binder.bind(Queue.self).to(Queue.init(store:)).in(.singleton)
                .onStart { _ in log.append("start Queue") }
                .onStop { _ in
                    if stuckStop == "Queue" {
                        // Ignores cancellation on purpose: only the timeout ends the wait for it.
                        await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
                    }
                    log.append("stop Queue")
                }
            binder.bind(Workers.self).to { resolver in
                Workers(queue: try resolver.get(Queue.self), metrics: try resolver.get(Part.self, named: "metrics"))
            }.in(.singleton)
                .onStart { _ in log.append("start Workers") }
                .onStop { _ in log.append("stop Workers") }
        }
    }

    @Test("start runs hooks after the services they depend on; shutdown stops in reverse and disposes once")
    func startAndShutdownOrder() async throws {
        let log = EventLog()
        let injector = try Injector(Self.daemon(log: log))
        try await injector.start()
        let started = log.with("start ")
        #expect(Set(started) == ["Database", "Store", "Queue", "Workers", "Metrics"])
        let order = injector.startedServices
        #expect(order.count == 5)
        func before(_ a: String, _ b: String) -> Bool {
            (started.firstIndex(of: a) ?? .max) < (started.firstIndex(of: b) ?? .min)
        }
        #expect(before("Database", "Store"))
        #expect(before("Store", "Queue"))
        #expect(before("Queue", "Workers"))
        #expect(before("Metrics", "Workers"))

        try await injector.shutdown()
        #expect(log.with("stop ").count == 5)
        #expect(stopKeys(log.with("stop ")) == order.reversed())
        // Disposal after every stop, newest instance first: Metrics and Database are the Disposable ones.
        #expect(log.with("dispose ") == ["Metrics", "Database"])
        #expect(log.all.suffix(2) == ["dispose Metrics", "dispose Database"])

        // Exactly once, however often shutdown is called.
        try await injector.shutdown()
        #expect(log.with("stop ").count == 5)
        #expect(log.with("dispose ").count == 2)
    }

    @Test("independent services start concurrently")
    func independentServicesStartConcurrently() async throws {
        let bothStarting = AsyncBarrier(count: 2)
        let log = EventLog()
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Engine.self).to(Engine.init).in(.singleton)
                        .onStart { _ in
                            await bothStarting.arrive()
                            log.append("start Engine")
                        }
                    binder.bind(Brakes.self).to(Brakes.init).in(.singleton)
                        .onStart { _ in
                            await bothStarting.arrive()
                            log.append("start Brakes")
                        }
                }
            ],
            configuration: Injector.Configuration(lifecycleHookTimeout: .seconds(20))
        )
        // If the two start hooks ran one after the other, the barrier would never open and the first
        // hook would time out.
        try await injector.start()
        #expect(Set(log.with("start ")) == ["Engine", "Brakes"])
        try await injector.shutdown()
    }

    @Test("a failing start hook stops what had started, in reverse order, and start throws startFailed")
    func failingStartRollsBack() async throws {
        let log = EventLog()
        let injector = try Injector(Self.daemon(log: log, failing: "Queue2"))
        try await injector.start()
        try await injector.shutdown()

        let failingLog = EventLog()
        let failing = try Injector(Self.daemon(log: failingLog, failing: "Store"))
        let error = await #expect(throws: ProvisionError.self) { try await failing.start() }
        #expect(error?.code == .startFailed)
        #expect(error?.underlyingErrors.first?.cause as? ExpectedFailure == ExpectedFailure(id: 3))
        let started = failingLog.with("start ")
        #expect(!started.contains("Store"))
        #expect(!started.contains("Queue"))
        // Database and Metrics started concurrently: both stopped again, one at a time.
        #expect(Set(failingLog.with("stop ")) == Set(started))
        #expect(failingLog.with("stop ").count == started.count)
        // Shutdown after a failed start stops nothing more, and disposes what was built.
        try await failing.shutdown()
        #expect(failingLog.with("stop ").count == started.count)
        #expect(failingLog.with("dispose ") == ["Metrics", "Database"])
    }

    @Test("shutdown continues past failing and stuck stop hooks, collecting every failure in one error")
    func shutdownContinuesPastFailures() async throws {
        let log = EventLog()
        let injector = try Injector(
            modules: [Self.daemon(log: log, failingStop: ["Store", "Database"], stuckStop: "Queue")],
            configuration: Injector.Configuration(lifecycleHookTimeout: .milliseconds(200))
        )
        try await injector.start()
        let order = injector.startedServices
        let error = await #expect(throws: ProvisionError.self) { try await injector.shutdown() }
        #expect(error?.code == .stopFailed)
        let codes = error?.underlyingErrors.map(\.code) ?? []
        #expect(codes.filter { $0 == .timedOut }.count == 1)
        #expect(codes.filter { $0 == .factoryFailed }.count == 2)
        #expect(error?.underlyingErrors.contains { $0.key == BindingKey(Queue.self) && $0.code == .timedOut } == true)
        // Every service but the stuck one logged its stop, in reverse order; disposal still happened.
        #expect(stopKeys(log.with("stop ")) == order.reversed().filter { $0 != BindingKey(Queue.self) })
        #expect(log.with("dispose ") == ["Metrics", "Database"])
    }

    @Test("after shutdown every request throws shutDown, also through scopes, children and handles")
    func requestsAfterShutdown() async throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Engine.self).to(Engine.init).in(.singleton)
                binder.bind(Brakes.self).to(Brakes.init)
            }
        )
        let child = try injector.makeChild()
        let provider = try injector.syncGet(Provider<Brakes>.self)
        _ = try injector.syncGet(Engine.self)
        try await injector.shutdown()
        let requests: [() throws -> Void] = [
            { _ = try injector.syncGet(Engine.self) },
            { _ = try injector.syncGet(Brakes.self) },
            { _ = try injector.makeScope().syncGet(Brakes.self) },
            { _ = try child.syncGet(Engine.self) },
            { _ = try provider.get() },
        ]
        for request in requests {
            let error = #expect(throws: ProvisionError.self) { try request() }
            #expect(error?.code == .shutDown)
        }
        await #expect(throws: ProvisionError.shutDown(nil)) { try await injector.get(Engine.self) }
        await #expect(throws: ProvisionError.shutDown(nil)) { try await injector.start() }
        #expect(throws: ProvisionError.shutDown(nil)) { try injector.install(ClosureModule { _ in }) }
    }

    @Test("requests racing shutdown get an instance or shutDown; nothing is built after, all is disposed once")
    func shutdownRacingResolution() async throws {
        for _ in 0..<20 {
            let built = Counter()
            let disposed = Counter()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Tracked.self).to { Tracked(built: built, disposed: disposed) }.in(.singleton)
                    binder.bind(Tracked.self, named: "late").to { Tracked(built: built, disposed: disposed) }
                        .in(.singleton)
                    binder.bind(Car.self).to { Car(engine: Engine(), brakes: Brakes()) }
                }
            )
            let start = Barrier(count: 5)
            let stopped = Atomic(false)
            let unexpected = Locked<[String]>([])
            let results = Locked<(values: Int, shutDown: Int)>((0, 0))
            let threads = DispatchGroup()
            for index in 0..<4 {
                threads.enter()
                let thread = Thread {
                    defer { threads.leave() }
                    start.arriveAndWait()
                    var sawShutDown = false
                    while true {
                        do throws(ProvisionError) {
                            _ = try injector.get(Tracked.self, named: index % 2 == 0 ? nil : "late")
                            _ = try injector.get(Car.self)
                            results.withLock { $0.values += 1 }
                            // Once a request saw shutDown, no later request may succeed.
                            if sawShutDown { unexpected.withLock { $0.append("a value after shutDown") } }
                        } catch  where error.code == .shutDown {
                            sawShutDown = true
                            results.withLock { $0.shutDown += 1 }
                            if stopped.load(ordering: .sequentiallyConsistent) { break }
                        } catch {
                            unexpected.withLock { $0.append("\(error.code)") }
                            break
                        }
                    }
                }
                thread.start()
            }
            // Real threads (not the cooperative pool) wait at the barrier, so this short block is safe.
            start.arriveAndWait()
            try await injector.shutdown()
            stopped.store(true, ordering: .sequentiallyConsistent)
            await withCheckedContinuation { continuation in
                threads.notify(queue: .global()) { continuation.resume() }
            }
            #expect(unexpected.withLock { $0 }.isEmpty)
            #expect(results.withLock { $0.shutDown } >= 4)
            // Every singleton built was disposed exactly once; none was built after shutdown.
            #expect(built.value == disposed.value)
            #expect(built.value <= 2)
        }
    }

    @Test("hooks on a binding that is not a singleton are rejected when the injector is created")
    func hooksNeedASingleton() {
        let error = #expect(throws: ProvisionError.self) {
            try Injector(
                ClosureModule { binder in
                    binder.bind(Engine.self).to(Engine.init).in(.scoped).onStart { _ in }
                }
            )
        }
        #expect(error?.code == .invalidLifecycle)
        #expect(error?.key == BindingKey(Engine.self))
    }

    @Test("starting twice is an invalidLifecycle error; async singletons are built by start")
    func startTwiceAndAsyncSingletons() async throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Engine.self).to { _ async in Engine() }.in(.singleton)
            }
        )
        #expect(throws: ProvisionError.requiresAsyncError) { try injector.syncGet(Engine.self) }
        try await injector.start()
        _ = try injector.syncGet(Engine.self)
        let error = await #expect(throws: ProvisionError.self) { try await injector.start() }
        #expect(error?.code == .invalidLifecycle)
        try await injector.shutdown()
    }
}

/// The keys of the parts, stores, queues and workers named in log lines.
private func stopKeys(_ names: [String]) -> [BindingKey] {
    names.map { name in
        switch name {
        case "Database": BindingKey(Part.self)
        case "Metrics": BindingKey(Part.self, named: "metrics")
        case "Store": BindingKey(Store.self)
        case "Queue": BindingKey(Queue.self)
        default: BindingKey(Workers.self)
        }
    }
}

/// Counts how many instances were built and disposed.
private final class Tracked: Disposable {
    let disposed: Counter

    init(built: Counter, disposed: Counter) {
        self.disposed = disposed
        built.increment()
    }

    func dispose() {
        disposed.increment()
    }
}

@Suite("Lifecycle: shutdown waits for builds in flight")
struct ShutdownDrainTests {
    @Test("shutdown from a cancelled task waits for a build in flight, then disposes what it built")
    func shutdownWaitsForABuildInFlight() async throws {
        let building = AsyncLatch()
        let release = AsyncLatch()
        let disposed = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Slow.self).to { _ async in
                    building.open()
                    await release.wait()
                    return Slow(disposed: disposed)
                }.in(.singleton)
            }
        )
        let build = Task { try await injector.get(Slow.self) }
        await building.wait()
        let shutdown = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await injector.shutdown()
        }
        release.open()
        try await shutdown.value
        // The build that was in flight finished and was disposed by the shutdown that waited for it.
        _ = try await build.value
        #expect(disposed.value == 1)
    }
}

private final class Slow: Disposable {
    let disposed: Counter
    init(disposed: Counter) { self.disposed = disposed }
    func dispose() { disposed.increment() }
}
