import Dispatch
import Testing

@testable import Provision

// Hunt 29A: errors at every depth, cycles, throwing and async factories, providers with arguments,
// meta classes, multibindings, hooks and threads — the seed behaviours a ported app relies on.

final class Hunt29AL0: Sendable { init(next: Hunt29AL1) {} }
final class Hunt29AL1: Sendable { init(next: Hunt29AL2) {} }
final class Hunt29AL2: Sendable { init(next: Hunt29AL3) {} }
final class Hunt29AL3: Sendable { init(next: Hunt29AL4) {} }
final class Hunt29AL4: Sendable { init(next: Hunt29AL5) {} }
final class Hunt29AL5: Sendable { init(next: Hunt29AL6) {} }
final class Hunt29AL6: Sendable { init() {} }

struct Hunt29AFailure: Error, Equatable { let depth: Int }

enum Hunt29AChain {
    static let names = (0...6).map { "Hunt29AL\($0)" }

    /// Binds L0...L6; the level `missing` is left unbound, the level `throwing` throws.
    static func module(missing: Int? = nil, throwing: Int? = nil, singleton: Bool = false) -> ClosureModule {
        ClosureModule { binder in
            func scoped<T: Sendable>(_ builder: ScopeBuilder<T>) { if singleton { builder.in(.singleton) } }
            @Sendable func fail(_ level: Int) throws { if throwing == level { throw Hunt29AFailure(depth: level) } }
            if missing != 0 {
                scoped(
                    binder.bind(Hunt29AL0.self).to { (n: Hunt29AL1) in
                        try fail(0)
                        return Hunt29AL0(next: n)
                    })
            }
            if missing != 1 {
                scoped(
                    binder.bind(Hunt29AL1.self).to { (n: Hunt29AL2) in
                        try fail(1)
                        return Hunt29AL1(next: n)
                    })
            }
            if missing != 2 {
                scoped(
                    binder.bind(Hunt29AL2.self).to { (n: Hunt29AL3) in
                        try fail(2)
                        return Hunt29AL2(next: n)
                    })
            }
            if missing != 3 {
                scoped(
                    binder.bind(Hunt29AL3.self).to { (n: Hunt29AL4) in
                        try fail(3)
                        return Hunt29AL3(next: n)
                    })
            }
            if missing != 4 {
                scoped(
                    binder.bind(Hunt29AL4.self).to { (n: Hunt29AL5) in
                        try fail(4)
                        return Hunt29AL4(next: n)
                    })
            }
            if missing != 5 {
                scoped(
                    binder.bind(Hunt29AL5.self).to { (n: Hunt29AL6) in
                        try fail(5)
                        return Hunt29AL5(next: n)
                    })
            }
            if missing != 6 {
                scoped(
                    binder.bind(Hunt29AL6.self).to { () in
                        try fail(6)
                        return Hunt29AL6()
                    })
            }
        }
    }
}

// Cycles.
final class Hunt29ACycA: Sendable { init(b: Hunt29ACycB) {} }
final class Hunt29ACycB: Sendable { init(a: Hunt29ACycA) {} }

final class Hunt29APropFoo: PropertyInjectable, @unchecked Sendable {
    var bar: Hunt29APropBar?
    init() {}
    static var injectedProperties: [InjectedProperty] { [.inject(\Hunt29APropFoo.bar)] }
}

final class Hunt29APropBar: PropertyInjectable, @unchecked Sendable {
    var foo: Hunt29APropFoo?
    init() {}
    static var injectedProperties: [InjectedProperty] { [.inject(\Hunt29APropBar.foo)] }
}

protocol Hunt29ACarMaker: SendableMetatype {
    static func manufacture() -> String
}

final class Hunt29AMetaCar: Hunt29ACarMaker {
    static func manufacture() -> String { "car" }
}

protocol Hunt29APlugin: Sendable { var name: String { get } }
struct Hunt29ANamedPlugin: Hunt29APlugin { let name: String }

final class Hunt29AViewController: Sendable {
    let nib: String
    let bundle: String?
    let engine: Hunt29AEngine
    init(nib: String, bundle: String?, engine: Hunt29AEngine) {
        self.nib = nib
        self.bundle = bundle
        self.engine = engine
    }
}

struct Hunt29ABlinkerProvider: ServiceProvider {
    let counter: Hunt29ACounter
    func provide(_ resolver: Resolver, arguments: Void) throws -> Hunt29AEngine {
        _ = counter.next()
        return Hunt29AEngine()
    }
}

final class Hunt29AHooked: PropertyInjectable, @unchecked Sendable {
    var engine: Hunt29AEngine?
    private let queue = DispatchQueue(label: "Hunt29AHooked")
    private var calls = 0
    var hookCalls: Int { queue.sync { calls } }
    init() {}
    static var injectedProperties: [InjectedProperty] { [.inject(\Hunt29AHooked.engine)] }
    func didInjectDependencies() { queue.sync { calls += 1 } }
}

@Suite("Hunt29A: graph behaviours")
struct Hunt29AGraphTests {
    static let unvalidated = Injector.Configuration(validatesOnCreation: false)

    static func syncCode(_ injector: Injector) -> ProvisionError.Code? {
        do {
            _ = try injector.get(Hunt29AEngine.self)
            return nil
        } catch { return error.code }
    }

    static func syncGet(_ injector: Injector) -> Hunt29AEngine? {
        try? injector.get(Hunt29AEngine.self)
    }

    @Test(arguments: 0...6, [false, true]) func missingAtEveryDepth(_ depth: Int, _ singleton: Bool) throws {
        let module = Hunt29AChain.module(missing: depth, singleton: singleton)
        let injector = try Injector(modules: [module], configuration: Self.unvalidated)
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt29AL0.self) }
        #expect(error?.code == .notBound)
        #expect(error?.pathDescription == Hunt29AChain.names[0...depth].joined(separator: " -> "))
        if depth == 0 {
            // Nothing needs L0: the graph is complete.
            _ = try Injector(module)
        } else {
            let creation = #expect(throws: ProvisionError.self) { try Injector(module) }
            #expect(creation?.underlyingErrors.first?.pathDescription.hasSuffix(Hunt29AChain.names[depth]) == true)
        }
    }

    // A factory's error fails the request with factoryFailed, the path to it, and the error as cause;
    // a singleton's factory runs again after a failure (Q8) and nothing half-built is cached (Q4).
    @Test(arguments: 0...6, [false, true]) func throwingAtEveryDepth(_ depth: Int, _ singleton: Bool) throws {
        let injector = try Injector(Hunt29AChain.module(throwing: depth, singleton: singleton))
        for _ in 0..<2 {
            let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt29AL0.self) }
            #expect(error?.code == .factoryFailed)
            #expect(error?.pathDescription == Hunt29AChain.names[0...depth].joined(separator: " -> "))
            #expect(error?.cause as? Hunt29AFailure == Hunt29AFailure(depth: depth))
        }
    }

    // B-OBJ-40 (different): constructor cycles are errors with their path, transient or singleton.
    @Test(arguments: [false, true]) func constructorCycle(_ singleton: Bool) throws {
        let module = ClosureModule { binder in
            let a = binder.bind(Hunt29ACycA.self).to(Hunt29ACycA.init(b:))
            let b = binder.bind(Hunt29ACycB.self).to(Hunt29ACycB.init(a:))
            if singleton {
                a.in(.singleton)
                b.in(.singleton)
            }
        }
        let injector = try Injector(modules: [module], configuration: Self.unvalidated)
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt29ACycA.self) }
        #expect(error?.code == .cycle)
        #expect(error?.pathDescription == "Hunt29ACycA -> Hunt29ACycB -> Hunt29ACycA")
        let creation = #expect(throws: ProvisionError.self) { try Injector(module) }
        #expect(creation?.code == .validationFailed)
        #expect(creation?.underlyingErrors.first?.code == .cycle)
    }

    // Objection's CircularDependencySpecs, by properties: an error, never a recursion.
    @Test(arguments: [false, true]) func propertyCycle(_ singleton: Bool) throws {
        let module = ClosureModule { binder in
            let foo = binder.bind(Hunt29APropFoo.self).to(Hunt29APropFoo.init)
            let bar = binder.bind(Hunt29APropBar.self).to(Hunt29APropBar.init)
            if singleton {
                foo.in(.singleton)
                bar.in(.singleton)
            }
        }
        let injector = try Injector(modules: [module], configuration: Self.unvalidated)
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt29APropFoo.self) }
        #expect(error?.code == .cycle)
        #expect(error?.pathDescription == "Hunt29APropFoo -> Hunt29APropBar -> Hunt29APropFoo")
        // injectDependencies into an existing Foo meets the same cycle through Bar.
        let foo = Hunt29APropFoo()
        let into = #expect(throws: ProvisionError.self) { try injector.injectDependencies(into: foo) }
        #expect(into?.code == .cycle)
    }

    // A cycle through a closure binding's resolver and through to(binding:).
    @Test func cycleThroughClosureAndDelegation() throws {
        let module = ClosureModule { binder in
            binder.bind(Hunt29AEngine.self).to { resolver in
                _ = try resolver.get(Hunt29AEngine.self, named: "alias")
                return Hunt29AEngine()
            }
            binder.bind(Hunt29AEngine.self, named: "alias").to(binding: Hunt29AEngine.self)
        }
        let injector = try Injector(modules: [module], configuration: Self.unvalidated)
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt29AEngine.self) }
        #expect(error?.code == .cycle)
        #expect(error?.path.first == BindingKey(Hunt29AEngine.self))
        #expect(error?.path.last == BindingKey(Hunt29AEngine.self))
        #expect(error?.path.count == 3)
    }

    // B-OBJ-19: a meta class bound to a protocol of class methods.
    @Test func metaClassBinding() throws {
        let injector = try Injector(
            ClosureModule { $0.bind((any Hunt29ACarMaker.Type).self).toInstance(Hunt29AMetaCar.self) })
        let maker = try injector.get((any Hunt29ACarMaker.Type).self)
        #expect(ObjectIdentifier(maker) == ObjectIdentifier(Hunt29AMetaCar.self))
        #expect(maker.manufacture() == "car")
        let error = #expect(throws: ProvisionError.self) {
            try Injector(ClosureModule { $0.bind((any Hunt29ACarMaker.Type).self).toInstance(checking: "sneaky") })
        }
        let codes = [error?.code] + (error?.underlyingErrors.map(\.code) ?? [])
        #expect(codes.contains(.typeMismatch))
        let checked = try Injector(
            ClosureModule { $0.bind((any Hunt29ACarMaker.Type).self).toInstance(checking: Hunt29AMetaCar.self) })
        #expect(
            ObjectIdentifier(try checked.get((any Hunt29ACarMaker.Type).self)) == ObjectIdentifier(Hunt29AMetaCar.self))
    }

    // B-OBJ-22: provider scopes; a singleton provider is asked once.
    @Test func providerScopes() throws {
        let counter = Hunt29ACounter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29AEngine.self).to(provider: Hunt29ABlinkerProvider(counter: counter)).in(.singleton)
                binder.bind(Hunt29AEngine.self, named: "normal").to(provider: Hunt29ABlinkerProvider(counter: counter))
            })
        #expect(try injector.get(Hunt29AEngine.self) === injector.get(Hunt29AEngine.self))
        #expect(
            try injector.get(Hunt29AEngine.self, named: "normal") !== injector.get(Hunt29AEngine.self, named: "normal"))
        #expect(counter.value == 3)
    }

    // Q8: a nil from an optional singleton binding is a success and is kept.
    @Test func nilSingletonIsKept() throws {
        let counter = Hunt29ACounter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29ABrakes?.self).to { _ -> Hunt29ABrakes? in
                    _ = counter.next()
                    return nil
                }.in(.singleton)
            })
        #expect(try injector.get(Hunt29ABrakes?.self) == nil)
        #expect(try injector.get(Hunt29ABrakes?.self) == nil)
        #expect(counter.value == 1)
    }

    // B-OBJ-35: a declared initializer with default arguments, overridden by the request's arguments.
    @Test func argumentsWithDefaults() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29AEngine.self).to(Hunt29AEngine.init)
                binder.bind(Hunt29AViewController.self).withArguments(String.self, String?.self).to {
                    resolver, nib, bundle in
                    Hunt29AViewController(nib: nib, bundle: bundle, engine: try resolver.get(Hunt29AEngine.self))
                }.defaults("MyNib", nil)
            })
        let plain = try injector.get(Hunt29AViewController.self)
        #expect(plain.nib == "MyNib")
        #expect(plain.bundle == nil)
        let given = try injector.get(Hunt29AViewController.self, arguments: "Other", "Bundle")
        #expect(given.nib == "Other")
        #expect(given.bundle == "Bundle")
        let wrong = #expect(throws: ProvisionError.self) { try injector.get(Hunt29AViewController.self, arguments: 3) }
        #expect(wrong?.code == .argumentMismatch)
    }

    // B-INJ-11: all implementations, in binding order; empty when none.
    @Test func multibindingOrder() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.multibind((any Hunt29APlugin).self).toInstance(Hunt29ANamedPlugin(name: "a"))
                binder.multibind((any Hunt29APlugin).self).to { _ in Hunt29ANamedPlugin(name: "b") }
            },
            ClosureModule { binder in
                binder.multibind((any Hunt29APlugin).self).toInstance(Hunt29ANamedPlugin(name: "c"))
            })
        #expect(try injector.getAll((any Hunt29APlugin).self).map(\.name) == ["a", "b", "c"])
        let empty = try Injector()
        #expect(try empty.getAll((any Hunt29APlugin).self).isEmpty)
    }

    // Async factories: the async request awaits them; a synchronous one says requiresAsync.
    @Test func asyncFactory() async throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29AEngine.self).to { (_: Resolver) async throws -> Hunt29AEngine in
                    await Task.yield()
                    return Hunt29AEngine()
                }.in(.singleton)
                binder.bind(Hunt29AStore.self).to { _ in Hunt29AStore(db: Hunt29APostgres()) }
            })
        #expect(Self.syncCode(injector) == .requiresAsync)
        let first = try await injector.get(Hunt29AEngine.self)
        let second = try await injector.get(Hunt29AEngine.self)
        #expect(first === second)
        // Built: the synchronous request now returns it.
        #expect(Self.syncGet(injector) === first)
    }

    // An async factory that throws, at depth 2 below synchronous constructors.
    @Test func asyncFactoryThrowsBelowSyncConstructors() async throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29AApp.self).to(Hunt29AApp.init(store:))
                binder.bind(Hunt29AStore.self).to(Hunt29AStore.init(db:))
                binder.bind((any Hunt29ADB).self).to { (_: Resolver) async throws -> any Hunt29ADB in
                    throw Hunt29AFailure(depth: 2)
                }
            })
        do {
            _ = try await injector.get(Hunt29AApp.self)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .factoryFailed)
            #expect(error.pathDescription == "Hunt29AApp -> Hunt29AStore -> any Hunt29ADB")
            #expect(error.cause as? Hunt29AFailure == Hunt29AFailure(depth: 2))
        }
    }

    // B-INJ-18 / B-OBI-16: a singleton whose factory fails once, raced by threads: every thread gets
    // the error or the one instance; the factory runs exactly twice.
    @Test func failingSingletonRace() throws {
        let counter = Hunt29ACounter()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29AEngine.self).to { _ in
                    let call = counter.next()
                    if call == 1 {
                        entered.signal()
                        _ = release.wait(timeout: .now() + 10)
                        throw Hunt29AFailure(depth: 0)
                    }
                    return Hunt29AEngine()
                }.in(.singleton)
            })
        let threads = 6
        let group = DispatchGroup()
        let results = Hunt29AResults<Hunt29AEngine>()
        group.enter()
        DispatchQueue.global().async {
            defer { group.leave() }
            results.add(Result { try injector.get(Hunt29AEngine.self) })
        }
        #expect(entered.wait(timeout: .now() + 10) == .success)
        let started = DispatchSemaphore(value: 0)
        for _ in 1..<threads {
            group.enter()
            DispatchQueue.global().async {
                defer { group.leave() }
                started.signal()
                results.add(Result { try injector.get(Hunt29AEngine.self) })
            }
        }
        for _ in 1..<threads { #expect(started.wait(timeout: .now() + 10) == .success) }
        release.signal()
        #expect(group.wait(timeout: .now() + 10) == .success)
        let values = results.values
        #expect(values.count == threads)
        var failures = 0
        var engines: [Hunt29AEngine] = []
        for value in values {
            switch value {
            case .success(let engine): engines.append(engine)
            case .failure(let error):
                failures += 1
                #expect((error as? ProvisionError)?.code == .factoryFailed)
            }
        }
        #expect(failures >= 1)
        for engine in engines { #expect(engine === engines[0]) }
        let after = try injector.get(Hunt29AEngine.self)
        if let first = engines.first { #expect(after === first) }
        #expect(counter.value == 2)
    }

    // injectDependencies into one object from several threads: each call injects and runs the hook.
    @Test func concurrentInjectionRunsEveryHook() throws {
        let injector = try Injector(ClosureModule { $0.bind(Hunt29AEngine.self).to(Hunt29AEngine.init).in(.singleton) })
        let objects = (0..<4).map { _ in Hunt29AHooked() }
        let perObject = 5
        let start = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        let failures = Hunt29ACounter()
        for object in objects {
            for _ in 0..<perObject {
                group.enter()
                DispatchQueue.global().async {
                    defer { group.leave() }
                    guard start.wait(timeout: .now() + 10) == .success else { return }
                    do { try injector.injectDependencies(into: object) } catch { _ = failures.next() }
                }
            }
        }
        for _ in 0..<(objects.count * perObject) { start.signal() }
        #expect(group.wait(timeout: .now() + 10) == .success)
        #expect(failures.value == 0)
        let engine = try injector.get(Hunt29AEngine.self)
        for object in objects {
            #expect(object.hookCalls == perObject)
            #expect(object.engine === engine)
        }
    }

    // A cycle raced from both ends by two threads: both fail with cycle, neither hangs.
    @Test func crossThreadSingletonCycle() throws {
        let module = ClosureModule { binder in
            binder.bind(Hunt29ACycA.self).to(Hunt29ACycA.init(b:)).in(.singleton)
            binder.bind(Hunt29ACycB.self).to(Hunt29ACycB.init(a:)).in(.singleton)
        }
        for _ in 0..<20 {
            let injector = try Injector(modules: [module], configuration: Self.unvalidated)
            let start = DispatchSemaphore(value: 0)
            let group = DispatchGroup()
            let codes = Hunt29AResults<ProvisionError.Code>()
            group.enter()
            DispatchQueue.global().async {
                defer { group.leave() }
                guard start.wait(timeout: .now() + 10) == .success else { return }
                do {
                    _ = try injector.get(Hunt29ACycA.self)
                    codes.add(.success(.notBound))
                } catch { codes.add(.success((error as? ProvisionError)?.code ?? .notBound)) }
            }
            group.enter()
            DispatchQueue.global().async {
                defer { group.leave() }
                guard start.wait(timeout: .now() + 10) == .success else { return }
                do {
                    _ = try injector.get(Hunt29ACycB.self)
                    codes.add(.success(.notBound))
                } catch { codes.add(.success((error as? ProvisionError)?.code ?? .notBound)) }
            }
            start.signal()
            start.signal()
            #expect(group.wait(timeout: .now() + 15) == .success)
            let got = codes.values.compactMap { try? $0.get() }
            #expect(got == [.cycle, .cycle])
        }
    }
}
