import Dispatch
import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

/// Ten disposable singletons, half sync and half async factories, each counting builds and disposals.
final class Hunt29BShutdownGraph: Sendable {
    let builds = (0..<10).map { _ in Hunt29BCounter() }
    let disposals = (0..<10).map { _ in Hunt29BCounter() }
    let asyncDisposals = (0..<10).map { _ in Hunt29BCounter() }

    func module() -> ClosureModule {
        ClosureModule { binder in
            for index in 0..<10 {
                if index.isMultiple(of: 2) {
                    binder.bind(Hunt29BResource.self, named: "\(index)").to { _ in
                        self.builds[index].bump()
                        return Hunt29BResource(disposals: self.disposals[index])
                    }.in(.singleton)
                } else {
                    binder.bind(Hunt29BAsyncResource.self, named: "\(index)").to { _ async in
                        self.builds[index].bump()
                        await Task.yield()
                        return Hunt29BAsyncResource(disposals: self.asyncDisposals[index])
                    }.in(.singleton)
                }
            }
        }
    }

    func request(_ index: Int, from injector: Injector) async -> ProvisionError.Code? {
        do throws(ProvisionError) {
            if index.isMultiple(of: 2) {
                _ = try await injector.get(Hunt29BResource.self, named: "\(index)")
            } else {
                _ = try await injector.get(Hunt29BAsyncResource.self, named: "\(index)")
            }
            return nil
        } catch {
            return error.code
        }
    }
}

// MARK: - Tests

@Suite("Hunt 29B: shutdown while tasks resolve", .timeLimit(.minutes(2)))
struct Hunt29BShutdownTests {
    @Test("shutdown while 100 tasks resolve 10 singletons: no hang, only shutDown errors, each disposed once")
    func shutdownDuringStorm() async throws {
        for _ in 0..<stressRounds(20) {
            let graph = Hunt29BShutdownGraph()
            let injector = try Injector(graph.module())
            let start = AsyncBarrier(count: 101)
            let codes = await withTaskGroup(of: [ProvisionError.Code?].self) { group in
                for task in 0..<100 {
                    group.addTask {
                        await start.arrive()
                        var codes: [ProvisionError.Code?] = []
                        for step in 0..<10 { codes.append(await graph.request((task + step) % 10, from: injector)) }
                        return codes
                    }
                }
                group.addTask {
                    await start.arrive()
                    do throws(ProvisionError) {
                        try await injector.shutdown()
                        return []
                    } catch {
                        return [error.code]
                    }
                }
                var codes: [ProvisionError.Code?] = []
                for await batch in group { codes += batch }
                return codes
            }
            #expect(codes.count == 1000)
            #expect(codes.allSatisfy { $0 == nil || $0 == ProvisionError.Code.shutDown })
            for index in 0..<10 {
                #expect(graph.builds[index].value <= 1)
                let disposed = index.isMultiple(of: 2) ? graph.disposals[index] : graph.asyncDisposals[index]
                #expect(disposed.value == graph.builds[index].value, "singleton \(index)")
            }
            #expect(await graph.request(0, from: injector) == .shutDown)
            #expect(await graph.request(1, from: injector) == .shutDown)
            #expect(
                (try? injector.syncGet(Hunt29BResource.self, named: "2")) == nil
            )
        }
    }

    @Test("shutdown while an async singleton's build is suspended with 99 tasks waiting: waits, disposes it once")
    func shutdownDuringSuspendedBuild() async throws {
        let disposals = Hunt29BCounter()
        let builds = Hunt29BCounter()
        let entered = AsyncLatch()
        let release = AsyncLatch()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29BAsyncResource.self).to { _ async in
                    builds.bump()
                    entered.open()
                    await release.wait()
                    return Hunt29BAsyncResource(disposals: disposals)
                }.in(.singleton)
            })
        let requests = (0..<100).map { _ in
            Task { await hunt29BOutcome { try await injector.get(Hunt29BAsyncResource.self) } }
        }
        await entered.wait()
        let suspended = try await offPool {
            waitUntil(timeout: 10) { injector.gateWaiters(of: Hunt29BAsyncResource.self)?.tasks == 99 }
        }
        #expect(suspended)
        let shutdown = Task { () -> ProvisionError? in
            do throws(ProvisionError) {
                try await injector.shutdown()
                return nil
            } catch { return error }
        }
        let closed = try await offPool { waitUntil(timeout: 10) { injector.lifecycle.isClosed } }
        #expect(closed)
        release.open()
        let shutdownOutcome = try await hunt29BValue(of: shutdown)
        #expect(shutdownOutcome == .some(nil))
        var outcomes: [Hunt29BOutcome?] = []
        for request in requests { outcomes.append(try await hunt29BValue(of: request)) }
        #expect(outcomes.allSatisfy { $0 != nil })
        let instances = Set(
            outcomes.compactMap { outcome -> ObjectIdentifier? in
                if case .instance(let id) = outcome { return id }
                return nil
            })
        #expect(instances.count <= 1)
        #expect(
            outcomes.allSatisfy { outcome in
                if case .instance = outcome { return true }
                return outcome == .failed(.shutDown)
            })
        #expect(builds.value == 1)
        #expect(disposals.value == 1)
        // After shutdown: a clear error, from the async and the sync API.
        let after = await hunt29BOutcome { try await injector.get(Hunt29BAsyncResource.self) }
        #expect(after == .failed(.shutDown))
        let sync = #expect(throws: ProvisionError.self) { try injector.syncGet(Hunt29BAsyncResource.self) }
        #expect(sync?.code == .shutDown)
        // A second shutdown returns at once and disposes nothing again.
        try await injector.shutdown()
        #expect(disposals.value == 1)
    }

    @Test("shutdown while 100 tasks hold scopes resolving disposable scoped actors: every instance disposed once")
    func shutdownWithOpenScopes() async throws {
        let builds = Hunt29BCounter()
        let injector = try Hunt29BActorTests.cacheInjector(builds, scope: .scoped)
        let before = Hunt29BCache.disposals.value
        let start = AsyncBarrier(count: 101)
        let codes = await withTaskGroup(of: [ProvisionError.Code?].self) { group in
            for _ in 0..<100 {
                group.addTask {
                    await start.arrive()
                    do {
                        return try await injector.withScope { scope in
                            _ = try await scope.get(Hunt29BCache.self)
                            return [nil]
                        }
                    } catch let error as ProvisionError {
                        return [error.code]
                    } catch {
                        return [.factoryFailed]
                    }
                }
            }
            group.addTask {
                await start.arrive()
                do {
                    try await injector.shutdown()
                    return []
                } catch let error as ProvisionError {
                    return [error.code]
                } catch {
                    return [.factoryFailed]
                }
            }
            var codes: [ProvisionError.Code?] = []
            for await batch in group { codes += batch }
            return codes
        }
        #expect(codes.count == 100)
        #expect(codes.allSatisfy { $0 == nil || $0 == ProvisionError.Code.shutDown })
        #expect(Hunt29BCache.disposals.value - before == builds.value)
    }
}

@Suite("Hunt 29B: shutdown that stops waiting for a suspended build", .timeLimit(.minutes(2)))
struct Hunt29BShutdownTimeoutTests {
    @Test(
        "shutdown gives up on a suspended async build after its timeout: 50 waiters and the builder get shutDown, one disposal"
    )
    func lateBuildRefused() async throws {
        let disposals = Hunt29BCounter()
        let builds = Hunt29BCounter()
        let entered = AsyncLatch()
        let release = AsyncLatch()
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt29BAsyncResource.self).to { _ async in
                        builds.bump()
                        entered.open()
                        await release.wait()
                        return Hunt29BAsyncResource(disposals: disposals)
                    }.in(.singleton)
                    binder.bind(Hunt29BResource.self).to { _ in Hunt29BResource(disposals: disposals) }.in(.singleton)
                }
            ],
            configuration: Injector.Configuration(lifecycleHookTimeout: .milliseconds(100)))
        let requests = (0..<51).map { _ in
            Task { await hunt29BOutcome { try await injector.get(Hunt29BAsyncResource.self) } }
        }
        await entered.wait()
        let suspended = try await offPool {
            waitUntil(timeout: 10) { injector.gateWaiters(of: Hunt29BAsyncResource.self)?.tasks == 50 }
        }
        #expect(suspended)
        _ = try injector.syncGet(Hunt29BResource.self)
        try await injector.shutdown()
        #expect(disposals.value == 1) // the sync resource
        release.open()
        var outcomes: [Hunt29BOutcome?] = []
        for request in requests { outcomes.append(try await hunt29BValue(of: request)) }
        #expect(outcomes.allSatisfy { $0 == .failed(.shutDown) })
        #expect(builds.value == 1)
        let disposedLate = try await offPool { waitUntil(timeout: 10) { disposals.value == 2 } }
        #expect(disposedLate)
        #expect(await hunt29BOutcome { try await injector.get(Hunt29BAsyncResource.self) } == .failed(.shutDown))
    }
}

/// A managed service whose stop awaits a few suspensions, counting starts and completed stops.
final class Hunt29BService: ManagedService {
    let starts = Hunt29BCounter()
    let stops = Hunt29BCounter()

    func start() async throws {
        starts.bump()
    }

    func stop() async throws {
        for _ in 0..<5 { await Task.yield() }
        stops.bump()
    }
}

@Suite("Hunt 29B: shutdown and scopes ended from cancelled tasks", .timeLimit(.minutes(2)))
struct Hunt29BCancelledTeardownTests {
    @Test("shutdown() called from a cancelled task still stops every service and disposes every singleton once")
    func shutdownFromCancelledTask() async throws {
        let disposals = Hunt29BCounter()
        let service = Hunt29BService()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29BService.self).toInstance(service)
                binder.bind(Hunt29BService.self, named: "built").to { _ in service }.in(.singleton)
                binder.bind(Hunt29BAsyncResource.self).to { _ async in
                    Hunt29BAsyncResource(disposals: disposals)
                }.in(.singleton)
                binder.bind(Hunt29BResource.self).to { _ in Hunt29BResource(disposals: disposals) }.in(.singleton)
            })
        try await injector.start()
        #expect(service.starts.value == 1)
        let go = AsyncLatch()
        let shutdown = Task { () -> ProvisionError? in
            await go.wait()
            do throws(ProvisionError) {
                try await injector.shutdown()
                return nil
            } catch { return error }
        }
        shutdown.cancel()
        go.open()
        let outcome = try await hunt29BValue(of: shutdown)
        #expect(outcome == .some(nil))
        #expect(service.stops.value == 1)
        #expect(disposals.value == 2)
    }

    @Test("withScope whose task is cancelled mid-body: the scope's async and sync instances disposed once")
    func withScopeCancelled() async throws {
        let disposals = Hunt29BCounter()
        let inBody = AsyncLatch()
        let proceed = AsyncLatch()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29BAsyncResource.self).to { _ async in
                    Hunt29BAsyncResource(disposals: disposals)
                }.in(.scoped)
                binder.bind(Hunt29BResource.self).to { _ in Hunt29BResource(disposals: disposals) }.in(.scoped)
            })
        let request = Task { () -> String in
            do {
                return try await injector.withScope { scope in
                    _ = try await scope.get(Hunt29BAsyncResource.self)
                    _ = try await scope.get(Hunt29BResource.self)
                    inBody.open()
                    await proceed.wait()
                    try Task.checkCancellation()
                    return "finished"
                }
            } catch is CancellationError {
                return "cancelled"
            } catch {
                return "\(error)"
            }
        }
        await inBody.wait()
        request.cancel()
        proceed.open()
        #expect(try await hunt29BValue(of: request) == "cancelled")
        #expect(disposals.value == 2)
    }
}
