import Provision
import Synchronization
import Testing

// Issue 13, defect 11: `bind((any Person).self).to { PetOwner() }` left a PetOwner's injected properties
// nil and never called its hook, because whether to inject was decided by the key's type. The rule now
// (see PropertyInjectable): an object is injected exactly once, when a constructor binding builds it,
// by its own class, whatever the key; instances, closure and argument-factory results are returned as
// they are, and a delegation returns what its target built (and injected) under the same rule.

/// What the owners of the rule's tests are bound as.
protocol Person: AnyObject, Sendable {
    var pet: Pet? { get }
    var hookCalls: Int { get }
}

final class Pet: Sendable {}

/// A dependency for the constructors with parameters.
final class Leash: Sendable {}

/// Injected `pet`, and counts its hook.
final class PetOwner: Person, PropertyInjectable, @unchecked Sendable {
    // Written once, by the injection, before the owner is handed to anyone.
    var pet: Pet?
    private let hooks = Atomic(0)

    var hookCalls: Int { hooks.load(ordering: .relaxed) }

    init() {}

    init(leash: Leash) {}

    static var injectedProperties: [InjectedProperty] {
        [.inject(\PetOwner.pet)]
    }

    func didInjectDependencies() {
        hooks.add(1, ordering: .relaxed)
    }
}

/// A class that declares nothing, whose subclass does: bound under the base class's key.
class Animal: @unchecked Sendable {
    init() {}
}

final class Dog: Animal, PropertyInjectable, @unchecked Sendable {
    // Written once, by the injection, before the dog is handed to anyone.
    var owner: PetOwner?
    private let hooks = Atomic(0)

    var hookCalls: Int { hooks.load(ordering: .relaxed) }

    override init() {}

    init(leash: Leash) {}

    static var injectedProperties: [InjectedProperty] {
        [.inject(\Dog.owner)]
    }

    func didInjectDependencies() {
        hooks.add(1, ordering: .relaxed)
    }
}

/// Built by an async factory, so that a binding depending on it is built through the async path.
final class Kennel: Sendable {}

@Suite("Defect 11: property injection by the instance's class, exactly once, for every binding kind")
struct PropertyInjectionRuleTests {
    static let common = ClosureModule { binder in
        binder.bind(Pet.self).to(Pet.init)
        binder.bind(Leash.self).to(Leash.init)
        binder.bind(PetOwner.self).to(PetOwner.init)
    }

    /// Checks an instance was injected exactly once.
    func expectInjectedOnce(_ person: any Person, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        #expect(person.pet != nil, sourceLocation: sourceLocation)
        #expect(person.hookCalls == 1, sourceLocation: sourceLocation)
    }

    @Test("defect 11: a constructor under a protocol key injects the instance, with or without parameters")
    func constructorUnderProtocolKey() throws {
        let injector = try Injector(
            Self.common,
            ClosureModule { binder in
                binder.bind((any Person).self).to { PetOwner() }
                binder.bind((any Person).self, named: "leashed").to { (leash: Leash) in PetOwner(leash: leash) }
                binder.bind((any Person).self, named: "initializer").to(PetOwner.init(leash:))
            }
        )
        for name in [nil, "leashed", "initializer"] {
            for _ in 0..<3 {
                expectInjectedOnce(try injector.get((any Person).self, named: name))
            }
        }
        // The concrete key, as before.
        expectInjectedOnce(try injector.get(PetOwner.self))
    }

    @Test("defect 11: a constructor under a class key injects an instance of a subclass that declares properties")
    func constructorUnderBaseClassKey() throws {
        let injector = try Injector(
            Self.common,
            ClosureModule { binder in
                binder.bind(Animal.self).to { Dog() }
                binder.bind(Animal.self, named: "leashed").to { (leash: Leash) in Dog(leash: leash) }
                binder.bind(Animal.self, named: "plain").to(Animal.init)
            }
        )
        for name in [nil, "leashed"] {
            // Twice: the first request links (and may take another path than the later ones).
            for _ in 0..<2 {
                let dog = try #require(try injector.get(Animal.self, named: name) as? Dog)
                #expect(dog.owner?.hookCalls == 1)
                #expect(dog.hookCalls == 1)
            }
        }
        #expect(type(of: try injector.get(Animal.self, named: "plain")) == Animal.self)
    }

    @Test(
        "defect 11: closure and argument-factory results are returned as they are; a closure that asks is injected once"
    )
    func closures() throws {
        let injector = try Injector(
            Self.common,
            ClosureModule { binder in
                binder.bind((any Person).self).to { _ in PetOwner() }
                binder.bind((any Person).self, named: "asks").to { resolver in
                    let owner = PetOwner()
                    try resolver.injectDependencies(into: owner)
                    return owner
                }
                binder.bind((any Person).self, named: "arguments").withArguments(String.self)
                    .to { _, _ in PetOwner() }
                    .defaults("")
            }
        )
        let plain = try injector.get((any Person).self)
        #expect(plain.pet == nil && plain.hookCalls == 0)
        expectInjectedOnce(try injector.get((any Person).self, named: "asks"))
        let built = try injector.get((any Person).self, named: "arguments", arguments: "Rex")
        #expect(built.pet == nil && built.hookCalls == 0)
    }

    @Test("defect 11: a delegation returns its target's instance, injected once by the target")
    func delegations() throws {
        let injector = try Injector(
            Self.common,
            ClosureModule { binder in
                binder.bind((any Person).self).to(binding: PetOwner.self)
                binder.bind((any Person).self, named: "protocol").to { PetOwner() }
                binder.bind((any Person).self, named: "to protocol").to(binding: (any Person).self, named: "protocol")
                binder.bind(AnyObject.self).to(binding: (any Person).self, named: "to protocol")
                binder.bind((any Person).self, named: "singleton target").to { PetOwner() }.in(.singleton)
                binder.bind((any Person).self, named: "to singleton")
                    .to(binding: (any Person).self, named: "singleton target")
                binder.bind((any Person).self, named: "singleton delegation").to(binding: PetOwner.self)
                    .in(.singleton)
                binder.bind((any Person).self, named: "closure target").to { _ in PetOwner() }
                binder.bind((any Person).self, named: "to closure")
                    .to(binding: (any Person).self, named: "closure target")
            }
        )
        for _ in 0..<3 {
            expectInjectedOnce(try injector.get((any Person).self))
            expectInjectedOnce(try injector.get((any Person).self, named: "to protocol"))
            expectInjectedOnce(try #require(try injector.get(AnyObject.self) as? PetOwner))
            expectInjectedOnce(try injector.get((any Person).self, named: "to singleton"))
            expectInjectedOnce(try injector.get((any Person).self, named: "singleton delegation"))
        }
        #expect(
            try injector.get((any Person).self, named: "to singleton")
                === injector.get((any Person).self, named: "singleton target")
        )
        // A closure's result stays as it was, also behind a delegation.
        #expect(try injector.get((any Person).self, named: "to closure").hookCalls == 0)
    }

    @Test("defect 11: an instance binding is returned as it is, never injected")
    func instances() throws {
        let owner = PetOwner()
        let injector = try Injector(
            Self.common,
            ClosureModule { binder in
                binder.bind((any Person).self).toInstance(owner)
                binder.bind(PetOwner.self, named: "instance").toInstance(owner)
            }
        )
        #expect(try injector.get((any Person).self) === owner)
        #expect(try injector.get(PetOwner.self, named: "instance") === owner)
        #expect(owner.pet == nil && owner.hookCalls == 0)
    }

    @Test("defect 11: a singleton under a protocol key is injected once, however often it is requested")
    func singletons() throws {
        let injector = try Injector(
            Self.common,
            ClosureModule { binder in
                binder.bind((any Person).self).to { PetOwner() }.in(.singleton)
                binder.bind((any Person).self, named: "leashed").to(PetOwner.init(leash:)).in(.singleton)
            }
        )
        for name in [nil, "leashed"] {
            let first = try injector.get((any Person).self, named: name)
            for _ in 0..<3 {
                #expect(try injector.get((any Person).self, named: name) === first)
            }
            expectInjectedOnce(first)
        }
    }

    @Test("defect 11: a scoped instance under a protocol key is injected once per scope")
    func scoped() async throws {
        let injector = try Injector(
            Self.common,
            ClosureModule { binder in
                binder.bind((any Person).self).to { PetOwner() }.in(.scoped)
            }
        )
        let first = injector.makeScope()
        let second = injector.makeScope()
        let a = try first.syncGet((any Person).self)
        #expect(try first.syncGet((any Person).self) === a)
        let b = try second.syncGet((any Person).self)
        #expect(a !== b)
        expectInjectedOnce(a)
        expectInjectedOnce(b)
        try await first.close()
        try await second.close()
    }

    @Test("defect 11: a constructor built through the async path injects its instance once")
    func async() async throws {
        let injector = try Injector(
            Self.common,
            ClosureModule { binder in
                binder.bind(Kennel.self).to { _ async in Kennel() }
                binder.bind((any Person).self).to { (_: Kennel, leash: Leash) in PetOwner(leash: leash) }
                binder.bind((any Person).self, named: "singleton").to { (_: Kennel) in PetOwner() }.in(.singleton)
                binder.bind(Animal.self).to { (_: Kennel) in Dog() }
            }
        )
        for _ in 0..<2 {
            expectInjectedOnce(try await injector.get((any Person).self))
            let dog = try #require(try await injector.get(Animal.self) as? Dog)
            #expect(dog.hookCalls == 1 && dog.owner != nil)
        }
        let singleton = try await injector.get((any Person).self, named: "singleton")
        #expect(try await injector.get((any Person).self, named: "singleton") === singleton)
        expectInjectedOnce(singleton)
    }

    @Test("defect 11: a property whose binding is missing under a protocol key fails with notBound and its path")
    func missingPropertyBinding() throws {
        let injector = try Injector(ClosureModule { $0.bind((any Person).self).to { PetOwner() } })
        let error = #expect(throws: ProvisionError.self) { try injector.get((any Person).self) }
        #expect(error?.code == .notBound)
        #expect(error?.pathDescription == "any Person -> Pet")
    }
}
