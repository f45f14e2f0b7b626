import Synchronization
import Testing

@testable import Provision

// A request for a linked transient binding to a parameterless initializer calls the initializer
// directly (Node.isDirect), skipping its plan. These tests pin down that nothing the plan would have done
// is lost on that path: a new instance per request, the factory's errors, property injection, observer
// events, and no shortcut for singletons.

/// A parameterless service that counts its constructions.
final class DirectLeaf: Sendable {
    static let built = Counter()
    init() { DirectLeaf.built.increment() }
}

/// A parameterless service whose initializer throws on demand.
final class DirectFlaky: Sendable {
    static let failing = Atomic(false)

    init() throws {
        if DirectFlaky.failing.load(ordering: .relaxed) { throw ExpectedFailure(id: 7) }
    }
}

/// A parameterless service with an injected property.
final class DirectWithProperty: PropertyInjectable, @unchecked Sendable {
    var engine: Engine?

    static var injectedProperties: [InjectedProperty] {
        [.inject(\DirectWithProperty.engine)]
    }
}

@Suite("Direct construction of parameterless transients", .serialized)
struct DirectConstructionTests {
    @Test("every request builds a new instance; the direct path is taken once the binding is linked")
    func newInstancePerRequest() throws {
        let injector = try Injector(ClosureModule { $0.bind(DirectLeaf.self).to(DirectLeaf.init) })
        let node = try #require(injector.lookup(BindingKey(DirectLeaf.self), as: DirectLeaf.self))
        #expect(!node.isDirect)
        let before = DirectLeaf.built.value
        let instances = try (0..<5).map { _ in try injector.get(DirectLeaf.self) }
        #expect(node.isDirect)
        #expect(DirectLeaf.built.value - before == 5)
        #expect(Set(instances.map(ObjectIdentifier.init)).count == 5)
    }

    @Test("a throwing initializer is reported as factoryFailed with its key and cause on the direct path")
    func errors() throws {
        let injector = try Injector(ClosureModule { $0.bind(DirectFlaky.self).to(DirectFlaky.init) })
        DirectFlaky.failing.store(false, ordering: .relaxed)
        _ = try injector.get(DirectFlaky.self)
        let node = try #require(injector.lookup(BindingKey(DirectFlaky.self), as: DirectFlaky.self))
        #expect(node.isDirect)
        DirectFlaky.failing.store(true, ordering: .relaxed)
        defer { DirectFlaky.failing.store(false, ordering: .relaxed) }
        let error = #expect(throws: ProvisionError.self) { try injector.get(DirectFlaky.self) }
        #expect(error?.code == .factoryFailed)
        #expect(error?.key == BindingKey(DirectFlaky.self))
        #expect(error?.cause as? ExpectedFailure == ExpectedFailure(id: 7))
    }

    @Test("a type with injected properties keeps its plan: every request injects them")
    func propertyInjection() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Engine.self).to(Engine.init)
                binder.bind(DirectWithProperty.self).to(DirectWithProperty.init)
            }
        )
        for _ in 0..<3 {
            #expect(try injector.get(DirectWithProperty.self).engine != nil)
        }
        let node = try #require(injector.lookup(BindingKey(DirectWithProperty.self), as: DirectWithProperty.self))
        #expect(!node.isDirect)
    }

    @Test("with an observer every request reports its build: no direct path")
    func observed() throws {
        let observer = RecordingObserver()
        let injector = try Injector(
            modules: [ClosureModule { $0.bind(DirectLeaf.self).to(DirectLeaf.init) }],
            configuration: Injector.Configuration(observer: observer)
        )
        for _ in 0..<3 { _ = try injector.get(DirectLeaf.self) }
        #expect(observer.lines(.built) == Array(repeating: "built DirectLeaf", count: 3))
        let node = try #require(injector.lookup(BindingKey(DirectLeaf.self), as: DirectLeaf.self))
        #expect(!node.isDirect)
    }

    @Test("a singleton of a parameterless initializer is built once and never takes the direct path")
    func singleton() throws {
        let injector = try Injector(ClosureModule { $0.bind(DirectLeaf.self).to(DirectLeaf.init).in(.singleton) })
        let before = DirectLeaf.built.value
        let first = try injector.get(DirectLeaf.self)
        let second = try injector.get(DirectLeaf.self)
        #expect(first === second)
        #expect(DirectLeaf.built.value - before == 1)
        let node = try #require(injector.lookup(BindingKey(DirectLeaf.self), as: DirectLeaf.self))
        #expect(!node.isDirect)
    }
}
