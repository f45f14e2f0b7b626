import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

/// A singleton bound with several argument lists; counts its builds.
final class Hunt24AStormSingleton: Sendable {
    let label: String
    init(label: String) { self.label = label }
}

// MARK: - Tests

@Suite("Hunt 24A: first-access storms on singletons with arguments", .timeLimit(.minutes(2)))
struct Hunt24AStormTests {
    static func injector(_ counts: Locked<[String: Int]>) throws -> Injector {
        @Sendable func count(_ label: String) -> Hunt24AStormSingleton {
            counts.withLock { $0[label, default: 0] += 1 }
            return Hunt24AStormSingleton(label: label)
        }
        return try Injector(
            ClosureModule { binder in
                binder.bind(Hunt24AStormSingleton.self).to { _ in count("plain") }.in(.singleton)
                binder.bind(Hunt24AStormSingleton.self).withArguments(Int?.self).to { _, _ in count("int?") }
                    .in(.singleton)
                binder.bind(Hunt24AStormSingleton.self).withArguments(String.self).to { _, _ in count("string") }
                    .in(.singleton)
            })
    }

    @Test("32 threads race each binding of a key (plain, exact, converted): each built exactly once")
    func storm() throws {
        let counts = Locked<[String: Int]>([:])
        let injector = try Self.injector(counts)
        let threads = 32
        let barrier = Barrier(count: threads)
        let seen = Locked<[String: Set<ObjectIdentifier>]>([:])
        let failures = Locked(0)
        let finished = runThreads(threads, timeout: 60) { index in
            barrier.arriveAndWait()
            do {
                let value: Hunt24AStormSingleton
                switch index % 4 {
                case 0: value = try injector.syncGet(Hunt24AStormSingleton.self)
                case 1: value = try injector.get(Hunt24AStormSingleton.self, arguments: Int?.some(index))
                case 2: value = try injector.get(Hunt24AStormSingleton.self, arguments: index)
                default: value = try injector.get(Hunt24AStormSingleton.self, arguments: "s\(index)")
                }
                seen.withLock { _ = $0[value.label, default: []].insert(ObjectIdentifier(value)) }
            } catch {
                failures.withLock { $0 += 1 }
            }
        }
        #expect(finished)
        #expect(failures.withLock { $0 } == 0)
        #expect(counts.withLock { $0 } == ["plain": 1, "int?": 1, "string": 1])
        #expect(seen.withLock { $0.mapValues(\.count) } == ["plain": 1, "int?": 1, "string": 1])
    }
}

/// A service bound with an argument list beside a plain binding of its key.
final class Hunt24AVariantService: ManagedService {
    let label: String
    let log: EventLog
    init(label: String, log: EventLog) {
        self.label = label
        self.log = log
    }
    func start() async throws { log.append("start \(label)") }
    func stop() async throws { log.append("stop \(label)") }
}

extension Hunt24AStormTests {
    /// `start()` builds "every singleton binding of this injector" except those "bound with arguments and
    /// no defaults": a second argument list with defaults is built from them, and started.
    @Test("start() builds and starts a second argument list's singleton that has defaults")
    func startBuildsVariantWithDefaults() async throws {
        let log = EventLog()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt24AVariantService.self).to { _ in Hunt24AVariantService(label: "plain", log: log) }
                    .in(.singleton)
                binder.bind(Hunt24AVariantService.self).withArguments(String.self).to { _, label in
                    Hunt24AVariantService(label: label, log: log)
                }.defaults("defaults").in(.singleton)
            })
        try await injector.start()
        #expect(Set(log.with("start ")) == ["plain", "defaults"])
        #expect(try injector.get(Hunt24AVariantService.self, arguments: "later").label == "defaults")
        try await injector.shutdown()
        #expect(Set(log.with("stop ")) == ["plain", "defaults"])
    }
}
