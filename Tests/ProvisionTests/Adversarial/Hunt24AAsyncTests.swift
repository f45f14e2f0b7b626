import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

/// Depends on the flaky service: a scoped consumer over an async singleton.
final class Hunt24AAsyncConsumer: Sendable {
    let service: Hunt24AFlakyService
    init(service: Hunt24AFlakyService) { self.service = service }
}

// MARK: - Tests

@Suite("Hunt 24A: async singletons that fail first", .timeLimit(.minutes(2)))
struct Hunt24AAsyncTests {
    static func injector(_ flaky: Hunt24AFlaky, gate: AsyncBarrier?) throws -> Injector {
        try Injector(
            ClosureModule { binder in
                binder.bind(Hunt24AFlakyService.self).to { _ async throws in
                    await gate?.arrive()
                    return try flaky.make()
                }.in(.singleton)
                binder.bind(Hunt24AAsyncConsumer.self).to(Hunt24AAsyncConsumer.init(service:)).in(.scoped)
            })
    }

    @Test("32 tasks race an async singleton whose first build fails: one success, shared")
    func asyncFlakyRace() async throws {
        let flaky = Hunt24AFlaky(failures: 1)
        let injector = try Self.injector(flaky, gate: nil)
        let start = AsyncBarrier(count: 32)
        let outcomes = await withTaskGroup(of: ObjectIdentifier?.self) { group in
            for _ in 0..<32 {
                group.addTask {
                    await start.arrive()
                    return (try? await injector.get(Hunt24AFlakyService.self)).map(ObjectIdentifier.init)
                }
            }
            var outcomes: [ObjectIdentifier?] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        let after = try await injector.get(Hunt24AFlakyService.self)
        #expect(flaky.successCount == 1)
        #expect(Set(outcomes.compactMap { $0 } + [ObjectIdentifier(after)]).count == 1)
        #expect(flaky.callCount <= 2)
    }

    @Test("a failed start() can be followed by shutdown; the sync API before and after")
    func failedStartThenRequests() async throws {
        let flaky = Hunt24AFlaky(failures: 1)
        let injector = try Self.injector(flaky, gate: nil)
        let early = #expect(throws: ProvisionError.self) { try injector.syncGet(Hunt24AFlakyService.self) }
        #expect(early?.code == .requiresAsync)
        let failed = await #expect(throws: ProvisionError.self) { try await injector.start() }
        #expect(failed?.code == .startFailed)
        // The first build failed; an async request builds it now, and the sync API then serves it.
        let built = try await injector.get(Hunt24AFlakyService.self)
        #expect(try injector.syncGet(Hunt24AFlakyService.self) === built)
        let scope = injector.makeScope()
        #expect(try scope.syncGet(Hunt24AAsyncConsumer.self).service === built)
        try scope.syncClose()
        try await injector.shutdown()
        #expect(flaky.successCount == 1)
    }

    @Test("scoped consumers in 8 scopes race the async singleton's first build: one build")
    func scopedConsumersRace() async throws {
        let flaky = Hunt24AFlaky(failures: 0)
        let arrive = AsyncBarrier(count: 1)
        let injector = try Self.injector(flaky, gate: arrive)
        let scopes = (0..<8).map { _ in injector.makeScope() }
        let start = AsyncBarrier(count: 8)
        let services = await withTaskGroup(of: ObjectIdentifier?.self) { group in
            for scope in scopes {
                group.addTask {
                    await start.arrive()
                    return (try? await scope.get(Hunt24AAsyncConsumer.self)).map { ObjectIdentifier($0.service) }
                }
            }
            var services: [ObjectIdentifier?] = []
            for await service in group { services.append(service) }
            return services
        }
        #expect(services.allSatisfy { $0 != nil })
        #expect(Set(services.compactMap { $0 }).count == 1)
        #expect(flaky.callCount == 1)
        for scope in scopes { try await scope.close() }
    }
}
