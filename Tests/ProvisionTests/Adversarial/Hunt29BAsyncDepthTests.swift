import Dispatch
import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

struct Hunt29BFailure: Error, Equatable {
    let level: Int
}

protocol Hunt29BDB: Sendable {
    func query() async -> Int
}

final class Hunt29BPostgres: Hunt29BDB {
    let port: Int
    /// An async initializer, as a connection's.
    init(port: Int) async throws {
        await Task.yield()
        if port < 0 { throw Hunt29BFailure(level: port) }
        self.port = port
    }

    func query() async -> Int { port }
}

final class Hunt29BOrderStore: Sendable {
    let db: any Hunt29BDB
    init(db: any Hunt29BDB) async {
        await Task.yield()
        self.db = db
    }
}

final class Hunt29BApp: Sendable {
    let store: Hunt29BOrderStore
    init(store: Hunt29BOrderStore) {
        self.store = store
    }
}

/// One link of a chain of named async bindings.
final class Hunt29BLink: Sendable {
    let level: Int
    let next: Hunt29BLink?
    init(level: Int, next: Hunt29BLink?) {
        self.level = level
        self.next = next
    }

    var depth: Int { 1 + (next?.depth ?? 0) }
}

// MARK: - Tests

@Suite("Hunt 29B: async initializers and throwing async factories at every depth", .timeLimit(.minutes(2)))
struct Hunt29BAsyncDepthTests {
    static func appInjector(port: Int, scope: Scope = .transient) throws -> Injector {
        try Injector(
            ClosureModule { binder in
                binder.bind(Int.self, named: "port").toInstance(port)
                binder.bind((any Hunt29BDB).self).to { resolver async throws in
                    let port = try await resolver.get(Int.self, named: "port")
                    return try await Hunt29BPostgres(port: port)
                }.in(scope)
                binder.bind(Hunt29BOrderStore.self).to { resolver async throws in
                    await Hunt29BOrderStore(db: try await resolver.get((any Hunt29BDB).self))
                }
                binder.bind(Hunt29BApp.self).to(Hunt29BApp.init(store:))
            })
    }

    @Test(
        "async initializers awaited at every level build App -> Store -> any DB",
        arguments: [Scope.transient, .singleton])
    func asyncInitializersBuild(scope: Scope) async throws {
        let injector = try Self.appInjector(port: 5432, scope: scope)
        let app = try await injector.get(Hunt29BApp.self)
        #expect(await app.store.db.query() == 5432)
    }

    @Test("an async initializer throwing at the bottom: factoryFailed, path App -> Store -> any DB, in Swift syntax")
    func bottomThrows() async throws {
        let injector = try Self.appInjector(port: -3)
        let error = await #expect(throws: ProvisionError.self) { try await injector.get(Hunt29BApp.self) }
        #expect(error?.code == .factoryFailed)
        #expect(
            error?.path == [
                BindingKey(Hunt29BApp.self), BindingKey(Hunt29BOrderStore.self), BindingKey((any Hunt29BDB).self),
            ])
        #expect(error?.pathDescription == "Hunt29BApp -> Hunt29BOrderStore -> any Hunt29BDB")
        #expect((error?.cause as? Hunt29BFailure) == Hunt29BFailure(level: -3))
        #expect(error?.key == BindingKey((any Hunt29BDB).self))
        // The sync API names the same path, but for needing an await.
        let sync = #expect(throws: ProvisionError.self) { try injector.syncGet(Hunt29BApp.self) }
        #expect(sync?.code == .requiresAsync)
        #expect(sync?.path.first == BindingKey(Hunt29BApp.self))
    }

    /// A chain of `depth` named async closures (level 0 on top), awaiting before and after each
    /// request; the bottom one throws when `failing`.
    static func chainInjector(depth: Int, failing: Bool, scope: Scope, calls: Hunt29BCounter) throws -> Injector {
        try Injector(
            ClosureModule { binder in
                for level in 0..<depth {
                    binder.bind(Hunt29BLink.self, named: "\(level)").to { resolver async throws in
                        calls.bump()
                        await Task.yield()
                        if level == depth - 1 {
                            if failing { throw Hunt29BFailure(level: level) }
                            return Hunt29BLink(level: level, next: nil)
                        }
                        let next = try await resolver.get(Hunt29BLink.self, named: "\(level + 1)")
                        await Task.yield()
                        return Hunt29BLink(level: level, next: next)
                    }.in(scope)
                }
            })
    }

    static func chainKeys(_ depth: Int) -> [BindingKey] {
        (0..<depth).map { BindingKey(Hunt29BLink.self, named: "\($0)") }
    }

    @Test(
        "a throwing async factory 1, 2, 5 and 20 levels down: the whole path, the cause, once per level",
        arguments: [1, 2, 5, 20])
    func chainThrows(depth: Int) async throws {
        for scope in [Scope.transient, .singleton] {
            let calls = Hunt29BCounter()
            let injector = try Self.chainInjector(depth: depth, failing: true, scope: scope, calls: calls)
            let error = await #expect(throws: ProvisionError.self) {
                try await injector.get(Hunt29BLink.self, named: "0")
            }
            #expect(error?.code == .factoryFailed)
            #expect(error?.path == Self.chainKeys(depth))
            #expect((error?.cause as? Hunt29BFailure) == Hunt29BFailure(level: depth - 1))
            #expect(error?.key == BindingKey(Hunt29BLink.self, named: "\(depth - 1)"))
            #expect(calls.value == depth)
            #expect(error?.pathDescription.components(separatedBy: " -> ").count == depth)
            // Nothing failed is kept: a second request runs every level again.
            _ = await #expect(throws: ProvisionError.self) { try await injector.get(Hunt29BLink.self, named: "0") }
            #expect(calls.value == 2 * depth)
        }
    }

    @Test("a 20-deep chain of async singletons: 100 tasks, one build per level", arguments: [5, 20])
    func chainSucceedsOnce(depth: Int) async throws {
        let calls = Hunt29BCounter()
        let injector = try Self.chainInjector(depth: depth, failing: false, scope: .singleton, calls: calls)
        let start = AsyncBarrier(count: 100)
        let depths = await withTaskGroup(of: (Int, ObjectIdentifier)?.self) { group in
            for index in 0..<100 {
                group.addTask {
                    await start.arrive()
                    // Each task enters the chain at its own level.
                    let level = index % depth
                    guard let link = try? await injector.get(Hunt29BLink.self, named: "\(level)") else { return nil }
                    return (link.depth + level, ObjectIdentifier(link))
                }
            }
            var depths: [(Int, ObjectIdentifier)?] = []
            for await outcome in group { depths.append(outcome) }
            return depths
        }
        #expect(depths.allSatisfy { $0?.0 == depth })
        #expect(Set(depths.compactMap { $0?.1 }).count == min(depth, 100))
        #expect(calls.value == depth)
    }

    @Test("49 tasks waiting on a failing 5-deep singleton chain each get the whole path, and no level rebuilds")
    func waitersInheritPath() async throws {
        let calls = Hunt29BCounter()
        let release = AsyncLatch()
        let entered = AsyncLatch()
        let injector = try Injector(
            ClosureModule { binder in
                for level in 0..<5 {
                    binder.bind(Hunt29BLink.self, named: "\(level)").to { resolver async throws in
                        calls.bump()
                        if level == 4 {
                            entered.open()
                            await release.wait()
                            throw Hunt29BFailure(level: level)
                        }
                        return Hunt29BLink(
                            level: level, next: try await resolver.get(Hunt29BLink.self, named: "\(level + 1)"))
                    }.in(.singleton)
                }
            })
        let builder = Task { () -> ProvisionError? in
            do throws(ProvisionError) {
                _ = try await injector.get(Hunt29BLink.self, named: "0")
                return nil
            } catch { return error }
        }
        await entered.wait()
        let waiters = (0..<49).map { _ in
            Task { () -> ProvisionError? in
                do throws(ProvisionError) {
                    _ = try await injector.get(Hunt29BLink.self, named: "0")
                    return nil
                } catch { return error }
            }
        }
        let allWaiting = try await offPool {
            waitUntil(timeout: 10) { injector.gateWaiters(of: Hunt29BLink.self, named: "0")?.tasks == 49 }
        }
        #expect(allWaiting)
        release.open()
        var errors = [await builder.value]
        for waiter in waiters { errors.append(await waiter.value) }
        #expect(errors.count == 50)
        for error in errors {
            #expect(error?.code == .factoryFailed)
            #expect(error?.path == Self.chainKeys(5))
            #expect((error?.cause as? Hunt29BFailure) == Hunt29BFailure(level: 4))
        }
        #expect(calls.value == 5)
    }
}

@Suite("Hunt 29B: waiters entering a failing async chain at their own level", .timeLimit(.minutes(2)))
struct Hunt29BWaiterPathTests {
    @Test("tasks waiting at levels 0, 5, 10 and 19 of a failing 20-deep singleton chain: each its own path")
    func waitersAtEachLevel() async throws {
        let calls = Hunt29BCounter()
        let release = AsyncLatch()
        let entered = AsyncLatch()
        let injector = try Injector(
            ClosureModule { binder in
                for level in 0..<20 {
                    binder.bind(Hunt29BLink.self, named: "\(level)").to { resolver async throws in
                        calls.bump()
                        if level == 19 {
                            entered.open()
                            await release.wait()
                            throw Hunt29BFailure(level: level)
                        }
                        return Hunt29BLink(
                            level: level, next: try await resolver.get(Hunt29BLink.self, named: "\(level + 1)"))
                    }.in(.singleton)
                }
            })
        let builder = Task { () -> ProvisionError? in
            do throws(ProvisionError) {
                _ = try await injector.get(Hunt29BLink.self, named: "0")
                return nil
            } catch { return error }
        }
        await entered.wait()
        let levels = [0, 5, 10, 19]
        let waiters = levels.map { level in
            Task { () -> ProvisionError? in
                do throws(ProvisionError) {
                    _ = try await injector.get(Hunt29BLink.self, named: "\(level)")
                    return nil
                } catch { return error }
            }
        }
        for level in levels {
            let waiting = try await offPool {
                waitUntil(timeout: 10) { injector.gateWaiters(of: Hunt29BLink.self, named: "\(level)")?.tasks == 1 }
            }
            #expect(waiting, "level \(level)")
        }
        release.open()
        let builderError = try #require(await builder.value)
        #expect(builderError.path == Hunt29BAsyncDepthTests.chainKeys(20))
        for (level, waiter) in zip(levels, waiters) {
            let error = try #require(await waiter.value)
            #expect(error.code == .factoryFailed)
            // Each request's error names the path from what it asked for, as for the builder's.
            #expect(error.path == Array(Hunt29BAsyncDepthTests.chainKeys(20)[level...]), "level \(level)")
            #expect((error.cause as? Hunt29BFailure) == Hunt29BFailure(level: 19))
        }
        #expect(calls.value == 20)
    }
}

final class Hunt29BMemoryDB: Hunt29BDB {
    let port: Int
    init(port: Int) {
        self.port = port
    }

    func query() async -> Int { port }
}

/// Resolves through the injector itself (not its resolver) from inside factories.
final class Hunt29BLoop: Sendable {}
final class Hunt29BOther: Sendable {}

@Suite("Hunt 29B: async multibindings and factories that resolve through the injector", .timeLimit(.minutes(2)))
struct Hunt29BAsyncCollectionTests {
    @Test("100 tasks getAll an async multibinding of 5 elements: order kept, each singleton built once")
    func asyncMultibindingStorm() async throws {
        let builds = (0..<5).map { _ in Hunt29BCounter() }
        let injector = try Injector(
            ClosureModule { binder in
                binder.multibind((any Hunt29BDB).self).to { _ async throws in
                    builds[0].bump()
                    return try await Hunt29BPostgres(port: 0)
                }.in(.singleton)
                binder.multibind((any Hunt29BDB).self).to { _ in
                    builds[1].bump()
                    return Hunt29BMemoryDB(port: 1)
                }.in(.singleton)
                binder.multibind((any Hunt29BDB).self).to { _ async throws in
                    builds[2].bump()
                    return try await Hunt29BPostgres(port: 2)
                }
                binder.multibind((any Hunt29BDB).self).toInstance(Hunt29BMemoryDB(port: 3))
                binder.multibind((any Hunt29BDB).self).to { _ async in
                    builds[4].bump()
                    await Task.yield()
                    return Hunt29BMemoryDB(port: 4)
                }.in(.singleton)
            })
        let start = AsyncBarrier(count: 100)
        let ports = await withTaskGroup(of: [Int]?.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    await start.arrive()
                    guard let all = try? await injector.getAll((any Hunt29BDB).self) else { return nil }
                    var ports: [Int] = []
                    for db in all { ports.append(await db.query()) }
                    return ports
                }
            }
            var ports: [[Int]?] = []
            for await outcome in group { ports.append(outcome) }
            return ports
        }
        #expect(ports.allSatisfy { $0 == [0, 1, 2, 3, 4] })
        #expect(builds.map(\.value) == [1, 1, 100, 0, 1])
    }

    @Test("an async factory resolving through the injector comes back to its own key: a cycle with the whole path")
    func ambientCycleThroughInjector() async throws {
        let ref = Hunt29BInjectorRef()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29BLoop.self).to { _ async throws in
                    let owner = try #require(ref.injector)
                    _ = try await owner.get(Hunt29BOther.self)
                    return Hunt29BLoop()
                }.in(.singleton)
                binder.bind(Hunt29BOther.self).to { _ async throws in
                    let owner = try #require(ref.injector)
                    await Task.yield()
                    _ = try await owner.get(Hunt29BLoop.self)
                    return Hunt29BOther()
                }
            })
        ref.injector = injector
        let request = Task { () -> ProvisionError? in
            do throws(ProvisionError) {
                _ = try await injector.get(Hunt29BLoop.self)
                return nil
            } catch { return error }
        }
        let outcome = try #require(try await hunt29BValue(of: request))
        let error = try #require(outcome)
        #expect(error.code == .cycle)
        #expect(
            error.path == [BindingKey(Hunt29BLoop.self), BindingKey(Hunt29BOther.self), BindingKey(Hunt29BLoop.self)])
        #expect(error.pathDescription == "Hunt29BLoop -> Hunt29BOther -> Hunt29BLoop")
    }

    @Test("scoped async factories resolving through a captured scope come back to their own key: a cycle")
    func ambientCycleThroughScope() async throws {
        let scopeRef = Locked<ServiceScope?>(nil)
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29BLoop.self).to { _ async throws in
                    let scope = try #require(scopeRef.withLock { $0 })
                    _ = try await scope.get(Hunt29BOther.self)
                    return Hunt29BLoop()
                }.in(.scoped)
                binder.bind(Hunt29BOther.self).to { _ async throws in
                    let scope = try #require(scopeRef.withLock { $0 })
                    _ = try await scope.get(Hunt29BLoop.self)
                    return Hunt29BOther()
                }.in(.scoped)
            })
        let scope = injector.makeScope()
        scopeRef.withLock { $0 = scope }
        let request = Task { () -> ProvisionError? in
            do throws(ProvisionError) {
                _ = try await scope.get(Hunt29BLoop.self)
                return nil
            } catch { return error }
        }
        let outcome = try #require(try await hunt29BValue(of: request))
        let error = try #require(outcome)
        #expect(error.code == .cycle)
        #expect(
            error.path == [BindingKey(Hunt29BLoop.self), BindingKey(Hunt29BOther.self), BindingKey(Hunt29BLoop.self)])
        try await scope.close()
    }
}
