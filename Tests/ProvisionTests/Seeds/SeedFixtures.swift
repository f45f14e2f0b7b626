import Provision
import Synchronization

/// The fixtures of the original frameworks' specs (Objection, OBInjector, Injective), ported to Swift.
///
/// They live in this namespace so that their names can be the originals' (`Seed.Car`, `Seed.Engine`)
/// without clashing with the fixtures of the other tests; the seed suites are declared in extensions
/// of `Seed`, where the short names resolve to these types.
///
/// Objection registered classes globally from `+initialize`; here final classes declare themselves with
/// ``Injectable`` and class hierarchies are bound by the test's module. Hook calls are counted with
/// atomics, so that a test can assert "exactly once".
enum Seed {}

// MARK: - Objection: cars

extension Seed {
    /// Objection's `Engine`: registered, with an awake hook.
    final class Engine: Injectable, PropertyInjectable, Sendable {
        static let injection = Injection(Engine.init)

        private let hooks = Atomic(0)

        /// How many times `didInjectDependencies()` ran.
        var hookCalls: Int { hooks.load(ordering: .relaxed) }

        func didInjectDependencies() {
            hooks.add(1, ordering: .relaxed)
        }
    }

    /// Objection's `Brakes`: registered, no requirements.
    final class Brakes: Injectable, Sendable {
        static let injection = Injection(Brakes.init)
    }

    /// Objection's `Car`: requires `engine` and `brakes`; its hook records whether its engine was
    /// already awake (dependencies before dependents).
    class Car: PropertyInjectable {
        var engine: Engine?
        var brakes: Brakes?
        private(set) var hookCalls = 0
        private(set) var propertiesSetAtHook = false
        private(set) var engineAwakeAtHook = false

        required init() {}

        class var injectedProperties: [InjectedProperty] {
            [.inject(\Car.engine), .inject(\Car.brakes)]
        }

        func didInjectDependencies() {
            hookCalls += 1
            propertiesSetAtHook = engine != nil && brakes != nil
            engineAwakeAtHook = engine?.hookCalls == 1
        }
    }

    /// A protocol only a separately bound object satisfies: Objection's `GearBox`.
    protocol GearBox: AnyObject, Sendable {}

    /// Objection's `AfterMarketGearBox`.
    final class AfterMarketGearBox: GearBox, Injectable {
        static let injection = Injection(AfterMarketGearBox.init)
    }

    /// Objection's `FiveSpeedCar`: a `Car` that also requires a `GearBox`.
    final class FiveSpeedCar: Car {
        var gearBox: (any GearBox)?

        override class var injectedProperties: [InjectedProperty] {
            super.injectedProperties + [.inject(\FiveSpeedCar.gearBox)]
        }
    }

    /// Objection's `SixSpeedCar`: a `Car` built by closures in the specs.
    final class SixSpeedCar: Car {}

    /// Objection's `UnregisteredCar`: requires an engine but is never registered (not ``Injectable``).
    final class UnregisteredCar: PropertyInjectable {
        var engine: Engine?

        static var injectedProperties: [InjectedProperty] { [.inject(\UnregisteredCar.engine)] }
    }

    /// A car built only from its constructor, for `nil` dependencies (Objection's `SixSpeedCar` with
    /// block-bound brakes that return `nil`).
    final class OptionalBrakesCar: Sendable {
        let brakes: Brakes?

        init(brakes: Brakes?) {
            self.brakes = brakes
        }
    }

    /// Objection's `CarFactory`: registered as a singleton.
    final class CarFactory: Injectable, Sendable {
        static let injection = Injection(CarFactory.init).in(.singleton)
    }

    /// Objection's `SingletonItem`: a singleton no test refers to before its holders need it.
    final class SingletonItem: Injectable, Sendable {
        static let injection = Injection(SingletonItem.init).in(.singleton)
    }

    /// Objection's `SingletonItemHolder`: transient, requires the `SingletonItem`.
    final class SingletonItemHolder: Injectable, PropertyInjectable {
        static let injection = Injection(SingletonItemHolder.init)

        var singletonItem: SingletonItem?

        static var injectedProperties: [InjectedProperty] { [.inject(\SingletonItemHolder.singletonItem)] }
    }

    /// Objection's `ObjectFactoryHolder`: gets the object factory of the injector that built it.
    final class FactoryHolder: Injectable, Sendable {
        static let injection = Injection(FactoryHolder.init(factory:))

        let factory: ObjectFactory

        init(factory: ObjectFactory) {
            self.factory = factory
        }
    }
}

// MARK: - Objection: headlights and blinkers (named bindings)

extension Seed {
    /// Objection's `Headlight`.
    class Headlight {
        required init() {}
    }

    /// Objection's `HIDHeadlight`.
    final class HIDHeadlight: Headlight {}

    /// Objection's `Blinker`: a speed.
    final class Blinker: Sendable {
        let speed: Double

        init(speed: Double) {
            self.speed = speed
        }
    }

    /// Objection's `ShinyCar`: named left and right headlights, and an unnamed fog light.
    final class ShinyCar: Injectable, PropertyInjectable {
        static let injection = Injection(ShinyCar.init)

        var leftHeadlight: Headlight?
        var rightHeadlight: Headlight?
        var foglight: Headlight?

        static var injectedProperties: [InjectedProperty] {
            [
                .inject(\ShinyCar.leftHeadlight, named: "LeftHeadlight"),
                .inject(\ShinyCar.rightHeadlight, named: "RightHeadlight"),
                .inject(\ShinyCar.foglight),
            ]
        }
    }

    /// Objection's `FlashyCar`: named left and right blinkers.
    final class FlashyCar: Injectable, PropertyInjectable {
        static let injection = Injection(FlashyCar.init)

        var leftBlinker: Blinker?
        var rightBlinker: Blinker?

        static var injectedProperties: [InjectedProperty] {
            [
                .inject(\FlashyCar.leftBlinker, named: "LeftBlinker"),
                .inject(\FlashyCar.rightBlinker, named: "RightBlinker"),
            ]
        }
    }
}

// MARK: - Objection: processors, meta classes, initializers

extension Seed {
    /// Objection's `CreditCardValidator`.
    final class CreditCardValidator: Injectable, Sendable {
        static let injection = Injection(CreditCardValidator.init)
    }

    /// Objection's `CreditCardProcessor` protocol.
    protocol CreditCardProcessor: AnyObject, Sendable {
        var validator: CreditCardValidator { get }
    }

    /// Objection's `BaseCreditCardProcessor`: a superclass other processors are bound to.
    class BaseCreditCardProcessor: CreditCardProcessor {
        let validator: CreditCardValidator
        let number: String?

        init(validator: CreditCardValidator, number: String?) {
            self.validator = validator
            self.number = number
        }
    }

    /// Objection's `VisaCCProcessor`.
    final class VisaCCProcessor: BaseCreditCardProcessor {}

    /// Objection's `MetaCar`: a protocol made of class methods, bound to a type rather than an instance.
    protocol MetaCar: SendableMetatype {
        static func manufacture() -> Car
    }

    /// Objection's `ConfigurableCar`: built from three arguments, then its engine is injected.
    final class ConfigurableCar: PropertyInjectable {
        let model: String
        let horsePower: String
        let year: String
        var engine: Engine?

        init(model: String, horsePower: String, year: String) {
            self.model = model
            self.horsePower = horsePower
            self.year = year
        }

        static var injectedProperties: [InjectedProperty] { [.inject(\ConfigurableCar.engine)] }
    }

    /// Objection's `ViewController`: a declared initializer with default arguments (a nib name and an
    /// optional bundle), and an injected car.
    final class ViewController: PropertyInjectable {
        let nibName: String?
        let bundle: String?
        var car: Car?

        init(nibName: String?, bundle: String?) {
            self.nibName = nibName
            self.bundle = bundle
        }

        static var injectedProperties: [InjectedProperty] { [.inject(\ViewController.car)] }
    }

    /// Objection's `Truck`: built by a class method rather than an initializer.
    final class Truck: Sendable {
        let name: String

        private init(name: String) {
            self.name = name
        }

        static func truck(named name: String) -> Truck {
            Truck(name: name)
        }
    }

    /// Objection's `EagerSingleton`: counts its constructions in a counter the test binds.
    final class EagerSingleton: Injectable, Sendable {
        static let injection = Injection(EagerSingleton.init(counter:)).in(.singleton)

        init(counter: Counter) {
            counter.increment()
        }
    }
}

// MARK: - Objection: cycles and inheritance

extension Seed {
    /// Objection's `SingletonFoo`: a singleton that requires `SingletonBar`, which requires it back.
    final class SingletonFoo: Injectable, PropertyInjectable {
        static let injection = Injection(SingletonFoo.init).in(.singleton)

        var bar: SingletonBar?

        static var injectedProperties: [InjectedProperty] { [.inject(\SingletonFoo.bar)] }
    }

    /// Objection's `SingletonBar`.
    final class SingletonBar: Injectable, PropertyInjectable {
        static let injection = Injection(SingletonBar.init).in(.singleton)

        var foo: SingletonFoo?

        static var injectedProperties: [InjectedProperty] { [.inject(\SingletonBar.foo)] }
    }

    /// `SingletonFoo` with its edge made lazy: the cycle Provision accepts.
    final class LazyFoo: Injectable, PropertyInjectable {
        static let injection = Injection(LazyFoo.init).in(.singleton)

        var bar: LazyBar?

        static var injectedProperties: [InjectedProperty] { [.inject(\LazyFoo.bar)] }
    }

    /// `SingletonBar` holding its `LazyFoo` through a ``Lazy`` handle.
    final class LazyBar: Injectable, PropertyInjectable {
        static let injection = Injection(LazyBar.init).in(.singleton)

        var foo: Lazy<LazyFoo>?

        static var injectedProperties: [InjectedProperty] { [.inject(\LazyBar.foo)] }
    }

    /// Objection's `Person`: a superclass with a plain and a named requirement.
    class Person: PropertyInjectable {
        var attributes: Attributes?
        var title: String?

        required init() {}

        class var injectedProperties: [InjectedProperty] {
            [.inject(\Person.attributes), .inject(\Person.title, named: "title")]
        }
    }

    /// Objection's `Programmer`: adds its own plain and named requirements to `Person`'s.
    final class Programmer: Person, Injectable {
        static let injection = Injection(Programmer.init)

        var favouriteLanguage: String?
        var computer: Computer?

        override class var injectedProperties: [InjectedProperty] {
            super.injectedProperties + [
                .inject(\Programmer.computer), .inject(\Programmer.favouriteLanguage, named: "language"),
            ]
        }
    }

    /// A programmer whose title comes from another binding: replaces `Person`'s entry for `title`.
    final class SeniorProgrammer: Person, Injectable {
        static let injection = Injection(SeniorProgrammer.init)

        override class var injectedProperties: [InjectedProperty] {
            super.injectedProperties + [.inject(\Person.title, named: "senior title")]
        }
    }

    /// A value a `Person` requires.
    final class Attributes: Injectable, Sendable {
        static let injection = Injection(Attributes.init)
    }

    /// A value a `Programmer` requires.
    final class Computer: Injectable, Sendable {
        static let injection = Injection(Computer.init)
    }

    /// A plain superclass that knows nothing of injection.
    class PlainBase {}

    /// Objection's `NoInheritance`: requirements declared below a superclass that declares none.
    final class NoInheritance: PlainBase, Injectable, PropertyInjectable {
        static let injection = Injection(NoInheritance.init)

        var attributes: Attributes?
        var title: String?

        static var injectedProperties: [InjectedProperty] {
            [.inject(\NoInheritance.attributes), .inject(\NoInheritance.title, named: "title")]
        }
    }
}

// MARK: - OBInjector and Injective

extension Seed {
    /// OBInjector's test object: an optional string property and a delegate hook.
    final class InjectTarget: PropertyInjectable {
        var injectTest: String?
        var other: String?
        private(set) var hookCalls = 0

        static var injectedProperties: [InjectedProperty] { [.inject(\InjectTarget.injectTest, named: "injectTest")] }

        func didInjectDependencies() {
            hookCalls += 1
        }
    }

    /// Injective's `ITCar`: its brakes are read-only from outside, set by the injector; a name that a
    /// request passes.
    final class ITCar: PropertyInjectable {
        private(set) var brakes: Brakes?
        let name: String?

        init(name: String?) {
            self.name = name
        }

        static var injectedProperties: [InjectedProperty] { [.inject(\ITCar.brakes)] }
    }

    /// Injective's `Parking`: creates cars through the context (injector) that created it.
    final class Parking: Injectable, Sendable {
        static let injection = Injection(Parking.init(factory:))

        let factory: ObjectFactory

        init(factory: ObjectFactory) {
            self.factory = factory
        }

        func park(named name: String? = nil) throws -> ITCar {
            guard let name else { return try factory.get(ITCar.self) }
            return try factory.get(ITCar.self, arguments: name as String?)
        }
    }

    /// A car whose two requirements are both unbound in the specs that use it.
    final class NeedyCar: PropertyInjectable {
        var gearBox: (any GearBox)?
        var blinker: Blinker?

        static var injectedProperties: [InjectedProperty] {
            [.inject(\NeedyCar.gearBox), .inject(\NeedyCar.blinker, named: "left")]
        }
    }
}

// MARK: - Sendable

// The mutable fixtures are set by the injector while it builds them (before any other thread can see
// them) and then read by the one test thread that resolved them; they are Sendable only so that the
// specs that bind them as singletons or instances can.
extension Seed.Car: @unchecked Sendable {}
extension Seed.FiveSpeedCar: @unchecked Sendable {}
extension Seed.SixSpeedCar: @unchecked Sendable {}
extension Seed.HIDHeadlight: @unchecked Sendable {}
extension Seed.VisaCCProcessor: @unchecked Sendable {}
extension Seed.Programmer: @unchecked Sendable {}
extension Seed.SeniorProgrammer: @unchecked Sendable {}
extension Seed.Headlight: @unchecked Sendable {}
extension Seed.BaseCreditCardProcessor: @unchecked Sendable {}
extension Seed.SingletonItemHolder: @unchecked Sendable {}
extension Seed.SingletonFoo: @unchecked Sendable {}
extension Seed.SingletonBar: @unchecked Sendable {}
extension Seed.LazyFoo: @unchecked Sendable {}
extension Seed.LazyBar: @unchecked Sendable {}
extension Seed.ShinyCar: @unchecked Sendable {}
extension Seed.FlashyCar: @unchecked Sendable {}
extension Seed.ConfigurableCar: @unchecked Sendable {}
extension Seed.ViewController: @unchecked Sendable {}
extension Seed.Person: @unchecked Sendable {}
extension Seed.NoInheritance: @unchecked Sendable {}
extension Seed.InjectTarget: @unchecked Sendable {}
extension Seed.ITCar: @unchecked Sendable {}
extension Seed.UnregisteredCar: @unchecked Sendable {}
extension Seed.NeedyCar: @unchecked Sendable {}

extension Seed.Car: Seed.MetaCar {
    static func manufacture() -> Seed.Car {
        Seed.Car()
    }
}
