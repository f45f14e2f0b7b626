import Provision
import Testing

// Hunt 27B: `to(Type.init)` as users write it: overloaded initializers, default arguments, generic,
// failable, throwing initializers, every arity up to and past the twelve generated ones, and handles
// as parameters. Each test resolves the binding to prove which initializer the compiler chose.

final class Hunt27BEngine: Sendable {
    let label: String

    init(label: String = "bound") {
        self.label = label
    }
}

/// A service with a designated initializer for the injector and a convenience one for tests or
/// previews, as many real services have.
final class Hunt27BCar: Sendable {
    let engine: Hunt27BEngine

    init(engine: Hunt27BEngine) {
        self.engine = engine
    }

    convenience init() {
        self.init(engine: Hunt27BEngine(label: "convenience"))
    }
}

/// A struct with its memberwise initializer and a parameterless one added in an extension.
struct Hunt27BSettings: Sendable {
    var port: Int
    var host: String
}

extension Hunt27BSettings {
    init() {
        self.init(port: 80, host: "default")
    }
}

/// Two initializers of one arity: one takes a ``Resolver``, one a dependency.
struct Hunt27BResolverOrEngine: Sendable {
    let source: String

    init(resolver: Resolver) {
        source = "resolver"
    }

    init(engine: Hunt27BEngine) {
        source = "engine \(engine.label)"
    }
}

/// An initializer with a defaulted parameter.
struct Hunt27BDefaulted: Sendable {
    let size: Int

    init(engine: Hunt27BEngine, size: Int = 3) {
        self.size = size
    }
}

struct Hunt27BBox<Value: Sendable>: Sendable {
    let value: Value
}

struct Hunt27BFailable: Sendable {
    let label: String

    init?(engine: Hunt27BEngine) {
        guard engine.label != "broken" else { return nil }
        label = engine.label
    }
}

struct Hunt27BThrowing: Sendable {
    struct Refused: Error {}

    init(engine: Hunt27BEngine) throws(Refused) {
        throw Refused()
    }
}

/// Thirteen parameters: past the generated arities, served by the parameter-pack overload.
struct Hunt27BThirteen: Sendable {
    let sum: Int

    init(
        a: Int, b: Int, c: Int, d: Int, e: Int, f: Int, g: Int, h: Int, i: Int, j: Int, k: Int, l: Int,
        m: String
    ) {
        sum = a + b + c + d + e + f + g + h + i + j + k + l + m.count
    }
}

/// Twelve parameters: the largest generated arity.
struct Hunt27BTwelve: Sendable {
    let sum: Int

    init(a: Int, b: Int, c: Int, d: Int, e: Int, f: Int, g: Int, h: Int, i: Int, j: Int, k: Int, l: String) {
        sum = a + b + c + d + e + f + g + h + i + j + k + l.count
    }
}

final class Hunt27BHandles: Sendable {
    let provider: Provider<Hunt27BEngine>
    let lazy: Lazy<Hunt27BEngine>

    init(provider: Provider<Hunt27BEngine>, lazy: Lazy<Hunt27BEngine>) {
        self.provider = provider
        self.lazy = lazy
    }
}

struct Hunt27BBorrowing: Sendable {
    let label: String

    init(engine: borrowing Hunt27BEngine) {
        label = engine.label
    }
}

/// The same bindings written in a `Module` struct's `configure`, as the docs' modules are.
struct Hunt27BInitializerModule: Module {
    func configure(_ binder: Binder) {
        binder.bind(Hunt27BEngine.self).toInstance(Hunt27BEngine())
        binder.bind(Hunt27BBox<Int>.self).to(Hunt27BBox.init)
        binder.bind(Hunt27BFailable?.self).to(Hunt27BFailable.init)
        binder.bind(Hunt27BBorrowing.self).to(Hunt27BBorrowing.init)
    }
}

@Suite("Hunt27B: to(Type.init) overload resolution", .timeLimit(.minutes(1)))
struct Hunt27BInitializerTests {
    /// BindingBuilder's documentation: "`to(Car.init(engine:brakes:))`: a constructor binding. The
    /// injector resolves each parameter's type and calls the function". A user whose class also has a
    /// `convenience init()` (for tests or previews) writes `to(Car.init)`, as the docs write
    /// `to(Engine.init)`, meaning the constructor the injector can fill. Plain Swift rejects
    /// `let make = Car.init` as ambiguous; so does `to(Car.init)` for two initializers of one and two
    /// parameters ("ambiguous use of 'init'").
    ///
    /// Found by hunt 27B, fixed: the compiler silently picked `init()`: a non-generic
    /// `to(_: @Sendable () throws -> T)` outranked every generic fixed-arity `to<A>`, so the bound
    /// engine was never used. There is no parameterless overload any more: a function without
    /// parameters takes the pack form with an empty pack, which ranks below the fixed arities, and
    /// `Recipe.constructor` gives it the parameterless recipe.
    @Test("to(Car.init) with init() and init(engine:) injects the bound engine")
    func overloadedParameterlessInitializer() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt27BEngine.self).toInstance(Hunt27BEngine(label: "bound"))
                binder.bind(Hunt27BCar.self).to(Hunt27BCar.init)
            })
        let car = try injector.get(Hunt27BCar.self)
        #expect(car.engine.label == "bound")
    }

    /// The same trap with a struct's memberwise initializer and an `init()` added in an extension: the
    /// user binds `Int` and `String` and writes `to(Settings.init)`.
    ///
    /// Found by hunt 27B, fixed as above: `init()` was chosen (port 80, host "default").
    @Test("to(Settings.init) with a memberwise init and an extension init() uses the bound values")
    func memberwiseAndParameterless() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Int.self).toInstance(8080)
                binder.bind(String.self).toInstance("bound")
                binder.bind(Hunt27BSettings.self).to(Hunt27BSettings.init)
            })
        let settings = try injector.get(Hunt27BSettings.self)
        #expect(settings.port == 8080)
        #expect(settings.host == "bound")
    }

    /// Two one-parameter initializers, one of them taking a `Resolver`: `to(Type.init)` silently picks
    /// the `Resolver` one (the non-generic closure overload `to(_: (Resolver) throws -> T)` outranks
    /// `to<A>`). Pinned: the choice is the closure binding's, not the dependency's.
    @Test("to(Type.init) with init(resolver:) and init(engine:) binds init(resolver:)")
    func resolverInitializerWins() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt27BEngine.self).toInstance(Hunt27BEngine())
                binder.bind(Hunt27BResolverOrEngine.self).to(Hunt27BResolverOrEngine.init)
            })
        #expect(try injector.get(Hunt27BResolverOrEngine.self).source == "resolver")
    }

    /// A defaulted parameter is still a parameter of `Type.init`: `to(Defaulted.init)` resolves `Int`
    /// too (Swift drops default arguments from function references). With no `Int` bound, creating the
    /// injector (which validates by default) must fail, naming `Int` on the path from the binding, so
    /// the user can see which parameter it is; a closure (`to { Defaulted(engine: $0) }`) keeps the
    /// default.
    @Test("to(Type.init) with a defaulted parameter resolves it: validation names Int below the type")
    func defaultedParameterIsADependency() throws {
        let error = #expect(throws: ProvisionError.self) {
            try Injector(
                ClosureModule { binder in
                    binder.bind(Hunt27BEngine.self).toInstance(Hunt27BEngine())
                    binder.bind(Hunt27BDefaulted.self).to(Hunt27BDefaulted.init)
                })
        }
        #expect(error?.code == .validationFailed)
        let problem = error?.underlyingErrors.first
        #expect(problem?.code == .notBound)
        #expect(problem?.path == [BindingKey(Hunt27BDefaulted.self), BindingKey(Int.self)])
        let fixed = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt27BEngine.self).toInstance(Hunt27BEngine())
                binder.bind(Hunt27BDefaulted.self).to { Hunt27BDefaulted(engine: $0) }
            })
        #expect(try fixed.get(Hunt27BDefaulted.self).size == 3)
    }

    /// A generic type's `init`, its parameter inferred from the bound key (`Box<Int>`), a failable
    /// `init?` bound as an optional, and a `borrowing` parameter, in a `Module` struct: each builds from
    /// the bound dependencies.
    @Test("generic, failable (as T?) and borrowing initializers bind in a Module struct")
    func genericFailableBorrowing() throws {
        let injector = try Injector(
            Hunt27BInitializerModule(),
            ClosureModule { binder in binder.bind(Int.self).toInstance(42) })
        #expect(try injector.get(Hunt27BBox<Int>.self).value == 42)
        #expect(try injector.get(Hunt27BFailable?.self)?.label == "bound")
        #expect(try injector.get(Hunt27BBorrowing.self).label == "bound")
    }

    /// A failable initializer returning `nil` for an optional binding is a value, not an error; a
    /// request for the non-optional `T` is `notBound` (the binding is of `T?`), and the hint names the
    /// type to bind.
    @Test("a failable init bound as T? gives nil; T itself stays unbound")
    func failableReturningNil() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt27BEngine.self).toInstance(Hunt27BEngine(label: "broken"))
                binder.bind(Hunt27BFailable?.self).to(Hunt27BFailable.init)
            })
        #expect(try injector.get(Hunt27BFailable?.self) == nil)
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt27BFailable.self) }
        #expect(error?.code == .notBound)
    }

    /// BindingBuilder: "If `factory` throws, the request fails with
    /// ``ProvisionError/Code/factoryFailed``." A typed-throws initializer converts to the `throws`
    /// parameter and its error is the cause.
    @Test("a typed-throws init fails the request with factoryFailed and its error as cause")
    func throwingInitializer() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt27BEngine.self).toInstance(Hunt27BEngine())
                binder.bind(Hunt27BThrowing.self).to(Hunt27BThrowing.init)
            })
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt27BThrowing.self) }
        #expect(error?.code == .factoryFailed)
        #expect(error?.cause is Hunt27BThrowing.Refused)
    }

    /// BindingBuilder.swift: fixed arities up to twelve, "Overload resolution prefers them to the pack
    /// form, which takes every other arity." Twelve and thirteen parameters both build from the bound
    /// values.
    @Test("twelve- and thirteen-parameter initializers build from their dependencies")
    func twelveAndThirteen() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Int.self).toInstance(2)
                binder.bind(String.self).toInstance("abc")
                binder.bind(Hunt27BTwelve.self).to(Hunt27BTwelve.init)
                binder.bind(Hunt27BThirteen.self).to(Hunt27BThirteen.init)
            })
        #expect(try injector.get(Hunt27BTwelve.self).sum == 11 * 2 + 3)
        #expect(try injector.get(Hunt27BThirteen.self).sum == 12 * 2 + 3)
    }

    /// Provider.swift: "No binding is needed: every injector provides `Provider<T>` for any `T` it can
    /// resolve"; `Lazy<T>` likewise. An initializer taking both binds with `to(Type.init)`.
    @Test("Provider<T> and Lazy<T> initializer parameters are provided without bindings")
    func handleParameters() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt27BEngine.self).toInstance(Hunt27BEngine(label: "handled"))
                binder.bind(Hunt27BHandles.self).to(Hunt27BHandles.init)
            })
        let handles = try injector.get(Hunt27BHandles.self)
        #expect(try handles.provider.get().label == "handled")
        #expect(try handles.lazy.value.label == "handled")
    }
}
