import Dispatch
import Synchronization
import Testing

@testable import Provision

@Suite("Resolution observers")
struct ResolutionObserverTests {
    private func injector(observer: RecordingObserver?, _ modules: any Module...) throws -> Injector {
        try Injector(modules: modules, configuration: Injector.Configuration(observer: observer))
    }

    private let transientChain = ClosureModule { binder in
        binder.bind(GraphLogger.self).to(GraphLogger.init)
        binder.bind(GraphStore.self).to(GraphStore.init(logger:))
        binder.bind(GraphService.self).to(GraphService.init(store:))
    }

    @Test("a transient graph of 3 bindings resolved once reports 3 builds, innermost first")
    func transientBuilds() throws {
        let observer = RecordingObserver()
        let injector = try injector(observer: observer, transientChain)
        _ = try injector.get(GraphService.self)
        #expect(observer.lines() == ["built GraphLogger", "built GraphStore", "built GraphService"])
        let events = observer.recorded
        #expect(events.allSatisfy { $0.scope == .transient && $0.error == nil && $0.duration >= .zero })
        // A build's time includes its dependencies'.
        #expect(events[2].duration >= events[1].duration)
        _ = try injector.get(GraphService.self)
        #expect(observer.recorded.count == 6)
    }

    @Test("a singleton reports its one build, not the requests it serves afterwards")
    func singletonBuildsOnce() throws {
        let observer = RecordingObserver()
        let injector = try injector(
            observer: observer,
            ClosureModule { binder in
                binder.bind(GraphLogger.self).to(GraphLogger.init).in(.singleton)
                binder.bind(GraphStore.self).to(GraphStore.init(logger:))
            }
        )
        for _ in 0..<3 { _ = try injector.get(GraphStore.self) }
        _ = try injector.get(GraphLogger.self)
        #expect(observer.lines(.built).filter { $0 == "built GraphLogger" }.count == 1)
        #expect(observer.lines(.built).filter { $0 == "built GraphStore" }.count == 3)
        #expect(observer.recorded.first { $0.key == BindingKey(GraphLogger.self) }?.scope == .singleton)
    }

    @Test("closures, multibindings and child injectors report their builds too")
    func otherBindingKinds() throws {
        let observer = RecordingObserver()
        let parent = try injector(
            observer: observer,
            ClosureModule { binder in
                binder.bind(GraphLogger.self).to { _ in GraphLogger() }.in(.singleton)
                binder.multibind((any GraphPlugin).self).to(GraphPluginA.init)
                binder.multibind((any GraphPlugin).self).toInstance(GraphPluginB())
            }
        )
        _ = try parent.getAll((any GraphPlugin).self)
        // The collection and its constructed element; an instance is never built.
        #expect(observer.lines() == ["built any GraphPlugin (multibinding element)", "built [any GraphPlugin]"])
        let child = try parent.makeChild(ClosureModule { $0.bind(GraphStore.self).to(GraphStore.init(logger:)) })
        _ = try child.get(GraphStore.self)
        #expect(observer.lines().suffix(2) == ["built GraphLogger", "built GraphStore"])
    }

    @Test("a failing build is reported by every binding on the failing path, innermost first")
    func failures() throws {
        let observer = RecordingObserver()
        let injector = try injector(
            observer: observer,
            ClosureModule { binder in
                binder.bind(GraphLogger.self).to { () throws -> GraphLogger in throw ExpectedFailure(id: 3) }
                binder.bind(GraphStore.self).to(GraphStore.init(logger:))
                binder.bind(GraphService.self).to(GraphService.init(store:))
            }
        )
        #expect(throws: ProvisionError.self) { try injector.get(GraphService.self) }
        #expect(observer.lines() == ["failed GraphLogger", "failed GraphStore", "failed GraphService"])
        #expect(observer.recorded.allSatisfy { $0.error?.code == .factoryFailed })
        #expect(observer.lines(.built).isEmpty)
    }

    @Test("a thread that waits for another thread's singleton build reports the wait")
    func singletonWait() throws {
        let observer = RecordingObserver()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let secondRequest = DispatchSemaphore(value: 0)
        let injector = try injector(
            observer: observer,
            ClosureModule { binder in
                binder.bind(GraphLogger.self).to { () -> GraphLogger in
                    entered.signal()
                    release.wait()
                    return GraphLogger()
                }
                .in(.singleton)
            }
        )
        let key = BindingKey(GraphLogger.self)
        let queued = Atomic(false)
        let finished = runThreads(3) { index in
            switch index {
            case 0:
                // Once the builder is inside the factory, starts the second requester, and lets the
                // builder finish once that requester waits on the gate.
                entered.wait()
                secondRequest.signal()
                let waiting = waitUntil {
                    injector.registry.stripe(for: key).withState { $0.gates.values.reduce(0) { $0 + $1.waiters } } == 1
                }
                queued.store(waiting, ordering: .sequentiallyConsistent)
                release.signal()
            case 1:
                _ = try? injector.get(GraphLogger.self)
            default:
                secondRequest.wait()
                _ = try? injector.get(GraphLogger.self)
            }
        }
        #expect(finished)
        let allQueued = queued.load(ordering: .sequentiallyConsistent)
        #expect(allQueued, "the second requester never waited on the gate")
        #expect(observer.lines(.built) == ["built GraphLogger"])
        let waits = observer.recorded.filter { $0.kind == .waitedForSingleton }
        #expect(waits.map(\.key) == [key])
        #expect(waits.first?.scope == .singleton)
        #expect(waits.first?.error == nil, "a wait for a build that succeeded carries no error")
    }

    @Test("a wait that makes the request fail says why: the build it waited for failed, or it timed out")
    func failedWaits() throws {
        for timesOut in [false, true] {
            let observer = RecordingObserver()
            let entered = DispatchSemaphore(value: 0)
            let waiterMayStart = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let waiterDone = DispatchSemaphore(value: 0)
            var configuration = Injector.Configuration(observer: observer)
            // A timeout the waiter reaches while the builder is still held, or one it never reaches.
            configuration.singletonWaitTimeout = timesOut ? .milliseconds(20) : .seconds(60)
            let injector = try Injector(
                modules: [
                    ClosureModule { binder in
                        binder.bind(GraphLogger.self).to { () throws -> GraphLogger in
                            entered.signal()
                            waiterMayStart.signal()
                            _ = release.wait(timeout: .now() + 30)
                            throw ExpectedFailure()
                        }
                        .in(.singleton)
                    }
                ],
                configuration: configuration)
            let key = BindingKey(GraphLogger.self)
            let codes = Locked<[Int: ProvisionError.Code?]>([:])
            let finished = runThreads(3) { index in
                switch index {
                case 0:
                    entered.wait()
                    if timesOut {
                        // The builder is held until the waiter has given up.
                        _ = waiterDone.wait(timeout: .now() + 30)
                    } else {
                        _ = waitUntil {
                            injector.registry.stripe(for: key).withState {
                                $0.gates.values.reduce(0) { $0 + $1.waiters }
                            } == 1
                        }
                    }
                    release.signal()
                default:
                    // The waiter (2) starts once the builder (1) is inside the factory.
                    if index == 2 { waiterMayStart.wait() }
                    do {
                        _ = try injector.get(GraphLogger.self)
                    } catch {
                        codes.withLock { $0[index] = (error as? ProvisionError)?.code }
                    }
                    if index == 2 { waiterDone.signal() }
                }
            }
            #expect(finished)
            let waits = observer.recorded.filter { $0.kind == .waitedForSingleton }
            #expect(waits.map(\.key) == [key])
            let expected: ProvisionError.Code = timesOut ? .timedOut : .factoryFailed
            #expect(waits.first?.error?.code == expected)
            #expect(codes.withLock { $0 } == [1: .factoryFailed, 2: expected])
            #expect(waits.first?.description.hasSuffix(": \(expected)") == true)
        }
    }

    @Test("without an observer, plans are not instrumented: nothing is recorded and nothing is added")
    func noObserver() throws {
        let plain = try injector(observer: nil, transientChain)
        let observer = RecordingObserver()
        let observed = try injector(observer: observer, transientChain)
        _ = try plain.get(GraphService.self)
        #expect(observer.recorded.isEmpty, "an observer of one injector saw another's resolutions")

        // The instrumentation is decided when a binding is linked: without an observer the plan is
        // used as it is.
        let plan = Plan<GraphLogger> { _ in GraphLogger() }
        let unobservedNode = try #require(plain.lookup(BindingKey(GraphLogger.self), as: GraphLogger.self))
        let observedNode = try #require(observed.lookup(BindingKey(GraphLogger.self), as: GraphLogger.self))
        #expect(unobservedNode.observing(plan) === plan)
        #expect(observedNode.observing(plan) !== plan)
        #expect(observer.recorded.isEmpty)
    }

    @Test("events describe themselves in one line")
    func eventDescription() {
        let built = ResolutionEvent(
            kind: .built, key: BindingKey(GraphApp.self), scope: .singleton, duration: .microseconds(3))
        #expect(built.description == "built GraphApp (singleton) in 3.0 µs")
        let failed = ResolutionEvent(
            kind: .failed,
            key: BindingKey(GraphApp.self),
            scope: .transient,
            duration: .zero,
            error: ProvisionError.notBound(BindingKey(GraphLogger.self), path: [])
        )
        #expect(failed.description == "failed GraphApp (transient) after 0 ns: not bound")
        #expect(ResolutionEvent.describe(.nanoseconds(12_345_678)) == "12.3 ms")
        #expect(ResolutionEvent.describe(.milliseconds(1_500)) == "1.5 s")
    }

    @Test("configurations compare observers by identity")
    func configurationEquality() {
        let observer = RecordingObserver()
        #expect(Injector.Configuration(observer: observer) == Injector.Configuration(observer: observer))
        #expect(Injector.Configuration(observer: observer) != Injector.Configuration(observer: RecordingObserver()))
        #expect(Injector.Configuration() != Injector.Configuration(observer: observer))
        #expect(
            Set([Injector.Configuration(observer: observer), Injector.Configuration(observer: observer)]).count == 1)
    }
}
