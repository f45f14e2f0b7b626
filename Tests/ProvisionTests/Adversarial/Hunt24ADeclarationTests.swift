import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

/// A leaf that declaring closures resolve without declaring it.
struct Hunt24AUndeclared: Sendable {}

/// A leaf that declaring closures declare.
struct Hunt24ADeclared: Sendable {}

/// Built by a declaring closure with arguments.
struct Hunt24AReport: Sendable {
    let title: String?
}

/// Depends on the report (so its defaults build it).
struct Hunt24AReportUser: Sendable {
    let report: Hunt24AReport
}

/// Holds a provider of the report.
struct Hunt24AReportProvider: Sendable {
    let reports: Provider<Hunt24AReport>
}

/// A self-declaring type whose closure declares nothing but resolves a leaf.
struct Hunt24ASelfDeclared: Injectable {
    static let injection = Injection<Hunt24ASelfDeclared>(dependencies: []) { resolver in
        _ = try resolver.get(Hunt24AUndeclared.self)
        return Hunt24ASelfDeclared()
    }
}

/// A scoped service built by a declaring closure.
final class Hunt24AScopedDeclared: Sendable {}

// MARK: - Tests

#if DEBUG
    @Suite("Hunt 24A: declared closure dependencies are enforced on every path", .timeLimit(.minutes(2)))
    struct Hunt24ADeclarationTests {
        static func injector() throws -> Injector {
            try Injector(
                ClosureModule { binder in
                    binder.bind(Hunt24AUndeclared.self).to(Hunt24AUndeclared.init)
                    binder.bind(Hunt24ADeclared.self).to(Hunt24ADeclared.init)
                    binder.bind(Hunt24AReport.self).withArguments(String?.self)
                        .to(dependencies: [BindingKey(Hunt24ADeclared.self)]) { (resolver: Resolver, title: String?) in
                            _ = try resolver.get(Hunt24AUndeclared.self)
                            return Hunt24AReport(title: title)
                        }
                        .defaults("default")
                    binder.bind(Hunt24AReportUser.self).to(Hunt24AReportUser.init(report:))
                    binder.bind(Hunt24AReportProvider.self).to(Hunt24AReportProvider.init(reports:))
                    binder.bind(Hunt24AScopedDeclared.self).to(dependencies: [BindingKey(Hunt24ADeclared.self)]) {
                        resolver in
                        _ = try resolver.get(Hunt24AUndeclared.self)
                        return Hunt24AScopedDeclared()
                    }.in(.scoped)
                })
        }

        @Test("a binding with arguments: exact arguments, converted arguments, defaults, a dependency, a provider")
        func argumentPaths() throws {
            let injector = try Self.injector()
            let exact = #expect(throws: ProvisionError.self) {
                try injector.get(Hunt24AReport.self, arguments: String?.some("exact"))
            }
            #expect(exact?.code == .undeclaredDependency)
            let converted = #expect(throws: ProvisionError.self) {
                try injector.get(Hunt24AReport.self, arguments: "converted")
            }
            #expect(converted?.code == .undeclaredDependency)
            let defaults = #expect(throws: ProvisionError.self) { try injector.syncGet(Hunt24AReport.self) }
            #expect(defaults?.code == .undeclaredDependency)
            let dependency = #expect(throws: ProvisionError.self) { try injector.syncGet(Hunt24AReportUser.self) }
            #expect(dependency?.code == .undeclaredDependency)
            let provider = try injector.syncGet(Hunt24AReportProvider.self)
            let viaProvider = #expect(throws: ProvisionError.self) { try provider.reports.get(arguments: "p") }
            #expect(viaProvider?.code == .undeclaredDependency)
            let viaProviderDefaults = #expect(throws: ProvisionError.self) { try provider.reports.get() }
            #expect(viaProviderDefaults?.code == .undeclaredDependency)
        }

        @Test("an Injectable's declaring closure, and a scoped declaring closure in a scope")
        func injectableAndScoped() async throws {
            let injector = try Self.injector()
            let declared = #expect(throws: ProvisionError.self) { try injector.syncGet(Hunt24ASelfDeclared.self) }
            #expect(declared?.code == .undeclaredDependency)
            let scope = injector.makeScope()
            let scoped = #expect(throws: ProvisionError.self) { try scope.syncGet(Hunt24AScopedDeclared.self) }
            #expect(scoped?.code == .undeclaredDependency)
            let scopedAsync = await #expect(throws: ProvisionError.self) {
                try await scope.get(Hunt24AScopedDeclared.self)
            }
            #expect(scopedAsync?.code == .undeclaredDependency)
            try scope.syncClose()
        }

        @Test("async requests of a binding with arguments, by defaults")
        func asyncArgumentPaths() async throws {
            let injector = try Self.injector()
            let defaults = await #expect(throws: ProvisionError.self) { try await injector.get(Hunt24AReport.self) }
            #expect(defaults?.code == .undeclaredDependency)
            let dependency = await #expect(throws: ProvisionError.self) {
                try await injector.get(Hunt24AReportUser.self)
            }
            #expect(dependency?.code == .undeclaredDependency)
        }
    }
#endif
