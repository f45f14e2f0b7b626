import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

/// Nothing binds it.
struct Hunt24AAbsent: Sendable {}

/// Bound with two argument lists; the second declares a dependency nothing binds.
struct Hunt24ATwoLists: Sendable {
    let label: String
}

// MARK: - Tests

@Suite("Hunt 24A: validation of bindings with several argument lists", .timeLimit(.minutes(2)))
struct Hunt24AValidationTests {
    static func module(named name: String?) -> ClosureModule {
        ClosureModule { binder in
            binder.bind(Hunt24ATwoLists.self, named: name).withArguments(String.self).to { _, label in
                Hunt24ATwoLists(label: label)
            }
            binder.bind(Hunt24ATwoLists.self, named: name).withArguments(Int.self)
                .to(dependencies: [BindingKey(Hunt24AAbsent.self)]) { resolver, number in
                    _ = try resolver.get(Hunt24AAbsent.self)
                    return Hunt24ATwoLists(label: "\(number)")
                }
        }
    }

    @Test("a variant's missing declared dependency fails validation, named readably", arguments: [nil, "spare"])
    func variantMissingDependency(name: String?) throws {
        let error = #expect(throws: ProvisionError.self) { _ = try Injector(Self.module(named: name)) }
        #expect(error?.code == .validationFailed)
        let problem = error?.underlyingErrors.first
        #expect(error?.underlyingErrors.count == 1)
        #expect(problem?.code == .notBound)
        #expect(problem?.key == BindingKey(Hunt24AAbsent.self))
        let description = error?.description ?? ""
        #expect(!description.contains("\u{E001}"), "\(description)")
        #expect(problem?.pathDescription.contains("Hunt24ATwoLists with arguments (Int)") == true, "\(description)")
        if let name {
            #expect(problem?.pathDescription.contains("named \"\(name)\"") == true, "\(description)")
        }
    }

    @Test("the same graph, unvalidated: the variant's request fails with the same readable path")
    func variantMissingAtRuntime() throws {
        let injector = try Injector(
            modules: [Self.module(named: nil)], configuration: Injector.Configuration(validatesOnCreation: false))
        #expect(try injector.get(Hunt24ATwoLists.self, arguments: "fine").label == "fine")
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt24ATwoLists.self, arguments: 3) }
        #expect(error?.code == .notBound)
        let text = error.map { String(describing: $0) } ?? ""
        #expect(!text.contains("\u{E001}"))
        #expect(error?.path.last == BindingKey(Hunt24AAbsent.self))
        let report = injector.validationReport()
        #expect(!report.isValid)
        #expect(report.error?.underlyingErrors.map(\.key) == [BindingKey(Hunt24AAbsent.self)])
        let dot = injector.graph().dot()
        #expect(!dot.contains("\u{E001}"))
        #expect(!injector.graph().mermaid().contains("\u{E001}"))
        #expect(!injector.bindingKeys.contains { $0.name?.contains("\u{E001}") == true })
        #expect(injector.bindingKeys.filter { $0.type == Hunt24ATwoLists.self }.count == 1)
    }
}
