import Provision
import Synchronization
import Testing

// Issue 13, defect 10 (a): transient services needing each other through injected properties recursed
// until the stack overflowed (SIGSEGV), where the same services as singletons gave a cycle error.
// Property edges are now checked like every other edge: by the linker where the key's type declares
// the properties, on the resolution path otherwise. Were the checks to regress, each level of the
// injection also checks the stack, so these tests would fail with depthExceeded rather than crash.

/// Counts the instances the cycle tests' initializers created.
enum CycleBuilds {
    static let count = Atomic(0)

    static func record() {
        count.add(1, ordering: .relaxed)
    }
}

/// Needs a `PropertyPairB` through an injected property.
final class PropertyPairA: PropertyInjectable, @unchecked Sendable {
    var b: PropertyPairB?
    init() { CycleBuilds.record() }
    static var injectedProperties: [InjectedProperty] { [.inject(\PropertyPairA.b)] }
}

/// Needs a `PropertyPairA` through an injected property.
final class PropertyPairB: PropertyInjectable, @unchecked Sendable {
    var a: PropertyPairA?
    init() { CycleBuilds.record() }
    static var injectedProperties: [InjectedProperty] { [.inject(\PropertyPairB.a)] }
}

protocol CycleKeyC: AnyObject {}
protocol CycleKeyD: AnyObject {}

/// Needs `any CycleKeyD` through an injected property; bound to `CycleKeyC` by a delegation.
final class DelegatedC: CycleKeyC, PropertyInjectable, @unchecked Sendable {
    var d: (any CycleKeyD)?
    init() { CycleBuilds.record() }
    static var injectedProperties: [InjectedProperty] { [.inject(\DelegatedC.d)] }
}

/// Needs `any CycleKeyC` through an injected property; bound to `CycleKeyD` by a delegation.
final class DelegatedD: CycleKeyD, PropertyInjectable, @unchecked Sendable {
    var c: (any CycleKeyC)?
    init() { CycleBuilds.record() }
    static var injectedProperties: [InjectedProperty] { [.inject(\DelegatedD.c)] }
}

/// Needs a `MixedB` through its initializer.
final class MixedA: @unchecked Sendable {
    init(b: MixedB) { CycleBuilds.record() }
}

/// Needs a `MixedA` through an injected property.
final class MixedB: PropertyInjectable, @unchecked Sendable {
    var a: MixedA?
    init() { CycleBuilds.record() }
    static var injectedProperties: [InjectedProperty] { [.inject(\MixedB.a)] }
}

protocol CycleKeyE: AnyObject, Sendable {}
protocol CycleKeyF: AnyObject, Sendable {}

/// Bound as `bind((any CycleKeyE).self).to { HiddenE() }`: the key's type declares no properties, so
/// the linker can't see the edge.
final class HiddenE: CycleKeyE, PropertyInjectable, @unchecked Sendable {
    var f: (any CycleKeyF)?
    init() { CycleBuilds.record() }
    static var injectedProperties: [InjectedProperty] { [.inject(\HiddenE.f)] }
}

/// The other half of `HiddenE`'s cycle.
final class HiddenF: CycleKeyF, PropertyInjectable, @unchecked Sendable {
    var e: (any CycleKeyE)?
    init() { CycleBuilds.record() }
    static var injectedProperties: [InjectedProperty] { [.inject(\HiddenF.e)] }
}

// Serialized: the tests count the instances built through one shared counter.
@Suite("Defect 10: transient property cycles are cycle errors with their path", .serialized)
struct PropertyCycleTests {
    /// An injector of `module` not validated on creation, so that the request meets the cycle (creation
    /// reports it otherwise: see `validationFindsPropertyCycles`).
    static func unvalidated(_ module: any Module) throws -> Injector {
        try Injector(modules: [module], configuration: Injector.Configuration(validatesOnCreation: false))
    }

    @Test("validation finds a cycle through injected properties before anything is built, with its path")
    func validationFindsPropertyCycles() {
        let before = CycleBuilds.count.load(ordering: .relaxed)
        let error = #expect(throws: ProvisionError.self) {
            try Injector(
                ClosureModule { binder in
                    binder.bind(MixedA.self).to(MixedA.init(b:))
                    binder.bind(MixedB.self).to(MixedB.init)
                }
            )
        }
        #expect(error?.code == .validationFailed)
        let cycle = error?.underlyingErrors.first { $0.code == .cycle }
        #expect(cycle?.pathDescription == "MixedA -> MixedB -> MixedA")
        #expect(CycleBuilds.count.load(ordering: .relaxed) == before)
    }

    /// The cycle error `body` throws, and how many instances were built meanwhile.
    func cycle(_ body: () throws -> Void) -> (error: ProvisionError?, built: Int) {
        let before = CycleBuilds.count.load(ordering: .relaxed)
        let error = #expect(throws: ProvisionError.self) { try body() }
        #expect(error?.code == .cycle)
        return (error, CycleBuilds.count.load(ordering: .relaxed) - before)
    }

    @Test("defect 10: two transients needing each other through injected properties are a cycle, found before building")
    func direct() throws {
        let injector = try Self.unvalidated(
            ClosureModule { binder in
                binder.bind(PropertyPairA.self).to(PropertyPairA.init)
                binder.bind(PropertyPairB.self).to(PropertyPairB.init)
            }
        )
        for _ in 0..<2 {
            let (error, built) = cycle { _ = try injector.get(PropertyPairA.self) }
            #expect(error?.pathDescription == "PropertyPairA -> PropertyPairB -> PropertyPairA")
            #expect(built == 0)
        }
        #expect(
            cycle { _ = try injector.get(PropertyPairB.self) }.error?.pathDescription
                == "PropertyPairB -> PropertyPairA -> PropertyPairB")
    }

    @Test("defect 10: a property cycle through to(binding:) protocol keys is a cycle with the whole path")
    func throughDelegations() throws {
        let injector = try Self.unvalidated(
            ClosureModule { binder in
                binder.bind(DelegatedC.self).to(DelegatedC.init)
                binder.bind(DelegatedD.self).to(DelegatedD.init)
                binder.bind((any CycleKeyC).self).to(binding: DelegatedC.self)
                binder.bind((any CycleKeyD).self).to(binding: DelegatedD.self)
            }
        )
        let (error, built) = cycle { _ = try injector.get((any CycleKeyC).self) }
        #expect(error?.pathDescription == "any CycleKeyC -> DelegatedC -> any CycleKeyD -> DelegatedD -> any CycleKeyC")
        #expect(built == 0)
    }

    @Test("defect 10: a cycle of a constructor edge and a property edge is a cycle with its path")
    func constructorAndProperty() throws {
        let injector = try Self.unvalidated(
            ClosureModule { binder in
                binder.bind(MixedA.self).to(MixedA.init(b:))
                binder.bind(MixedB.self).to(MixedB.init)
            }
        )
        let (error, built) = cycle { _ = try injector.get(MixedA.self) }
        #expect(error?.pathDescription == "MixedA -> MixedB -> MixedA")
        #expect(built == 0)
    }

    @Test("defect 10: a property cycle the linker can't see (protocol keys) is found on the resolution path")
    func behindProtocolKeys() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind((any CycleKeyE).self).to { HiddenE() }
                binder.bind((any CycleKeyF).self).to { HiddenF() }
            }
        )
        for _ in 0..<2 {
            let (error, _) = cycle { _ = try injector.get((any CycleKeyE).self) }
            #expect(error?.pathDescription == "any CycleKeyE -> any CycleKeyF -> any CycleKeyE")
        }
    }

    @Test("defect 10: singletons needing each other through injected properties are still a cycle")
    func singletons() throws {
        let injector = try Self.unvalidated(
            ClosureModule { binder in
                binder.bind(PropertyPairA.self).to(PropertyPairA.init).in(.singleton)
                binder.bind(PropertyPairB.self).to(PropertyPairB.init).in(.singleton)
                binder.bind((any CycleKeyE).self).to { HiddenE() }.in(.singleton)
                binder.bind((any CycleKeyF).self).to { HiddenF() }.in(.singleton)
            }
        )
        #expect(
            cycle { _ = try injector.get(PropertyPairA.self) }.error?.pathDescription
                == "PropertyPairA -> PropertyPairB -> PropertyPairA")
        #expect(
            cycle { _ = try injector.get((any CycleKeyE).self) }.error?.pathDescription
                == "any CycleKeyE -> any CycleKeyF -> any CycleKeyE")
    }
}
