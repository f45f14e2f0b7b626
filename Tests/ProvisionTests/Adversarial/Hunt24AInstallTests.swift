import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

/// Bound with a checked instance.
protocol Hunt24AClock: Sendable {
    var now: Int { get }
}

/// A clock.
struct Hunt24AFixedClock: Hunt24AClock {
    let now: Int
}

// MARK: - Tests

@Suite("Hunt 24A: checked instances in installs and derivations", .timeLimit(.minutes(2)))
struct Hunt24AInstallTests {
    static let wrong = ClosureModule { binder in
        binder.bind((any Hunt24AClock).self).toInstance(checking: "not a clock")
    }

    static let right = ClosureModule { binder in
        binder.bind((any Hunt24AClock).self).toInstance(checking: Hunt24AFixedClock(now: 7))
    }

    @Test("creation: typeMismatch naming both types")
    func creation() throws {
        let error = #expect(throws: ProvisionError.self) { _ = try Injector(Self.wrong) }
        let codes = [error?.code] + (error?.underlyingErrors.map(\.code) ?? [])
        #expect(codes.contains(.typeMismatch))
        #expect(String(describing: error).contains("String"))
    }

    @Test("install: throws typeMismatch and adds nothing; a corrected install succeeds")
    func install() throws {
        let injector = try Injector()
        let error = #expect(throws: ProvisionError.self) { try injector.install(Self.wrong) }
        #expect(error?.code == .typeMismatch)
        #expect(!injector.hasBinding(for: (any Hunt24AClock).self))
        try injector.install(Self.right)
        #expect(try injector.syncGet((any Hunt24AClock).self).now == 7)
    }

    @Test("overriding, with() and makeChild: typeMismatch")
    func derivations() throws {
        let injector = try Injector(Self.right)
        let overriding = #expect(throws: ProvisionError.self) { _ = try injector.overriding(Self.wrong) }
        #expect(overriding?.code == .typeMismatch)
        let child = #expect(throws: ProvisionError.self) { _ = try Injector().makeChild(Self.wrong) }
        #expect(child?.code == .typeMismatch)
        let with = #expect(throws: ProvisionError.self) { _ = try Injector().with(Self.wrong) }
        #expect(with?.code == .typeMismatch)
        #expect(try injector.syncGet((any Hunt24AClock).self).now == 7)
    }
}
