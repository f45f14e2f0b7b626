import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Provision

// Hunt 21B, part 1: the first use of ordinary graphs, written in every style a user writes
// (constructors, closures, Injectable types, property injection, multibindings, optional
// dependencies, arguments, handles), by 8 threads released together by a barrier: every singleton
// built exactly once, every value correct, no false cycle error, no hang (every wait is bounded).

// MARK: - Support

/// Counts builds by name, across threads, and remembers their order.
final class Hunt21BCounts: Sendable {
    private let table = Locked<[String: Int]>([:])
    private let order = Locked<[String]>([])

    func bump(_ name: String) {
        table.withLock { $0[name, default: 0] += 1 }
        order.withLock { $0.append(name) }
    }

    func count(_ name: String) -> Int { table.withLock { $0[name, default: 0] } }
    var sequence: [String] { order.withLock { $0 } }
}

/// A barrier for `count` threads whose wait is bounded: `false` when the others didn't arrive in time.
final class Hunt21BBarrier: Sendable {
    private let arrived = Atomic(0)
    let count: Int
    init(_ count: Int) { self.count = count }

    func arriveAndWait() -> Bool {
        arrived.add(1, ordering: .sequentiallyConsistent)
        return waitUntil(timeout: 30) { arrived.load(ordering: .sequentiallyConsistent) >= count }
    }
}

/// What a storm produced: whether every thread finished in time, and each thread's outcome.
struct Hunt21BStorm<T: Sendable>: Sendable {
    var finished: Bool
    var outcomes: [Result<T, ProvisionError>]

    var values: [T] { outcomes.compactMap { try? $0.get() } }
    var errors: [ProvisionError] {
        outcomes.compactMap {
            if case .failure(let error) = $0 { return error }
            return nil
        }
    }
}

enum Hunt21B {
    /// Runs `body(index)` on `threads` plain threads released together, off the cooperative pool, and
    /// returns every outcome. A thread that misses the barrier reports `timedOut`.
    static func storm<T: Sendable>(
        _ threads: Int = 8, _ body: @escaping @Sendable (Int) throws(ProvisionError) -> T
    ) async throws -> Hunt21BStorm<T> {
        try await offPool {
            let barrier = Hunt21BBarrier(threads)
            let outcomes = Locked<[Int: Result<T, ProvisionError>]>([:])
            let finished = runThreads(threads, timeout: 60) { index in
                let outcome: Result<T, ProvisionError>
                if barrier.arriveAndWait() {
                    outcome = Result { () throws(ProvisionError) in try body(index) }
                } else {
                    outcome = .failure(ProvisionError(code: .timedOut, key: nil, message: "barrier", hint: ""))
                }
                outcomes.withLock { $0[index] = outcome }
            }
            let all = outcomes.withLock { table in (0..<threads).compactMap { table[$0] } }
            return Hunt21BStorm(finished: finished && all.count == threads, outcomes: all)
        }
    }

    /// Whether every element of `values` is the same object.
    static func allIdentical(_ values: [AnyObject]) -> Bool {
        guard let first = values.first else { return false }
        return values.allSatisfy { $0 === first }
    }
}

// MARK: - Fixtures

final class Hunt21BConfig: Sendable {
    let port: Int
    init(port: Int) { self.port = port }
}

final class Hunt21BPool: Sendable {
    let config: Hunt21BConfig
    init(config: Hunt21BConfig, counts: Hunt21BCounts) {
        self.config = config
        counts.bump("pool")
    }
}

final class Hunt21BRepository: Sendable {
    let pool: Hunt21BPool
    init(pool: Hunt21BPool, counts: Hunt21BCounts) {
        self.pool = pool
        counts.bump("repository")
    }
}

final class Hunt21BService: Sendable {
    let repository: Hunt21BRepository
    let pool: Hunt21BPool
    init(repository: Hunt21BRepository, pool: Hunt21BPool, counts: Hunt21BCounts) {
        self.repository = repository
        self.pool = pool
        counts.bump("service")
    }
}

/// Self-declaring types: no module binds them.
final class Hunt21BJITClock: Injectable, Sendable {
    static let injection = Injection(Hunt21BJITClock.init(counts:)).in(.singleton)
    init(counts: Hunt21BCounts) { counts.bump("clock") }
}

final class Hunt21BJITCache: Injectable, Sendable {
    static let injection = Injection(Hunt21BJITCache.init(clock:counts:)).in(.singleton)
    let clock: Hunt21BJITClock
    init(clock: Hunt21BJITClock, counts: Hunt21BCounts) {
        self.clock = clock
        counts.bump("cache")
    }
}

final class Hunt21BJITHandler: Injectable, Sendable {
    static let injection = Injection(Hunt21BJITHandler.init(cache:clock:))
    let cache: Hunt21BJITCache
    let clock: Hunt21BJITClock
    init(cache: Hunt21BJITCache, clock: Hunt21BJITClock) {
        self.cache = cache
        self.clock = clock
    }
}

/// A singleton whose dependencies are set after construction.
final class Hunt21BAudit: PropertyInjectable, @unchecked Sendable {
    var pool: Hunt21BPool?
    var clock: Hunt21BConfig?
    private(set) var woken = false
    let counts: Hunt21BCounts
    init(counts: Hunt21BCounts) {
        self.counts = counts
        counts.bump("audit")
    }

    class var injectedProperties: [InjectedProperty] {
        [.inject(\Hunt21BAudit.pool), .inject(\Hunt21BAudit.clock, named: "audit")]
    }

    func didInjectDependencies() {
        woken = pool != nil && clock != nil
        counts.bump("audit.hook")
    }
}

final class Hunt21BAuditUser: Sendable {
    let audit: Hunt21BAudit
    init(audit: Hunt21BAudit) { self.audit = audit }
}

protocol Hunt21BPlugin: Sendable {
    var id: Int { get }
}

final class Hunt21BPluginImpl: Hunt21BPlugin {
    let id: Int
    init(id: Int, counts: Hunt21BCounts) {
        self.id = id
        counts.bump("plugin\(id)")
    }
}

final class Hunt21BPluginHost: Sendable {
    let plugins: [any Hunt21BPlugin]
    init(plugins: [any Hunt21BPlugin]) { self.plugins = plugins }
}

final class Hunt21BMetrics: Sendable {
    init(counts: Hunt21BCounts) { counts.bump("metrics") }
}

final class Hunt21BTracer: Sendable {}

final class Hunt21BTelemetry: Sendable {
    let metrics: Hunt21BMetrics?
    let tracer: Hunt21BTracer?
    init(metrics: Hunt21BMetrics?, tracer: Hunt21BTracer?) {
        self.metrics = metrics
        self.tracer = tracer
    }
}

/// A level of a lattice: level k depends on every level below it.
final class Hunt21BLevel: Sendable {
    let level: Int
    let below: [Hunt21BLevel]
    init(level: Int, below: [Hunt21BLevel]) {
        self.level = level
        self.below = below
    }
}

final class Hunt21BWidget: Sendable {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}

final class Hunt21BSession: Sendable {
    let user: String
    init(user: String, counts: Hunt21BCounts) {
        self.user = user
        counts.bump("session")
    }
}

// MARK: - Tests

@Suite("Hunt 21B: 8 threads on the first use of ordinary graphs", .serialized, .timeLimit(.minutes(3)))
struct Hunt21BStormTests {
    static func constructorModule(_ counts: Hunt21BCounts) -> ClosureModule {
        ClosureModule { binder in
            binder.bind(Hunt21BCounts.self).toInstance(counts)
            binder.bind(Hunt21BConfig.self).toInstance(Hunt21BConfig(port: 8080))
            binder.bind(Hunt21BPool.self).to(Hunt21BPool.init(config:counts:)).in(.singleton)
            binder.bind(Hunt21BRepository.self).to(Hunt21BRepository.init(pool:counts:)).in(.singleton)
            binder.bind(Hunt21BService.self).to(Hunt21BService.init(repository:pool:counts:))
        }
    }

    @Test("constructor bindings: a transient service over two singletons, 8 first requests")
    func constructors() async throws {
        let counts = Hunt21BCounts()
        let injector = try Injector(Self.constructorModule(counts))
        let storm = try await Hunt21B.storm { _ throws(ProvisionError) in try injector.get(Hunt21BService.self) }
        #expect(storm.finished)
        #expect(storm.errors.isEmpty, "\(storm.errors)")
        #expect(counts.count("pool") == 1)
        #expect(counts.count("repository") == 1)
        #expect(counts.count("service") == 8)
        #expect(Hunt21B.allIdentical(storm.values.map(\.pool) + storm.values.map(\.repository.pool)))
        #expect(storm.values.allSatisfy { $0.pool.config.port == 8080 })
    }

    @Test("closure bindings resolving singletons through their resolver, 8 first requests")
    func closures() async throws {
        let counts = Hunt21BCounts()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt21BConfig.self).to { _ in Hunt21BConfig(port: 9090) }.in(.singleton)
                binder.bind(Hunt21BPool.self).to { resolver in
                    Hunt21BPool(config: try resolver.get(), counts: counts)
                }.in(.singleton)
                binder.bind(Hunt21BRepository.self).to { resolver in
                    Hunt21BRepository(pool: try resolver.get(), counts: counts)
                }.in(.singleton)
                binder.bind(Hunt21BService.self).to { resolver in
                    Hunt21BService(repository: try resolver.get(), pool: try resolver.get(), counts: counts)
                }
            })
        let storm = try await Hunt21B.storm { _ throws(ProvisionError) in try injector.get(Hunt21BService.self) }
        #expect(storm.finished)
        #expect(storm.errors.isEmpty, "\(storm.errors)")
        #expect(counts.count("pool") == 1)
        #expect(counts.count("repository") == 1)
        #expect(counts.count("service") == 8)
        #expect(Hunt21B.allIdentical(storm.values.map(\.pool) + storm.values.map(\.repository.pool)))
        #expect(storm.values.allSatisfy { $0.pool.config.port == 9090 })
    }

    @Test("Injectable types with no module, each thread through a child made during the storm")
    func justInTimeThroughNewChildren() async throws {
        let counts = Hunt21BCounts()
        let parent = try Injector(ClosureModule { $0.bind(Hunt21BCounts.self).toInstance(counts) })
        let storm = try await Hunt21B.storm { index throws(ProvisionError) in
            let through = index.isMultiple(of: 2) ? try parent.makeChild() : parent
            return try through.get(Hunt21BJITHandler.self)
        }
        #expect(storm.finished)
        #expect(storm.errors.isEmpty, "\(storm.errors)")
        #expect(counts.count("clock") == 1)
        #expect(counts.count("cache") == 1)
        #expect(Hunt21B.allIdentical(storm.values.map(\.cache)))
        #expect(Hunt21B.allIdentical(storm.values.map(\.clock) + storm.values.map(\.cache.clock)))
        #expect(try await parent.get(Hunt21BJITCache.self) === storm.values.first?.cache)
    }

    @Test("a property-injected singleton: built, filled and woken once; every thread sees it filled")
    func propertyInjection() async throws {
        let counts = Hunt21BCounts()
        let injector = try Injector(
            Self.constructorModule(counts),
            ClosureModule { binder in
                binder.bind(Hunt21BConfig.self, named: "audit").toInstance(Hunt21BConfig(port: 1))
                binder.bind(Hunt21BAudit.self).to(Hunt21BAudit.init(counts:)).in(.singleton)
                binder.bind(Hunt21BAuditUser.self).to(Hunt21BAuditUser.init(audit:))
            })
        let storm = try await Hunt21B.storm { index throws(ProvisionError) -> Hunt21BAudit in
            index.isMultiple(of: 2)
                ? try injector.get(Hunt21BAudit.self) : try injector.get(Hunt21BAuditUser.self).audit
        }
        #expect(storm.finished)
        #expect(storm.errors.isEmpty, "\(storm.errors)")
        #expect(counts.count("audit") == 1)
        #expect(counts.count("audit.hook") == 1)
        #expect(counts.count("pool") == 1)
        #expect(Hunt21B.allIdentical(storm.values))
        #expect(storm.values.allSatisfy { $0.woken && $0.clock?.port == 1 })
    }

    @Test("a multibound list of singleton and transient plugins, requested and injected by 8 threads")
    func multibindings() async throws {
        let counts = Hunt21BCounts()
        let injector = try Injector(
            ClosureModule { binder in
                for id in 0..<6 {
                    let element = binder.multibind((any Hunt21BPlugin).self).to { _ in
                        Hunt21BPluginImpl(id: id, counts: counts)
                    }
                    if id < 4 { element.in(.singleton) }
                }
                binder.bind(Hunt21BPluginHost.self).to(Hunt21BPluginHost.init(plugins:))
            })
        let storm = try await Hunt21B.storm { index throws(ProvisionError) -> [any Hunt21BPlugin] in
            index.isMultiple(of: 2)
                ? try injector.getAll((any Hunt21BPlugin).self) : try injector.get(Hunt21BPluginHost.self).plugins
        }
        #expect(storm.finished)
        #expect(storm.errors.isEmpty, "\(storm.errors)")
        #expect(storm.values.allSatisfy { $0.map(\.id) == [0, 1, 2, 3, 4, 5] })
        for id in 0..<4 { #expect(counts.count("plugin\(id)") == 1, "singleton plugin \(id)") }
        for id in 4..<6 { #expect(counts.count("plugin\(id)") == 8, "transient plugin \(id)") }
        for id in 0..<4 {
            #expect(Hunt21B.allIdentical(storm.values.map { $0[id] as AnyObject }), "singleton plugin \(id)")
        }
    }

    @Test("optional dependencies: a bound singleton is present and built once, an unbound one is nil")
    func optionalDependencies() async throws {
        let counts = Hunt21BCounts()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt21BCounts.self).toInstance(counts)
                binder.bind(Hunt21BMetrics.self).to(Hunt21BMetrics.init(counts:)).in(.singleton)
                binder.bind(Hunt21BTelemetry.self).to(Hunt21BTelemetry.init(metrics:tracer:))
            })
        let storm = try await Hunt21B.storm { _ throws(ProvisionError) in try injector.get(Hunt21BTelemetry.self) }
        #expect(storm.finished)
        #expect(storm.errors.isEmpty, "\(storm.errors)")
        #expect(counts.count("metrics") == 1)
        #expect(storm.values.allSatisfy { $0.tracer == nil })
        let metrics = storm.values.compactMap(\.metrics)
        #expect(metrics.count == 8)
        #expect(Hunt21B.allIdentical(metrics))
    }

    @Test("a lattice of 8 singletons, each resolving every lower one (highest first): no false cycle")
    func latticeNoFalseCycle() async throws {
        let counts = Hunt21BCounts()
        let levels = 8
        let injector = try Injector(
            ClosureModule { binder in
                for level in 0..<levels {
                    binder.bind(Hunt21BLevel.self, named: "L\(level)").to { resolver in
                        counts.bump("L\(level)")
                        var below: [Hunt21BLevel] = []
                        for lower in stride(from: level - 1, through: 0, by: -1) {
                            below.append(try resolver.get(Hunt21BLevel.self, named: "L\(lower)"))
                        }
                        return Hunt21BLevel(level: level, below: below)
                    }.in(.singleton)
                }
            })
        // Thread i asks for level i: every thread but the first starts building its own level and
        // then waits for the levels the other threads are building.
        let storm = try await Hunt21B.storm(levels) { index throws(ProvisionError) in
            try injector.get(Hunt21BLevel.self, named: "L\(index)")
        }
        #expect(storm.finished)
        #expect(storm.errors.isEmpty, "\(storm.errors.map(\.description))")
        for level in 0..<levels { #expect(counts.count("L\(level)") == 1, "level \(level)") }
        let top = try await injector.get(Hunt21BLevel.self, named: "L\(levels - 1)")
        #expect(top.below.map(\.level) == Array(stride(from: levels - 2, through: 0, by: -1)))
    }

    @Test("a transient shared by two singleton roots and reached twice per root: no false cycle")
    func sharedTransientNoFalseCycle() async throws {
        let counts = Hunt21BCounts()
        let injector = try Injector(
            Self.constructorModule(counts),
            ClosureModule { binder in
                binder.bind(Hunt21BWidget.self).to { resolver in
                    _ = try resolver.get(Hunt21BRepository.self)
                    counts.bump("widget")
                    return Hunt21BWidget(serial: 0)
                }
                binder.bind(Hunt21BLevel.self, named: "a").to { resolver in
                    _ = try resolver.get(Hunt21BWidget.self)
                    _ = try resolver.get(Hunt21BWidget.self)
                    return Hunt21BLevel(level: 1, below: [])
                }.in(.singleton)
                binder.bind(Hunt21BLevel.self, named: "b").to { resolver in
                    _ = try resolver.get(Hunt21BWidget.self)
                    _ = try resolver.get(Hunt21BLevel.self, named: "a")
                    return Hunt21BLevel(level: 2, below: [])
                }.in(.singleton)
            })
        let storm = try await Hunt21B.storm { index throws(ProvisionError) in
            try injector.get(Hunt21BLevel.self, named: index.isMultiple(of: 2) ? "a" : "b").level
        }
        #expect(storm.finished)
        #expect(storm.errors.isEmpty, "\(storm.errors.map(\.description))")
        #expect(counts.count("repository") == 1)
        #expect(counts.count("widget") == 3)
    }

    @Test("one Lazy of a transient, shared by 8 threads: resolved once, every reader gets that instance")
    func sharedLazyOfTransient() async throws {
        let built = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt21BWidget.self).to { Hunt21BWidget(serial: built.increment()) }
            })
        let lazy = try await injector.get(Lazy<Hunt21BWidget>.self)
        let provider = try await injector.get(Provider<Hunt21BWidget>.self)
        let storm = try await Hunt21B.storm { _ throws(ProvisionError) in (try lazy.value, try provider.get()) }
        #expect(storm.finished)
        #expect(storm.errors.isEmpty, "\(storm.errors)")
        #expect(Hunt21B.allIdentical(storm.values.map(\.0)))
        #expect(Set(storm.values.map(\.1.serial)).count == 8, "a provider of a transient builds one per get()")
        #expect(built.value == 9)
    }

    @Test("a singleton with arguments: built once from one thread's arguments, the same for all 8")
    func argumentSingleton() async throws {
        let counts = Hunt21BCounts()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt21BSession.self).withArguments(String.self).to { _, user in
                    Hunt21BSession(user: user, counts: counts)
                }.in(.singleton)
            })
        let storm = try await Hunt21B.storm { index throws(ProvisionError) in
            try injector.get(Hunt21BSession.self, arguments: "user\(index)")
        }
        #expect(storm.finished)
        #expect(storm.errors.isEmpty, "\(storm.errors)")
        #expect(counts.count("session") == 1)
        #expect(Hunt21B.allIdentical(storm.values))
        #expect(storm.values.first.map { (0..<8).map { "user\($0)" }.contains($0.user) } == true)
    }

    @Test("every style in one graph, half the threads through children: exact builds, right values")
    func everyStyleThroughChildren() async throws {
        let counts = Hunt21BCounts()
        let parent = try Injector(
            Self.constructorModule(counts),
            ClosureModule { binder in
                binder.bind(Hunt21BConfig.self, named: "audit").toInstance(Hunt21BConfig(port: 2))
                binder.bind(Hunt21BAudit.self).to(Hunt21BAudit.init(counts:)).in(.singleton)
                binder.bind(Hunt21BMetrics.self).to(Hunt21BMetrics.init(counts:)).in(.singleton)
                binder.bind(Hunt21BTelemetry.self).to(Hunt21BTelemetry.init(metrics:tracer:))
                binder.multibind((any Hunt21BPlugin).self).to { _ in Hunt21BPluginImpl(id: 7, counts: counts) }
                    .in(.singleton)
            })
        let children = try (0..<4).map { _ throws(ProvisionError) in try parent.makeChild() }
        let storm = try await Hunt21B.storm { index throws(ProvisionError) -> [ObjectIdentifier] in
            let through = index < 4 ? children[index] : parent
            let service = try through.get(Hunt21BService.self)
            let audit = try through.get(Hunt21BAudit.self)
            let telemetry = try through.get(Hunt21BTelemetry.self)
            let plugins = try through.getAll((any Hunt21BPlugin).self)
            let clock = try through.get(Hunt21BJITCache.self)
            guard audit.woken, let metrics = telemetry.metrics, let plugin = plugins.first as? Hunt21BPluginImpl
            else { return [] }
            return [
                ObjectIdentifier(service.repository), ObjectIdentifier(audit), ObjectIdentifier(metrics),
                ObjectIdentifier(plugin), ObjectIdentifier(clock),
            ]
        }
        #expect(storm.finished)
        #expect(storm.errors.isEmpty, "\(storm.errors)")
        #expect(storm.values.count == 8 && storm.values.allSatisfy { $0.count == 5 })
        for column in 0..<5 {
            #expect(Set(storm.values.compactMap { $0.count == 5 ? $0[column] : nil }).count == 1, "column \(column)")
        }
        for name in ["pool", "repository", "audit", "audit.hook", "metrics", "plugin7", "clock", "cache"] {
            #expect(counts.count(name) == 1, "\(name)")
        }
        #expect(counts.count("service") == 8)
    }
    @Test("a singleton whose first build fails: never two builds at once; the next storm builds it once")
    func failingFirstSingleton() async throws {
        let calls = Counter()
        let running = Atomic(0)
        let overlapped = Atomic(false)
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt21BWidget.self).to { () throws -> Hunt21BWidget in
                    if running.add(1, ordering: .sequentiallyConsistent).newValue > 1 {
                        overlapped.store(true, ordering: .sequentiallyConsistent)
                    }
                    defer { running.subtract(1, ordering: .sequentiallyConsistent) }
                    let call = calls.increment()
                    if call == 1 { throw ExpectedFailure(id: call) }
                    return Hunt21BWidget(serial: call)
                }.in(.singleton)
            })
        let storm = try await Hunt21B.storm { _ throws(ProvisionError) in try injector.get(Hunt21BWidget.self) }
        #expect(storm.finished)
        let didOverlap = overlapped.load(ordering: .sequentiallyConsistent)
        #expect(!didOverlap)
        #expect(storm.errors.allSatisfy { $0.code == .factoryFailed && $0.cause as? ExpectedFailure != nil })
        #expect(!storm.errors.isEmpty)
        #expect(storm.values.isEmpty || Hunt21B.allIdentical(storm.values))
        // The threads that waited for the failed build got its error; a second storm builds once.
        let again = try await Hunt21B.storm { _ throws(ProvisionError) in try injector.get(Hunt21BWidget.self) }
        #expect(again.finished)
        #expect(again.errors.isEmpty, "\(again.errors)")
        #expect(Hunt21B.allIdentical(again.values + storm.values))
        #expect(calls.value == 2, "one failed build, one that succeeded")
    }

    @Test("a Lazy shared by 8 threads whose first read fails: the next storm reads once and shares the value")
    func failingFirstLazy() async throws {
        let calls = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt21BWidget.self).to { () throws -> Hunt21BWidget in
                    let call = calls.increment()
                    if call == 1 { throw ExpectedFailure(id: call) }
                    return Hunt21BWidget(serial: call)
                }
            })
        let lazy = try await injector.get(Lazy<Hunt21BWidget>.self)
        let storm = try await Hunt21B.storm { _ throws(ProvisionError) in try lazy.value }
        #expect(storm.finished)
        #expect(storm.errors.allSatisfy { $0.code == .factoryFailed })
        #expect(!storm.errors.isEmpty)
        #expect(storm.values.isEmpty || Hunt21B.allIdentical(storm.values))
        // The readers that waited for the failed read got its error; the handle reads again, once.
        let again = try await Hunt21B.storm { _ throws(ProvisionError) in try lazy.value }
        #expect(again.finished)
        #expect(again.errors.isEmpty, "\(again.errors)")
        #expect(Hunt21B.allIdentical(again.values + storm.values))
        #expect(calls.value == 2)
    }

    @Test("transient property-injected objects over an unbuilt singleton: one hook each, one singleton")
    func transientPropertyInjected() async throws {
        let counts = Hunt21BCounts()
        let injector = try Injector(
            Self.constructorModule(counts),
            ClosureModule { binder in
                binder.bind(Hunt21BConfig.self, named: "audit").toInstance(Hunt21BConfig(port: 3))
                binder.bind(Hunt21BAudit.self).to(Hunt21BAudit.init(counts:))
            })
        let storm = try await Hunt21B.storm { _ throws(ProvisionError) in try injector.get(Hunt21BAudit.self) }
        #expect(storm.finished)
        #expect(storm.errors.isEmpty, "\(storm.errors)")
        #expect(counts.count("audit") == 8)
        #expect(counts.count("audit.hook") == 8)
        #expect(counts.count("pool") == 1)
        #expect(storm.values.allSatisfy { $0.woken })
        #expect(Set(storm.values.map { ObjectIdentifier($0) }).count == 8)
        #expect(Hunt21B.allIdentical(storm.values.compactMap(\.pool)))
    }
    @Test("8 threads, a scope each, the same diamond: one scoped leaf per scope, one singleton for all")
    func scopePerThreadDiamond() async throws {
        let counts = Hunt21BCounts()
        let serial = Counter()
        let injector = try Injector(
            Self.constructorModule(counts),
            ClosureModule { binder in
                binder.bind(Hunt21BLeaf.self).to { resolver in
                    _ = try resolver.get(Hunt21BRepository.self)
                    return Hunt21BLeaf(serial: serial.increment())
                }.in(.scoped)
                binder.bind(Hunt21BLeft.self).to(Hunt21BLeft.init(leaf:))
                binder.bind(Hunt21BRight.self).to(Hunt21BRight.init(leaf:))
                binder.bind(Hunt21BTop.self).to(Hunt21BTop.init(left:right:))
            })
        let storm = try await Hunt21B.storm { _ throws(ProvisionError) -> Bool in
            let scope = injector.makeScope()
            let top = try scope.get(Hunt21BTop.self)
            let again = try scope.get(Hunt21BLeft.self)
            try scope.close()
            return top.left.leaf === top.right.leaf && again.leaf === top.left.leaf
        }
        #expect(storm.finished)
        #expect(storm.errors.isEmpty, "\(storm.errors)")
        #expect(storm.values == Array(repeating: true, count: 8))
        #expect(serial.value == 8)
        #expect(counts.count("repository") == 1)
    }
    @Test("8 threads: half install a plugin with an eager singleton, half resolve; each plugin's built once")
    func installWhileResolving() async throws {
        let counts = Hunt21BCounts()
        let injector = try Injector(Self.constructorModule(counts))
        let storm = try await Hunt21B.storm { index throws(ProvisionError) -> Bool in
            if index.isMultiple(of: 2) {
                try injector.install(
                    ClosureModule { binder in
                        binder.bind(Hunt21BEngine.self, named: "plugin\(index)").to { resolver in
                            _ = try resolver.get(Hunt21BRepository.self)
                            return Hunt21BEngine(counts: counts, name: "plugin\(index)")
                        }.asEagerSingleton()
                    })
                let first = try injector.get(Hunt21BEngine.self, named: "plugin\(index)")
                let second = try injector.get(Hunt21BEngine.self, named: "plugin\(index)")
                return injector.hasBinding(for: Hunt21BEngine.self, named: "plugin\(index)") && first === second
            }
            return try injector.get(Hunt21BService.self).repository === injector.get(Hunt21BRepository.self)
        }
        #expect(storm.finished)
        #expect(storm.errors.isEmpty, "\(storm.errors)")
        #expect(storm.values == Array(repeating: true, count: 8))
        for index in stride(from: 0, to: 8, by: 2) { #expect(counts.count("plugin\(index)") == 1) }
        #expect(counts.count("repository") == 1)
        #expect(counts.count("pool") == 1)
    }
}
