import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

/// Built from an argument by a closure that resolves the other side of a cycle.
struct Hunt24ALoopHead: Sendable {
    let label: String?
}

/// Depends on the head (built with its defaults).
struct Hunt24ALoopTail: Sendable {
    let head: Hunt24ALoopHead
}

/// Holds a provider of the head.
struct Hunt24ALoopProvider: Sendable {
    let heads: Provider<Hunt24ALoopHead>
}

// MARK: - Tests

@Suite("Hunt 24A: cycles through bindings with arguments", .timeLimit(.minutes(2)))
struct Hunt24ACycleTests {
    static func injector(scope: Scope) throws -> Injector {
        try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt24ALoopHead.self).withArguments(String?.self).to {
                        (resolver: Resolver, label: String?) in
                        _ = try resolver.get(Hunt24ALoopTail.self)
                        return Hunt24ALoopHead(label: label)
                    }.defaults("default").in(scope)
                    binder.bind(Hunt24ALoopTail.self).to(Hunt24ALoopTail.init(head:))
                    binder.bind(Hunt24ALoopProvider.self).to(Hunt24ALoopProvider.init(heads:))
                }
            ], configuration: Injector.Configuration(validatesOnCreation: false))
    }

    @Test(
        "a closure with arguments that reaches itself through its defaults is a cycle, on every path",
        arguments: [Scope.transient, Scope.singleton])
    func cycleThroughDefaults(scope: Scope) throws {
        let injector = try Self.injector(scope: scope)
        let provider = try injector.syncGet(Hunt24ALoopProvider.self)
        let attempts: [(String, () throws(ProvisionError) -> Void)] = [
            ("plain", { () throws(ProvisionError) in _ = try injector.syncGet(Hunt24ALoopHead.self) }),
            ("tail", { () throws(ProvisionError) in _ = try injector.syncGet(Hunt24ALoopTail.self) }),
            (
                "exact",
                { () throws(ProvisionError) in _ = try injector.get(Hunt24ALoopHead.self, arguments: String?.some("x"))
                }
            ),
            ("converted", { () throws(ProvisionError) in _ = try injector.get(Hunt24ALoopHead.self, arguments: "x") }),
            ("provider", { () throws(ProvisionError) in _ = try provider.heads.get(arguments: "x") }),
            ("provider defaults", { () throws(ProvisionError) in _ = try provider.heads.get() }),
        ]
        for (label, attempt) in attempts {
            do throws(ProvisionError) {
                try attempt()
                Issue.record("\(label): no error")
            } catch {
                #expect(error.code == .cycle, "\(label): \(error)")
                #expect(error.path.count <= 4, "\(label): \(error.pathDescription)")
            }
        }
    }
}
