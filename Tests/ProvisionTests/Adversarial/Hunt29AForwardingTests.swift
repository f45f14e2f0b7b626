import Testing

@testable import Provision

// Hunt 29A: B-OBJ-20 / B-OBJ-21 forwarding of arguments through a protocol key with its own scope, and
// errors met while an injector builds its eager singletons (validation off).

protocol Hunt29ACardProcessor: AnyObject, Sendable {
    var number: String { get }
}

final class Hunt29AVisa: Hunt29ACardProcessor {
    let number: String
    init(number: String) { self.number = number }
}

final class Hunt29AEagerNeedsDB: Sendable {
    init(db: any Hunt29ADB) {}
}

@Suite("Hunt29A: forwarding and eager errors")
struct Hunt29AForwardingTests {
    // "The binding's own scope (default Normal) is layered on top: with Singleton the first delegated
    // result is cached ... Arguments passed to the protocol request are forwarded."
    @Test func protocolSingletonOverArgumentTarget() throws {
        let counter = Hunt29ACounter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29AVisa.self).withArguments(String.self).to { _, number in
                    _ = counter.next()
                    return Hunt29AVisa(number: number)
                }
                binder.bind((any Hunt29ACardProcessor).self).to(binding: Hunt29AVisa.self).in(.singleton)
                binder.bind((any Hunt29ACardProcessor).self, named: "each").to(binding: Hunt29AVisa.self)
            })
        let first = try injector.get((any Hunt29ACardProcessor).self, arguments: "12414")
        #expect(first.number == "12414")
        let second = try injector.get((any Hunt29ACardProcessor).self, arguments: "12414")
        #expect(first === second)
        let a = try injector.get((any Hunt29ACardProcessor).self, named: "each", arguments: "1")
        let b = try injector.get((any Hunt29ACardProcessor).self, named: "each", arguments: "2")
        #expect(a.number == "1" && b.number == "2")
        #expect(counter.value == 3)
        let wrong = #expect(throws: ProvisionError.self) {
            try injector.get((any Hunt29ACardProcessor).self, named: "each", arguments: 12414)
        }
        #expect(wrong?.code == .argumentMismatch)
        #expect(wrong?.message.contains("String") == true)
    }

    // An eager singleton that can't be built (validation off): creation throws with the path.
    @Test func eagerMissingDependencyPath() throws {
        let module = ClosureModule { binder in
            binder.bind(Hunt29AEagerNeedsDB.self).to(Hunt29AEagerNeedsDB.init(db:)).asEagerSingleton()
        }
        let error = #expect(throws: ProvisionError.self) {
            try Injector(modules: [module], configuration: Injector.Configuration(validatesOnCreation: false))
        }
        #expect(error?.code == .notBound)
        #expect(error?.pathDescription == "Hunt29AEagerNeedsDB -> any Hunt29ADB")
        // With validation (the default), the same problem is reported before anything is built.
        let validated = #expect(throws: ProvisionError.self) { try Injector(module) }
        #expect(validated?.code == .validationFailed)
        #expect(validated?.underlyingErrors.first?.pathDescription == "Hunt29AEagerNeedsDB -> any Hunt29ADB")
    }
}

@Suite("Hunt29A: optional bindings")
struct Hunt29AOptionalBindingTests {
    // B-OBJ-17: a nil instance resolves to nil; T and T? are different keys, and T? falls back to T.
    @Test func nilInstanceAndFallback() throws {
        let engine = Hunt29AEngine()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29ABrakes?.self).toInstance(nil)
                binder.bind(Hunt29AEngine.self).toInstance(engine)
            })
        #expect(try injector.get(Hunt29ABrakes?.self) == nil)
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt29ABrakes.self) }
        #expect(error?.code == .notBound)
        #expect(try injector.get(Hunt29AEngine?.self) === engine)
    }

    // "`.inject(\Car.brakes)` on a `Brakes?` property takes the optional binding, `nil` included" —
    // also when the plain type is bound too; without the optional binding it takes the plain one.
    @Test func optionalPropertyPrefersOptionalBinding() throws {
        let plain = Hunt29ABrakes()
        let both = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29AEngine.self).to(Hunt29AEngine.init)
                binder.bind(Hunt29ABrakes.self).toInstance(plain)
                binder.bind(Hunt29ABrakes?.self).toInstance(nil)
            })
        let car = Hunt29ACar()
        try both.injectDependencies(into: car)
        #expect(car.brakes == nil)
        #expect(car.engine != nil)
        let onlyPlain = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29AEngine.self).to(Hunt29AEngine.init)
                binder.bind(Hunt29ABrakes.self).toInstance(plain)
            })
        let other = Hunt29ACar()
        try onlyPlain.injectDependencies(into: other)
        #expect(other.brakes === plain)
    }
}
