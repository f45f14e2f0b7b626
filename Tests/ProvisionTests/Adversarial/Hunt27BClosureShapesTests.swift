import Provision
import Testing

// Hunt 27B: `to { ... }` closures as users type them: with and without a resolver, `$0` and named
// parameters, single- and multi-statement bodies, sync bodies and async ones, subclasses and
// conforming types returned where a class or protocol is bound. Each test resolves the binding to
// prove which overload the compiler chose.

protocol Hunt27BGreeter: Sendable {
    var greeting: String { get }
}

struct Hunt27BEnglish: Hunt27BGreeter {
    var greeting: String { "hello" }
}

class Hunt27BVehicle: @unchecked Sendable {
    var kind: String { "vehicle" }
}

final class Hunt27BTruck: Hunt27BVehicle, @unchecked Sendable {
    override var kind: String { "truck" }
}

/// A pool opened asynchronously, as ScopesAndLifetimes.md's `ConnectionPool`.
final class Hunt27BPool: Sendable {
    let size: Int

    init(size: Int) {
        self.size = size
    }

    static func open(size: Int) async throws -> Hunt27BPool { Hunt27BPool(size: size) }
}

/// The closure shapes written in a `Module` struct's `configure`.
struct Hunt27BClosureModule: Module {
    func configure(_ binder: Binder) {
        binder.bind(Hunt27BEngine.self).to { Hunt27BEngine(label: "no parameters") }
        binder.bind(Hunt27BCar.self).to { Hunt27BCar(engine: $0) }
        binder.bind((any Hunt27BGreeter).self).to { _ in Hunt27BEnglish() }
        binder.bind(Hunt27BVehicle.self).to { resolver in
            let engine = try resolver.get(Hunt27BEngine.self)
            _ = engine
            return Hunt27BTruck()
        }
        binder.bind(Hunt27BPool.self).to { _ async throws in try await Hunt27BPool.open(size: 4) }.in(.singleton)
    }
}

@Suite("Hunt27B: to { ... } closure shapes", .timeLimit(.minutes(1)))
struct Hunt27BClosureShapesTests {
    /// BindingBuilder: `to { resolver in ... }` is a closure binding; `to(_: () throws -> T)` a
    /// function with no parameters; a closure of one typed parameter is a constructor whose parameter
    /// is resolved. In a `ClosureModule`, `$0` and a named parameter used as a dependency both bind the
    /// one-parameter constructor form (the engine is the bound one), and a closure that ignores its
    /// `_` parameter binds the resolver form.
    @Test("sync closures: no parameters, $0, named dependency, _ in, and resolver in, in a ClosureModule")
    func syncShapesInClosureModule() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt27BEngine.self).toInstance(Hunt27BEngine(label: "bound"))
                binder.bind(Hunt27BCar.self, named: "dollar").to { Hunt27BCar(engine: $0) }
                binder.bind(Hunt27BCar.self, named: "typed").to { (engine: Hunt27BEngine) in
                    Hunt27BCar(engine: engine)
                }
                binder.bind(Hunt27BCar.self, named: "resolver").to { resolver in
                    Hunt27BCar(engine: try resolver.get())
                }
                binder.bind((any Hunt27BGreeter).self).to { _ in Hunt27BEnglish() }
                binder.bind(Hunt27BVehicle.self).to { Hunt27BTruck() }
                binder.bind(Int.self).to {
                    let base = 40
                    return base + 2
                }
            })
        #expect(try injector.get(Hunt27BCar.self, named: "dollar").engine.label == "bound")
        #expect(try injector.get(Hunt27BCar.self, named: "typed").engine.label == "bound")
        #expect(try injector.get(Hunt27BCar.self, named: "resolver").engine.label == "bound")
        #expect(try injector.get((any Hunt27BGreeter).self).greeting == "hello")
        #expect(try injector.get(Hunt27BVehicle.self).kind == "truck")
        #expect(try injector.get(Int.self) == 42)
        // The `$0` binding is a constructor: validation checks its dependency statically.
        #expect(try injector.validate().isValid)
    }

    /// The same shapes in a `Module` struct; ScopesAndLifetimes.md's async pool
    /// (`to { _ async throws in ... }.in(.singleton)`) resolves with `try await`.
    @Test("sync and async closures in a Module struct")
    func shapesInModuleStruct() async throws {
        let injector = try Injector(Hunt27BClosureModule())
        #expect(try await injector.get(Hunt27BCar.self).engine.label == "no parameters")
        #expect(try await injector.get((any Hunt27BGreeter).self).greeting == "hello")
        #expect(try await injector.get(Hunt27BVehicle.self).kind == "truck")
        #expect(try await injector.get(Hunt27BPool.self).size == 4)
    }

    /// BindingBuilder: an async closure binding is resolved with `try await injector.get(...)`; "before
    /// that, a synchronous request throws ``ProvisionError/Code/requiresAsync``". A sync closure body
    /// that awaits (`to { resolver in try await resolver.get(...) }`, no `async` written) is inferred
    /// async and binds the async overload; a synchronous request then gets `requiresAsync` whose hint
    /// says how to resolve it.
    @Test("a closure that awaits is an async binding: sync get throws requiresAsync with a try-await hint")
    func inferredAsyncClosure() async throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt27BPool.self).to { _ in try await Hunt27BPool.open(size: 2) }.in(.singleton)
                binder.bind(Int.self).to { resolver in try await resolver.get(Hunt27BPool.self).size }
            })
        let syncError = #expect(throws: ProvisionError.self) {
            try Hunt27BClosureShapesTests.syncGet(Int.self, from: injector)
        }
        #expect(syncError?.code == .requiresAsync)
        #expect(syncError?.hint.contains("try await injector.get(Int.self)") == true)
        #expect(try await injector.get(Int.self) == 2)
        // Built now, the singleton is served to synchronous requests too.
        #expect(try Hunt27BClosureShapesTests.syncGet(Hunt27BPool.self, from: injector).size == 2)
    }

    /// A closure of two parameters, the first typed `Resolver` (the `withArguments` shape, written on a
    /// plain binding) binds the two-parameter constructor form `to<A, B>`, so `Resolver` is taken for a
    /// dependency. Creating the injector fails validation with a `notBound` problem whose path is
    /// `Int -> Resolver` (pinned). A user expects the hint to lead to the fix (a `resolver in` closure,
    /// or `withArguments(String.self)`); a `Resolver` can't be bound (its initializer is internal), and
    /// the injector hands one to every closure binding.
    ///
    /// Found by hunt 27B, fixed: `notBound` of `Resolver` says how a closure binding gets one. The
    /// hint was "bind it in a module: binder.bind(Resolver.self).to(...)", which can't be done. Cause: the fixed-arity `to<A, B>` (BindingBuilder+Arity.swift) accepts `Resolver` as a
    /// parameter type like any other, and `ProvisionError.notBound` (ProvisionError+Factories.swift)
    /// has no special case for it.
    @Test("to { (r: Resolver, s: String) in ... }: the notBound hint doesn't say to bind Resolver")
    func resolverAsConstructorParameter() throws {
        let error = #expect(throws: ProvisionError.self) {
            try Injector(
                ClosureModule { binder in
                    binder.bind(String.self).toInstance("abc")
                    binder.bind(Int.self).to { (resolver: Resolver, text: String) in text.count }
                })
        }
        #expect(error?.code == .validationFailed)
        let problem = error?.underlyingErrors.first
        #expect(problem?.code == .notBound)
        #expect(problem?.path == [BindingKey(Int.self), BindingKey(Resolver.self)])
        #expect(problem?.hint.contains("bind(Resolver.self)") == false)
        #expect(problem?.hint.contains("to { resolver in ... }") == true, "\(problem?.hint ?? "")")
    }

    /// An async closure returning a subclass where the class is bound, and a conforming type where the
    /// protocol is bound, multi-statement, with a named resolver.
    @Test("async multi-statement closures returning a subclass and a conforming type")
    func asyncSubclassAndConformance() async throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt27BVehicle.self).to { resolver async throws in
                    let pool = try await resolver.get(Hunt27BPool.self)
                    #expect(pool.size == 3)
                    return Hunt27BTruck()
                }
                binder.bind((any Hunt27BGreeter).self).to { _ async in
                    await Task.yield()
                    return Hunt27BEnglish()
                }
                binder.bind(Hunt27BPool.self).to { _ async throws in try await Hunt27BPool.open(size: 3) }
            })
        #expect(try await injector.get(Hunt27BVehicle.self).kind == "truck")
        #expect(try await injector.get((any Hunt27BGreeter).self).greeting == "hello")
    }

    /// A closure binding of a type whose construction throws fails with factoryFailed, for the
    /// zero-parameter and the resolver forms alike.
    @Test("throwing closures, zero-parameter and resolver forms, fail with factoryFailed")
    func throwingClosures() throws {
        struct Broken: Error {}
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Int.self).to { () throws -> Int in throw Broken() }
                binder.bind(String.self).to { _ throws -> String in throw Broken() }
            })
        let first = #expect(throws: ProvisionError.self) { try injector.get(Int.self) }
        #expect(first?.code == .factoryFailed)
        #expect(first?.cause is Broken)
        let second = #expect(throws: ProvisionError.self) { try injector.get(String.self) }
        #expect(second?.code == .factoryFailed)
        #expect(second?.cause is Broken)
    }

    /// Resolves `type` synchronously: in an async function the compiler prefers the async `get`, so a
    /// test of the synchronous API calls it from a synchronous function.
    static func syncGet<T>(_ type: T.Type, from injector: Injector) throws(ProvisionError) -> T {
        try injector.get(type)
    }
}
