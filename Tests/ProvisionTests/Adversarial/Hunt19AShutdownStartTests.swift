import Dispatch
import Synchronization
import Testing

@testable import Provision

// Hunt 19 (A): a singleton build that ends after shutdown stopped waiting (its instance refused and
// disposed), property injection that fails (its instance disposed unless held elsewhere), and start()
// leaving singletons with arguments and no defaults to their first request.

// MARK: - Fixtures of this file

protocol Hunt19AResource: Sendable {}

/// Counts its disposals; optionally throws from `dispose()`.
final class Hunt19AConnection: Hunt19AResource, Disposable {
    let disposals = Counter()
    let throwsOnDispose: Bool
    init(throwsOnDispose: Bool = false) { self.throwsOnDispose = throwsOnDispose }
    func dispose() throws {
        disposals.increment()
        if throwsOnDispose { throw Hunt19AFailure() }
    }
}

/// An async-disposable singleton; signals its disposal.
final class Hunt19AAsyncConnection: AsyncDisposable, PropertyInjectable, @unchecked Sendable {
    let disposals = Counter()
    let disposed = DispatchSemaphore(value: 0)
    var settings: Hunt19ASettings?
    static var injectedProperties: [InjectedProperty] { [.inject(\Hunt19AAsyncConnection.settings)] }
    init(ledger: Hunt19ALedger) { ledger.record(self) }
    func dispose() async throws {
        disposals.increment()
        disposed.signal()
    }
}

final class Hunt19ASettings: Sendable {}

struct Hunt19AFailure: Error {}

/// A singleton bound with arguments, a service.
final class Hunt19AWorker: ManagedService {
    let id: Int
    let starts = Counter()
    init(id: Int) { self.id = id }
    func start() async throws { starts.increment() }
    func stop() async throws {}
}

/// Runs `body` on a Dispatch thread; the returned semaphore is signalled when it returns.
func hunt19AThread(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
        body()
        done.signal()
    }
    return done
}

/// A configuration whose shutdown waits at most `hook` for builds in flight.
func hunt19AConfiguration(hook: Duration = .milliseconds(200)) -> Injector.Configuration {
    Injector.Configuration(lifecycleHookTimeout: hook)
}

// MARK: - Tests

@Suite("Hunt19A: refused late builds, failed injections, start() and arguments", .timeLimit(.minutes(1)))
struct Hunt19AShutdownStartTests {
    /// A singleton closure that hands on another singleton (built, recorded, owned by the injector), its
    /// build ending after shutdown stopped waiting. Shutdown disposed the connection; the refusal of the
    /// late build must not dispose it again (ScopesAndLifetimes: shutdown "disposes every Disposable
    /// ... singleton it built, exactly once").
    /// Found by hunt 19, fixed.
    @Test("a late singleton build handing on an already-disposed singleton: not disposed a second time")
    func lateHandOnOfOwnSingletonNotDisposedTwice() async throws {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt19AConnection.self).to { Hunt19AConnection() }.in(.singleton)
                    binder.bind((any Hunt19AResource).self).to(dependencies: [BindingKey(Hunt19AConnection.self)]) {
                        resolver in
                        let connection = try resolver.get(Hunt19AConnection.self)
                        entered.signal()
                        _ = release.wait(timeout: .now() + .seconds(10))
                        return connection
                    }.in(.singleton)
                }
            ], configuration: hunt19AConfiguration())
        let connection = try hunt19ASyncGet(injector, Hunt19AConnection.self)
        let outcome = Locked<ProvisionError?>(nil)
        let done = hunt19AThread {
            do throws(ProvisionError) {
                _ = try hunt19ASyncGet(injector, (any Hunt19AResource).self)
            } catch {
                outcome.withLock { $0 = error }
            }
        }
        #expect(await hunt19AWait(entered))
        try? await injector.shutdown()
        #expect(connection.disposals.value == 1)
        release.signal()
        #expect(await hunt19AWait(done))
        #expect(outcome.withLock { $0 }?.code == .shutDown)
        #expect(
            connection.disposals.value == 1,
            "the connection was disposed \(connection.disposals.value) times: by shutdown, then by the refused build")
    }

    /// The same with an instance binding's value: the caller's, never disposed.
    @Test("a late singleton build handing on an instance binding's value: never disposed")
    func lateHandOnOfInstanceNotDisposed() async throws {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let connection = Hunt19AConnection()
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt19AConnection.self).toInstance(connection)
                    binder.bind((any Hunt19AResource).self).to(dependencies: [BindingKey(Hunt19AConnection.self)]) {
                        resolver in
                        let handedOn = try resolver.get(Hunt19AConnection.self)
                        entered.signal()
                        _ = release.wait(timeout: .now() + .seconds(10))
                        return handedOn
                    }.in(.singleton)
                }
            ], configuration: hunt19AConfiguration())
        let outcome = Locked<ProvisionError?>(nil)
        let done = hunt19AThread {
            do throws(ProvisionError) {
                _ = try hunt19ASyncGet(injector, (any Hunt19AResource).self)
            } catch {
                outcome.withLock { $0 = error }
            }
        }
        #expect(await hunt19AWait(entered))
        try? await injector.shutdown()
        release.signal()
        #expect(await hunt19AWait(done))
        #expect(outcome.withLock { $0 }?.code == .shutDown)
        #expect(connection.disposals.value == 0)
    }

    /// A child's late singleton build handing on its parent's singleton: the child refuses it, the
    /// parent still owns it and disposes it once, at its own shutdown.
    @Test("a child's late build handing on its parent's singleton: disposed once, by the parent")
    func childLateHandOnOfParentSingleton() async throws {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let parent = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt19AConnection.self).to { Hunt19AConnection() }.in(.singleton)
                }
            ], configuration: hunt19AConfiguration())
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind((any Hunt19AResource).self).to(dependencies: [BindingKey(Hunt19AConnection.self)]) {
                    resolver in
                    let handedOn = try resolver.get(Hunt19AConnection.self)
                    entered.signal()
                    _ = release.wait(timeout: .now() + .seconds(10))
                    return handedOn
                }.in(.singleton)
            })
        let connection = try hunt19ASyncGet(parent, Hunt19AConnection.self)
        let outcome = Locked<ProvisionError?>(nil)
        let done = hunt19AThread {
            do throws(ProvisionError) {
                _ = try hunt19ASyncGet(child, (any Hunt19AResource).self)
            } catch {
                outcome.withLock { $0 = error }
            }
        }
        #expect(await hunt19AWait(entered))
        try? await child.shutdown()
        release.signal()
        #expect(await hunt19AWait(done))
        #expect(outcome.withLock { $0 }?.code == .shutDown)
        #expect(connection.disposals.value == 0, "the child disposed its parent's singleton")
        try await parent.shutdown()
        #expect(connection.disposals.value == 1)
    }

    /// A late build's instance whose dispose() throws: disposed once, and the request still fails with
    /// shutDown (never handed out).
    @Test("a late singleton whose dispose() throws: disposed once, the request throws shutDown")
    func lateBuildDisposeThrows() async throws {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let made = Locked<Hunt19AConnection?>(nil)
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt19AConnection.self).to { () -> Hunt19AConnection in
                        entered.signal()
                        _ = release.wait(timeout: .now() + .seconds(10))
                        let connection = Hunt19AConnection(throwsOnDispose: true)
                        made.withLock { $0 = connection }
                        return connection
                    }.in(.singleton)
                }
            ], configuration: hunt19AConfiguration())
        let outcome = Locked<ProvisionError?>(nil)
        let done = hunt19AThread {
            do throws(ProvisionError) {
                _ = try hunt19ASyncGet(injector, Hunt19AConnection.self)
            } catch {
                outcome.withLock { $0 = error }
            }
        }
        #expect(await hunt19AWait(entered))
        try? await injector.shutdown()
        release.signal()
        #expect(await hunt19AWait(done))
        #expect(outcome.withLock { $0 }?.code == .shutDown)
        #expect(made.withLock { $0 }?.disposals.value == 1)
    }

    /// An async-disposable singleton built by its constructor whose property injection fails: the
    /// failed instance is disposed (asynchronously) exactly once; the retry's instance is kept and
    /// disposed once at shutdown.
    @Test("an async-disposable singleton whose property injection fails: disposed once, the retry kept")
    func asyncDisposableInjectionFailure() async throws {
        let failing = Atomic(true)
        let ledger = Hunt19ALedger()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt19ALedger.self).toInstance(ledger)
                binder.bind(Hunt19AAsyncConnection.self).to(Hunt19AAsyncConnection.init(ledger:)).in(.singleton)
                binder.bind(Hunt19ASettings.self).to { () throws -> Hunt19ASettings in
                    if failing.load(ordering: .relaxed) { throw Hunt19AFailure() }
                    return Hunt19ASettings()
                }
            })
        let error = await hunt19AError { () async throws(ProvisionError) in
            try await injector.get(Hunt19AAsyncConnection.self)
        }
        #expect(error?.code == .factoryFailed)
        let first = try #require(ledger.made.first)
        #expect(await hunt19AWait(first.disposed, seconds: 5), "the uninjected instance was never disposed")
        failing.store(false, ordering: .relaxed)
        let kept = try await injector.get(Hunt19AAsyncConnection.self)
        #expect(kept !== first)
        #expect(kept.settings != nil)
        #expect(kept.disposals.value == 0)
        try await injector.shutdown()
        #expect(kept.disposals.value == 1)
        #expect(first.disposals.value == 1)
        #expect(ledger.made.count == 2)
    }

    @Test("start() builds a singleton with arguments and defaults, with the defaults, once")
    func startBuildsArgumentSingletonWithDefaults() async throws {
        let ids = Locked<[Int]>([])
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt19AWorker.self).withArguments(Int.self).to { _, id in
                    ids.withLock { $0.append(id) }
                    return Hunt19AWorker(id: id)
                }.defaults(4).in(.singleton)
            })
        try await injector.start()
        #expect(ids.withLock { $0 } == [4])
        let worker = try injector.get(Hunt19AWorker.self, arguments: 9)
        #expect(worker.id == 4)
        #expect(worker.starts.value == 1)
        #expect(injector.startedServices == [BindingKey(Hunt19AWorker.self)])
        try await injector.shutdown()
    }

    /// ``Injector/start()``: "started here only if such a request built it already".
    @Test("start() starts a no-defaults argument singleton a request built before it, once")
    func startStartsArgumentSingletonBuiltBefore() async throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt19AWorker.self, named: "pinned").withArguments(Int.self).to { _, id in
                    Hunt19AWorker(id: id)
                }.in(.singleton)
                binder.bind(Hunt19AWorker.self).withArguments(Int.self).to { _, id in Hunt19AWorker(id: id) }.in(
                    .singleton)
            })
        let pinned = try injector.get(Hunt19AWorker.self, named: "pinned", arguments: 3)
        try await injector.start()
        #expect(pinned.starts.value == 1)
        #expect(injector.startedServices == [BindingKey(Hunt19AWorker.self, named: "pinned")])
        let later = try injector.get(Hunt19AWorker.self, arguments: 5)
        #expect(later.id == 5)
        #expect(later.starts.value == 0)
        try await injector.shutdown()
    }

    /// One key bound without arguments and with a no-defaults argument list: start() builds the first,
    /// leaves the second, and each request gets its own binding's singleton.
    @Test("start() with one key bound plainly and with arguments: the plain singleton built, the other left")
    func startWithPlainAndArgumentBindings() async throws {
        let builds = Locked<[String]>([])
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt19AWorker.self).to { () -> Hunt19AWorker in
                    builds.withLock { $0.append("plain") }
                    return Hunt19AWorker(id: 0)
                }.in(.singleton)
                binder.bind(Hunt19AWorker.self).withArguments(String.self).to { _, name in
                    builds.withLock { $0.append(name) }
                    return Hunt19AWorker(id: name.count)
                }.in(.singleton)
            })
        try await injector.start()
        #expect(builds.withLock { $0 } == ["plain"])
        let plain = try await injector.get(Hunt19AWorker.self)
        #expect(plain.starts.value == 1)
        let named = try injector.get(Hunt19AWorker.self, arguments: "abc")
        #expect(named.id == 3)
        #expect(builds.withLock { $0 } == ["plain", "abc"])
        try await injector.shutdown()
    }
}

/// The async connections made, in order.
final class Hunt19ALedger: Sendable {
    private let connections = Locked<[Hunt19AAsyncConnection]>([])
    func record(_ connection: Hunt19AAsyncConnection) { connections.withLock { $0.append(connection) } }
    var made: [Hunt19AAsyncConnection] { connections.withLock { $0 } }
}
