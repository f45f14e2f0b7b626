import Provision
import Testing

@Suite("Scopes")
struct ScopeTests {
    @Test("transient is the default: every request builds a new instance")
    func transientByDefault() throws {
        let built = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Engine.self).to { _ in
                    built.increment()
                    return Engine()
                }
            }
        )
        let first = try injector.get(Engine.self)
        let second = try injector.get(Engine.self)
        #expect(first !== second)
        #expect(built.value == 2)
    }

    @Test("a singleton is built once and shared by every request")
    func singleton() throws {
        let built = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Engine.self).to { _ in
                    built.increment()
                    return Engine()
                }.in(.singleton)
                binder.bind(Brakes.self).to(Brakes.init)
                binder.bind(Car.self).to(Car.init(engine:brakes:))
            }
        )
        let first = try injector.get(Car.self)
        let second = try injector.get(Car.self)
        #expect(first !== second)
        #expect(first.engine === second.engine)
        #expect(first.brakes !== second.brakes)
        #expect(built.value == 1)
    }

    @Test("a constructor-bound singleton is built once")
    func constructorSingleton() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Engine.self).to(Engine.init).in(.singleton)
            }
        )
        #expect(try injector.get(Engine.self) === injector.get(Engine.self))
    }

    @Test("singletons are per injector")
    func singletonPerInjector() throws {
        let module = ClosureModule { binder in
            binder.bind(Engine.self).to(Engine.init).in(.singleton)
        }
        let first = try Injector(module)
        let second = try Injector(module)
        #expect(try first.get(Engine.self) !== second.get(Engine.self))
    }

    @Test("a named singleton is cached per name")
    func namedSingleton() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Headlight.self, named: "left").to { _ in Headlight(brand: "L") }.in(.singleton)
                binder.bind(Headlight.self, named: "right").to { _ in Headlight(brand: "R") }.in(.singleton)
            }
        )
        let left = try injector.get(Headlight.self, named: "left")
        #expect(try injector.get(Headlight.self, named: "left") === left)
        #expect(try injector.get(Headlight.self, named: "right") !== left)
    }

    @Test("scopes describe themselves")
    func scopeDescription() {
        #expect(Scope.transient.description == "transient")
        #expect(Scope.singleton.description == "singleton")
        #expect(Scope.transient != Scope.singleton)
    }
}
