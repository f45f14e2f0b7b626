import Dispatch
import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

/// A key an override replaces.
private final class H10PClock: Sendable {
    let label: String
    init(label: String) { self.label = label }
}

private final class H10PTag: Sendable {}

/// The bound type: declares no properties itself.
private class H10Animal: @unchecked Sendable {
    init() {}
}

/// What the binding builds: a subclass that declares an injected property.
private final class H10Dog: H10Animal, PropertyInjectable, @unchecked Sendable {
    var clock: H10PClock?
    let tag: H10PTag
    init(tag: H10PTag) {
        self.tag = tag
        super.init()
    }
    static var injectedProperties: [InjectedProperty] { [.inject(\H10Dog.clock)] }
}

/// A scoped unit of work, disposed with its scope.
private final class H10PWork: Disposable {
    let disposals = Counter()
    var isDisposed: Bool { disposals.value > 0 }
    func dispose() { disposals.increment() }
}

/// A singleton whose injected property is a scoped binding.
private final class H10PCache: PropertyInjectable, @unchecked Sendable {
    var work: H10PWork?
    init() {}
    static var injectedProperties: [InjectedProperty] { [.inject(\H10PCache.work)] }
}

/// A singleton whose injected property nothing binds.
private final class H10PReporter: PropertyInjectable, @unchecked Sendable {
    var missing: H10PUnbound?
    init() {}
    static var injectedProperties: [InjectedProperty] { [.inject(\H10PReporter.missing)] }
}

private final class H10PUnbound: Sendable {}

/// A -> (property) B -> (property) C -> (initializer) A.
private final class H10PA: PropertyInjectable, @unchecked Sendable {
    var b: H10PB?
    init() {}
    static var injectedProperties: [InjectedProperty] { [.inject(\H10PA.b)] }
}

private final class H10PB: PropertyInjectable, @unchecked Sendable {
    var c: H10PC?
    init() {}
    static var injectedProperties: [InjectedProperty] { [.inject(\H10PB.c)] }
}

private final class H10PC: Sendable {
    let a: H10PA
    init(a: H10PA) { self.a = a }
}

private func h10PCode<T>(_ body: () throws(ProvisionError) -> T) -> ProvisionError.Code? {
    Hunt5.result(body).hunt5Error?.code
}

// MARK: - Tests

@Suite("Hunt10: property injection with derived injectors, scopes and validation", .timeLimit(.minutes(1)))
struct Hunt10PropertyTests {
    // Found by hunt 10; a known limitation, documented in `overriding(_:)`: the override analysis sees
    // the properties the key's type declares (`Animal`: none) and those of instances already built. Bound
    // `bind(H10Animal.self).to(H10Dog.init(tag:))`, whose result only the factory's body knows to be a
    // `Dog`, and derived before the first build, the binding looks independent of the clock and is shared.
    // (The control below, derived after a build, gets the fake clock.)
    @Test("an override of a property that only the built subclass declares, derived before any build")
    func subclassPropertyOverride() throws {
        let original = try Injector(
            ClosureModule { binder in
                binder.bind(H10PTag.self).to(H10PTag.init)
                binder.bind(H10PClock.self).to { H10PClock(label: "real") }
                binder.bind(H10Animal.self).to(H10Dog.init(tag:)).in(.singleton)
            })
        let derived = try original.overriding { binder in
            binder.override(H10PClock.self).to { H10PClock(label: "fake") }
        }
        let fromDerived = try #require(try derived.get(H10Animal.self) as? H10Dog)
        let fromOriginal = try #require(try original.get(H10Animal.self) as? H10Dog)
        #expect(fromOriginal.clock?.label == "real")
        withKnownIssue("a property only the built subclass declares is unknown before the first build") {
            #expect(fromDerived.clock?.label == "fake", "the derived injector's Dog has the original's clock")
            #expect(
                fromDerived !== fromOriginal, "the derived injector shares a singleton that depends on the override")
        }
    }

    // Control: the same derived after the original built the Dog (the node has seen its properties).
    @Test("control: the same override derived after the original built the Dog")
    func subclassPropertyOverrideAfterBuild() throws {
        let original = try Injector(
            ClosureModule { binder in
                binder.bind(H10PTag.self).to(H10PTag.init)
                binder.bind(H10PClock.self).to { H10PClock(label: "real") }
                binder.bind(H10Animal.self).to(H10Dog.init(tag:)).in(.singleton)
            })
        let fromOriginal = try #require(try original.get(H10Animal.self) as? H10Dog)
        let derived = try original.overriding { binder in
            binder.override(H10PClock.self).to { H10PClock(label: "fake") }
        }
        let fromDerived = try #require(try derived.get(H10Animal.self) as? H10Dog)
        #expect(fromOriginal.clock?.label == "real")
        #expect(fromDerived.clock?.label == "fake")
    }

    // Found by hunt 10, fixed. `validate()` promises "no binding captures a shorter-lived one (a captive dependency)", and
    // the README that creation "checks every binding ... (missing bindings, cycles, ... captive
    // dependencies)". A singleton whose injected property is a scoped binding captures the first scope's
    // instance for ever; the validation graph ignores injected properties (BindingShape has only the
    // initializer's keys), so validation passes. Expected: `captiveDependency` naming the singleton and
    // the scoped key. Observed: the report is valid.
    @Test("a singleton whose injected property is scoped is reported as a captive dependency")
    func captivePropertyIsValidated() throws {
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(H10PWork.self).to(H10PWork.init).in(.scoped)
                    binder.bind(H10PCache.self).to(H10PCache.init).in(.singleton)
                }
            ],
            configuration: Injector.Configuration(validatesOnCreation: false)
        )
        let report = injector.validationReport()
        #expect(!report.isValid, "a singleton capturing a scoped property passed validation")
        #expect(report.problems.contains { $0.code == .captiveDependency }, "\(report.problems)")
    }

    // Control for the test above: at run time the same graph is refused (`captiveDependency`), and a
    // later scope never sees a singleton holding a disposed unit of work; so validation disagrees with
    // what a request does.
    @Test("a singleton with a scoped injected property, asked in a scope, never holds a disposed instance")
    func captivePropertyAtRunTime() async throws {
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(H10PWork.self).to(H10PWork.init).in(.scoped)
                    binder.bind(H10PCache.self).to(H10PCache.init).in(.singleton)
                }
            ],
            configuration: Injector.Configuration(validatesOnCreation: false)
        )
        let first = injector.makeScope()
        let inFirst = Hunt5.result { () throws(ProvisionError) in try first.get(H10PCache.self) }
        try await first.close()
        let second = injector.makeScope()
        let inSecond = Hunt5.result { () throws(ProvisionError) in try second.get(H10PCache.self) }
        try await second.close()
        if case .success(let cache) = inSecond {
            #expect(cache.work?.isDisposed != true, "the singleton holds the first scope's disposed unit of work")
        }
        #expect(inFirst.hunt5Error?.code == .captiveDependency, "\(inFirst)")
    }

    // Found by hunt 10, decided and fixed. a singleton's injected property that nothing binds passes validation (and creation,
    // which validates by default); only the first request reports it. The README promises "Validation
    // before anything runs ... checks every binding without building one (missing bindings ...)". A
    // demanding user expects the missing property binding in the report.
    @Test("a missing binding of an injected property is in the validation report")
    func missingPropertyIsValidated() throws {
        let created = Hunt5.result { () throws(ProvisionError) in
            try Injector(ClosureModule { binder in binder.bind(H10PReporter.self).to(H10PReporter.init) })
        }
        #expect(created.hunt5Error?.code == .validationFailed, "creation validated the injector: \(created)")
        if case .success(let injector) = created {
            let request = Hunt5.result { () throws(ProvisionError) in try injector.get(H10PReporter.self) }
            #expect(request.hunt5Error?.code == .notBound)
            #expect(!injector.validationReport().isValid, "validate() passes while the first request fails")
        }
    }

    // A cycle through two injected properties and an initializer (A -> B -> C -> A), every binding a
    // singleton: the request fails with `cycle` and a path of the three types (never a hang or a
    // stack overflow); nothing is half-built in a way a second request could see.
    @Test("a cycle through two injected properties and an initializer: cycle with the path, twice")
    func cycleThroughProperties() throws {
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(H10PA.self).to(H10PA.init).in(.singleton)
                    binder.bind(H10PB.self).to(H10PB.init).in(.singleton)
                    binder.bind(H10PC.self).to(H10PC.init(a:)).in(.singleton)
                }
            ],
            configuration: Injector.Configuration(validatesOnCreation: false)
        )
        for _ in 0..<2 {
            let result = Hunt5.result { () throws(ProvisionError) in try injector.get(H10PA.self) }
            let error = try #require(result.hunt5Error, "a cycle resolved: \(result)")
            #expect(error.code == .cycle, "\(error)")
            let description = "\(error)"
            #expect(description.contains("H10PA"), "\(description)")
            #expect(description.contains("H10PB"), "\(description)")
            #expect(description.contains("H10PC"), "\(description)")
        }
        let fromC = Hunt5.result { () throws(ProvisionError) in try injector.get(H10PC.self) }
        #expect(fromC.hunt5Error?.code == .cycle, "\(fromC)")
    }
}
