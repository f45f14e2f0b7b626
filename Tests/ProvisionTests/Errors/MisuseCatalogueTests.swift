import Provision
import Testing

/// Every way a user or a configuration can misuse Provision, each checked for its error code and for a
/// message that names the key, the resolution path and a fix. None of them may crash the process.
@Suite("Misuse catalogue")
struct MisuseCatalogueTests {
    struct Misuse: Sendable, CustomTestStringConvertible {
        let name: String
        let code: ProvisionError.Code
        /// The key the message must name, in Swift syntax.
        let key: String
        /// The path the error must report, or `nil` for configuration errors without one.
        let path: String?
        let trigger: @Sendable () throws -> Void

        var testDescription: String { name }
    }

    final class Loop: Sendable { init(loop: Loop) {} }
    final class Needy: Sendable { init(engine: Engine, gearBox: any GearBox) {} }
    final class Labelled: Sendable { init() {} }

    static let catalogue: [Misuse] = [
        Misuse(name: "resolving an unbound type", code: .notBound, key: "Engine", path: "Engine") {
            _ = try Injector().get(Engine.self)
        },
        Misuse(name: "resolving an unbound protocol", code: .notBound, key: "any GearBox", path: "any GearBox") {
            _ = try Injector().get((any GearBox).self)
        },
        Misuse(name: "a wrong name", code: .notBound, key: "Headlight named \"fog\"", path: "Headlight named \"fog\"") {
            let injector = try Injector(
                ClosureModule { $0.bind(Headlight.self, named: "left").to { _ in Headlight() } })
            _ = try injector.get(Headlight.self, named: "fog")
        },
        Misuse(name: "a missing dependency", code: .notBound, key: "Brakes", path: "Car -> Brakes") {
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Car.self).to(Car.init(engine:brakes:))
                    binder.bind(Engine.self).to(Engine.init)
                }
            )
            _ = try injector.get(Car.self)
        },
        Misuse(
            name: "several missing dependencies", code: .notBound, key: "Engine",
            path: "MisuseCatalogueTests.Needy -> Engine"
        ) {
            _ = try Injector(ClosureModule { $0.bind(Needy.self).to(Needy.init(engine:gearBox:)) }).get(Needy.self)
        },
        Misuse(
            name: "a constructor cycle", code: .cycle, key: "Loop",
            path: "MisuseCatalogueTests.Loop -> MisuseCatalogueTests.Loop"
        ) {
            _ = try Injector(ClosureModule { $0.bind(Loop.self).to(Loop.init(loop:)) }).get(Loop.self)
        },
        Misuse(name: "a cycle through a closure", code: .cycle, key: "Engine", path: "Engine -> Engine") {
            _ = try Injector(ClosureModule { $0.bind(Engine.self).to { try $0.get(Engine.self) } }).get(Engine.self)
        },
        Misuse(name: "an eager binding that is not a singleton", code: .eagerNotSingleton, key: "Engine", path: nil) {
            _ = try Injector(
                ClosureModule { binder in
                    binder.bind(Engine.self).to(Engine.init)
                    binder.eager(Engine.self)
                }
            )
        },
        Misuse(name: "an eager key that is not bound", code: .notBound, key: "Brakes", path: "Brakes") {
            _ = try Injector(ClosureModule { $0.eager(Brakes.self) })
        },
        Misuse(name: "too many arguments", code: .argumentMismatch, key: "Headlight", path: "Headlight") {
            let injector = try Injector(
                ClosureModule {
                    $0.bind(Headlight.self).withArguments(String.self).to { _, brand in Headlight(brand: brand) }
                }
            )
            _ = try injector.get(Headlight.self, arguments: "a", "b")
        },
        Misuse(name: "an argument of the wrong type", code: .argumentMismatch, key: "Headlight", path: "Headlight") {
            let injector = try Injector(
                ClosureModule {
                    $0.bind(Headlight.self).withArguments(String.self).to { _, brand in Headlight(brand: brand) }
                }
            )
            _ = try injector.get(Headlight.self, arguments: 42)
        },
        Misuse(name: "arguments for a binding without any", code: .argumentMismatch, key: "Engine", path: "Engine") {
            _ = try Injector(ClosureModule { $0.bind(Engine.self).to(Engine.init) }).get(Engine.self, arguments: 1)
        },
        Misuse(name: "no arguments and no defaults", code: .argumentMismatch, key: "Headlight", path: "Headlight") {
            let injector = try Injector(
                ClosureModule {
                    $0.bind(Headlight.self).withArguments(String.self).to { _, brand in Headlight(brand: brand) }
                }
            )
            _ = try injector.get(Headlight.self)
        },
        Misuse(name: "an instance that doesn't conform", code: .typeMismatch, key: "any GearBox", path: nil) {
            _ = try Injector(ClosureModule { $0.bind((any GearBox).self).toInstance(checking: "sneaky") })
        },
        Misuse(
            name: "a delegating binding to the wrong type", code: .typeMismatch, key: "any GearBox", path: "any GearBox"
        ) {
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Engine.self).to(Engine.init)
                    binder.bind((any GearBox).self).to(binding: Engine.self)
                }
            )
            _ = try injector.get((any GearBox).self)
        },
        Misuse(name: "a duplicate binding inside one module", code: .duplicateBinding, key: "Engine", path: nil) {
            _ = try Injector(
                ClosureModule { binder in
                    binder.bind(Engine.self).to(Engine.init)
                    binder.bind(Engine.self).to(Engine.init)
                }
            )
        },
        Misuse(name: "a bind without a target", code: .incompleteBinding, key: "Engine", path: nil) {
            _ = try Injector(ClosureModule { _ = $0.bind(Engine.self) })
        },
        Misuse(name: "installing a key that is bound already", code: .duplicateBinding, key: "Engine", path: nil) {
            let injector = try Injector(ClosureModule { $0.bind(Engine.self).to(Engine.init) })
            try injector.install(ClosureModule { $0.bind(Engine.self).to(Engine.init) })
        },
        Misuse(name: "a multibinding installed at run time", code: .duplicateBinding, key: "[Engine]", path: nil) {
            try Injector().install(ClosureModule { $0.multibind(Engine.self).to(Engine.init) })
        },
        Misuse(name: "a key both bound and multibound", code: .duplicateBinding, key: "[Engine]", path: nil) {
            _ = try Injector(
                ClosureModule { binder in
                    binder.bind([Engine].self).toInstance([])
                    binder.multibind(Engine.self).to(Engine.init)
                }
            )
        },
        Misuse(name: "a factory that throws", code: .factoryFailed, key: "Engine", path: "Car -> Engine") {
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Engine.self).to { _ in throw ExpectedFailure() }
                    binder.bind(Brakes.self).to(Brakes.init)
                    binder.bind(Car.self).to(Car.init(engine:brakes:))
                }
            )
            _ = try injector.get(Car.self)
        },
        Misuse(name: "a module whose configure throws", code: .configurationFailed, key: "ClosureModule", path: nil) {
            _ = try Injector(ClosureModule { _ in throw ExpectedFailure() })
        },
        Misuse(
            name: "a provider used after its injector is gone", code: .injectorReleased, key: "Engine", path: "Engine"
        ) {
            var injector: Injector? = try Injector(ClosureModule { $0.bind(Engine.self).to(Engine.init) })
            let provider = try injector?.get(Provider<Engine>.self)
            injector = nil
            _ = try provider?.get()
        },
        Misuse(name: "a lazy value whose binding is missing", code: .notBound, key: "Engine", path: "Engine") {
            let injector = try Injector()
            _ = try withExtendedLifetime(injector) { try injector.get(Lazy<Engine>.self).value }
        },
        Misuse(name: "a named provider of a missing name", code: .notBound, key: "Engine named \"v8\"", path: nil) {
            let injector = try Injector()
            _ = try withExtendedLifetime(injector) { try injector.get(Provider<Engine>.self, named: "v8").get() }
        },
        Misuse(name: "a scoped binding outside any scope", code: .outsideScope, key: "Engine", path: "Car -> Engine") {
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Engine.self).to(Engine.init).in(.scoped)
                    binder.bind(Brakes.self).to(Brakes.init)
                    binder.bind(Car.self).to(Car.init(engine:brakes:))
                }
            )
            _ = try injector.get(Car.self)
        },
        Misuse(
            name: "a singleton holding a scoped binding", code: .captiveDependency, key: "Engine", path: "Car -> Engine"
        ) {
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Engine.self).to(Engine.init).in(.scoped)
                    binder.bind(Brakes.self).to(Brakes.init)
                    binder.bind(Car.self).to(Car.init(engine:brakes:)).in(.singleton)
                }
            )
            _ = try injector.makeScope().get(Car.self)
        },
        Misuse(
            name: "an async binding requested synchronously", code: .requiresAsync, key: "Engine", path: "Car -> Engine"
        ) {
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Engine.self).to { _ async in Engine() }.in(.singleton)
                    binder.bind(Brakes.self).to(Brakes.init)
                    binder.bind(Car.self).to(Car.init(engine:brakes:))
                }
            )
            _ = try injector.get(Car.self)
        },
        Misuse(name: "lifecycle hooks on a transient binding", code: .invalidLifecycle, key: "Engine", path: nil) {
            _ = try Injector(ClosureModule { $0.bind(Engine.self).to(Engine.init).in(.transient).onStop { _ in } })
        },
    ]

    @Test("each misuse throws its code with the key, the path and a fix", arguments: catalogue)
    func misuse(_ misuse: Misuse) {
        let thrown = #expect(throws: ProvisionError.self) { try misuse.trigger() }
        // A misuse of the graph is found when the injector is created, by validation (on by default):
        // reported as the (first) problem of a validationFailed error.
        var error = thrown
        if thrown?.code == .validationFailed, misuse.code != .validationFailed {
            #expect(thrown?.underlyingErrors.isEmpty == false)
            error = thrown?.underlyingErrors.first
        }
        #expect(error?.code == misuse.code)
        let text = error?.description ?? ""
        #expect(text.contains(misuse.key), "the message does not name \(misuse.key): \(text)")
        if let path = misuse.path {
            #expect(error?.pathDescription == path)
        }
        #expect(error?.hint.isEmpty == false)
        #expect(text.contains("hint: "))
    }

    @Test("the catalogue covers at least twenty misuses")
    func catalogueSize() {
        #expect(Self.catalogue.count >= 20)
    }
}
