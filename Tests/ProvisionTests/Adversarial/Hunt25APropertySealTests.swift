import Testing

@testable import Provision

/// One instance per scope.
final class Hunt25AScoped: Sendable {
    init() {}
}

/// A class that declares no injected property, bound under its own key to a subclass that does.
class Hunt25AAnimal: @unchecked Sendable {
    init() {}
}

/// Injects a scoped instance into a property.
final class Hunt25ADog: Hunt25AAnimal, PropertyInjectable, @unchecked Sendable {
    // Written once, by the injection, before the dog is handed out.
    var scoped: Hunt25AScoped?

    override init() {}

    static var injectedProperties: [InjectedProperty] {
        [.inject(\Hunt25ADog.scoped)]
    }
}

/// A singleton over a ``Hunt25AAnimal``.
final class Hunt25AAnimalHolder: Sendable {
    let animal: Hunt25AAnimal
    init(animal: Hunt25AAnimal) { self.animal = animal }
}

@Suite("Hunt 25A: seals and property injection")
struct Hunt25APropertySealTests {
    /// Found by hunt 25A, fixed: a binding learning a subclass's injected properties breaks every seal,
    /// as an install does (`ValidationSeal.noteLearnedDependencies()`).
    ///
    /// `Node.propertyDependencies` (BindingShape.swift) grows once a binding has built a subclass that
    /// declares injected properties; the walk without seals (`BindingGraph(injector:ancestorsReachedOnly:
    /// true)`) reads the grown list, so a child's singleton over the parent's transient `Animal` (built as
    /// a `Dog` that injects a scoped instance) is found captive. The promise (commit 54c87f8,
    /// ValidationSeal.swift): a child's creation reports exactly the problems it reported before.
    @Test("a child's singleton over a parent's transient whose built subclass injects a scoped instance")
    func captiveThroughPropertyLearnedAfterSeal() throws {
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt25AScoped.self).to(Hunt25AScoped.init).in(.scoped)
                binder.bind(Hunt25AAnimal.self).to { Hunt25ADog() }
            })
        #expect(parent.currentSeal?.transientsReachingScoped == [])
        let scope = parent.makeScope()
        let dog = try #require(try scope.get(Hunt25AAnimal.self) as? Hunt25ADog)
        #expect(dog.scoped != nil)
        try scope.close()
        let module = ClosureModule { binder in
            binder.bind(Hunt25AAnimalHolder.self).to(Hunt25AAnimalHolder.init(animal:)).in(.singleton)
        }
        // The reference: what the child's validation read before seals.
        let reference = try Injector(
            modules: [module], configuration: Injector.Configuration(validatesOnCreation: false), parent: parent)
        let old = GraphValidator(BindingGraph(injector: reference, ancestorsReachedOnly: true)).findings()
        #expect(old.map(\.error.code) == [.captiveDependency])
        let error = #expect(throws: ProvisionError.self) { try parent.makeChild(module) }
        #expect(error?.underlyingErrors.map(\.code) == [.captiveDependency])
    }
}
