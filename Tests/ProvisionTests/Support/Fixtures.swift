import Provision
import Synchronization

// The car fixtures of the original frameworks' specs, in Swift.

final class Engine: Sendable {}

final class Brakes: Sendable {}

final class Car: Sendable {
    let engine: Engine
    let brakes: Brakes

    init(engine: Engine, brakes: Brakes) {
        self.engine = engine
        self.brakes = brakes
    }
}

protocol GearBox: Sendable {
    var gears: Int { get }
}

final class AfterMarketGearBox: GearBox {
    let gears = 6
}

final class Headlight: Sendable {
    let brand: String

    init(brand: String = "stock") {
        self.brand = brand
    }
}

struct Config: Sendable, Equatable {
    var port: Int
}

/// An error a test factory throws on purpose.
struct ExpectedFailure: Error, Equatable {
    var id = 0
}

/// Counts calls across threads.
final class Counter: Sendable {
    private let count = Atomic(0)

    @discardableResult
    func increment() -> Int {
        count.add(1, ordering: .relaxed).newValue
    }

    var value: Int {
        count.load(ordering: .relaxed)
    }
}

extension Injector.Configuration {
    /// Creating the injector doesn't validate it: for the tests of what a request finds in a graph with
    /// a problem (which validation, on by default, would report at creation).
    static let unvalidated = Injector.Configuration(validatesOnCreation: false)
}

extension Injector {
    /// An injector of `modules` that creation doesn't validate (see `Configuration.unvalidated`).
    static func unvalidated(_ modules: any Module...) throws(ProvisionError) -> Injector {
        try Injector(modules: modules, configuration: .unvalidated)
    }
}
