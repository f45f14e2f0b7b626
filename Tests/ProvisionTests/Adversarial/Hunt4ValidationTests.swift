import Testing

@testable import Provision

private final class Hunt4RequestInfo: Sendable {}

/// A singleton that follows the captive-dependency hint: it holds a provider of the scoped binding.
private final class Hunt4Cache: Sendable {
    let info: Provider<Hunt4RequestInfo>
    init(info: Provider<Hunt4RequestInfo>) { self.info = info }
}

/// A singleton that captures the scoped instance itself.
private final class Hunt4CaptiveCache: Sendable {
    init(info: Hunt4RequestInfo) {}
}

/// The same singleton with the seed it would need, through a provider (the seed hint).
private struct Hunt4Tenant: Sendable { let name: String }

private final class Hunt4TenantCache: Sendable {
    let tenant: Provider<Hunt4Tenant>
    init(tenant: Provider<Hunt4Tenant>) { self.tenant = tenant }
}

@Suite("Hunt4 validation against what resolving does", .timeLimit(.minutes(1)))
struct Hunt4ValidationTests {
    private static func report(_ configure: @escaping @Sendable (Binder) -> Void) throws -> ValidationReport {
        try Injector(
            modules: [ClosureModule(configure)],
            configuration: Injector.Configuration(validatesOnCreation: false)
        ).validationReport()
    }

    // Found by the fourth hunt, fixed: the hint said "inject Provider<X> and resolve it on each use", which
    // can never work from a singleton (its handles belong to no scope).
    @Test("a singleton depending on a scoped binding is captive, and the hint says what works")
    func hintSaysWhatWorks() throws {
        let report = try Self.report { binder in
            binder.bind(Hunt4RequestInfo.self).to(Hunt4RequestInfo.init).in(.scoped)
            binder.bind(Hunt4CaptiveCache.self).to(Hunt4CaptiveCache.init(info:)).in(.singleton)
        }
        let problem = try #require(report.problems.first)
        #expect(problem.code == .captiveDependency)
        #expect(!problem.hint.contains("inject Provider"))
        #expect(problem.hint.contains("scope.get(Hunt4RequestInfo.self)"), "\(problem.hint)")
    }

    // Found by the fourth hunt, fixed: validation accepted a singleton's Provider of a scoped binding,
    // though every use of it throws outsideScope, even inside a scope.
    @Test("a singleton's Provider of a scoped binding is reported, and fails at run time as reported")
    func providerFromSingletonInScope() async throws {
        let report = try Self.report { binder in
            binder.bind(Hunt4RequestInfo.self).to(Hunt4RequestInfo.init).in(.scoped)
            binder.bind(Hunt4Cache.self).to(Hunt4Cache.init(info:)).in(.singleton)
        }
        #expect(report.problems.map(\.code) == [.captiveDependency])
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt4RequestInfo.self).to(Hunt4RequestInfo.init).in(.scoped)
                    binder.bind(Hunt4Cache.self).to(Hunt4Cache.init(info:)).in(.singleton)
                }
            ],
            configuration: Injector.Configuration(validatesOnCreation: false)
        )
        let scope = injector.makeScope()
        let cache = try await scope.get(Hunt4Cache.self)
        let error = #expect(throws: ProvisionError.self) { _ = try cache.info.get() }
        #expect(error?.code == .outsideScope)
        try await scope.close()
    }

    // Found by the fourth hunt, fixed: the same for a seed.
    @Test("a singleton's Provider of a seed is reported")
    func providerOfSeedFromSingleton() throws {
        let report = try Self.report { binder in
            binder.bind(Hunt4Tenant.self).toSeed()
            binder.bind(Hunt4TenantCache.self).to(Hunt4TenantCache.init(tenant:)).in(.singleton)
        }
        #expect(report.problems.map(\.code) == [.captiveDependency])
    }
}
