import Provision
import Testing

@Suite("Binding kinds")
struct BindingKindTests {
    @Test("a constructor binding resolves the initializer's parameters from the injector")
    func constructorBinding() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Engine.self).to(Engine.init)
                binder.bind(Brakes.self).to(Brakes.init)
                binder.bind(Car.self).to(Car.init(engine:brakes:))
            }
        )
        let car = try injector.get(Car.self)
        let other = try injector.get(Car.self)
        #expect(car !== other)
        #expect(car.engine !== other.engine)
    }

    @Test("a constructor binding with many parameters resolves each of them")
    func wideConstructor() throws {
        struct Five: Sendable {
            let values: [Int]
            init(a: Int, b: String, c: Double, d: Config, e: Engine) {
                values = [a, b.count, Int(c), d.port, e === e ? 1 : 0]
            }
        }
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Int.self).toInstance(7)
                binder.bind(String.self).toInstance("abc")
                binder.bind(Double.self).toInstance(2.5)
                binder.bind(Config.self).toInstance(Config(port: 80))
                binder.bind(Engine.self).to(Engine.init)
                binder.bind(Five.self).to(Five.init(a:b:c:d:e:))
            }
        )
        #expect(try injector.get(Five.self).values == [7, 3, 2, 80, 1])
    }

    @Test("a closure binding builds through the resolver it is given")
    func closureBinding() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Config.self).toInstance(Config(port: 8080))
                binder.bind(Headlight.self).to { resolver in
                    Headlight(brand: "port-\(try resolver.get(Config.self).port)")
                }
            }
        )
        #expect(try injector.get(Headlight.self).brand == "port-8080")
    }

    @Test("an instance binding returns the same value every time")
    func instanceBinding() throws {
        let engine = Engine()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Engine.self).toInstance(engine)
                binder.bind(Config.self).toInstance(Config(port: 1))
            }
        )
        #expect(try injector.get(Engine.self) === engine)
        #expect(try injector.get(Engine.self) === engine)
        #expect(try injector.get(Config.self) == Config(port: 1))
    }

    @Test("an existential binds to an implementation's initializer")
    func existentialBinding() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind((any GearBox).self).to(AfterMarketGearBox.init)
            }
        )
        let gearBox = try injector.get((any GearBox).self)
        #expect(gearBox is AfterMarketGearBox)
        #expect(gearBox.gears == 6)
    }

    @Test("the generic form infers the type from the context")
    func inferredGet() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind((any GearBox).self).to(AfterMarketGearBox.init)
                binder.bind(Config.self).toInstance(Config(port: 9))
            }
        )
        let gearBox: any GearBox = try injector.get()
        let config: Config = try injector.get()
        #expect(gearBox.gears == 6)
        #expect(config.port == 9)
    }

    @Test("named bindings are separate from each other and from the unnamed binding")
    func namedBindings() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Headlight.self, named: "left").to { _ in Headlight(brand: "left") }
                binder.bind(Headlight.self, named: "right").to { _ in Headlight(brand: "right") }
                binder.bind(Headlight.self).to { _ in Headlight(brand: "plain") }
            }
        )
        #expect(try injector.get(Headlight.self, named: "left").brand == "left")
        #expect(try injector.get(Headlight.self, named: "right").brand == "right")
        #expect(try injector.get(Headlight.self).brand == "plain")
    }

    @Test("a named request never falls back to the unnamed binding")
    func namedDoesNotFallBack() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Headlight.self).to { _ in Headlight() }
            }
        )
        let error = #expect(throws: ProvisionError.self) {
            try injector.get(Headlight.self, named: "fog")
        }
        #expect(error?.code == .notBound)
        #expect(error?.key == BindingKey(Headlight.self, named: "fog"))
        #expect(error?.description.contains("never falls back") == true)
    }

    @Test("hasBinding reports bound and unbound keys, named ones too")
    func hasBinding() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Engine.self).to(Engine.init)
                binder.bind(Headlight.self, named: "left").to { _ in Headlight() }
            }
        )
        #expect(injector.hasBinding(for: Engine.self))
        #expect(!injector.hasBinding(for: Brakes.self))
        #expect(injector.hasBinding(for: Headlight.self, named: "left"))
        #expect(!injector.hasBinding(for: Headlight.self))
        #expect(Set(injector.bindingKeys) == [BindingKey(Engine.self), BindingKey(Headlight.self, named: "left")])
    }
}
