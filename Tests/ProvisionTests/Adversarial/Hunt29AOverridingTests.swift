import Dispatch
import Testing

@testable import Provision

// Hunt 29A: overriding for tests (Objection issue #82, B-OBI-07's replacement): every binding that
// depends on a replaced key — through a constructor, a property, a handle, an undeclared closure, an
// object factory, a multibinding — is re-created; everything else is shared.

final class Hunt29AOCar: PropertyInjectable, @unchecked Sendable {
    var engine: Hunt29AEngine?
    init() {}
    static var injectedProperties: [InjectedProperty] { [.inject(\Hunt29AOCar.engine)] }
}

class Hunt29AOAnimal: @unchecked Sendable {}

final class Hunt29AODog: Hunt29AOAnimal, PropertyInjectable, @unchecked Sendable {
    var engine: Hunt29AEngine?
    override init() {}
    static var injectedProperties: [InjectedProperty] { [.inject(\Hunt29AODog.engine)] }
}

final class Hunt29AOHandles: Sendable {
    let engines: Provider<Hunt29AEngine>
    let lazy: Lazy<Hunt29AEngine>
    init(engines: Provider<Hunt29AEngine>, lazy: Lazy<Hunt29AEngine>) {
        self.engines = engines
        self.lazy = lazy
    }
}

final class Hunt29AOFactoryUser: Sendable {
    let factory: ObjectFactory
    init(factory: ObjectFactory) { self.factory = factory }
}

final class Hunt29AOUnrelated: Sendable {}

struct Hunt29AOEnginePlugin: Hunt29APlugin {
    let engine: Hunt29AEngine
    var name: String { "engine" }
}

@Suite("Hunt29A: overriding")
struct Hunt29AOverridingTests {
    static let app = ClosureModule { binder in
        binder.bind(Hunt29AEngine.self).to(Hunt29AEngine.init).in(.singleton)
        binder.bind(Hunt29AOCar.self).to(Hunt29AOCar.init).in(.singleton)
        binder.bind(Hunt29AOHandles.self).to(Hunt29AOHandles.init(engines:lazy:)).in(.singleton)
        binder.bind(Hunt29AOFactoryUser.self).to(Hunt29AOFactoryUser.init(factory:)).in(.singleton)
        binder.bind(Hunt29AStore.self).to { resolver in
            _ = try resolver.get(Hunt29AEngine.self)
            return Hunt29AStore(db: Hunt29APostgres())
        }.in(.singleton)
        binder.bind(Hunt29AOUnrelated.self).to(Hunt29AOUnrelated.init).in(.singleton)
        binder.multibind((any Hunt29APlugin).self).to(Hunt29AOEnginePlugin.init(engine:))
        binder.bind(Hunt29AOAnimal.self).to { Hunt29AODog() }.in(.singleton)
    }

    @Test(arguments: [false, true]) func everyDependentIsRecreated(_ builtFirst: Bool) throws {
        let injector = try Injector(Self.app)
        if builtFirst {
            _ = try injector.get(Hunt29AOCar.self)
            _ = try injector.get(Hunt29AOHandles.self)
            _ = try injector.get(Hunt29AOFactoryUser.self)
            _ = try injector.get(Hunt29AStore.self)
            _ = try injector.get(Hunt29AOAnimal.self)
        }
        let unrelated = try injector.get(Hunt29AOUnrelated.self)
        let fake = Hunt29AEngine()
        let testing = try injector.overriding { $0.bind(Hunt29AEngine.self).toInstance(fake) }
        #expect(try testing.get(Hunt29AEngine.self) === fake)
        #expect(try testing.get(Hunt29AOCar.self).engine === fake)
        let handles = try testing.get(Hunt29AOHandles.self)
        #expect(try handles.engines.get() === fake)
        #expect(try handles.lazy.value === fake)
        #expect(try testing.get(Hunt29AOFactoryUser.self).factory.get(Hunt29AEngine.self) === fake)
        #expect(try testing.get(Hunt29AStore.self) !== injector.get(Hunt29AStore.self))
        let plugin = try #require(try testing.getAll((any Hunt29APlugin).self).first as? Hunt29AOEnginePlugin)
        #expect(plugin.engine === fake)
        #expect(try testing.get(Hunt29AOUnrelated.self) === unrelated)
        // The original is unchanged.
        let original = try injector.get(Hunt29AEngine.self)
        #expect(original !== fake)
        #expect(try injector.get(Hunt29AOCar.self).engine === original)
        #expect(try injector.get(Hunt29AOHandles.self).engines.get() === original)
        if builtFirst {
            // Documented: a binding of Animal to Dog, where only Dog declares an injected property, is
            // known to depend on it once it has built a Dog.
            let dog = try #require(try testing.get(Hunt29AOAnimal.self) as? Hunt29AODog)
            #expect(dog.engine === fake)
        }
    }
}

@Suite("Hunt29A: overriding under threads")
struct Hunt29AOverridingThreadTests {
    // "its singletons (built or not) are shared, built at most once for both injectors".
    @Test func sharedSingletonBuiltOnceAcrossOriginalAndDerived() throws {
        let counter = Hunt29ACounter()
        let eagerCounter = Hunt29ACounter()
        let injector = try Injector(
            ClosureModule { binder in
                // A constructor (no resolver): it declares its dependencies (none), so it is shared. A
                // resolver closure would be re-created (documented).
                binder.bind(Hunt29AOUnrelated.self).to { () -> Hunt29AOUnrelated in
                    _ = counter.next()
                    return Hunt29AOUnrelated()
                }.in(.singleton)
                binder.bind(Hunt29AEngine.self).to(Hunt29AEngine.init).in(.singleton)
                binder.bind(Hunt29AOCar.self).to { () -> Hunt29AOCar in
                    _ = eagerCounter.next()
                    return Hunt29AOCar()
                }.asEagerSingleton()
            })
        #expect(eagerCounter.value == 1)
        let fake = Hunt29AEngine()
        let derived = try injector.overriding { $0.bind(Hunt29AEngine.self).toInstance(fake) }
        // The eager Car depends on the replaced engine (a property): re-created and built eagerly.
        #expect(eagerCounter.value == 2)
        #expect(try derived.get(Hunt29AOCar.self).engine === fake)
        let threads = 8
        let start = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        let results = Hunt29AResults<Hunt29AOUnrelated>()
        for index in 0..<threads {
            group.enter()
            DispatchQueue.global().async {
                defer { group.leave() }
                guard start.wait(timeout: .now() + 10) == .success else { return }
                let target = index % 2 == 0 ? injector : derived
                results.add(Result { try target.get(Hunt29AOUnrelated.self) })
            }
        }
        for _ in 0..<threads { start.signal() }
        #expect(group.wait(timeout: .now() + 10) == .success)
        let values = results.values
        #expect(values.count == threads)
        let first = try values[0].get()
        for value in values { #expect(try value.get() === first) }
        #expect(counter.value == 1)
        #expect(eagerCounter.value == 2)
    }
}
