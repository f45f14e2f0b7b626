import Dispatch
import Testing

@testable import Provision

// Hunt 29A: modules — eager singletons in module order, re-configuration per injector (B-OBJ-29),
// derivation by module type (B-OBJ-31), declared types (Injectable), object factories with arguments.

final class Hunt29AOrderLog: @unchecked Sendable {
    private let queue = DispatchQueue(label: "Hunt29AOrderLog")
    private var entries: [String] = []
    func add(_ entry: String) { queue.sync { entries.append(entry) } }
    var all: [String] { queue.sync { entries } }
}

final class Hunt29AEagerA: Sendable {}
final class Hunt29AEagerB: Sendable {}
final class Hunt29AEagerC: Sendable {}

final class Hunt29ADeclaredSingleton: Injectable, Sendable {
    static let injection = Injection(Hunt29ADeclaredSingleton.init).in(.singleton)
}

final class Hunt29ADeclaredTransient: Injectable, Sendable {
    static let injection = Injection(Hunt29ADeclaredTransient.init)
}

class Hunt29ABaseModule: Module, @unchecked Sendable {
    func configure(_ binder: Binder) {
        binder.multibind((any Hunt29APlugin).self).toInstance(Hunt29ANamedPlugin(name: "base"))
    }
}

final class Hunt29ASubModule: Hunt29ABaseModule, @unchecked Sendable {
    override func configure(_ binder: Binder) {
        binder.multibind((any Hunt29APlugin).self).toInstance(Hunt29ANamedPlugin(name: "sub"))
    }
}

struct Hunt29AOtherModule: Module {
    func configure(_ binder: Binder) {
        binder.multibind((any Hunt29APlugin).self).toInstance(Hunt29ANamedPlugin(name: "other"))
    }
}

final class Hunt29AConfigured: Sendable {}

/// Holds one instance from its initializer and makes another in `configure`.
struct Hunt29AInstanceModule: Module {
    let held = Hunt29AConfigured()
    func configure(_ binder: Binder) {
        binder.bind(Hunt29AConfigured.self, named: "held").toInstance(held)
        binder.bind(Hunt29AConfigured.self, named: "made").toInstance(Hunt29AConfigured())
    }
}

@Suite("Hunt29A: modules and eager singletons")
struct Hunt29AModuleTests {
    static func eagerModule<T: Sendable>(
        _ type: T.Type, _ log: Hunt29AOrderLog, _ label: String, make: @escaping @Sendable () -> T
    )
        -> ClosureModule
    {
        ClosureModule { binder in
            binder.bind(type).to { _ in
                log.add(label)
                return make()
            }.in(.singleton)
            binder.eager(type)
        }
    }

    // Binder.eager: "Eager keys of all modules are built in module order, after every module is
    // configured."
    @Test func eagerSingletonsInModuleOrder() throws {
        let log = Hunt29AOrderLog()
        let a = Self.eagerModule(Hunt29AEagerA.self, log, "a") { Hunt29AEagerA() }
        let b = Self.eagerModule(Hunt29AEagerB.self, log, "b") { Hunt29AEagerB() }
        let c = ClosureModule { binder in
            binder.bind(Hunt29AEagerC.self).to { _ in
                log.add("c")
                return Hunt29AEagerC()
            }.asEagerSingleton()
        }
        let injector = try Injector(c, a, b)
        #expect(log.all == ["c", "a", "b"])
        // A derived injector builds all of them again, in its module order.
        _ = try injector.with(ClosureModule { _ in })
        #expect(log.all == ["c", "a", "b", "c", "a", "b"])
        _ = try injector.without(ClosureModule.self)
        #expect(log.all == ["c", "a", "b", "c", "a", "b"])
    }

    // An eager key marked before it is bound (in an earlier module) is still built.
    @Test func eagerMarkedBeforeBound() throws {
        let log = Hunt29AOrderLog()
        let mark = ClosureModule { $0.eager(Hunt29AEagerA.self) }
        let bind = ClosureModule { binder in
            binder.bind(Hunt29AEagerA.self).to { _ in
                log.add("a")
                return Hunt29AEagerA()
            }.in(.singleton)
        }
        let injector = try Injector(mark, bind)
        #expect(log.all == ["a"])
        _ = try injector.get(Hunt29AEagerA.self)
        #expect(log.all == ["a"])
    }

    // Eager named keys, eager Injectable singletons, eager delegations.
    @Test func eagerKinds() throws {
        let log = Hunt29AOrderLog()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29AEagerA.self, named: "x").to { _ in
                    log.add("x")
                    return Hunt29AEagerA()
                }.in(.singleton)
                binder.eager(Hunt29AEagerA.self, named: "x")
                binder.eager(Hunt29ADeclaredSingleton.self)
                binder.bind(Hunt29AEagerB.self).to { _ in
                    log.add("b")
                    return Hunt29AEagerB()
                }
                binder.bind(Hunt29AEagerB.self, named: "one").to(binding: Hunt29AEagerB.self).in(.singleton)
                binder.eager(Hunt29AEagerB.self, named: "one")
            })
        #expect(log.all == ["x", "b"])
        _ = try injector.get(Hunt29AEagerA.self, named: "x")
        _ = try injector.get(Hunt29AEagerB.self, named: "one")
        #expect(log.all == ["x", "b"])
        _ = try injector.get(Hunt29ADeclaredSingleton.self)
    }

    // "eagerNotSingleton (naming the key) ... notBound when nothing provides it at all".
    @Test func eagerErrorsNameTheKey() throws {
        let transient = ClosureModule { $0.eager(Hunt29ADeclaredTransient.self) }
        let error = #expect(throws: ProvisionError.self) { try Injector(transient) }
        let all = [error].compactMap { $0 } + (error?.underlyingErrors ?? [])
        #expect(all.contains { $0.code == .eagerNotSingleton && $0.key == BindingKey(Hunt29ADeclaredTransient.self) })
        #expect(error.map { String(describing: $0) }?.contains("Hunt29ADeclaredTransient") == true)

        let unbound = ClosureModule { $0.eager(Hunt29AEagerC.self) }
        let missing = #expect(throws: ProvisionError.self) { try Injector(unbound) }
        let allMissing = [missing].compactMap { $0 } + (missing?.underlyingErrors ?? [])
        #expect(allMissing.contains { $0.code == .notBound && $0.key == BindingKey(Hunt29AEagerC.self) })

        // A named eager key whose name is not bound does not fall back to the unnamed binding.
        let named = ClosureModule { binder in
            binder.bind(Hunt29AEagerC.self).to(Hunt29AEagerC.init).in(.singleton)
            binder.eager(Hunt29AEagerC.self, named: "nope")
        }
        let namedError = #expect(throws: ProvisionError.self) { try Injector(named) }
        let allNamed = [namedError].compactMap { $0 } + (namedError?.underlyingErrors ?? [])
        #expect(allNamed.contains { $0.code == .notBound && $0.key == BindingKey(Hunt29AEagerC.self, named: "nope") })
    }

    // An eager singleton whose factory throws: creation fails with factoryFailed and the cause.
    @Test func eagerFactoryThrows() throws {
        let counter = Hunt29ACounter()
        let module = ClosureModule { binder in
            binder.bind(Hunt29AEagerA.self).to { _ -> Hunt29AEagerA in
                _ = counter.next()
                throw Hunt29AFailure(depth: 0)
            }.asEagerSingleton()
        }
        let error = #expect(throws: ProvisionError.self) { try Injector(module) }
        let all = [error].compactMap { $0 } + (error?.underlyingErrors ?? [])
        #expect(all.contains { $0.code == .factoryFailed && $0.cause as? Hunt29AFailure == Hunt29AFailure(depth: 0) })
        #expect(counter.value == 1)
    }

    // B-OBJ-29: configure runs again per injector; instances made inside it differ, held ones are shared.
    @Test func configureRunsPerInjector() throws {
        let module = Hunt29AInstanceModule()
        let first = try Injector(module)
        let second = try first.with(ClosureModule { _ in })
        #expect(
            try first.get(Hunt29AConfigured.self, named: "held") === second.get(Hunt29AConfigured.self, named: "held"))
        #expect(
            try first.get(Hunt29AConfigured.self, named: "made") !== second.get(Hunt29AConfigured.self, named: "made"))
    }

    // B-OBJ-31: without removes every module that is a kind of the given type, subclasses included;
    // B-OBI-12 / B-INJ-11: multibindings keep module order.
    @Test func withoutRemovesSubclassModules() throws {
        let injector = try Injector(Hunt29ABaseModule(), Hunt29AOtherModule(), Hunt29ASubModule())
        #expect(try injector.getAll((any Hunt29APlugin).self).map(\.name) == ["base", "other", "sub"])
        let stripped = try injector.without(Hunt29ABaseModule.self)
        #expect(try stripped.getAll((any Hunt29APlugin).self).map(\.name) == ["other"])
        #expect(stripped.modules.count == 1)
        let onlySub = try injector.without(Hunt29ASubModule.self)
        #expect(try onlySub.getAll((any Hunt29APlugin).self).map(\.name) == ["base", "other"])
        let extended = try onlySub.with(Hunt29ASubModule())
        #expect(try extended.getAll((any Hunt29APlugin).self).map(\.name) == ["base", "other", "sub"])
    }

    // B-INJ-03 / B-OBJ-05: an optional request for a declared (Injectable) type builds it; for an
    // unbound plain type it is nil.
    @Test func optionalRequests() throws {
        let injector = try Injector()
        #expect(try injector.get(Hunt29ADeclaredTransient?.self) != nil)
        #expect(try injector.get(Hunt29AEagerA?.self) == nil)
        let singleton = try injector.get(Hunt29ADeclaredSingleton?.self)
        #expect(singleton === (try injector.get(Hunt29ADeclaredSingleton.self)))
    }

    // B-OBJ-33: the object factory passes arguments along, and resolves names.
    @Test func objectFactoryWithArguments() throws {
        final class Holder: Sendable {
            let factory: ObjectFactory
            init(factory: ObjectFactory) { self.factory = factory }
        }
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Holder.self).to(Holder.init(factory:))
                binder.bind(Hunt29AProcessor.self).withArguments(String.self).to { _, number in
                    Hunt29AProcessor(number: number)
                }
                binder.bind(Hunt29AProcessor.self, named: "visa").withArguments(String.self, Int.self).to {
                    _, number, times in
                    Hunt29AProcessor(number: String(repeating: number, count: times))
                }
            })
        let factory = try injector.get(Holder.self).factory
        #expect(try factory.get(Hunt29AProcessor.self, arguments: "VW").number == "VW")
        #expect(try factory.get(Hunt29AProcessor.self, named: "visa", arguments: "ab", 2).number == "abab")
        let error = #expect(throws: ProvisionError.self) {
            try factory.get(Hunt29AProcessor.self, named: "visa", arguments: "ab")
        }
        #expect(error?.code == .argumentMismatch)
    }

    // B-OBJ-34: the default slot under threads: every reader sees one of the injectors written.
    @Test func defaultSlotUnderThreads() throws {
        let previous = Injector.default
        defer { Injector.default = previous }
        let injectors = try (0..<4).map { _ in try Injector() }
        let start = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        let misses = Hunt29ACounter()
        for index in 0..<8 {
            group.enter()
            DispatchQueue.global().async {
                defer { group.leave() }
                guard start.wait(timeout: .now() + 10) == .success else { return }
                for _ in 0..<200 {
                    if index % 2 == 0 {
                        Injector.default = injectors[index / 2]
                    } else if let current = Injector.default, !injectors.contains(where: { $0 === current }) {
                        _ = misses.next()
                    }
                }
            }
        }
        for _ in 0..<8 { start.signal() }
        #expect(group.wait(timeout: .now() + 10) == .success)
        #expect(misses.value == 0)
        let final = try #require(Injector.default)
        #expect(injectors.contains { $0 === final })
    }
}
