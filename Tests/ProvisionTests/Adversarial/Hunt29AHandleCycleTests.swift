import Dispatch
import Testing

@testable import Provision

// Hunt 29A: cycles closed through handles used while constructing (Objection's circular singletons,
// B-OBJ-40: "put a Lazy or Provider on one edge instead" — but a handle used at once is still a
// cycle and must be an error, never a hang or a stack overflow), error paths through delegation and
// closures, and async builds with property injection.

final class Hunt29ASelfProviding: Sendable {
    init(me: Provider<Hunt29ASelfProviding>) throws {
        _ = try me.get()
    }
}

final class Hunt29AViaFactory: Sendable {
    init(factory: ObjectFactory) throws {
        _ = try factory.get(Hunt29AViaFactoryPartner.self)
    }
}

final class Hunt29AViaFactoryPartner: Sendable {
    init(back: Hunt29AViaFactory) {}
}

final class Hunt29ALazyUser: Sendable {
    let engine: Lazy<Hunt29AEngine>
    init(engine: Lazy<Hunt29AEngine>) { self.engine = engine }
}

final class Hunt29AAsyncCar: PropertyInjectable, @unchecked Sendable {
    var engine: Hunt29AEngine?
    var hooks = 0
    init() {}
    static var injectedProperties: [InjectedProperty] { [.inject(\Hunt29AAsyncCar.engine)] }
    func didInjectDependencies() { hooks += 1 }
}

enum Hunt29ARun {
    /// Runs `body` on another thread, bounded: `nil` when it did not finish in 10 seconds (a hang).
    static func bounded<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T? {
        let done = DispatchSemaphore(value: 0)
        let box = Hunt29AResults<T>()
        DispatchQueue.global().async {
            box.add(.success(body()))
            done.signal()
        }
        guard done.wait(timeout: .now() + 10) == .success else { return nil }
        return try? box.values.first?.get()
    }

    static func code<T>(_ body: () throws -> T) -> ProvisionError.Code? {
        do {
            _ = try body()
            return nil
        } catch { return (error as? ProvisionError)?.code }
    }

    static func path<T>(_ body: () throws -> T) -> String? {
        do {
            _ = try body()
            return nil
        } catch { return (error as? ProvisionError)?.pathDescription }
    }
}

@Suite("Hunt29A: handles, cycles and async paths")
struct Hunt29AHandleCycleTests {
    static let unvalidated = Injector.Configuration(validatesOnCreation: false)

    @Test(arguments: [false, true]) func providerUsedInItsOwnInitializer(_ singleton: Bool) throws {
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    let built = binder.bind(Hunt29ASelfProviding.self).to(Hunt29ASelfProviding.init(me:))
                    if singleton { built.in(.singleton) }
                }
            ], configuration: Self.unvalidated)
        let code: ProvisionError.Code?? = Hunt29ARun.bounded {
            Hunt29ARun.code { try injector.get(Hunt29ASelfProviding.self) }
        }
        // Transient: no path frame sees a handle's request, so ThreadSafety.md documents depthExceeded.
        #expect(code == .some(.some(singleton ? .cycle : .depthExceeded)))
    }

    @Test(arguments: [false, true]) func objectFactoryClosesACycle(_ singleton: Bool) throws {
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    let a = binder.bind(Hunt29AViaFactory.self).to(Hunt29AViaFactory.init(factory:))
                    let b = binder.bind(Hunt29AViaFactoryPartner.self).to(Hunt29AViaFactoryPartner.init(back:))
                    if singleton {
                        a.in(.singleton)
                        b.in(.singleton)
                    }
                }
            ], configuration: Self.unvalidated)
        let code: ProvisionError.Code?? = Hunt29ARun.bounded {
            Hunt29ARun.code { try injector.get(Hunt29AViaFactory.self) }
        }
        // Transient: no path frame sees a handle's request, so ThreadSafety.md documents depthExceeded.
        #expect(code == .some(.some(singleton ? .cycle : .depthExceeded)))
        // A second attempt is the same error, not a hang on a gate left closed.
        let again: ProvisionError.Code?? = Hunt29ARun.bounded {
            Hunt29ARun.code { try injector.get(Hunt29AViaFactoryPartner.self) }
        }
        #expect(again == .some(.some(singleton ? .cycle : .depthExceeded)))
    }

    // A Lazy breaks the cycle when it is read later; it reads the singleton once built.
    @Test func lazyIsReadLater() throws {
        let counter = Hunt29ACounter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29AEngine.self).to { _ in
                    _ = counter.next()
                    return Hunt29AEngine()
                }.in(.singleton)
                binder.bind(Hunt29ALazyUser.self).to(Hunt29ALazyUser.init(engine:))
            })
        let user = try injector.get(Hunt29ALazyUser.self)
        #expect(counter.value == 0)
        #expect(try user.engine.value === injector.get(Hunt29AEngine.self))
        #expect(counter.value == 1)
    }

    // The path goes through a delegation: App -> any DB -> Postgres' missing dependency.
    @Test func pathThroughDelegation() throws {
        final class Pool: Sendable {}
        final class PooledDB: Hunt29ADB {
            init(pool: Pool) {}
        }
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt29AApp.self).to(Hunt29AApp.init(store:))
                    binder.bind(Hunt29AStore.self).to(Hunt29AStore.init(db:))
                    binder.bind((any Hunt29ADB).self).to(binding: PooledDB.self)
                    binder.bind(PooledDB.self).to(PooledDB.init(pool:))
                }
            ], configuration: Self.unvalidated)
        #expect(Hunt29ARun.code { try injector.get(Hunt29AApp.self) } == .notBound)
        #expect(
            Hunt29ARun.path { try injector.get(Hunt29AApp.self) }
                == "Hunt29AApp -> Hunt29AStore -> any Hunt29ADB -> PooledDB -> Pool")
    }

    // The path goes through a closure binding's resolver.
    @Test func pathThroughClosure() throws {
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt29AApp.self).to(Hunt29AApp.init(store:))
                    binder.bind(Hunt29AStore.self).to { resolver in
                        Hunt29AStore(db: try resolver.get((any Hunt29ADB).self))
                    }
                }
            ], configuration: Self.unvalidated)
        #expect(Hunt29ARun.path { try injector.get(Hunt29AApp.self) } == "Hunt29AApp -> Hunt29AStore -> any Hunt29ADB")
    }

    // The path goes through a Provider's get inside a constructor.
    @Test func pathThroughProviderInConstructor() throws {
        final class Eager: Sendable {
            init(stores: Provider<Hunt29AStore>) throws { _ = try stores.get() }
        }
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Eager.self).to(Eager.init(stores:))
                    binder.bind(Hunt29AStore.self).to(Hunt29AStore.init(db:))
                }
            ], configuration: Self.unvalidated)
        #expect(Hunt29ARun.code { try injector.get(Eager.self) } == .notBound)
        #expect(Hunt29ARun.path { try injector.get(Eager.self) }?.hasSuffix("Hunt29AStore -> any Hunt29ADB") == true)
    }

    // Async: a property bound to an async factory is awaited when the key's type declares it.
    @Test func asyncPropertyIsAwaited() async throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29AEngine.self).to { (_: Resolver) async throws -> Hunt29AEngine in
                    await Task.yield()
                    return Hunt29AEngine()
                }.in(.singleton)
                binder.bind(Hunt29AAsyncCar.self).to(Hunt29AAsyncCar.init)
            })
        let car = try await injector.get(Hunt29AAsyncCar.self)
        #expect(car.engine != nil)
        #expect(car.hooks == 1)
        #expect(car.engine === (try await injector.get(Hunt29AEngine.self)))
    }

    // Async singleton raced by tasks: built once.
    @Test func asyncSingletonRace() async throws {
        let counter = Hunt29ACounter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29AEngine.self).to { (_: Resolver) async throws -> Hunt29AEngine in
                    _ = counter.next()
                    await Task.yield()
                    return Hunt29AEngine()
                }.in(.singleton)
            })
        let ids = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<16 {
                group.addTask { ObjectIdentifier(try await injector.get(Hunt29AEngine.self)) }
            }
            var all: [ObjectIdentifier] = []
            for try await id in group { all.append(id) }
            return all
        }
        #expect(ids.count == 16)
        #expect(Set(ids).count == 1)
        #expect(counter.value == 1)
    }

    // Async cycle: an error with the path, not a hang.
    @Test func asyncCycle() async throws {
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt29ACycA.self).to { (resolver: Resolver) async throws -> Hunt29ACycA in
                        Hunt29ACycA(b: try await resolver.get(Hunt29ACycB.self))
                    }.in(.singleton)
                    binder.bind(Hunt29ACycB.self).to(Hunt29ACycB.init(a:)).in(.singleton)
                }
            ], configuration: Self.unvalidated)
        do {
            _ = try await injector.get(Hunt29ACycA.self)
            Issue.record("expected a cycle")
        } catch {
            #expect(error.code == .cycle)
            #expect(error.pathDescription == "Hunt29ACycA -> Hunt29ACycB -> Hunt29ACycA")
        }
    }

    // Async throwing singleton: the factory runs again after a failure (Q8).
    @Test func asyncFailureIsRetried() async throws {
        let counter = Hunt29ACounter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt29AEngine.self).to { (_: Resolver) async throws -> Hunt29AEngine in
                    if counter.next() == 1 { throw Hunt29AFailure(depth: 0) }
                    return Hunt29AEngine()
                }.in(.singleton)
            })
        do {
            _ = try await injector.get(Hunt29AEngine.self)
            Issue.record("expected the first build to fail")
        } catch {
            #expect(error.code == .factoryFailed)
        }
        let engine = try await injector.get(Hunt29AEngine.self)
        #expect(engine === (try await injector.get(Hunt29AEngine.self)))
        #expect(counter.value == 2)
    }
}
