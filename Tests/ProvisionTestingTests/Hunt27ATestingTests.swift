import Provision
import ProvisionTesting
import Synchronization
import Testing

// Hunt 27A: ProvisionTesting's trait and helper where a test overrides what its suite set up, where
// shutting the injector down fails, where the shared base can't be made, and in the tasks a test starts.

private final class Hunt27ASetting: Sendable {
    let value: Int
    init(value: Int) { self.value = value }
}

private struct Hunt27ADisposeFailure: Error {}

/// A singleton whose disposal throws: the injector's shutdown then fails with `stopFailed`.
private final class Hunt27AFailingDisposal: Disposable, Sendable {
    func dispose() throws { throw Hunt27ADisposeFailure() }
}

private struct Hunt27ABodyFailure: Error, Equatable {}

private struct Hunt27ABaseFailure: Error {}

private struct Hunt27ASettingModule: Module {
    func configure(_ binder: Binder) {
        binder.bind(Hunt27ASetting.self).toInstance(Hunt27ASetting(value: 0))
        binder.bind(Hunt27AFailingDisposal.self).to(Hunt27AFailingDisposal.init).in(.singleton)
    }
}

@Suite(
    "Hunt27A InjectorTrait on a suite and a test",
    .injector(Hunt27ASettingModule()) { $0.override(Hunt27ASetting.self).toInstance(Hunt27ASetting(value: 1)) }
)
struct Hunt27ANestedTraitTests {
    /// A user expects (InjectorTrait: "Add it to a test, or to a suite to give each of its tests ... a new
    /// injector ... with the overrides it needs") that a test that adds its own `.injector(...)` trait
    /// inside a suite that has one sees its own, more specific overrides as `TestInjector.current`, not
    /// the suite's.
    @Test(
        "a test's own injector trait wins over its suite's",
        .injector(Hunt27ASettingModule()) { $0.override(Hunt27ASetting.self).toInstance(Hunt27ASetting(value: 2)) }
    )
    func testTraitWins() throws {
        #expect(try TestInjector.current.get(Hunt27ASetting.self).value == 2)
    }

    /// A user expects (TestInjector: the injector is a task-local value, "and so do the tasks a test
    /// starts with structured concurrency") that child tasks of a task group, and an unstructured `Task`
    /// (which inherits task-local values), see the test's injector, while a detached task sees none.
    @Test("child tasks and Task {} see the suite's injector; a detached task does not")
    func tasksSeeTheInjector() async throws {
        let injector = try TestInjector.current
        let children = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<4 { group.addTask { TestInjector.ifPresent === injector } }
            var all: [Bool] = []
            for await seen in group { all.append(seen) }
            return all
        }
        #expect(children == [true, true, true, true])
        #expect(await Task { TestInjector.ifPresent === injector }.value)
        #expect(await Task.detached { TestInjector.ifPresent == nil }.value)
    }
}

@Suite("Hunt27A withTestInjector and InjectorTrait failures", .timeLimit(.minutes(1)))
struct Hunt27ATestingFailureTests {
    /// A user expects (withTestInjector: "Throws: ... what shutting it down throws (stopFailed) when
    /// `body` succeeded") that a disposal failing at the end of a successful body fails the call with
    /// `stopFailed` naming the failure.
    @Test("withTestInjector: a failing disposal after a successful body throws stopFailed")
    func shutdownFailureAfterSuccess() async throws {
        let error = await #expect(throws: ProvisionError.self) {
            try await withTestInjector(Hunt27ASettingModule()) { injector in
                _ = try await injector.get(Hunt27AFailingDisposal.self)
            }
        }
        #expect(error?.code == .stopFailed)
        #expect(error.map { "\($0)".contains("Hunt27ADisposeFailure") } == true, "\(String(describing: error))")
    }

    /// A user expects (withTestInjector: shutdown errors are thrown "when `body` succeeded"; InjectorTrait
    /// "shuts it down: after a failure of body too (whose error is the one thrown)") that when the body
    /// throws and the disposal fails too, the body's error is what the caller gets, and the injector is
    /// shut down all the same.
    @Test("withTestInjector: the body's error wins over a failing disposal, and the injector is shut down")
    func bodyFailureWins() async throws {
        let kept = Locked<Injector?>(nil)
        await #expect(throws: Hunt27ABodyFailure.self) {
            try await withTestInjector(Hunt27ASettingModule()) { injector in
                kept.withLock { $0 = injector }
                _ = try await injector.get(Hunt27AFailingDisposal.self)
                throw Hunt27ABodyFailure()
            }
        }
        let injector = try #require(kept.withLock { $0 })
        let afterwards = await #expect(throws: ProvisionError.self) { try await injector.get(Hunt27ASetting.self) }
        #expect(afterwards?.code == .shutDown)
    }

    /// A user expects (InjectorTrait: "A failing shutdown fails the test") that the trait's scope throws
    /// `stopFailed` when the test passed but a singleton's disposal failed.
    @Test("the trait: a failing disposal after a passing test fails the test with stopFailed")
    func traitShutdownFailure() async throws {
        let trait: InjectorTrait = .injector(Hunt27ASettingModule())
        let test = try #require(Test.current)
        let error = await #expect(throws: ProvisionError.self) {
            try await trait.provideScope(for: test, testCase: Test.Case.current) {
                _ = try await TestInjector.current.get(Hunt27AFailingDisposal.self)
            }
        }
        #expect(error?.code == .stopFailed)
    }

    /// A user expects (injector(derivedFrom:overriding:): `base` is "evaluated for each test") that when the
    /// shared base can't be made, the test fails with the base's error and its body never runs.
    @Test("derivedFrom: a base that throws fails the test with its error; the body does not run")
    func baseThatThrows() async throws {
        let ran = Atomic<Bool>(false)
        let trait: InjectorTrait = .injector(derivedFrom: try { () throws -> Injector in throw Hunt27ABaseFailure() }())
        {
            _ in
        }
        let test = try #require(Test.current)
        await #expect(throws: Hunt27ABaseFailure.self) {
            try await trait.provideScope(for: test, testCase: Test.Case.current) {
                ran.store(true, ordering: .relaxed)
            }
        }
        let didRun = ran.load(ordering: .relaxed)
        #expect(!didRun)
    }
}

private final class Hunt27AStartedService: ManagedService {
    let events = Locked<[String]>([])
    func start() async throws { events.withLock { $0.append("start") } }
    func stop() async throws { events.withLock { $0.append("stop") } }
}

@Suite("Hunt27A InjectorTrait and started services")
struct Hunt27ATraitServiceTests {
    /// A user expects (InjectorTrait: "Each test's injector is ... shut down after it (stopping its
    /// services ...)") that a test that starts its injector has its services stopped, exactly once, when
    /// the trait's scope ends.
    @Test("a test that starts its injector has its services stopped once after it")
    func startedServicesStop() async throws {
        let trait: InjectorTrait = .injector(
            ClosureModule { $0.bind(Hunt27AStartedService.self).to(Hunt27AStartedService.init).in(.singleton) })
        let test = try #require(Test.current)
        let kept = Locked<Hunt27AStartedService?>(nil)
        try await trait.provideScope(for: test, testCase: Test.Case.current) {
            let injector = try TestInjector.current
            try await injector.start()
            let service = try await injector.get(Hunt27AStartedService.self)
            kept.withLock { $0 = service }
            #expect(service.events.withLock { $0 } == ["start"])
        }
        let service = try #require(kept.withLock { $0 })
        #expect(service.events.withLock { $0 } == ["start", "stop"])
    }
}

/// A shared pool that records its start and stop; a client of it that depends on the setting.
private final class Hunt27ASharedPool: ManagedService {
    let events = Locked<[String]>([])
    func start() async throws { events.withLock { $0.append("start") } }
    func stop() async throws { events.withLock { $0.append("stop") } }
}

private final class Hunt27AClient: ManagedService {
    let pool: Hunt27ASharedPool
    let setting: Hunt27ASetting
    init(pool: Hunt27ASharedPool, setting: Hunt27ASetting) {
        self.pool = pool
        self.setting = setting
    }
    func start() async throws { pool.events.withLock { $0.append("start client \(setting.value)") } }
    func stop() async throws { pool.events.withLock { $0.append("stop client \(setting.value)") } }
}

private enum Hunt27AShared {
    static let injector = Result { () throws(ProvisionError) in
        try Injector(
            ClosureModule { binder in
                binder.bind(Hunt27ASetting.self).toInstance(Hunt27ASetting(value: 0))
                binder.bind(Hunt27ASharedPool.self).to(Hunt27ASharedPool.init).in(.singleton)
                binder.bind(Hunt27AClient.self).to(Hunt27AClient.init(pool:setting:)).in(.singleton)
            }
        )
    }
}

@Suite("Hunt27A InjectorTrait derived from a shared injector, with services")
struct Hunt27ADerivedServiceTests {
    /// A user expects (injector(derivedFrom:overriding:): "Each test's derived injector is shut down after
    /// the test (its own singletons only); base is not"; Injector.overriding: shared singletons "stay this
    /// injector's to start and shut down") that tests which start their derived injectors, one after the
    /// other, start and stop only their own re-created client, never the shared pool, which keeps serving
    /// the next test.
    @Test("tests that start derived injectors start and stop their own client, never the shared pool")
    func derivedStartStopsOnlyItsOwn() async throws {
        let test = try #require(Test.current)
        let shared = try Hunt27AShared.injector.get()
        let pool = try await shared.get(Hunt27ASharedPool.self)
        for value in [1, 2] {
            let trait: InjectorTrait = .injector(derivedFrom: try Hunt27AShared.injector.get()) { binder in
                binder.bind(Hunt27ASetting.self).toInstance(Hunt27ASetting(value: value))
            }
            try await trait.provideScope(for: test, testCase: Test.Case.current) {
                let injector = try TestInjector.current
                try await injector.start()
                let client = try await injector.get(Hunt27AClient.self)
                #expect(client.pool === pool)
                #expect(client.setting.value == value)
            }
        }
        #expect(pool.events.withLock { $0 } == ["start client 1", "stop client 1", "start client 2", "stop client 2"])
    }
}
