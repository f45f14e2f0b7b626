import Dispatch
import Foundation
import InMemoryLogging
import Logging
import Provision
import ProvisionLogging
import Testing

// Hunt 27A: LoggingResolutionObserver on a failure through nested builds, on async builds, with levels
// of its own, and with threads racing a singleton's first build.

private final class Hunt27APiston: Sendable {}

private final class Hunt27AEngine: Sendable {
    init(piston: Hunt27APiston) {}
}

private final class Hunt27ACar: Sendable {
    init(engine: Hunt27AEngine) {}
}

private struct Hunt27AFailure: Error {}

private func hunt27ALogger(level: Logger.Level) -> (Logger, InMemoryLogHandler) {
    var handler = InMemoryLogHandler()
    handler.logLevel = level
    return (Logger(label: "provision.tests.hunt27a") { _ in handler }, handler)
}

@Suite("Hunt27A LoggingResolutionObserver", .timeLimit(.minutes(1)))
struct Hunt27ALoggingTests {
    /// A user expects (LoggingResolutionObserver: "A failure is logged by every binding on the failing
    /// path, innermost first", at `failureLevel`) that a factory failing two builds deep is logged three
    /// times, piston then engine then car, each at the configured failure level with the error attached.
    @Test("a failure two builds deep is logged by each binding on the path, innermost first")
    func nestedFailure() throws {
        let (logger, handler) = hunt27ALogger(level: .trace)
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt27APiston.self).to { () throws -> Hunt27APiston in throw Hunt27AFailure() }
                    binder.bind(Hunt27AEngine.self).to(Hunt27AEngine.init(piston:)).in(.singleton)
                    binder.bind(Hunt27ACar.self).to(Hunt27ACar.init(engine:))
                }
            ],
            configuration: .init(observer: LoggingResolutionObserver(logger: logger, failureLevel: .warning))
        )
        #expect(throws: ProvisionError.self) { try injector.get(Hunt27ACar.self) }
        let entries = handler.entries
        #expect(
            entries.map { $0.metadata["provision.key"]?.description } == [
                "Hunt27APiston", "Hunt27AEngine", "Hunt27ACar",
            ])
        #expect(entries.map(\.level) == [.warning, .warning, .warning])
        #expect(entries.allSatisfy { $0.metadata["provision.event"]?.description == "failed" })
        #expect(entries.allSatisfy { ($0.error as? ProvisionError)?.code == .factoryFailed })
    }

    /// A user expects (LoggingResolutionObserver: "Each event is one log message"; ResolutionObserver's
    /// default async hook "times the build and delivers a built ... event") that a singleton with an async
    /// factory, resolved with `await`, is logged once as built, with its scope, and at the slow-build level
    /// when the threshold is zero, while its synchronous transient dependency is logged too.
    @Test("an async build is logged once, at the slow-build level with a zero threshold")
    func asyncBuild() async throws {
        let (logger, handler) = hunt27ALogger(level: .info)
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt27APiston.self).to(Hunt27APiston.init)
                    binder.bind(Hunt27AEngine.self).to { (resolver: Resolver) async throws -> Hunt27AEngine in
                        await Task.yield()
                        return Hunt27AEngine(piston: try await resolver.get())
                    }.in(.singleton)
                }
            ],
            configuration: .init(
                observer: LoggingResolutionObserver(logger: logger, slowBuildThreshold: .zero, slowBuildLevel: .info))
        )
        _ = try await injector.get(Hunt27AEngine.self)
        _ = try await injector.get(Hunt27AEngine.self)
        let entries = handler.entries
        #expect(entries.map { $0.metadata["provision.key"]?.description } == ["Hunt27APiston", "Hunt27AEngine"])
        #expect(entries.map { $0.metadata["provision.scope"]?.description } == ["transient", "singleton"])
        #expect(entries.map(\.level) == [.info, .info])
        #expect(entries.last?.message.description.hasPrefix("built Hunt27AEngine (singleton) in ") == true)
    }

    /// A user expects (ResolutionObserver: a built singleton "reports nothing" when served from its cell;
    /// a wait is logged at `waitLevel`) that 8 threads racing a singleton's first build log exactly one
    /// build of it, and that every other message is a wait for it at the wait level, at most 7.
    @Test("8 threads race a singleton: exactly one build logged, every other message a wait")
    func racingThreads() throws {
        let (logger, handler) = hunt27ALogger(level: .trace)
        let injector = try Injector(
            modules: [ClosureModule { $0.bind(Hunt27APiston.self).to(Hunt27APiston.init).in(.singleton) }],
            configuration: .init(observer: LoggingResolutionObserver(logger: logger, waitLevel: .notice))
        )
        let group = DispatchGroup()
        let go = DispatchSemaphore(value: 0)
        for _ in 0..<8 {
            group.enter()
            Thread.detachNewThread {
                _ = go.wait(timeout: .now() + 20)
                _ = try? injector.get(Hunt27APiston.self)
                group.leave()
            }
        }
        for _ in 0..<8 { go.signal() }
        #expect(group.wait(timeout: .now() + 20) == .success)
        let entries = handler.entries
        let builds = entries.filter { $0.metadata["provision.event"]?.description == "built" }
        let waits = entries.filter { $0.metadata["provision.event"]?.description == "waited for singleton" }
        #expect(builds.count == 1)
        #expect(builds.first?.level == .trace)
        #expect(waits.count == entries.count - 1 && waits.count <= 7)
        #expect(waits.allSatisfy { $0.level == .notice && $0.error == nil })
    }
}
