import Testing

@testable import Provision

// Objection's initializers and arguments (InitializerSpecs, BasicUsage "variadic arguments").

extension Seed {
    /// A value built from arguments of several types, one of them optional.
    struct Trim: Sendable, Equatable {
        let model: String
        let doors: Int
        let package: String?
    }

    @Suite("Seeds: Objection initializers and arguments")
    struct ObjectionArgumentTests {
        /// Objection's `ViewController` with its declared initializer and default arguments.
        static let viewControllers = ClosureModule { binder in
            binder.bind(Car.self).to(Car.init)
            binder.bind(ViewController.self).withArguments(String?.self, String?.self)
                .to { resolver, nibName, bundle in
                    let controller = ViewController(nibName: nibName, bundle: bundle)
                    try resolver.injectDependencies(into: controller)
                    return controller
                }
                .defaults("MyNib", nil)
        }

        /// Objection's `ConfigurableCar`: an initializer with no default arguments.
        static let configurableCars = ClosureModule { binder in
            binder.bind(ConfigurableCar.self).withArguments(String.self, String.self, String.self)
                .to { resolver, model, horsePower, year in
                    let car = ConfigurableCar(model: model, horsePower: horsePower, year: year)
                    try resolver.injectDependencies(into: car)
                    return car
                }
        }

        @Test("B-OBJ-35 a binding's default arguments are used when a request gives none, then requirements are set")
        func defaultArguments() throws {
            let injector = try Injector(Self.viewControllers)
            let controller = try injector.get(ViewController.self)
            #expect(controller.nibName == "MyNib")
            #expect(controller.bundle == nil)
            #expect(controller.car?.engine != nil)
        }

        @Test("B-OBJ-35 a request's arguments replace the defaults entirely")
        func argumentsOverrideDefaults() throws {
            let injector = try Injector(Self.viewControllers)
            let controller = try injector.get(
                ViewController.self, arguments: "CustomNib" as String?, "Bundle" as String?)
            #expect(controller.nibName == "CustomNib")
            #expect(controller.bundle == "Bundle")
            #expect(controller.car != nil)
        }

        @Test("B-OBJ-35 an initializer without default arguments takes them from the request")
        func noDefaults() throws {
            let injector = try Injector(Self.configurableCars)
            let car = try injector.get(ConfigurableCar.self, arguments: "Passat", "150", "2011")
            #expect(car.model == "Passat" && car.horsePower == "150" && car.year == "2011")
            #expect(car.engine?.hookCalls == 1)
            let error = #expect(throws: ProvisionError.self) { try injector.get(ConfigurableCar.self) }
            #expect(error?.code == .argumentMismatch)
            #expect(error?.message.contains("declares no defaults") == true)
        }

        @Test("B-OBJ-35 too many, too few or mistyped arguments are argumentMismatch naming both signatures")
        func argumentMismatch() throws {
            let injector = try Injector(Self.configurableCars)
            let tooFew = #expect(throws: ProvisionError.self) {
                try injector.get(ConfigurableCar.self, arguments: "Passat")
            }
            #expect(tooFew?.code == .argumentMismatch)
            let tooMany = #expect(throws: ProvisionError.self) {
                try injector.get(ConfigurableCar.self, arguments: "Passat", "150", "2011", "extra")
            }
            #expect(tooMany?.code == .argumentMismatch)
            let mistyped = #expect(throws: ProvisionError.self) {
                try injector.get(ConfigurableCar.self, arguments: "Passat", 150, "2011")
            }
            #expect(mistyped?.code == .argumentMismatch)
            #expect(mistyped?.message.contains("(String, String, String)") == true)
            #expect(mistyped?.message.contains("(String, Int, String)") == true)
        }

        @Test("B-OBJ-36 (different) a factory method replaces a class-method initializer")
        func factoryMethod() throws {
            let injector = try Injector(
                ClosureModule {
                    $0.bind(Truck.self).withArguments(String.self).to { _, name in Truck.truck(named: name) }
                }
            )
            #expect(try injector.get(Truck.self, arguments: "Ford").name == "Ford")
        }

        @Test("B-OBJ-37 (different) another initializer for one request is a named binding with its own arguments")
        func adHocInitializer() throws {
            let injector = try Injector(
                Self.viewControllers,
                ClosureModule { binder in
                    binder.bind(ViewController.self, named: "withName").withArguments(String?.self)
                        .to { _, name in ViewController(nibName: name, bundle: nil) }
                }
            )
            let named = try injector.get(ViewController.self, named: "withName", arguments: "The Name" as String?)
            #expect(named.nibName == "The Name")
            let unnamed = try injector.get(ViewController.self, named: "withName", arguments: nil as String?)
            #expect(unnamed.nibName == nil)
            #expect(try injector.get(ViewController.self).nibName == "MyNib", "the declared initializer is unchanged")
        }

        @Test("B-OBJ-38 (different) arguments matter only when building, and are rejected where none are declared")
        func argumentsAtBuildTime() throws {
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Trim.self).withArguments(String.self, Int.self, String?.self)
                        .to { _, model, doors, package in Trim(model: model, doors: doors, package: package) }
                        .in(.singleton)
                }
            )
            let first = try injector.get(Trim.self, arguments: "Golf", 3, "GTI" as String?)
            let second = try injector.get(Trim.self, arguments: "Polo", 5, nil as String?)
            #expect(first == Trim(model: "Golf", doors: 3, package: "GTI"))
            #expect(second == first, "a built singleton ignores later arguments")

            let error = #expect(throws: ProvisionError.self) { try injector.get(Brakes.self, arguments: "ignored?") }
            #expect(error?.code == .argumentMismatch)
            #expect(error?.message.contains("takes no arguments") == true)
        }

        @Test("B-OBJ-39 arguments are a typed list of any length and types, in which nil is a value")
        func typedArgumentList() throws {
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Trim.self).withArguments(String.self, Int.self, String?.self)
                        .to { _, model, doors, package in Trim(model: model, doors: doors, package: package) }
                    binder.bind(Trim.self, named: "one").withArguments(String.self)
                        .to { _, model in Trim(model: model, doors: 0, package: nil) }
                }
            )
            #expect(
                try injector.get(Trim.self, arguments: "Up", 5, nil as String?)
                    == Trim(model: "Up", doors: 5, package: nil)
            )
            #expect(try injector.get(Trim.self, named: "one", arguments: "Fox").model == "Fox")
        }
    }
}
