import InMemoryLogging
import Logging
import Provision
import ProvisionLogging
import Testing

final class LoggedEngine: Sendable {}

final class LoggedCar: Sendable {
    init(engine: LoggedEngine) {}
}

struct ExpectedFailure: Error {}

@Suite("Logging resolution observer")
struct LoggingResolutionObserverTests {
    private func logger(level: Logger.Level) -> (Logger, InMemoryLogHandler) {
        var handler = InMemoryLogHandler()
        handler.logLevel = level
        let logger = Logger(label: "provision.tests") { _ in handler }
        return (logger, handler)
    }

    @Test("each build is one message with the event's metadata, at the build level")
    func builds() throws {
        let (logger, handler) = logger(level: .trace)
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(LoggedEngine.self).to(LoggedEngine.init).in(.singleton)
                    binder.bind(LoggedCar.self).to(LoggedCar.init(engine:))
                }
            ],
            configuration: Injector.Configuration(observer: LoggingResolutionObserver(logger: logger))
        )
        _ = try injector.get(LoggedCar.self)
        let entries = handler.entries
        #expect(entries.map(\.level) == [.trace, .trace])
        #expect(entries.map { $0.metadata["provision.key"]?.description } == ["LoggedEngine", "LoggedCar"])
        #expect(entries.map { $0.metadata["provision.scope"]?.description } == ["singleton", "transient"])
        #expect(entries.allSatisfy { $0.metadata["provision.event"]?.description == "built" })
        #expect(entries.allSatisfy { Int($0.metadata["provision.duration_ns"]?.description ?? "") != nil })
        #expect(entries.first?.message.description.hasPrefix("built LoggedEngine (singleton) in ") == true)
    }

    @Test("the logger's level filters events; slow builds are raised to the slow-build level")
    func levels() throws {
        let (logger, handler) = logger(level: .info)
        let observer = LoggingResolutionObserver(logger: logger, slowBuildThreshold: .zero)
        let injector = try Injector(
            modules: [ClosureModule { $0.bind(LoggedEngine.self).to(LoggedEngine.init) }],
            configuration: Injector.Configuration(observer: observer)
        )
        _ = try injector.get(LoggedEngine.self)
        #expect(handler.entries.map(\.level) == [.notice])

        let (quiet, quietHandler) = self.logger(level: .info)
        let unfiltered = try Injector(
            modules: [ClosureModule { $0.bind(LoggedEngine.self).to(LoggedEngine.init) }],
            configuration: Injector.Configuration(observer: LoggingResolutionObserver(logger: quiet))
        )
        _ = try unfiltered.get(LoggedEngine.self)
        #expect(quietHandler.entries.isEmpty)
    }

    @Test("a failed build is logged with its error at the failure level")
    func failures() throws {
        let (logger, handler) = logger(level: .debug)
        let injector = try Injector(
            modules: [
                ClosureModule { $0.bind(LoggedEngine.self).to { () throws -> LoggedEngine in throw ExpectedFailure() } }
            ],
            configuration: Injector.Configuration(observer: LoggingResolutionObserver(logger: logger))
        )
        #expect(throws: ProvisionError.self) { try injector.get(LoggedEngine.self) }
        let entry = try #require(handler.entries.first)
        #expect(handler.entries.count == 1)
        #expect(entry.level == .debug)
        #expect(entry.metadata["provision.event"]?.description == "failed")
        #expect((entry.error as? ProvisionError)?.code == .factoryFailed)
    }

    @Test("a request that fails while its binding is linked is logged with its error at the failure level")
    func linkFailures() throws {
        let (logger, handler) = logger(level: .debug)
        let injector = try Injector(
            modules: [ClosureModule { $0.bind(LoggedCar.self).to(LoggedCar.init(engine:)) }],
            configuration: Injector.Configuration(
                validatesOnCreation: false, observer: LoggingResolutionObserver(logger: logger))
        )
        #expect(throws: ProvisionError.self) { try injector.get(LoggedCar.self) }
        let entry = try #require(handler.entries.first)
        #expect(handler.entries.count == 1)
        #expect(entry.level == .debug)
        #expect(entry.metadata["provision.event"]?.description == "link failed")
        #expect(entry.message.description == "link failed LoggedCar (transient): not bound")
        #expect((entry.error as? ProvisionError)?.code == .notBound)
    }
}
