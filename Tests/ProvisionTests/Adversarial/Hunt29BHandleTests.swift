import Dispatch
import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

enum Hunt29BRequestContext {
    @TaskLocal static var requestID: Int = -1
}

final class Hunt29BJob: Sendable {
    let requestID: Int
    init(requestID: Int) {
        self.requestID = requestID
    }
}

final class Hunt29BJobRunner: Sendable {
    let job: Hunt29BJob
    init(job: Hunt29BJob) {
        self.job = job
    }
}

final class Hunt29BPart: Sendable {}

final class Hunt29BAssembly: Sendable {
    let parts: [Hunt29BPart]
    init(parts: [Hunt29BPart]) {
        self.parts = parts
    }
}

/// Holds handles and is sent across isolation domains.
final class Hunt29BDispatcher: Sendable {
    let jobs: Provider<Hunt29BJob>
    let pool: Lazy<Hunt29BPool>
    let factory: ObjectFactory
    init(jobs: Provider<Hunt29BJob>, pool: Lazy<Hunt29BPool>, factory: ObjectFactory) {
        self.jobs = jobs
        self.pool = pool
        self.factory = factory
    }
}

/// A disposable singleton that counts its builds and disposals.
final class Hunt29BResource: Disposable {
    let disposals: Hunt29BCounter
    init(disposals: Hunt29BCounter) {
        self.disposals = disposals
    }

    func dispose() throws {
        disposals.bump()
    }
}

final class Hunt29BAsyncResource: AsyncDisposable {
    let disposals: Hunt29BCounter
    init(disposals: Hunt29BCounter) {
        self.disposals = disposals
    }

    func dispose() async throws {
        await Task.yield()
        disposals.bump()
    }
}

// MARK: - Handles in tasks

@Suite("Hunt 29B: handles and factories across tasks and threads", .timeLimit(.minutes(2)))
struct Hunt29BHandleTests {
    static func dispatcherInjector(jobBuilds: Hunt29BCounter, poolBuilds: Hunt29BCounter) throws -> Injector {
        try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29BJob.self).to { _ in
                    jobBuilds.bump()
                    return Hunt29BJob(requestID: Hunt29BRequestContext.requestID)
                }
                binder.bind(Hunt29BPool.self).to { _ in Hunt29BPool(serial: poolBuilds.bump()) }
                binder.bind(Hunt29BDispatcher.self).to(Hunt29BDispatcher.init(jobs:pool:factory:)).in(.singleton)
            })
    }

    @Test("a singleton's Provider, Lazy and ObjectFactory used from 100 detached tasks and 4 threads")
    func handlesAcrossDomains() async throws {
        let jobBuilds = Hunt29BCounter()
        let poolBuilds = Hunt29BCounter()
        let injector = try Self.dispatcherInjector(jobBuilds: jobBuilds, poolBuilds: poolBuilds)
        let dispatcher = try await injector.get(Hunt29BDispatcher.self)
        let start = AsyncBarrier(count: 100)
        let tasks = (0..<100).map { index in
            Task.detached { () -> (Int, Int, ObjectIdentifier)? in
                await start.arrive()
                let job: Hunt29BJob? = Hunt29BRequestContext.$requestID.withValue(index) {
                    index.isMultiple(of: 2)
                        ? try? dispatcher.jobs.get() : try? dispatcher.factory.get(Hunt29BJob.self)
                }
                guard let job, let pool = try? dispatcher.pool.value else { return nil }
                return (index, job.requestID, ObjectIdentifier(pool))
            }
        }
        let threadPools = Locked<[ObjectIdentifier]>([])
        let threadsDone = try await offPool {
            runThreads(4, timeout: 10) { _ in
                if let pool = try? dispatcher.pool.value {
                    threadPools.withLock { $0.append(ObjectIdentifier(pool)) }
                }
            }
        }
        #expect(threadsDone)
        var pools: Set<ObjectIdentifier> = []
        for task in tasks {
            let outcome = try #require(try await hunt29BValue(of: task))
            let (index, requestID, pool) = try #require(outcome)
            #expect(requestID == index)
            pools.insert(pool)
        }
        pools.formUnion(threadPools.withLock { $0 })
        #expect(threadPools.withLock { $0.count } == 4)
        #expect(pools.count == 1)
        #expect(poolBuilds.value == 1)
        #expect(jobBuilds.value == 100)
    }

    @Test("an async factory resolving from a withTaskGroup of 10 children: async parts built once")
    func taskGroupInsideFactory() async throws {
        let partBuilds = Hunt29BCounter()
        let assemblyBuilds = Hunt29BCounter()
        let ref = Hunt29BInjectorRef()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29BPart.self).to { _ async in
                    partBuilds.bump()
                    await Task.yield()
                    return Hunt29BPart()
                }.in(.singleton)
                binder.bind(Hunt29BAssembly.self).to { _ async throws in
                    assemblyBuilds.bump()
                    let owner = try #require(ref.injector)
                    let parts = try await withThrowingTaskGroup(of: Hunt29BPart.self) { group in
                        for _ in 0..<10 {
                            group.addTask { try await owner.get(Hunt29BPart.self) }
                        }
                        var parts: [Hunt29BPart] = []
                        for try await part in group { parts.append(part) }
                        return parts
                    }
                    return Hunt29BAssembly(parts: parts)
                }.in(.singleton)
            })
        ref.injector = injector
        let assemblies = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<20 {
                group.addTask { ObjectIdentifier(try await injector.get(Hunt29BAssembly.self)) }
            }
            var ids: Set<ObjectIdentifier> = []
            for try await id in group { ids.insert(id) }
            return ids
        }
        #expect(assemblies.count == 1)
        let assembly = try await injector.get(Hunt29BAssembly.self)
        #expect(assembly.parts.count == 10)
        #expect(Set(assembly.parts.map(ObjectIdentifier.init)).count == 1)
        #expect(partBuilds.value == 1)
        #expect(assemblyBuilds.value == 1)
    }
}

/// The injector a factory's child tasks resolve through (a `Resolver` is not `Sendable`), set once the
/// injector exists; weak, so the injector's bindings don't keep it alive.
final class Hunt29BInjectorRef: Sendable {
    private let storage = Locked<Hunt29BWeakInjector>(Hunt29BWeakInjector())

    var injector: Injector? {
        get { storage.withLock { $0.injector } }
        set { storage.withLock { $0.injector = newValue } }
    }
}

struct Hunt29BWeakInjector: @unchecked Sendable {
    weak var injector: Injector?
}

// MARK: - Threads inside async factories

@Suite("Hunt 29B: DispatchQueue.concurrentPerform inside an async factory", .timeLimit(.minutes(2)))
struct Hunt29BConcurrentPerformTests {
    @Test("8 iterations resolve a sync singleton and a Provider from inside an async singleton's factory")
    func concurrentPerformInFactory() async throws {
        let partBuilds = Hunt29BCounter()
        let ref = Hunt29BInjectorRef()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29BPart.self).to { _ in
                    partBuilds.bump()
                    return Hunt29BPart()
                }.in(.singleton)
                binder.bind(Hunt29BJob.self).to { _ in Hunt29BJob(requestID: Hunt29BRequestContext.requestID) }
                binder.bind(Hunt29BAssembly.self).to { _ async throws in
                    await Task.yield()
                    let owner = try #require(ref.injector)
                    let jobs = try await owner.get(Provider<Hunt29BJob>.self)
                    let parts = Locked<[Hunt29BPart]>([])
                    let failures = Locked<[ProvisionError]>([])
                    DispatchQueue.concurrentPerform(iterations: 8) { index in
                        do throws(ProvisionError) {
                            let part = try owner.get(Hunt29BPart.self)
                            _ = try jobs.get()
                            parts.withLock { $0.append(part) }
                        } catch {
                            failures.withLock { $0.append(error) }
                        }
                    }
                    if let failure = failures.withLock({ $0.first }) { throw failure }
                    return Hunt29BAssembly(parts: parts.withLock { $0 })
                }.in(.singleton)
            })
        ref.injector = injector
        let results = await withTaskGroup(of: ObjectIdentifier?.self) { group in
            for _ in 0..<10 {
                group.addTask { (try? await injector.get(Hunt29BAssembly.self)).map(ObjectIdentifier.init) }
            }
            var ids: [ObjectIdentifier?] = []
            for await id in group { ids.append(id) }
            return ids
        }
        #expect(results.allSatisfy { $0 != nil })
        #expect(Set(results.compactMap { $0 }).count == 1)
        let assembly = try await injector.get(Hunt29BAssembly.self)
        #expect(assembly.parts.count == 8)
        #expect(Set(assembly.parts.map(ObjectIdentifier.init)).count == 1)
        #expect(partBuilds.value == 1)
    }
}

// MARK: - Task-local values

@Suite("Hunt 29B: factories read the caller's task-local values", .timeLimit(.minutes(2)))
struct Hunt29BTaskLocalTests {
    static func injector(jobScope: Scope) throws -> Injector {
        try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29BJob.self, named: "sync").to { _ in
                    Hunt29BJob(requestID: Hunt29BRequestContext.requestID)
                }.in(jobScope)
                binder.bind(Hunt29BJob.self).to { _ async in
                    await Task.yield()
                    return Hunt29BJob(requestID: Hunt29BRequestContext.requestID)
                }.in(jobScope)
                binder.bind(Hunt29BJobRunner.self).to(Hunt29BJobRunner.init(job:))
                binder.bind(Hunt29BJobRunner.self, named: "sync").to { resolver in
                    Hunt29BJobRunner(job: try resolver.get(Hunt29BJob.self, named: "sync"))
                }
            })
    }

    @Test("100 tasks with their own request id: sync, async and constructor-over-async factories see it")
    func transientFactoriesSeeCallersValue() async throws {
        let injector = try Self.injector(jobScope: .transient)
        let start = AsyncBarrier(count: 100)
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for index in 0..<100 {
                group.addTask {
                    await start.arrive()
                    return await Hunt29BRequestContext.$requestID.withValue(index) {
                        var wrong = 0
                        if (try? await injector.get(Hunt29BJob.self))?.requestID != index { wrong += 1 }
                        if (try? await injector.get(Hunt29BJobRunner.self))?.job.requestID != index { wrong += 1 }
                        if (try? await injector.get(Hunt29BJobRunner.self, named: "sync"))?.job.requestID != index {
                            wrong += 1
                        }
                        if (try? injector.syncGet(Provider<Hunt29BJob>.self, named: "sync").get())?.requestID != index {
                            wrong += 1
                        }
                        return wrong
                    }
                }
            }
            var total = 0
            for await wrong in group { total += wrong }
            return total
        }
        #expect(mismatches == 0)
    }

    @Test("scoped async and sync builds in withScope see the value the scope's caller set")
    func scopedFactoriesSeeCallersValue() async throws {
        let injector = try Self.injector(jobScope: .scoped)
        let seen = await withTaskGroup(of: [Int].self) { group in
            for index in 0..<20 {
                group.addTask {
                    await Hunt29BRequestContext.$requestID.withValue(index) {
                        (try? await injector.withScope { scope in
                            let runner = try await scope.get(Hunt29BJobRunner.self)
                            let sync = try await scope.get(Hunt29BJobRunner.self, named: "sync")
                            // Inside the scope a child task inherits the value too.
                            let child = try await withThrowingTaskGroup(of: Int.self) { children in
                                children.addTask { try await scope.get(Hunt29BJob.self).requestID }
                                return try await children.next() ?? -2
                            }
                            return [runner.job.requestID, sync.job.requestID, child, index]
                        }) ?? []
                    }
                }
            }
            var seen: [[Int]] = []
            for await values in group { seen.append(values) }
            return seen
        }
        #expect(seen.count == 20)
        for values in seen {
            #expect(values.count == 4)
            if let index = values.last { #expect(values == [index, index, index, index]) }
        }
    }

    @Test("an async singleton built under one task's value: 30 tasks, one build, everyone gets that value")
    func singletonKeepsBuildersValue() async throws {
        let injector = try Self.injector(jobScope: .singleton)
        let start = AsyncBarrier(count: 30)
        let ids = await withTaskGroup(of: Int?.self) { group in
            for index in 0..<30 {
                group.addTask {
                    await start.arrive()
                    return await Hunt29BRequestContext.$requestID.withValue(index) {
                        (try? await injector.get(Hunt29BJob.self))?.requestID
                    }
                }
            }
            var ids: [Int?] = []
            for await id in group { ids.append(id) }
            return ids
        }
        #expect(ids.allSatisfy { $0 != nil })
        #expect(Set(ids.compactMap { $0 }).count == 1)
        #expect((0..<30).contains(ids.compactMap { $0 }.first ?? -1))
    }
}
