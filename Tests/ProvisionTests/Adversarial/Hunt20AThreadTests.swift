import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Provision

// Hunt 20A, part 3: many threads arriving at every step. The first request (linking) of deep and wide
// graphs from 8 threads at once, handles used from many threads while their injector is released or
// shut down, and child injectors made and dropped concurrently. Barriers, never sleeps; every wait
// bounded.

// MARK: - Fixtures

/// A singleton that counts its builds and disposals.
final class Hunt20ADisposable: Disposable {
    let builds: Counter
    let disposals: Counter
    init(builds: Counter, disposals: Counter) {
        self.builds = builds
        self.disposals = disposals
        builds.increment()
    }
    func dispose() { disposals.increment() }
}

/// A transient over the disposable singleton.
final class Hunt20AUser: Sendable {
    let resource: Hunt20ADisposable
    init(resource: Hunt20ADisposable) { self.resource = resource }
}

/// Live instances of the children's own singletons.
final class Hunt20AChildCount: Sendable {
    let alive = Atomic(0)
    let built = Atomic(0)
}

final class Hunt20AChildOwned: Sendable {
    let count: Hunt20AChildCount
    init(count: Hunt20AChildCount) {
        self.count = count
        count.built.add(1, ordering: .sequentiallyConsistent)
        count.alive.add(1, ordering: .sequentiallyConsistent)
    }
    deinit { count.alive.subtract(1, ordering: .sequentiallyConsistent) }
}

/// A child's transient over the parent's singleton and the child's own.
final class Hunt20AChildService: Sendable {
    let single: Hunt20ASingle
    let owned: Hunt20AChildOwned
    init(single: Hunt20ASingle, owned: Hunt20AChildOwned) {
        self.single = single
        self.owned = owned
    }
}

/// A barrier for `count` threads: each arrives, then waits (bounded) until all have.
final class Hunt20ABarrier: Sendable {
    private let arrived = Atomic(0)
    let count: Int
    init(_ count: Int) { self.count = count }

    @discardableResult
    func arriveAndWait() -> Bool {
        arrived.add(1, ordering: .sequentiallyConsistent)
        return waitUntil { arrived.load(ordering: .sequentiallyConsistent) >= count }
    }
}

/// Counts the builds of the self-declaring singletons below, per test.
final class Hunt20AJITCount: Sendable {
    let shared = Atomic(0)
    let perChild = Atomic(0)
}

/// A self-declaring singleton over the parent's singleton: its just-in-time binding belongs in the parent.
final class Hunt20AJITShared: Injectable, Sendable {
    static let injection = Injection(Hunt20AJITShared.init(single:count:)).in(.singleton)
    init(single: Hunt20ASingle, count: Hunt20AJITCount) {
        count.shared.add(1, ordering: .sequentiallyConsistent)
    }
}

/// A self-declaring singleton over a key each child binds: one per child.
final class Hunt20AJITPerChild: Injectable, Sendable {
    static let injection = Injection(Hunt20AJITPerChild.init(tail:count:shared:)).in(.singleton)
    init(tail: Hunt20ATail, count: Hunt20AJITCount, shared: Hunt20AJITShared) {
        count.perChild.add(1, ordering: .sequentiallyConsistent)
    }
}

/// A child's transient over both.
final class Hunt20AJITUser: Sendable {
    let shared: Hunt20AJITShared
    let perChild: Hunt20AJITPerChild
    init(shared: Hunt20AJITShared, perChild: Hunt20AJITPerChild) {
        self.shared = shared
        self.perChild = perChild
    }
}

// MARK: - Tests

@Suite("Hunt 20A: many threads at every step", .serialized, .timeLimit(.minutes(3)))
struct Hunt20AThreadTests {
    @Test("8 threads race the first request of a chain of 200 with a singleton every 20 levels: exact builds per level")
    func deepFirstRequestRace() throws {
        let depth = 200
        let (module, ids, state) = Hunt20AChain.make(depth: depth) { $0 % 20 == 10 ? .singleton : .transient }
        let injector = try Injector(module)
        let barrier = Hunt20ABarrier(8)
        let errors = Locked<[ProvisionError]>([])
        #expect(
            runThreads(8, timeout: 120) { _ in
                guard barrier.arriveAndWait() else { return }
                if let error = Hunt20AChain.topError(injector, ids) { errors.withLock { $0.append(error) } }
            })
        #expect(errors.withLock { $0 }.isEmpty, "\(errors.withLock { $0 })")
        let builds = state.levelBuilds.withLock { $0 }
        for level in 0..<depth {
            // Above the first singleton every request builds the level; below it, only that singleton's build.
            #expect(builds[level] == (level < 10 ? 8 : 1), "level \(level): \(String(describing: builds[level]))")
        }
        // 10 singletons stay alive; every transient was released.
        #expect(state.counts.alive == 10)
    }

    @Test("4 threads and 4 tasks race the first request of a transient root of 24 parameters: singletons once")
    func wideFirstRequestMixedRace() async throws {
        let live = Hunt20ALive()
        let injector = try Injector(Hunt20AMixes.module(live))
        let barrier = Hunt20ABarrier(8)
        let failures = Locked<[String]>([])
        let threads = Task.detached {
            runThreads(4, timeout: 60) { _ in
                guard barrier.arriveAndWait() else { return }
                if let error = Hunt20AMixes.appError(injector, Hunt20AMix24.self) {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    // Arrive from a plain thread: the barrier blocks.
                    _ = await Hunt2.thread { barrier.arriveAndWait() }
                    do {
                        _ = try await Hunt20AMixes.appAsync(injector, Hunt20AMix24.self)
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
        }
        #expect(await threads.value)
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        #expect(live.singleBuilt.load(ordering: .sequentiallyConsistent) == 1)
        #expect(live.dbBuilt.load(ordering: .sequentiallyConsistent) == 1)
        #expect(live.fresh.built == 8 * Hunt20AMixes.freshCount(24))
        #expect(live.fresh.alive == 0)
    }

    /// An injector whose only strong reference is in `holder`, and a provider and a weak reference to it.
    static func released<T>(_: T.Type, _ module: ClosureModule) throws -> (Locked<Injector?>, Provider<T>, WeakBox) {
        let injector = try Injector(module)
        let provider = try injector.get(Provider<T>.self)
        return (Locked<Injector?>(injector), provider, WeakBox(injector))
    }

    final class WeakBox: @unchecked Sendable {
        weak var injector: Injector?
        init(_ injector: Injector) { self.injector = injector }
    }

    @Test(
        "Provider.get() from 8 threads while the last reference to the injector is dropped: values or injectorReleased, then injectorReleased",
        arguments: [Scope.transient, .singleton])
    func providerWhileReleased(scope: Scope) throws {
        let live = Hunt20ALive()
        let (holder, provider, weak) = try Self.released(
            Hunt20AFresh.self,
            ClosureModule { binder in binder.bind(Hunt20AFresh.self).to { Hunt20AFresh(live: live) }.in(scope) })
        let barrier = Hunt20ABarrier(9)
        let codes = Locked<[ProvisionError.Code]>([])
        let successes = Atomic(0)
        let done = DispatchGroup()
        for _ in 0..<8 {
            done.enter()
            let thread = Thread {
                defer { done.leave() }
                // One success each before the release.
                do throws(ProvisionError) {
                    _ = try provider.get()
                    successes.add(1, ordering: .sequentiallyConsistent)
                } catch {
                    codes.withLock { $0.append(error.code) }
                }
                barrier.arriveAndWait()
                // Requests racing the release: each holds the injector while it runs, so the
                // injector is freed when the last running request ends.
                for _ in 0..<2_000 {
                    do throws(ProvisionError) {
                        _ = try provider.get()
                    } catch {
                        codes.withLock { $0.append(error.code) }
                        return
                    }
                }
            }
            thread.start()
        }
        barrier.arriveAndWait()
        holder.withLock { $0 = nil }
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(successes.load(ordering: .sequentiallyConsistent) == 8)
        #expect(codes.withLock { $0 }.allSatisfy { $0 == .injectorReleased }, "\(codes.withLock { $0 })")
        #expect(weak.injector == nil, "the injector was freed once the last request ended")
        do {
            _ = try provider.get()
            Issue.record("a provider of a freed injector served")
        } catch {
            #expect(error.code == .injectorReleased)
        }
        #expect(live.fresh.alive == 0, "the singleton was freed with its injector")
    }

    @Test(
        "Lazy.value from 8 threads while the injector is released: one value for all, or injectorReleased; a resolved handle keeps its value"
    )
    func lazyWhileReleased() throws {
        let live = Hunt20ALive()
        for _ in 0..<20 {
            let (holder, _, weak) = try Self.released(
                Hunt20AFresh.self,
                ClosureModule { binder in binder.bind(Hunt20AFresh.self).to { Hunt20AFresh(live: live) } })
            let lazy = try #require(holder.withLock { $0 }).get(Lazy<Hunt20AFresh>.self)
            let barrier = Hunt20ABarrier(9)
            let values = Locked<Set<ObjectIdentifier>>([])
            let codes = Locked<[ProvisionError.Code]>([])
            let done = DispatchGroup()
            for _ in 0..<8 {
                done.enter()
                let thread = Thread {
                    defer { done.leave() }
                    barrier.arriveAndWait()
                    do throws(ProvisionError) {
                        let value = try lazy.value
                        values.withLock { _ = $0.insert(ObjectIdentifier(value)) }
                    } catch {
                        codes.withLock { $0.append(error.code) }
                    }
                }
                thread.start()
            }
            barrier.arriveAndWait()
            holder.withLock { $0 = nil }
            #expect(done.wait(timeout: .now() + 60) == .success)
            #expect(values.withLock { $0 }.count <= 1)
            #expect(codes.withLock { $0 }.allSatisfy { $0 == .injectorReleased }, "\(codes.withLock { $0 })")
            #expect(weak.injector == nil)
            if let resolved = values.withLock({ $0.first }) {
                #expect(ObjectIdentifier(try lazy.value) == resolved, "a resolved handle keeps its value")
            } else {
                #expect(throws: ProvisionError.self) { try lazy.value }
            }
        }
        #expect(live.fresh.built <= 20)
    }

    @Test(
        "Provider.get() from 8 threads while the injector shuts down: a user or shutDown; the resource built and disposed once"
    )
    func providerWhileShuttingDown() async throws {
        for _ in 0..<10 {
            let builds = Counter()
            let disposals = Counter()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Hunt20ADisposable.self).to { Hunt20ADisposable(builds: builds, disposals: disposals) }
                        .in(.singleton)
                    binder.bind(Hunt20AUser.self).to(Hunt20AUser.init(resource:))
                })
            let provider = try await injector.get(Provider<Hunt20AUser>.self)
            let barrier = Hunt20ABarrier(9)
            let codes = Locked<[ProvisionError.Code]>([])
            let users = Atomic(0)
            let threads = Task.detached {
                runThreads(8, timeout: 60) { _ in
                    barrier.arriveAndWait()
                    for _ in 0..<200 {
                        do throws(ProvisionError) {
                            _ = try provider.get()
                            users.add(1, ordering: .sequentiallyConsistent)
                        } catch {
                            codes.withLock { $0.append(error.code) }
                            return
                        }
                    }
                }
            }
            _ = await Hunt2.thread { barrier.arriveAndWait() }
            try await injector.shutdown()
            #expect(await threads.value)
            #expect(codes.withLock { $0 }.allSatisfy { $0 == .shutDown }, "\(codes.withLock { $0 })")
            #expect(builds.value <= 1)
            #expect(disposals.value == builds.value, "built \(builds.value), disposed \(disposals.value)")
            do {
                _ = try provider.get()
                Issue.record("a provider served after shutdown")
            } catch {
                #expect(error.code == .shutDown)
            }
        }
    }

    @Test(
        "8 threads make and drop 25 children each: the parent's singleton once, each child's freed, its provider released"
    )
    func childrenMadeAndDropped() throws {
        let live = Hunt20ALive()
        let count = Hunt20AChildCount()
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt20ASingle.self).to { Hunt20ASingle(live: live) }.in(.singleton)
            })
        let failures = Locked<[String]>([])
        let parentSingle = Locked<Set<ObjectIdentifier>>([])
        #expect(
            runThreads(8, timeout: 120) { _ in
                for _ in 0..<25 {
                    do {
                        let provider: Provider<Hunt20AChildService>
                        do {
                            let child = try parent.makeChild(
                                ClosureModule { binder in
                                    binder.bind(Hunt20AChildOwned.self).to { Hunt20AChildOwned(count: count) }
                                        .in(.singleton)
                                    binder.bind(Hunt20AChildService.self).to(Hunt20AChildService.init(single:owned:))
                                })
                            let service = try child.get(Hunt20AChildService.self)
                            parentSingle.withLock { _ = $0.insert(ObjectIdentifier(service.single)) }
                            if service.owned !== (try child.get(Hunt20AChildOwned.self)) {
                                failures.withLock { $0.append("a child's singleton built twice") }
                            }
                            provider = try child.get(Provider<Hunt20AChildService>.self)
                        }
                        do throws(ProvisionError) {
                            _ = try provider.get()
                            failures.withLock { $0.append("a dropped child's provider served") }
                        } catch {
                            if error.code != .injectorReleased { failures.withLock { $0.append("\(error)") } }
                        }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            })
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 }.prefix(3))")
        #expect(parentSingle.withLock { $0 }.count == 1)
        #expect(live.singleBuilt.load(ordering: .sequentiallyConsistent) == 1)
        #expect(count.built.load(ordering: .sequentiallyConsistent) == 200)
        #expect(count.alive.load(ordering: .sequentiallyConsistent) == 0, "every child's own singleton was freed")
    }

    @Test(
        "4 children, 2 threads each, race the first request of self-declaring singletons: the shared one once, one per child"
    )
    func justInTimeRaceAcrossChildren() throws {
        let live = Hunt20ALive()
        let count = Hunt20AJITCount()
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt20ASingle.self).to { Hunt20ASingle(live: live) }.in(.singleton)
                binder.bind(Hunt20AJITCount.self).toInstance(count)
            })
        let children = try (0..<4).map { _ in
            try parent.makeChild(
                ClosureModule { binder in
                    binder.bind(Hunt20ATail.self).to { Hunt20ATail(live: live) }.in(.singleton)
                    binder.bind(Hunt20AJITUser.self).to(Hunt20AJITUser.init(shared:perChild:))
                })
        }
        let barrier = Hunt20ABarrier(8)
        let users = Locked<[(Int, ObjectIdentifier, ObjectIdentifier)]>([])
        let failures = Locked<[String]>([])
        #expect(
            runThreads(8, timeout: 60) { index in
                guard barrier.arriveAndWait() else { return }
                do throws(ProvisionError) {
                    let user = try children[index % 4].get(Hunt20AJITUser.self)
                    users.withLock {
                        $0.append((index % 4, ObjectIdentifier(user.shared), ObjectIdentifier(user.perChild)))
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            })
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let seen = users.withLock { $0 }
        #expect(seen.count == 8)
        #expect(Set(seen.map(\.1)).count == 1, "one shared singleton for the parent and every child")
        #expect(Set(seen.map(\.2)).count == 4, "one per child")
        for child in 0..<4 {
            #expect(
                Set(seen.filter { $0.0 == child }.map(\.2)).count == 1, "child \(child)'s threads share its instance")
        }
        #expect(count.shared.load(ordering: .sequentiallyConsistent) == 1)
        #expect(count.perChild.load(ordering: .sequentiallyConsistent) == 4)
        #expect(ObjectIdentifier(try parent.get(Hunt20AJITShared.self)) == seen.first?.1)
        #expect(count.shared.load(ordering: .sequentiallyConsistent) == 1)
    }

    @Test(
        "8 tasks race the first async request of singleton roots of 13 to 24 parameters over an async singleton: each built once"
    )
    func asyncWideRace() async throws {
        let live = Hunt20ALive()
        let injector = try Injector(Hunt20AMixes.module(live, tail: .asyncSingleton, rootScope: .singleton))
        let roots = try await withThrowingTaskGroup(of: [ObjectIdentifier].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var ids: [ObjectIdentifier] = []
                    for mix in Hunt20AMixes.wide {
                        ids.append(ObjectIdentifier(try await Hunt20AMixes.appAsync(injector, mix)))
                    }
                    return ids
                }
            }
            return try await group.reduce(into: [[ObjectIdentifier]]()) { $0.append($1) }
        }
        #expect(Set(roots).count == 1, "every task got the same roots")
        #expect(live.tailBuilt.load(ordering: .sequentiallyConsistent) == 1)
        #expect(live.singleBuilt.load(ordering: .sequentiallyConsistent) == 1)
        #expect(live.dbBuilt.load(ordering: .sequentiallyConsistent) == 1)
        let expectedFresh = Hunt20AMixes.wide.map { Hunt20AMixes.freshCount($0.arity) }.reduce(0, +)
        #expect(live.fresh.built == expectedFresh, "each root's transients built once, with it")
    }
}
