import Provision
import Testing

// Hunt 27B: `toInstance` with values whose static type differs from the bound type: subclasses,
// existentials, optionals, metatypes, and closures of every effect combination bound as function
// types (hunt 26B found a synchronous closure bound to an async function type going to
// `toInstance(checking:)`). Each test resolves the binding and checks the value.

protocol Hunt27BMaker: Sendable {
    static func make() -> String
}

struct Hunt27BFactoryMaker: Hunt27BMaker {
    static func make() -> String { "factory" }
}

typealias Hunt27BSyncFunction = @Sendable () -> Int
typealias Hunt27BThrowingFunction = @Sendable () throws -> Int
typealias Hunt27BAsyncFunction = @Sendable () async -> Int
typealias Hunt27BAsyncThrowingFunction = @Sendable () async throws -> Int
typealias Hunt27BLoader = @Sendable (Int) async throws -> String

/// Instances bound in a `Module` struct.
struct Hunt27BInstanceModule: Module {
    func configure(_ binder: Binder) {
        binder.bind(Hunt27BSyncFunction.self).toInstance { 1 }
        binder.bind(Hunt27BThrowingFunction.self).toInstance { 2 }
        binder.bind(Hunt27BAsyncFunction.self).toInstance { 3 }
        binder.bind(Hunt27BAsyncThrowingFunction.self).toInstance { 4 }
        binder.bind(Hunt27BLoader.self).toInstance { "loaded \($0)" }
    }
}

@Suite("Hunt27B: toInstance with differing static types", .timeLimit(.minutes(1)))
struct Hunt27BInstanceTests {
    /// BindingBuilder: `toInstance(value)` — "always the given value". A trailing closure literal bound
    /// to each of `@Sendable () -> Int`, `() throws -> Int`, `() async -> Int`, `() async throws -> Int`
    /// and `(Int) async throws -> String` is that function, in a `ClosureModule` and in a `Module`
    /// struct: creating the injector succeeds (no `typeMismatch` from `toInstance(checking:)`) and
    /// calling the resolved function returns the closure's value.
    @Test("synchronous closure literals bound to every effect combination of function type")
    func closureEffectCombinations() async throws {
        let inline = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt27BSyncFunction.self).toInstance { 1 }
                binder.bind(Hunt27BThrowingFunction.self).toInstance { 2 }
                binder.bind(Hunt27BAsyncFunction.self).toInstance { 3 }
                binder.bind(Hunt27BAsyncThrowingFunction.self).toInstance { 4 }
                binder.bind(Hunt27BLoader.self).toInstance { "loaded \($0)" }
            })
        for injector in [inline, try Injector(Hunt27BInstanceModule())] {
            #expect(try await injector.get(Hunt27BSyncFunction.self)() == 1)
            #expect(try await injector.get(Hunt27BThrowingFunction.self)() == 2)
            #expect(await (try await injector.get(Hunt27BAsyncFunction.self))() == 3)
            #expect(try await (try await injector.get(Hunt27BAsyncThrowingFunction.self))() == 4)
            #expect(try await (try await injector.get(Hunt27BLoader.self))(7) == "loaded 7")
        }
    }

    /// A function value (not a literal) of a narrower type bound to a wider function type (a
    /// non-throwing `@Sendable () -> Int` where `() async throws -> Int` is bound) converts at compile
    /// time, like any argument.
    @Test("a sync function value bound to an async throwing function type")
    func functionValueConversion() async throws {
        let seven: @Sendable () -> Int = { 7 }
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt27BAsyncThrowingFunction.self).toInstance(seven)
            })
        #expect(try await (try await injector.get(Hunt27BAsyncThrowingFunction.self))() == 7)
    }

    /// A subclass instance bound as its class, a conforming value bound as the protocol, and a metatype
    /// bound as a protocol's existential metatype (`(any Maker.Type)`): each resolves to the given
    /// value; the subclass's own type stays unbound.
    @Test("subclass, existential and metatype instances")
    func subclassExistentialMetatype() throws {
        let truck = Hunt27BTruck()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt27BVehicle.self).toInstance(truck)
                binder.bind((any Hunt27BGreeter).self).toInstance(Hunt27BEnglish())
                binder.bind((any Hunt27BMaker.Type).self).toInstance(Hunt27BFactoryMaker.self)
            })
        #expect(try injector.get(Hunt27BVehicle.self) === truck)
        #expect(try injector.get((any Hunt27BGreeter).self).greeting == "hello")
        #expect(try injector.get((any Hunt27BMaker.Type).self).make() == "factory")
        #expect(try injector.get(Hunt27BTruck?.self) == nil)
    }

    /// An optional binding: `bind(Int?.self).toInstance(nil)` binds `nil` explicitly, and
    /// `toInstance(5)` on `Int?` wraps the value. A request for the optional gets the bound value, and a
    /// request for `Int` is not satisfied by an `Int?` binding.
    @Test("optional bindings: explicit nil and a wrapped value")
    func optionalInstances() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Int?.self).toInstance(nil)
                binder.bind(String?.self).toInstance("wrapped")
            })
        #expect(try injector.get(Int?.self) == nil)
        #expect(try injector.get(String?.self) == "wrapped")
        let error = #expect(throws: ProvisionError.self) { try injector.get(String.self) }
        #expect(error?.code == .notBound)
    }

    /// `toInstance(checking:)`: "A value that is not a `T` makes creating the injector throw
    /// ``ProvisionError/Code/typeMismatch``, naming both types." A value held as an existential that
    /// is a `T` binds; an `Optional` holding a `T` binds (the cast unwraps it); a `nil` and a value of
    /// another type are `typeMismatch` naming the value's type.
    @Test("toInstance(checking:) with an existential, an optional and a wrong value")
    func checkingVariants() throws {
        let greeter: any Hunt27BGreeter = Hunt27BEnglish()
        let maybe: Int? = 5
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt27BEnglish.self).toInstance(checking: greeter)
                binder.bind(Int.self).toInstance(checking: maybe)
            })
        #expect(try injector.get(Hunt27BEnglish.self).greeting == "hello")
        #expect(try injector.get(Int.self) == 5)

        let none: Int? = nil
        let nilError = #expect(throws: ProvisionError.self) {
            try Injector(ClosureModule { binder in binder.bind(Int.self).toInstance(checking: none) })
        }
        #expect(nilError?.code == .typeMismatch)
        #expect(nilError?.message.contains("Int?") == true)
        let wrongError = #expect(throws: ProvisionError.self) {
            try Injector(ClosureModule { binder in binder.bind(Int.self).toInstance(checking: "five") })
        }
        #expect(wrongError?.code == .typeMismatch)
        #expect(wrongError?.message.contains("String") == true)
    }

    /// `multibind(...).toInstance` with a conforming value and `.to` with a closure and an initializer:
    /// Binder.multibind — elements "in binding order".
    @Test("multibind with toInstance, a closure and an initializer, in order")
    func multibindShapes() throws {
        struct French: Hunt27BGreeter {
            var greeting: String { "bonjour" }
        }
        struct Custom: Hunt27BGreeter {
            let greeting: String
            init(engine: Hunt27BEngine) { greeting = engine.label }
        }
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt27BEngine.self).toInstance(Hunt27BEngine(label: "engine"))
                binder.multibind((any Hunt27BGreeter).self).toInstance(Hunt27BEnglish())
                binder.multibind((any Hunt27BGreeter).self).to { French() }
                binder.multibind((any Hunt27BGreeter).self).to(Custom.init).in(.singleton)
                binder.multibind((any Hunt27BGreeter).self, named: "other").to { _ in French() }
            })
        #expect(try injector.getAll((any Hunt27BGreeter).self).map(\.greeting) == ["hello", "bonjour", "engine"])
        #expect(try injector.getAll((any Hunt27BGreeter).self, named: "other").map(\.greeting) == ["bonjour"])
    }
}
