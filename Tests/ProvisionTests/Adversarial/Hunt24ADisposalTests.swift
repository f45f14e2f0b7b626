import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

/// A struct that is disposable: it has no identity, and must still be disposed once.
struct Hunt24AValueResource: Disposable {
    let log: EventLog
    let label: String
    func dispose() { log.append("dispose \(label)") }
}

/// A class that is both disposable and async-disposable (one `dispose()` serves both): disposed once.
final class Hunt24ADualResource: Disposable, AsyncDisposable {
    let log: EventLog
    let label: String
    init(log: EventLog, label: String) {
        self.log = log
        self.label = label
    }
    func dispose() { log.append("dispose \(label)") }
}

/// A protocol two keys share.
protocol Hunt24AResourceProtocol: Sendable {}

extension Hunt24ADualResource: Hunt24AResourceProtocol {}

/// Built from a value resource: disposed before it.
final class Hunt24AResourceUser: Disposable {
    let log: EventLog
    let resource: Hunt24AValueResource
    init(log: EventLog, resource: Hunt24AValueResource) {
        self.log = log
        self.resource = resource
    }
    func dispose() { log.append("dispose user") }
}

// MARK: - Tests

@Suite("Hunt 24A: disposal of values, dual conformances, shared instances", .timeLimit(.minutes(2)))
struct Hunt24ADisposalTests {
    static func module(log: EventLog, scope: Scope) -> ClosureModule {
        ClosureModule { binder in
            binder.bind(Hunt24AValueResource.self).to { _ in Hunt24AValueResource(log: log, label: "value") }.in(scope)
            binder.bind(Hunt24ADualResource.self).to { _ in Hunt24ADualResource(log: log, label: "dual") }.in(scope)
            binder.bind((any Hunt24AResourceProtocol).self).to(binding: Hunt24ADualResource.self)
            binder.bind(Hunt24AResourceUser.self).to { resolver in
                Hunt24AResourceUser(log: log, resource: try resolver.get(Hunt24AValueResource.self))
            }.in(scope)
        }
    }

    @Test("singletons: a struct, a dual conformance and a shared instance are each disposed once, newest first")
    func singletonDisposal() async throws {
        let log = EventLog()
        let injector = try Injector(Self.module(log: log, scope: .singleton))
        _ = try injector.syncGet(Hunt24AResourceUser.self)
        _ = try injector.syncGet((any Hunt24AResourceProtocol).self)
        _ = try injector.syncGet(Hunt24ADualResource.self)
        try await injector.shutdown()
        let events = log.all
        #expect(events.filter { $0.contains("dual") }.count == 1, "\(events)")
        #expect(events.filter { $0 == "dispose value" }.count == 1, "\(events)")
        #expect(events.filter { $0 == "dispose user" }.count == 1, "\(events)")
        if let user = events.firstIndex(of: "dispose user"), let value = events.firstIndex(of: "dispose value") {
            #expect(user < value)
        }
    }

    @Test("scoped: a struct, a dual conformance and a shared instance are each disposed once, newest first")
    func scopedDisposal() async throws {
        let log = EventLog()
        let injector = try Injector(Self.module(log: log, scope: .scoped))
        let scope = injector.makeScope()
        _ = try scope.syncGet(Hunt24AResourceUser.self)
        _ = try scope.syncGet((any Hunt24AResourceProtocol).self)
        _ = try scope.syncGet(Hunt24ADualResource.self)
        try await scope.close()
        let events = log.all
        #expect(events.filter { $0.contains("dual") }.count == 1, "\(events)")
        #expect(events.filter { $0 == "dispose value" }.count == 1, "\(events)")
        if let user = events.firstIndex(of: "dispose user"), let value = events.firstIndex(of: "dispose value") {
            #expect(user < value)
        }
    }

    @Test("the synchronous close of a scope with a dual conformance disposes it synchronously, once")
    func syncCloseDual() throws {
        let log = EventLog()
        let injector = try Injector(Self.module(log: log, scope: .scoped))
        let scope = injector.makeScope()
        _ = try scope.syncGet(Hunt24ADualResource.self)
        try scope.syncClose()
        #expect(log.all == ["dispose dual"])
    }
}
