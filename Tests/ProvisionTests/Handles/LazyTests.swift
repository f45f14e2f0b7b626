import Dispatch
import Synchronization
import Testing

@testable import Provision

private final class Widget: Sendable {
    let id: Int

    init(id: Int) {
        self.id = id
    }
}

/// A singleton that hands out its lazy handle of `Selfish` to whatever is being built.
private final class Holder: Sendable {
    let selfish: Lazy<Selfish>

    init(selfish: Lazy<Selfish>) {
        self.selfish = selfish
    }
}

/// Reads, while it is being built, the very lazy handle that is building it.
private final class Selfish: Sendable {
    init(holder: Holder) throws {
        _ = try holder.selfish.value
    }
}

/// Something `Selfish` builds (through its closure binding) that reads the handle.
private final class Helper: Sendable {
    init(holder: Holder) throws {
        _ = try holder.selfish.value
    }
}

private protocol LazyShape: AnyObject, Sendable {
    var shape: String { get }
}

/// Counts its deinitializations.
private final class Tracked: LazyShape {
    let released: Counter
    var shape: String { "tracked" }

    init(_ released: Counter) {
        self.released = released
    }

    deinit {
        released.increment()
    }
}

/// A value that is not one reference: published in a box.
private struct LazyPair: Sendable {
    let tracked: Tracked
    let number: Int
}

@Suite("Lazy handles")
struct LazyTests {
    @Test("lazyWaiterGetsLaterSuccess: after a failed read, a thread waiting on a later successful read gets its value")
    func lazyWaiterGetsLaterSuccess() throws {
        let calls = Counter()
        let entered = DispatchSemaphore(value: 0)
        let slot = Locked<Lazy<Widget>?>(nil)
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Widget.self).to { _ in
                    let call = calls.increment()
                    if call == 1 { throw ExpectedFailure(id: 1) }
                    entered.signal()
                    // The read in flight ends only once the third thread waits for it.
                    #expect(waitUntil { slot.withLock { $0 }?.waitingReaders == 1 })
                    return Widget(id: call)
                }
            }
        )
        let lazy = try injector.get(Lazy<Widget>.self)
        slot.withLock { $0 = lazy }
        // The first read fails; the next one tries again.
        let first = #expect(throws: ProvisionError.self) { try lazy.value }
        #expect(first?.code == .factoryFailed)

        let values = Locked<[Int: Result<Widget, ProvisionError>]>([:])
        let finished = runThreads(2, timeout: 60) { index in
            if index == 1 { entered.wait() }
            let result = Result { () throws(ProvisionError) in try lazy.value }
            values.withLock { $0[index] = result }
        }
        #expect(finished)
        let reader = try #require(try values.withLock { $0[0] }?.get())
        let waiter = try #require(try values.withLock { $0[1] }?.get())
        #expect(waiter === reader)
        #expect(reader.id == 2)
        #expect(calls.value == 2)
        #expect(try lazy.value === reader)
        slot.withLock { $0 = nil }
    }

    @Test("readers waiting on a failed read get its error; the next read tries again")
    func waitersOfAFailedReadGetItsError() throws {
        let calls = Counter()
        let entered = DispatchSemaphore(value: 0)
        let slot = Locked<Lazy<Widget>?>(nil)
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Widget.self).to { _ in
                    let call = calls.increment()
                    guard call == 1 else { return Widget(id: call) }
                    entered.signal()
                    #expect(waitUntil { slot.withLock { $0 }?.waitingReaders == 2 })
                    throw ExpectedFailure(id: 1)
                }
            }
        )
        let lazy = try injector.get(Lazy<Widget>.self)
        slot.withLock { $0 = lazy }
        let codes = Locked<[ProvisionError.Code]>([])
        let finished = runThreads(3, timeout: 60) { index in
            // Each waiting thread passes the factory's one signal on to the other, whichever wakes first.
            if index > 0 {
                entered.wait()
                entered.signal()
            }
            do throws(ProvisionError) {
                _ = try lazy.value
            } catch {
                codes.withLock { $0.append(error.code) }
            }
        }
        #expect(finished)
        #expect(codes.withLock { $0 } == [.factoryFailed, .factoryFailed, .factoryFailed])
        #expect(calls.value == 1)
        #expect(try lazy.value.id == 2)
        slot.withLock { $0 = nil }
    }

    @Test("threads reading one lazy handle of a transient binding share one instance, built once")
    func concurrentReadsOfATransient() throws {
        let threads = 8
        let rounds = 200
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Widget.self).to { _ in Widget(id: builds.increment()) }
            }
        )
        let start = Barrier(count: threads)
        for round in 1...rounds {
            let lazy = try injector.get(Lazy<Widget>.self)
            let seen = Locked<Set<ObjectIdentifier>>([])
            let failures = Counter()
            let finished = runThreads(threads, timeout: 60) { _ in
                start.arriveAndWait()
                if let widget = try? lazy.value {
                    seen.withLock { _ = $0.insert(ObjectIdentifier(widget)) }
                } else {
                    failures.increment()
                }
            }
            #expect(finished)
            #expect(failures.value == 0)
            #expect(seen.withLock { $0.count } == 1)
            #expect(builds.value == round, "the factory ran exactly once per handle")
        }
    }

    /// The module of the re-entrant reads: `Selfish` transient (a constructor, or a closure building a
    /// `Helper` that reads the handle) or singleton.
    private static func selfishModule(singleton: Bool = false, throughHelper: Bool = false) -> ClosureModule {
        ClosureModule { binder in
            binder.bind(Holder.self).to(Holder.init(selfish:)).in(.singleton)
            binder.bind(Helper.self).to(Helper.init(holder:))
            let selfish =
                throughHelper
                ? binder.bind(Selfish.self).to { resolver in
                    _ = try resolver.get(Helper.self)
                    return try Selfish(holder: resolver.get(Holder.self))
                }
                : binder.bind(Selfish.self).to(Selfish.init(holder:))
            if singleton { selfish.in(.singleton) }
        }
    }

    @Test(
        "lazyReadDuringOwnConstruction: reading a lazy handle while it builds its own value is a cycle error",
        arguments: [
            (false, false, "Selfish -> Selfish"),
            (false, true, "Selfish -> Helper -> Selfish"),
            (true, false, "Selfish -> Selfish"),
        ]
    )
    func lazyReadDuringOwnConstruction(singleton: Bool, throughHelper: Bool, path: String) throws {
        let injector = try Injector(Self.selfishModule(singleton: singleton, throughHelper: throughHelper))
        let holder = try injector.get(Holder.self)
        let error = Locked<ProvisionError?>(nil)
        // On a thread of its own, so that a regression (a deadlock) fails the test instead of hanging it.
        let finished = runThreads(1, timeout: 30) { _ in
            do throws(ProvisionError) {
                _ = try holder.selfish.value
            } catch let thrown {
                error.withLock { $0 = thrown }
            }
        }
        #expect(finished, "the re-entrant read deadlocked")
        let thrown = try #require(error.withLock { $0 })
        #expect(thrown.code == .cycle)
        #expect(thrown.pathDescription == path)
        if !singleton {
            #expect(thrown.message.contains("a Lazy handle of Selfish was read while that handle was resolving"))
        }
        // The handle is left unresolved: the next read tries again (and finds the same cycle).
        #expect(throws: ProvisionError.self) { try holder.selfish.value }
    }

    @Test("lazyReadDuringOwnConstruction, async: a read from async code re-entering its own build is a cycle error")
    func lazyReadDuringOwnConstructionAsync() async throws {
        let injector = try Injector(
            Self.selfishModule(),
            ClosureModule { binder in
                // An async factory that reads the handle: the read runs inside an async resolution.
                binder.bind(Widget.self).to { resolver async throws in
                    await Task.yield()
                    let holder = try await resolver.get(Holder.self)
                    _ = try holder.selfish.value
                    return Widget(id: 0)
                }
            }
        )
        let finished = Task {
            let error = await #expect(throws: ProvisionError.self) { try await injector.get(Widget.self) }
            #expect(error?.code == .cycle)
            #expect(error?.pathDescription == "Widget -> Selfish -> Selfish")
        }
        // A watchdog: a deadlocked read would leave the task unfinished, not the suite hanging.
        let done = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await finished.value
                return true
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(30))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        #expect(done, "the re-entrant read deadlocked")
    }

    @Test("a lazy read of a singleton in a cross-thread cycle of waits is a cycle error, never a deadlock")
    func crossThreadCycleThroughALazySingleton() throws {
        final class Left: Sendable {}
        final class Right: Sendable {}
        let rounds = 200
        for _ in 0..<rounds {
            let barrier = Barrier(count: 2)
            let injector = try Injector(
                ClosureModule { binder in
                    // Thread 0 reads Lazy<Left>; Left's factory needs Right. Thread 1 builds Right, whose
                    // factory reads the same Lazy<Left>.
                    binder.bind(Left.self).to { resolver in
                        barrier.arriveAndWait()
                        _ = try resolver.get(Right.self)
                        return Left()
                    }.in(.singleton)
                    binder.bind(Lazy<Left>.self, named: "shared").to { resolver in try resolver.get(Lazy<Left>.self) }
                        .in(.singleton)
                    binder.bind(Right.self).to { resolver in
                        barrier.arriveAndWait()
                        _ = try resolver.get(Lazy<Left>.self, named: "shared").value
                        return Right()
                    }.in(.singleton)
                }
            )
            let lazy = try injector.get(Lazy<Left>.self, named: "shared")
            let codes = Locked<[ProvisionError.Code]>([])
            let finished = runThreads(2, timeout: 30) { index in
                do throws(ProvisionError) {
                    if index == 0 { _ = try lazy.value } else { _ = try injector.get(Right.self) }
                } catch {
                    codes.withLock { $0.append(error.code) }
                }
            }
            #expect(finished, "a round deadlocked")
            if !finished { return }
            let all = codes.withLock { $0 }
            #expect(all.count == 2)
            #expect(all.contains(.cycle))
        }
    }

    @Test("a lazy read of a transient waiting on a read that waits for it times out with singletonWaitTimeout")
    func crossThreadWaitOnATransientReadTimesOut() throws {
        final class Slow: Sendable {}
        final class Gate: Sendable {}
        let barrier = Barrier(count: 2)
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    // Thread 0 reads Lazy<Slow> (transient); Slow's factory needs the singleton Gate, which
                    // thread 1 builds by reading the same handle: each waits for the other.
                    binder.bind(Lazy<Slow>.self, named: "shared").to { resolver in try resolver.get(Lazy<Slow>.self) }
                        .in(.singleton)
                    binder.bind(Slow.self).to { resolver in
                        barrier.arriveAndWait()
                        _ = try resolver.get(Gate.self)
                        return Slow()
                    }
                    binder.bind(Gate.self).to { resolver in
                        barrier.arriveAndWait()
                        _ = try resolver.get(Lazy<Slow>.self, named: "shared").value
                        return Gate()
                    }.in(.singleton)
                }
            ],
            configuration: Injector.Configuration(singletonWaitTimeout: .milliseconds(200))
        )
        let lazy = try injector.get(Lazy<Slow>.self, named: "shared")
        let codes = Locked<[ProvisionError.Code]>([])
        let finished = runThreads(2, timeout: 30) { index in
            do throws(ProvisionError) {
                if index == 0 { _ = try lazy.value } else { _ = try injector.get(Gate.self) }
            } catch {
                codes.withLock { $0.append(error.code) }
            }
        }
        #expect(finished, "the cycle of waits hung")
        let all = codes.withLock { $0 }
        #expect(all.count == 2)
        #expect(all.allSatisfy { $0 == .timedOut || $0 == .cycle })
        #expect(all.contains(.timedOut))
    }

    @Test("a resolved handle reads back a class, an existential or a struct, and releases it once")
    func lazyValueOfEveryShape() throws {
        let released = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Tracked.self).to { _ in Tracked(released) }
                binder.bind((any AnyObject & Sendable).self).to { _ in Tracked(released) }
                binder.bind((any LazyShape).self).to { _ in Tracked(released) }
                binder.bind(LazyPair.self).to { _ in LazyPair(tracked: Tracked(released), number: 7) }
                binder.bind(String.self).to { _ in "text" }
            }
        )
        do {
            let object = try injector.get(Lazy<Tracked>.self)
            let anyObject = try injector.get(Lazy<any AnyObject & Sendable>.self)
            let existential = try injector.get(Lazy<any LazyShape>.self)
            let pair = try injector.get(Lazy<LazyPair>.self)
            let text = try injector.get(Lazy<String>.self)
            // The first read resolves and publishes; the second reads what was published.
            #expect(try object.value === object.value)
            #expect(try anyObject.value === anyObject.value)
            #expect(try existential.value === existential.value)
            #expect(try existential.value.shape == "tracked")
            #expect(try pair.value.tracked === pair.value.tracked)
            #expect(try pair.value.number == 7)
            #expect(try text.value == "text")
            #expect(try text.value == "text")
            withExtendedLifetime((object, anyObject, existential, pair)) {
                #expect(released.value == 0)
            }
        }
        // Each handle held its value once: freed with the handles (transients: nothing else holds them).
        #expect(released.value == 4)
    }
}
