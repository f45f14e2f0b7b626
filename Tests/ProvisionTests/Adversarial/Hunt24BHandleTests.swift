import Dispatch
import Foundation
import Testing

@testable import Provision

// Hunt 24B, part 2: handles (Provider, Lazy, ObjectFactory) used from many threads while their injector
// is released or their scope closes: every use resolves the right instance or throws the documented
// error (injectorReleased, outsideScope), never crashes, never answers with another instance.

final class Hunt24BEngine: Sendable {
    let deinits: Counter
    init(deinits: Counter) { self.deinits = deinits }
    deinit { deinits.increment() }
}

final class Hunt24BCar: Sendable {
    let engine: Hunt24BEngine
    init(engine: Hunt24BEngine) { self.engine = engine }
}

final class Hunt24BHandles: Sendable {
    let engines: Provider<Hunt24BEngine>
    let cars: Provider<Hunt24BCar>
    let lazyCar: Lazy<Hunt24BCar>
    let factory: ObjectFactory
    init(
        engines: Provider<Hunt24BEngine>, cars: Provider<Hunt24BCar>, lazyCar: Lazy<Hunt24BCar>, factory: ObjectFactory
    ) {
        self.engines = engines
        self.cars = cars
        self.lazyCar = lazyCar
        self.factory = factory
    }
}

/// A per-request (scoped) service disposed when its scope closes.
final class Hunt24BSession: Disposable {
    let disposals: Counter
    init(disposals: Counter) { self.disposals = disposals }
    func dispose() throws { disposals.increment() }
}

/// A scoped holder of handles to the session: made in a scope, they resolve in it.
final class Hunt24BSessionHandles: Sendable {
    let sessions: Provider<Hunt24BSession>
    let lazySession: Lazy<Hunt24BSession>
    let factory: ObjectFactory
    init(sessions: Provider<Hunt24BSession>, lazySession: Lazy<Hunt24BSession>, factory: ObjectFactory) {
        self.sessions = sessions
        self.lazySession = lazySession
        self.factory = factory
    }
}

/// What one use of a handle gave: an instance's identity, or an error code.
enum Hunt24BOutcome: Equatable, CustomStringConvertible {
    case instance(ObjectIdentifier)
    case failure(ProvisionError.Code)

    init(_ body: () throws(ProvisionError) -> AnyObject) {
        do {
            self = .instance(ObjectIdentifier(try body()))
        } catch {
            self = .failure(error.code)
        }
    }

    var description: String {
        switch self {
        case .instance(let id): "instance \(id)"
        case .failure(let code): "\(code)"
        }
    }
}

/// Starts `count` threads running `body(index)` and returns at once: for tests whose own thread takes part
/// in the race (it arrives at the threads' barrier, then waits with ``wait(_:)``).
enum Hunt24BThreads {
    static func start(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) -> DispatchGroup {
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            let thread = Thread {
                body(index)
                group.leave()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        return group
    }

    /// Whether the threads of `group` finished within `timeout` seconds.
    static func wait(_ group: DispatchGroup, timeout: Double = 60) -> Bool {
        group.wait(timeout: .now() + timeout) == .success
    }
}

@Suite("Hunt 24B: handles across release and close")
struct Hunt24BHandleTests {
    /// The module of the release races: a singleton engine, a transient car needing it, a holder of
    /// handles.
    private static func carModule(deinits: Counter, built: Counter) -> ClosureModule {
        ClosureModule { binder in
            binder.bind(Hunt24BEngine.self).to { () -> Hunt24BEngine in
                built.increment()
                return Hunt24BEngine(deinits: deinits)
            }
            .in(.singleton)
            binder.bind(Hunt24BCar.self).to(Hunt24BCar.init(engine:))
            binder.bind(Hunt24BHandles.self).to(Hunt24BHandles.init(engines:cars:lazyCar:factory:))
        }
    }

    @Test(
        "8 threads use every handle while the injector is released: the one engine or injectorReleased, then only that")
    func handlesWhileInjectorReleased() throws {
        for round in 0..<stressRounds(60) {
            let deinits = Counter()
            let built = Counter()
            var injector: Injector? = try Injector(Self.carModule(deinits: deinits, built: built))
            weak let weakInjector = injector
            let handles = try injector!.get(Hunt24BHandles.self)
            // The engine's identity, without keeping it alive past the injector.
            let engine = ObjectIdentifier(try handles.engines.get())
            // One fresh lazy per use, made before the race.
            let threads = 8
            let uses = 40
            var lazies: [[Lazy<Hunt24BCar>]] = []
            for _ in 0..<threads {
                lazies.append(try (0..<uses).map { _ in try injector!.get(Lazy<Hunt24BCar>.self) })
            }
            // Read lazies keep their car (and engine): the box is emptied once the threads are done.
            let lazyBox = Locked<[[Lazy<Hunt24BCar>]]>(lazies)
            let barrier = Barrier(count: threads + 1)
            let outcomes = Locked<[Int: [Hunt24BOutcome]]>([:])
            let group = Hunt24BThreads.start(threads) { index in
                barrier.arriveAndWait()
                var mine: [Hunt24BOutcome] = []
                for use in 0..<uses {
                    switch (index + use) % 5 {
                    case 0: mine.append(Hunt24BOutcome { () throws(ProvisionError) in try handles.engines.get() })
                    case 1: mine.append(Hunt24BOutcome { () throws(ProvisionError) in try handles.cars.get().engine })
                    case 2:
                        mine.append(
                            Hunt24BOutcome { () throws(ProvisionError) in try handles.factory.get(Hunt24BEngine.self) })
                    case 3:
                        mine.append(
                            Hunt24BOutcome { () throws(ProvisionError) in
                                try lazyBox.withLock { $0[index][use] }.value.engine
                            })
                    default:
                        mine.append(
                            Hunt24BOutcome { () throws(ProvisionError) in
                                try handles.factory.get(Hunt24BCar.self).engine
                            })
                    }
                }
                outcomes.withLock { $0[index] = mine }
            }
            barrier.arriveAndWait()
            injector = nil
            lazies = []
            let finished = Hunt24BThreads.wait(group)
            lazyBox.withLock { $0 = [] }
            #expect(finished, "round \(round) hung")
            for (index, mine) in outcomes.withLock({ $0 }) {
                // Every answer is the engine or injectorReleased; once released, it stays released.
                let bad = mine.filter { $0 != .instance(engine) && $0 != .failure(.injectorReleased) }
                #expect(bad.isEmpty, "round \(round), thread \(index): \(bad)")
                if let first = mine.firstIndex(of: .failure(.injectorReleased)) {
                    #expect(
                        mine[first...].allSatisfy { $0 == .failure(.injectorReleased) },
                        "round \(round), thread \(index): an answer after injectorReleased: \(mine)")
                }
            }
            #expect(weakInjector == nil, "round \(round): the injector outlived its last reference")
            #expect(built.value == 1, "round \(round): the engine was built \(built.value) times")
            #expect(deinits.value == 1, "round \(round): the engine was released \(deinits.value) times")
            // A resolved lazy keeps its value; an unread one throws.
            #expect(throws: ProvisionError.self) { try handles.lazyCar.value }
        }
    }

    @Test(
        "8 threads read one Lazy of a transient while the injector is released: one value for all, built at most once")
    func sharedLazyWhileInjectorReleased() throws {
        for round in 0..<stressRounds(100) {
            let deinits = Counter()
            let built = Counter()
            let cars = Counter()
            var injector: Injector? = try Injector(
                ClosureModule { binder in
                    binder.bind(Hunt24BEngine.self).to { () -> Hunt24BEngine in
                        built.increment()
                        return Hunt24BEngine(deinits: deinits)
                    }
                    binder.bind(Hunt24BCar.self).to { resolver in
                        cars.increment()
                        return Hunt24BCar(engine: try resolver.get())
                    }
                })
            let lazy = try injector!.get(Lazy<Hunt24BCar>.self)
            let barrier = Barrier(count: 9)
            let outcomes = Locked<[Hunt24BOutcome]>([])
            let group = Hunt24BThreads.start(8) { _ in
                barrier.arriveAndWait()
                for _ in 0..<5 {
                    let outcome = Hunt24BOutcome { () throws(ProvisionError) in try lazy.value }
                    outcomes.withLock { $0.append(outcome) }
                }
            }
            barrier.arriveAndWait()
            injector = nil
            let finished = Hunt24BThreads.wait(group)
            #expect(finished, "round \(round) hung")
            let all = outcomes.withLock { $0 }
            let instances = Set(
                all.compactMap { outcome -> ObjectIdentifier? in
                    if case .instance(let id) = outcome { return id }
                    return nil
                })
            #expect(instances.count <= 1, "round \(round): \(instances.count) values from one Lazy")
            #expect(
                all.filter {
                    if case .failure(let code) = $0 { return code != .injectorReleased } else { return false }
                }.isEmpty,
                "round \(round): \(all)")
            #expect(cars.value == instances.count, "round \(round): \(cars.value) cars built, \(instances.count) seen")
            #expect(built.value == cars.value)
            // Once resolved, the handle keeps its value after the injector is gone.
            if let value = try? lazy.value {
                #expect(instances == [ObjectIdentifier(value)])
            } else {
                #expect(instances.isEmpty)
            }
        }
    }

    @Test("8 threads use a scope's handles while the scope closes: its one session or outsideScope, disposed once")
    func scopeHandlesWhileClosing() throws {
        let disposals = Counter()
        let built = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt24BSession.self).to { () -> Hunt24BSession in
                    built.increment()
                    return Hunt24BSession(disposals: disposals)
                }
                .in(.scoped)
                binder.bind(Hunt24BSessionHandles.self).to(Hunt24BSessionHandles.init(sessions:lazySession:factory:))
                binder.bind(Hunt24BEngine.self).to { Hunt24BEngine(deinits: Counter()) }.in(.singleton)
            })
        let rounds = stressRounds(100)
        for round in 0..<rounds {
            let scope = injector.makeScope()
            // Made in the scope, before anything scoped was built.
            let handles = try scope.syncGet(Hunt24BSessionHandles.self)
            let barrier = Barrier(count: 9)
            let outcomes = Locked<[Int: [Hunt24BOutcome]]>([:])
            let group = Hunt24BThreads.start(8) { index in
                barrier.arriveAndWait()
                var mine: [Hunt24BOutcome] = []
                for use in 0..<20 {
                    switch (index + use) % 3 {
                    case 0: mine.append(Hunt24BOutcome { () throws(ProvisionError) in try handles.sessions.get() })
                    case 1:
                        mine.append(
                            Hunt24BOutcome { () throws(ProvisionError) in try handles.factory.get(Hunt24BSession.self) }
                        )
                    default: mine.append(Hunt24BOutcome { () throws(ProvisionError) in try handles.lazySession.value })
                    }
                }
                outcomes.withLock { $0[index] = mine }
            }
            barrier.arriveAndWait()
            try scope.syncClose()
            let finished = Hunt24BThreads.wait(group)
            #expect(finished, "round \(round) hung")
            let all = outcomes.withLock { $0 }
            let instances = Set(
                all.values.joined().compactMap { outcome -> ObjectIdentifier? in
                    if case .instance(let id) = outcome { return id }
                    return nil
                })
            #expect(instances.count <= 1, "round \(round): \(instances.count) sessions in one scope")
            for (index, mine) in all {
                let bad = mine.filter {
                    if case .failure(let code) = $0 { return code != .outsideScope }
                    return false
                }
                #expect(bad.isEmpty, "round \(round), thread \(index): \(bad)")
            }
            #expect(built.value == round + 1 || built.value == round, "round \(round): built \(built.value)")
            #expect(disposals.value == built.value, "round \(round): \(built.value) built, \(disposals.value) disposed")
            // After the close: scoped keys are outsideScope, the rest resolves, a read lazy keeps its value.
            let after = Hunt24BCatch.error { () throws(ProvisionError) in try handles.sessions.get() }
            #expect(after?.code == .outsideScope)
            let viaFactory = Hunt24BCatch.error { () throws(ProvisionError) in
                try handles.factory.get(Hunt24BSession.self)
            }
            #expect(viaFactory?.code == .outsideScope)
            #expect((try? handles.factory.get(Hunt24BEngine.self)) != nil)
            if let read = try? handles.lazySession.value {
                #expect(instances == [ObjectIdentifier(read)])
            }
            if built.value == round {
                // Nothing was built in this scope: keep the counts aligned with the rounds.
                built.increment()
                disposals.increment()
            }
        }
    }

    @Test("a handle of a closed scope whose scope and injector are released: injectorReleased, never a crash")
    func handleOutlivingScopeAndInjector() throws {
        var injector: Injector? = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt24BSession.self).to { Hunt24BSession(disposals: Counter()) }.in(.scoped)
                binder.bind(Hunt24BSessionHandles.self).to(Hunt24BSessionHandles.init(sessions:lazySession:factory:))
            })
        var scope: ServiceScope? = injector!.makeScope()
        let handles = try scope!.syncGet(Hunt24BSessionHandles.self)
        let session = try handles.sessions.get()
        #expect(try handles.lazySession.value === session)
        try scope!.syncClose()
        // Closed but alive: outsideScope.
        #expect(Hunt24BCatch.error { () throws(ProvisionError) in try handles.sessions.get() }?.code == .outsideScope)
        scope = nil
        // Released scope, live injector: outsideScope, worded for a handle.
        let gone = Hunt24BCatch.error { () throws(ProvisionError) in try handles.sessions.get() }
        #expect(gone?.code == .outsideScope, "\(String(describing: gone))")
        injector = nil
        let released = Hunt24BCatch.error { () throws(ProvisionError) in try handles.sessions.get() }
        #expect(released?.code == .injectorReleased, "\(String(describing: released))")
        let releasedFactory = Hunt24BCatch.error { () throws(ProvisionError) in
            try handles.factory.get(Hunt24BSession.self, arguments: 1)
        }
        #expect(releasedFactory?.code == .injectorReleased, "\(String(describing: releasedFactory))")
        // The read lazy keeps its value.
        #expect(try handles.lazySession.value === session)
    }
}
