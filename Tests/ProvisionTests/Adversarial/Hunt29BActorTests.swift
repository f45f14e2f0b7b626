import Dispatch
import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

/// Counts events (builds, disposals) exactly.
final class Hunt29BCounter: Sendable {
    private let count = Locked(0)

    @discardableResult
    func bump() -> Int {
        count.withLock { count in
            count += 1
            return count
        }
    }

    var value: Int { count.withLock { $0 } }
}

/// What an actor service stores in.
final class Hunt29BStore: Sendable {
    let builds: Hunt29BCounter
    init(builds: Hunt29BCounter) {
        self.builds = builds
    }
}

/// An actor as a service, built by its (nonisolated, synchronous) initializer.
actor Hunt29BCache: AsyncDisposable {
    let store: Hunt29BStore
    private var entries: [String: Int] = [:]

    init(store: Hunt29BStore) {
        store.builds.bump()
        self.store = store
    }

    /// An async factory that hops onto the actor before handing it out.
    static func open(store: Hunt29BStore) async -> Hunt29BCache {
        let cache = Hunt29BCache(store: store)
        await cache.put("warm", 1)
        return cache
    }

    func put(_ key: String, _ value: Int) {
        entries[key, default: 0] += value
    }

    func value(_ key: String) -> Int { entries[key] ?? 0 }

    func dispose() async throws {
        Hunt29BCache.disposals.bump()
    }

    static let disposals = Hunt29BCounter()
}

@globalActor
actor Hunt29BRenderActor {
    static let shared = Hunt29BRenderActor()
}

/// A class isolated to a custom global actor, with an isolated initializer.
@Hunt29BRenderActor
final class Hunt29BRenderer {
    let builds: Hunt29BCounter
    private(set) var pages = 0

    init(builds: Hunt29BCounter) {
        builds.bump()
        self.builds = builds
    }

    func render() -> Int {
        pages += 1
        return pages
    }
}

/// A main-actor class with an isolated initializer.
@MainActor
final class Hunt29BViewModel {
    let builds: Hunt29BCounter
    init(builds: Hunt29BCounter) {
        builds.bump()
        self.builds = builds
    }
}

/// Depends on the global-actor-isolated renderer through a constructor binding.
final class Hunt29BReportService: Sendable {
    let renderer: Hunt29BRenderer
    init(renderer: Hunt29BRenderer) {
        self.renderer = renderer
    }
}

// MARK: - Tests

@Suite("Hunt 29B: actors and global actors as services", .timeLimit(.minutes(2)))
struct Hunt29BActorTests {
    static func cacheInjector(_ builds: Hunt29BCounter, scope: Scope) throws -> Injector {
        try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29BCounter.self).toInstance(builds)
                binder.bind(Hunt29BStore.self).to(Hunt29BStore.init(builds:)).in(.singleton)
                binder.bind(Hunt29BCache.self).to(Hunt29BCache.init(store:)).in(scope)
            })
    }

    /// Resolves `type` from `count` child tasks that all start together; the identities they got.
    static func race<T: AnyObject & Sendable>(
        _ count: Int, _ type: T.Type, _ resolve: @escaping @Sendable () async throws -> T
    ) async -> [ObjectIdentifier?] {
        let start = AsyncBarrier(count: count)
        return await withTaskGroup(of: ObjectIdentifier?.self) { group in
            for _ in 0..<count {
                group.addTask {
                    await start.arrive()
                    return (try? await resolve()).map(ObjectIdentifier.init)
                }
            }
            var outcomes: [ObjectIdentifier?] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
    }

    @Test("an actor singleton bound to its initializer: 200 child tasks, one build, one instance")
    func actorSingletonStorm() async throws {
        let builds = Hunt29BCounter()
        let injector = try Self.cacheInjector(builds, scope: .singleton)
        let outcomes = await Self.race(200, Hunt29BCache.self) { try await injector.get(Hunt29BCache.self) }
        #expect(outcomes.count == 200)
        #expect(outcomes.allSatisfy { $0 != nil })
        #expect(Set(outcomes.compactMap { $0 }).count == 1)
        #expect(builds.value == 1)
        let cache = try await injector.get(Hunt29BCache.self)
        await cache.put("k", 2)
        #expect(await cache.value("k") == 2)
        #expect(try injector.syncGet(Hunt29BCache.self) === cache)
    }

    @Test("an actor singleton from an async factory that awaits the actor: 200 child tasks, one build")
    func actorAsyncFactoryStorm() async throws {
        let builds = Hunt29BCounter()
        let factoryCalls = Hunt29BCounter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29BStore.self).toInstance(Hunt29BStore(builds: builds))
                binder.bind(Hunt29BCache.self).to { resolver async throws in
                    factoryCalls.bump()
                    await Task.yield()
                    return await Hunt29BCache.open(store: try await resolver.get(Hunt29BStore.self))
                }.in(.singleton)
            })
        let outcomes = await Self.race(200, Hunt29BCache.self) { try await injector.get(Hunt29BCache.self) }
        #expect(outcomes.allSatisfy { $0 != nil })
        #expect(Set(outcomes.compactMap { $0 }).count == 1)
        #expect(builds.value == 1)
        #expect(factoryCalls.value == 1)
        let cache = try await injector.get(Hunt29BCache.self)
        #expect(await cache.value("warm") == 1)
    }

    @Test("a scoped actor: 20 scopes with 10 tasks each, one actor per scope, each disposed once at close")
    func scopedActorStorm() async throws {
        let builds = Hunt29BCounter()
        let injector = try Self.cacheInjector(builds, scope: .scoped)
        let before = Hunt29BCache.disposals.value
        let scopes = (0..<20).map { _ in injector.makeScope() }
        let start = AsyncBarrier(count: 200)
        let outcomes = await withTaskGroup(of: (Int, ObjectIdentifier?).self) { group in
            for index in 0..<200 {
                let scope = scopes[index % 20]
                group.addTask {
                    await start.arrive()
                    return (index % 20, (try? await scope.get(Hunt29BCache.self)).map(ObjectIdentifier.init))
                }
            }
            var outcomes: [(Int, ObjectIdentifier?)] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        #expect(outcomes.allSatisfy { $0.1 != nil })
        #expect(builds.value == 20)
        let perScope = Dictionary(grouping: outcomes, by: \.0).mapValues { Set($0.compactMap(\.1)) }
        #expect(perScope.count == 20)
        #expect(perScope.values.allSatisfy { $0.count == 1 })
        #expect(Set(perScope.values.flatMap { $0 }).count == 20)
        for scope in scopes { try await scope.close() }
        // Other tests may dispose caches of their own concurrently only when run in parallel; this
        // suite runs with --no-parallel, so the difference is exactly this test's.
        #expect(Hunt29BCache.disposals.value - before == 20)
    }

    @Test("a custom-global-actor class built by an async closure that hops to its actor: one build")
    func globalActorSingletonStorm() async throws {
        let builds = Hunt29BCounter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29BCounter.self).toInstance(builds)
                binder.bind(Hunt29BRenderer.self).to { resolver async throws in
                    let counter = try await resolver.get(Hunt29BCounter.self)
                    return await Hunt29BRenderer(builds: counter)
                }.in(.singleton)
                binder.bind(Hunt29BReportService.self).to(Hunt29BReportService.init(renderer:))
            })
        // Half the tasks resolve from the global actor, half from nonisolated code.
        let start = AsyncBarrier(count: 200)
        let outcomes = await withTaskGroup(of: ObjectIdentifier?.self) { group in
            for index in 0..<200 {
                if index.isMultiple(of: 2) {
                    group.addTask { await Self.renderOnRenderActor(injector, start) }
                } else {
                    group.addTask {
                        await start.arrive()
                        return (try? await injector.get(Hunt29BRenderer.self)).map(ObjectIdentifier.init)
                    }
                }
            }
            var outcomes: [ObjectIdentifier?] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        #expect(outcomes.allSatisfy { $0 != nil })
        #expect(Set(outcomes.compactMap { $0 }).count == 1)
        #expect(builds.value == 1)
        let renderer = try await injector.get(Hunt29BRenderer.self)
        #expect(await renderer.pages == 100)
        // Once built, the synchronous API serves it from the actor's own context too.
        let same = try await Self.syncFromRenderActor(injector)
        #expect(same === renderer)
    }

    /// Resolves the report service from the render actor's own context and renders a page.
    @Hunt29BRenderActor
    static func renderOnRenderActor(_ injector: Injector, _ start: AsyncBarrier) async -> ObjectIdentifier? {
        await start.arrive()
        guard let service = try? await injector.get(Hunt29BReportService.self) else { return nil }
        _ = service.renderer.render()
        return ObjectIdentifier(service.renderer)
    }

    @Hunt29BRenderActor
    static func syncFromRenderActor(_ injector: Injector) throws -> Hunt29BRenderer {
        try injector.get(Hunt29BRenderer.self)
    }

    @Hunt29BRenderActor
    static func syncReportFromRenderActor(_ injector: Injector) -> ProvisionError? {
        do {
            _ = try injector.get(Hunt29BReportService.self)
            return nil
        } catch {
            return error
        }
    }

    @Test("the sync API on a global actor, before the async singleton is built: requiresAsync with the path")
    func syncFromGlobalActorBeforeBuild() async throws {
        let builds = Hunt29BCounter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29BRenderer.self).to { _ async in await Hunt29BRenderer(builds: builds) }
                    .in(.singleton)
                binder.bind(Hunt29BReportService.self).to(Hunt29BReportService.init(renderer:))
            })
        let error = try #require(await Self.syncReportFromRenderActor(injector))
        #expect(error.code == .requiresAsync)
        #expect(error.path == [BindingKey(Hunt29BReportService.self), BindingKey(Hunt29BRenderer.self)])
        #expect(builds.value == 0)
        _ = try await injector.get(Hunt29BReportService.self)
        #expect(await Self.syncReportFromRenderActor(injector) == nil)
        #expect(builds.value == 1)
    }

    @MainActor
    @Test("a @MainActor class bound through an async closure, resolved from the main actor and from tasks")
    func mainActorSingleton() async throws {
        let builds = Hunt29BCounter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29BViewModel.self).to { _ async in await Hunt29BViewModel(builds: builds) }
                    .in(.singleton)
            })
        let outcomes = await Self.race(50, Hunt29BViewModel.self) { try await injector.get(Hunt29BViewModel.self) }
        let onMain = try await injector.get(Hunt29BViewModel.self)
        #expect(outcomes.allSatisfy { $0 == ObjectIdentifier(onMain) })
        #expect(builds.value == 1)
        #expect(try injector.syncGet(Hunt29BViewModel.self) === onMain)
    }
}
