import Dispatch
import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

/// Nothing binds this.
private final class H11Unbound: Sendable {}

private final class H11Part: Sendable {
    let label: String
    init(label: String = "part") { self.label = label }
}

/// A class that declares an injected property whose type nothing binds.
private final class H11Gadget: PropertyInjectable, @unchecked Sendable {
    var missing: H11Unbound?
    init() {}
    static var injectedProperties: [InjectedProperty] { [.inject(\H11Gadget.missing)] }
}

/// A superclass that injects its part from the unnamed binding.
private class H11Base: PropertyInjectable, @unchecked Sendable {
    var part: H11Part?
    init() {}
    class var injectedProperties: [InjectedProperty] { [.inject(\H11Base.part)] }
}

/// A subclass that replaces the superclass's entry (same key path) with a named binding.
private final class H11Sub: H11Base, @unchecked Sendable {
    override class var injectedProperties: [InjectedProperty] { [.inject(\H11Base.part, named: "sub")] }
}

/// A class whose injected property is a provider of itself (legal: a handle, not an instance).
private final class H11SelfProviding: PropertyInjectable, @unchecked Sendable {
    var provider: Provider<H11SelfProviding>?
    init() {}
    static var injectedProperties: [InjectedProperty] { [.inject(\H11SelfProviding.provider)] }
}

/// A -> (property) Lazy<B>; B -> (initializer) A: legal, the lazy handle breaks the cycle.
private final class H11LazyA: PropertyInjectable, @unchecked Sendable {
    var b: Lazy<H11LazyB>?
    init() {}
    static var injectedProperties: [InjectedProperty] { [.inject(\H11LazyA.b)] }
}

private final class H11LazyB: Sendable {
    let a: H11LazyA
    init(a: H11LazyA) { self.a = a }
}

/// A class whose injected property is an object factory.
private final class H11Factoried: PropertyInjectable, @unchecked Sendable {
    var factory: ObjectFactory?
    init() {}
    static var injectedProperties: [InjectedProperty] { [.inject(\H11Factoried.factory)] }
}

/// A scoped unit and a holder that takes it as a property.
private final class H11Unit: Sendable {}

private final class H11UnitHolder: PropertyInjectable, @unchecked Sendable {
    var unit: H11Unit?
    init() {}
    static var injectedProperties: [InjectedProperty] { [.inject(\H11UnitHolder.unit)] }
}

/// The same dependency through the initializer (the control).
private final class H11UnitUser: Sendable {
    let unit: H11Unit
    init(unit: H11Unit) { self.unit = unit }
}

/// A seed value and a class that takes it as a property.
private final class H11Seed: Sendable {
    let id: Int
    init(id: Int) { self.id = id }
}

private final class H11SeedReader: PropertyInjectable, @unchecked Sendable {
    var seed: H11Seed?
    init() {}
    static var injectedProperties: [InjectedProperty] { [.inject(\H11SeedReader.seed)] }
}

private final class H11SeedUser: Sendable {
    let seed: H11Seed
    init(seed: H11Seed) { self.seed = seed }
}

private func h11Created(_ module: ClosureModule) -> Result<Injector, ProvisionError> {
    Hunt5.result { () throws(ProvisionError) in try Injector(module) }
}

private func h11Unvalidated(_ module: ClosureModule) throws -> Injector {
    try Injector(modules: [module], configuration: Injector.Configuration(validatesOnCreation: false))
}

// MARK: - Tests

@Suite("Hunt11: validation of injected properties agrees with requests", .timeLimit(.minutes(1)))
struct Hunt11PropertyValidationTests {
    // Found by hunt 11, fixed. PropertyInjectable documents "Objects the injector didn't construct are returned as they
    // are: instances (`toInstance`...)". An instance binding of a class whose injected property nothing
    // binds resolves fine (the request returns the instance, not injected), yet validation adds the
    // class's declared properties as edges of every node of the type (Node.propertyDependencies reads
    // `T`, not the recipe), so creation (which validates) refuses a working injector with a false
    // "not bound".
    @Test("an instance binding of a class with an unbound injected property: creation and validation pass")
    func instanceIsNotInjected() throws {
        let gadget = H11Gadget()
        let module = ClosureModule { binder in binder.bind(H11Gadget.self).toInstance(gadget) }
        let unvalidated = try h11Unvalidated(module)
        let request = Hunt5.result { () throws(ProvisionError) in try unvalidated.get(H11Gadget.self) }
        #expect((try? request.get()) === gadget, "the request works: \(request)")
        #expect(unvalidated.validationReport().isValid, "\(unvalidated.validationReport().problems)")
        let created = h11Created(module)
        #expect(created.hunt5Error == nil, "creation refused a working injector: \(created)")
    }

    // Found by hunt 11, fixed. same rule for providers: "what closures, providers and argument factories return (that code
    // built the object; it asks for injection with injectDependencies(into:))". A `(Resolver) -> T`
    // provider's object is returned uninjected and the request succeeds; validation reports the
    // property's missing binding, and creation fails.
    @Test("a provider binding of a class with an unbound injected property: creation and validation pass")
    func providerResultIsNotInjected() throws {
        let module = ClosureModule { binder in
            binder.bind(H11Gadget.self).to { (_: Resolver) in H11Gadget() }
        }
        let unvalidated = try h11Unvalidated(module)
        let request = Hunt5.result { () throws(ProvisionError) in try unvalidated.get(H11Gadget.self) }
        #expect(request.hunt5Error == nil, "the request works: \(request)")
        #expect(unvalidated.validationReport().isValid, "\(unvalidated.validationReport().problems)")
        let created = h11Created(module)
        #expect(created.hunt5Error == nil, "creation refused a working injector: \(created)")
    }

    // Found by hunt 11, fixed. and for argument factories: a binding with arguments whose factory returns the object is
    // not injected, so the request (with its arguments) works; creation refuses the injector.
    @Test("an argument factory of a class with an unbound injected property: creation and validation pass")
    func argumentFactoryResultIsNotInjected() throws {
        let module = ClosureModule { binder in
            binder.bind(H11Gadget.self).withArguments(Int.self).to { _, _ in H11Gadget() }
        }
        let unvalidated = try h11Unvalidated(module)
        let request = Hunt5.result { () throws(ProvisionError) in
            try unvalidated.get(H11Gadget.self, arguments: 1)
        }
        #expect(request.hunt5Error == nil, "the request works: \(request)")
        #expect(unvalidated.validationReport().isValid, "\(unvalidated.validationReport().problems)")
        let created = h11Created(module)
        #expect(created.hunt5Error == nil, "creation refused a working injector: \(created)")
    }

    // Found by hunt 11, fixed. a delegation `to(binding:)` "returns what its target binding built, injected once by that
    // binding". The target (H11Sub) replaces its superclass's entry with a named binding (documented:
    // "list the same key path ... and the subclass's entry wins"), which is bound; the request for
    // H11Base works and the part is the named one. Validation adds H11Base's own (replaced) entry, the
    // unnamed H11Part, to the delegation node and reports it missing, so creation fails.
    @Test("a delegation to a subclass that replaces the superclass's property entry validates")
    func delegationToReplacingSubclass() throws {
        let module = ClosureModule { binder in
            binder.bind(H11Part.self, named: "sub").to { H11Part(label: "sub") }
            binder.bind(H11Sub.self).to(H11Sub.init)
            binder.bind(H11Base.self).to(binding: H11Sub.self)
        }
        let unvalidated = try h11Unvalidated(module)
        let request = Hunt5.result { () throws(ProvisionError) in try unvalidated.get(H11Base.self) }
        #expect((try? request.get())?.part?.label == "sub", "the request works: \(request)")
        #expect(unvalidated.validationReport().isValid, "\(unvalidated.validationReport().problems)")
        let created = h11Created(module)
        #expect(created.hunt5Error == nil, "creation refused a working injector: \(created)")
    }

    // A property that is a provider of its own class is no cycle: the request works (the handle is
    // resolved, not the instance), and validation must agree, for a transient and a singleton.
    @Test("a property that is a Provider of its own class is no cycle", arguments: [false, true])
    func selfProviderProperty(singleton: Bool) throws {
        let module = ClosureModule { binder in
            let scope = binder.bind(H11SelfProviding.self).to(H11SelfProviding.init)
            if singleton { scope.in(.singleton) }
        }
        let unvalidated = try h11Unvalidated(module)
        let request = Hunt5.result { () throws(ProvisionError) in try unvalidated.get(H11SelfProviding.self) }
        let built = try request.get()
        let again = try #require(built.provider).get()
        #expect((again === built) == singleton)
        #expect(unvalidated.validationReport().isValid, "\(unvalidated.validationReport().problems)")
        #expect(h11Created(module).hunt5Error == nil)
    }

    // A -> (property) Lazy<B> -> B -> (initializer) A: the lazy handle defers B, so requests work; validation
    // must not call it a cycle.
    @Test("a cycle broken by a Lazy injected property validates, and the request and the read work")
    func lazyPropertyBreaksCycle() throws {
        let module = ClosureModule { binder in
            binder.bind(H11LazyA.self).to(H11LazyA.init)
            binder.bind(H11LazyB.self).to(H11LazyB.init(a:))
        }
        let unvalidated = try h11Unvalidated(module)
        let a = try Hunt5.result { () throws(ProvisionError) in try unvalidated.get(H11LazyA.self) }.get()
        let b = try #require(a.b).value
        #expect(b.a !== a)
        #expect(unvalidated.validationReport().isValid, "\(unvalidated.validationReport().problems)")
        #expect(h11Created(module).hunt5Error == nil)
    }

    // An ObjectFactory property is always available: creation validates and the request injects it.
    @Test("an ObjectFactory injected property validates and is set")
    func objectFactoryProperty() throws {
        let created = try h11Created(
            ClosureModule { binder in binder.bind(H11Factoried.self).to(H11Factoried.init) }
        ).get()
        let object = try Hunt5.result { () throws(ProvisionError) in try created.get(H11Factoried.self) }.get()
        #expect(object.factory != nil)
    }

    // A scoped property of a scoped binding, and of a transient one asked in a scope, is legal: the
    // validation verdict is the same as for the initializer form of the same dependency.
    @Test("a scoped injected property: validation says what it says for the same initializer dependency")
    func scopedPropertyMatchesInitializer() async throws {
        for holderScope in [Scope.scoped, Scope.transient] {
            let byProperty = ClosureModule { binder in
                binder.bind(H11Unit.self).to(H11Unit.init).in(.scoped)
                binder.bind(H11UnitHolder.self).to(H11UnitHolder.init).in(holderScope)
            }
            let byInitializer = ClosureModule { binder in
                binder.bind(H11Unit.self).to(H11Unit.init).in(.scoped)
                binder.bind(H11UnitUser.self).to(H11UnitUser.init(unit:)).in(holderScope)
            }
            let property = h11Created(byProperty)
            let initializer = h11Created(byInitializer)
            #expect(property.hunt5Error?.code == initializer.hunt5Error?.code, "\(property) vs \(initializer)")
            #expect(property.hunt5Error == nil, "\(property)")
            let injector = try h11Unvalidated(byProperty)
            let scope = injector.makeScope()
            let holder = try Hunt5.result { () throws(ProvisionError) in try scope.get(H11UnitHolder.self) }.get()
            let unit = try Hunt5.result { () throws(ProvisionError) in try scope.get(H11Unit.self) }.get()
            #expect(holder.unit === unit)
            try await scope.close()
        }
    }

    // A seed as an injected property of a scoped binding: legal like the initializer form.
    @Test("a seeded injected property validates like a seeded initializer parameter, and is set in the scope")
    func seededProperty() async throws {
        let byProperty = ClosureModule { binder in
            binder.bind(H11Seed.self).toSeed()
            binder.bind(H11SeedReader.self).to(H11SeedReader.init).in(.scoped)
        }
        let byInitializer = ClosureModule { binder in
            binder.bind(H11Seed.self).toSeed()
            binder.bind(H11SeedUser.self).to(H11SeedUser.init(seed:)).in(.scoped)
        }
        let property = h11Created(byProperty)
        let initializer = h11Created(byInitializer)
        #expect(property.hunt5Error?.code == initializer.hunt5Error?.code, "\(property) vs \(initializer)")
        let injector = try h11Unvalidated(byProperty)
        let scope = try injector.makeScope { seed in seed.provide(H11Seed(id: 7)) }
        let reader = try Hunt5.result { () throws(ProvisionError) in try scope.get(H11SeedReader.self) }.get()
        #expect(reader.seed?.id == 7)
        try await scope.close()
    }
}
