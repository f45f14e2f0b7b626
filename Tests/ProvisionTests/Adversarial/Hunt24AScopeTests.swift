import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

/// One per scope.
final class Hunt24ARequestContext: Disposable {
    let log: EventLog
    let serial: Int
    init(log: EventLog, serial: Int) {
        self.log = log
        self.serial = serial
    }
    func dispose() { log.append("dispose context \(serial)") }
}

/// Built from an argument and the scope's context.
struct Hunt24AScopedReport: Sendable {
    let title: String?
    let context: Hunt24ARequestContext
}

/// A scoped service holding handles made in its scope.
final class Hunt24AScopedHandler: Sendable {
    let reports: Provider<Hunt24AScopedReport>
    let context: Lazy<Hunt24ARequestContext>
    let factory: ObjectFactory
    init(reports: Provider<Hunt24AScopedReport>, context: Lazy<Hunt24ARequestContext>, factory: ObjectFactory) {
        self.reports = reports
        self.context = context
        self.factory = factory
    }
}

// MARK: - Tests

@Suite("Hunt 24A: handles with arguments made in a scope", .timeLimit(.minutes(2)))
struct Hunt24AScopeTests {
    static func injector(log: EventLog) throws -> Injector {
        let serials = Locked(0)
        return try Injector(
            ClosureModule { binder in
                binder.bind(Hunt24ARequestContext.self).to { _ in
                    let serial = serials.withLock { serial -> Int in
                        serial += 1
                        return serial
                    }
                    return Hunt24ARequestContext(log: log, serial: serial)
                }.in(.scoped)
                binder.bind(Hunt24AScopedReport.self).withArguments(String?.self).to {
                    (resolver: Resolver, title: String?) in
                    Hunt24AScopedReport(title: title, context: try resolver.get(Hunt24ARequestContext.self))
                }
                binder.bind(Hunt24AScopedHandler.self).to(Hunt24AScopedHandler.init(reports:context:factory:))
                    .in(.scoped)
            })
    }

    @Test("a provider made in a scope builds with arguments in that scope, exact or converted")
    func providerArgumentsInScope() throws {
        let log = EventLog()
        let injector = try Self.injector(log: log)
        let scope = injector.makeScope()
        let handler = try scope.syncGet(Hunt24AScopedHandler.self)
        let context = try scope.syncGet(Hunt24ARequestContext.self)
        #expect(try handler.reports.get(arguments: String?.some("exact")).context === context)
        #expect(try handler.reports.get(arguments: "converted").context === context)
        #expect(try handler.reports.lazy(arguments: "lazy").value.context === context)
        #expect(try handler.factory.get(Hunt24AScopedReport.self, arguments: "factory").context === context)
        #expect(try handler.factory.get(Hunt24AScopedReport.self, arguments: String?.none).context === context)
        #expect(try handler.context.value === context)
        try scope.syncClose()
        #expect(log.all == ["dispose context 1"])
        for attempt in [
            { _ = try handler.reports.get(arguments: "after") },
            { _ = try handler.reports.get(arguments: String?.some("after")) },
            { _ = try handler.factory.get(Hunt24AScopedReport.self, arguments: "after") },
        ] as [() throws -> Void] {
            let error = #expect(throws: ProvisionError.self) { try attempt() }
            #expect(error?.code == .outsideScope)
        }
        #expect(log.all == ["dispose context 1"])
    }

    @Test("two scopes' handlers on 8 threads each: every report has its own scope's one context")
    func concurrentScopes() throws {
        let log = EventLog()
        let injector = try Self.injector(log: log)
        let scopes = [injector.makeScope(), injector.makeScope()]
        let handlers = try scopes.map { try $0.syncGet(Hunt24AScopedHandler.self) }
        let barrier = Barrier(count: 16)
        let seen = Locked<[[ObjectIdentifier]]>([[], []])
        let finished = runThreads(16, timeout: 60) { index in
            let which = index % 2
            barrier.arriveAndWait()
            for round in 0..<50 {
                guard let report = try? handlers[which].reports.get(arguments: "r\(round)") else { continue }
                seen.withLock { $0[which].append(ObjectIdentifier(report.context)) }
            }
        }
        #expect(finished)
        let contexts = seen.withLock { $0 }
        #expect(contexts[0].count == 400 && contexts[1].count == 400)
        #expect(Set(contexts[0]).count == 1 && Set(contexts[1]).count == 1)
        #expect(Set(contexts[0]) != Set(contexts[1]))
        for scope in scopes { try scope.syncClose() }
        #expect(log.all.count == 2)
    }
}
