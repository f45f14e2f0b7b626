import Dispatch
import Testing

@testable import Provision

// Hunt 29A: providers with arguments (B-OBJ-22), singletons with arguments, object factories held
// weakly (B-OBJ-33), local contexts (B-INJ-16) across child injectors, and a singleton with arguments
// raced by threads that pass different arguments.

final class Hunt29ATruck: Sendable {
    let name: String
    let wheels: Int
    init(name: String, wheels: Int) {
        self.name = name
        self.wheels = wheels
    }
}

struct Hunt29ATruckProvider: ServiceProvider {
    let counter: Hunt29ACounter
    func provide(_ resolver: Resolver, arguments: (String, Int)) throws -> Hunt29ATruck {
        _ = counter.next()
        return Hunt29ATruck(name: arguments.0, wheels: arguments.1)
    }
}

final class Hunt29AParking: Sendable {
    let factory: ObjectFactory
    init(factory: ObjectFactory) { self.factory = factory }
    func car(named name: String?) throws -> Hunt29ATruck {
        if let name {
            return try factory.get(Hunt29ATruck.self, arguments: name, 4)
        }
        return try factory.get(Hunt29ATruck.self)
    }
}

@Suite("Hunt29A: providers, arguments and factories")
struct Hunt29AFactoryTests {
    // B-OBJ-22: a provider receives the request's arguments; transient asks it every time.
    @Test func providerWithArguments() throws {
        let counter = Hunt29ACounter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29ATruck.self).withArguments(String.self, Int.self)
                    .to(provider: Hunt29ATruckProvider(counter: counter))
                    .defaults("Ford", 6)
            })
        let given = try injector.get(Hunt29ATruck.self, arguments: "VW", 4)
        #expect(given.name == "VW" && given.wheels == 4)
        let defaulted = try injector.get(Hunt29ATruck.self)
        #expect(defaulted.name == "Ford" && defaulted.wheels == 6)
        #expect(counter.value == 2)
        let wrong = #expect(throws: ProvisionError.self) { try injector.get(Hunt29ATruck.self, arguments: 4, "VW") }
        #expect(wrong?.code == .argumentMismatch)
        #expect(counter.value == 2)
    }

    // "A singleton is built once, from the arguments of the request that builds it."
    @Test func singletonWithArgumentsRace() throws {
        let counter = Hunt29ACounter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29ATruck.self).withArguments(String.self, Int.self)
                    .to(provider: Hunt29ATruckProvider(counter: counter))
                    .in(.singleton)
            })
        let threads = 8
        let start = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        let results = Hunt29AResults<Hunt29ATruck>()
        for index in 0..<threads {
            group.enter()
            DispatchQueue.global().async {
                defer { group.leave() }
                guard start.wait(timeout: .now() + 10) == .success else { return }
                results.add(Result { try injector.get(Hunt29ATruck.self, arguments: "t\(index)", index) })
            }
        }
        for _ in 0..<threads { start.signal() }
        #expect(group.wait(timeout: .now() + 10) == .success)
        let values = results.values
        #expect(values.count == threads)
        let first = try values[0].get()
        for value in values { #expect(try value.get() === first) }
        #expect(first.name == "t\(first.wheels)")
        #expect(counter.value == 1)
    }

    // B-OBJ-33: the object factory holds its injector weakly; once the injector is gone, it throws.
    @Test func objectFactoryOutlivingItsInjector() throws {
        var injector: Injector? = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29AParking.self).to(Hunt29AParking.init(factory:))
                binder.bind(Hunt29ATruck.self).withArguments(String.self, Int.self).to { _, name, wheels in
                    Hunt29ATruck(name: name, wheels: wheels)
                }.defaults("Ford", 6)
            })
        let parking = try #require(try injector?.get(Hunt29AParking.self))
        #expect(try parking.car(named: nil).name == "Ford")
        #expect(try parking.car(named: "test car").name == "test car")
        weak let weakInjector = injector
        injector = nil
        #expect(weakInjector == nil)
        let error = #expect(throws: ProvisionError.self) { try parking.car(named: nil) }
        #expect(error?.code == .injectorReleased)
    }

    // B-INJ-16: objects create further objects in the injector that created them — a child's own.
    @Test func factoryOfChildResolvesInChild() throws {
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29AParking.self).to(Hunt29AParking.init(factory:)).in(.singleton)
            })
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(Hunt29ATruck.self).withArguments(String.self, Int.self).to { _, name, wheels in
                    Hunt29ATruck(name: name, wheels: wheels)
                }
            })
        // The parent's singleton resolves in the parent, which never sees its children's bindings.
        let parentParking = try child.get(Hunt29AParking.self)
        #expect(parentParking === (try parent.get(Hunt29AParking.self)))
        let error = #expect(throws: ProvisionError.self) { try parentParking.car(named: "x") }
        #expect(error?.code == .notBound)
        // A child-bound Parking resolves in the child.
        let own = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(Hunt29AParking.self).to(Hunt29AParking.init(factory:))
                binder.bind(Hunt29ATruck.self).withArguments(String.self, Int.self).to { _, name, wheels in
                    Hunt29ATruck(name: name, wheels: wheels)
                }
            })
        let ownParking = try own.get(Hunt29AParking.self)
        #expect(try ownParking.car(named: "mine").name == "mine")
    }

    // B-OBI-08: a transient closure binding gives every injected object a fresh value.
    @Test func transientClosurePerInjection() throws {
        final class Stamped: PropertyInjectable {
            var stamp: Hunt29AEngine?
            init() {}
            static var injectedProperties: [InjectedProperty] { [.inject(\Stamped.stamp)] }
        }
        let counter = Hunt29ACounter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29AEngine.self).to { _ in
                    _ = counter.next()
                    return Hunt29AEngine()
                }
            })
        let a = Stamped()
        let b = Stamped()
        try injector.injectDependencies(into: a)
        try injector.injectDependencies(into: b)
        #expect(a.stamp != nil && b.stamp != nil)
        #expect(a.stamp !== b.stamp)
        #expect(counter.value == 2)
        // onlyIfNil: the closure is not called for a property already set (B-OBI-05).
        try injector.injectDependencies(into: a, onlyIfNil: true)
        #expect(counter.value == 2)
    }

    // Eager singleton of a child built in the child, sharing the parent's singleton below it.
    @Test func eagerInChild() throws {
        let counter = Hunt29ACounter()
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29AEngine.self).to { _ in
                    _ = counter.next()
                    return Hunt29AEngine()
                }.in(.singleton)
            })
        final class User: Sendable {
            let engine: Hunt29AEngine
            init(engine: Hunt29AEngine) { self.engine = engine }
        }
        let child = try parent.makeChild(ClosureModule { $0.bind(User.self).to(User.init(engine:)).asEagerSingleton() })
        #expect(counter.value == 1)
        #expect(try child.get(User.self).engine === parent.get(Hunt29AEngine.self))
        #expect(counter.value == 1)
    }
}
