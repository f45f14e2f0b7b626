import Foundation
import Provision
import Testing

// Hunt 28B: resolution of the type shapes users bind: a generic self-declaring type for several type
// arguments, generic-protocol existentials, compositions as multibinding elements, class hierarchies,
// enum cases and static factories as constructors, actors, optionals of optionals, tuples; singletons
// across threads, handles, children, overriding and validation agreeing with resolution.

/// Counts the builds of each specialization of the generic services below, by type name.
final class Hunt28BBuildLog: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [String: Int] = [:]

    func record(_ name: String) {
        lock.lock()
        counts[name, default: 0] += 1
        lock.unlock()
    }

    func count(_ name: String) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return counts[name, default: 0]
    }
}

/// A generic self-declaring singleton: `injection` is computed (a generic type can't store a static).
final class Hunt28BGenericRepo<Element>: Injectable, Sendable {
    let log: Hunt28BBuildLog
    static var injection: Injection<Hunt28BGenericRepo<Element>> {
        Injection(Hunt28BGenericRepo.init(log:)).in(.singleton)
    }
    init(log: Hunt28BBuildLog) {
        self.log = log
        log.record("\(Element.self)")
    }
}

struct Hunt28BOrder: Sendable {}

/// Two protocols for a composition used as a multibinding element.
protocol Hunt28BNamed: Sendable {
    var name: String { get }
}
protocol Hunt28BRanked: Sendable {
    var rank: Int { get }
}
struct Hunt28BPluginA: Hunt28BNamed, Hunt28BRanked {
    let name = "a"
    let rank = 1
}
struct Hunt28BPluginB: Hunt28BNamed, Hunt28BRanked {
    let name = "b"
    let rank = 2
}
/// Takes every element of the composition.
struct Hunt28BPluginHost: Sendable {
    let plugins: [any Hunt28BNamed & Hunt28BRanked]
}

/// Stores of users for a multibinding over a generic protocol's existential.
struct Hunt28BUserStoreA: Hunt28BStore {
    typealias Element = Hunt28BUser
    func count() -> Int { 1 }
}
struct Hunt28BUserStoreB: Hunt28BStore {
    typealias Element = Hunt28BUser
    func count() -> Int { 2 }
}
struct Hunt28BFederation: Sendable {
    let stores: [any Hunt28BStore<Hunt28BUser>]
}

/// A class hierarchy: an open base, a final subclass.
class Hunt28BAnimal: @unchecked Sendable {
    var sound: String { "..." }
}
final class Hunt28BDog: Hunt28BAnimal, @unchecked Sendable {
    override var sound: String { "woof" }
}
struct Hunt28BKennel: Sendable {
    let animal: Hunt28BAnimal
    let dog: Hunt28BDog
}

/// A generic class hierarchy: a subclass of one specialization.
class Hunt28BHandler<Input>: @unchecked Sendable {
    func handle() -> String { "generic" }
}
final class Hunt28BUserHandler: Hunt28BHandler<Hunt28BUser>, @unchecked Sendable {
    let directory: Hunt28BUserDirectory
    init(directory: Hunt28BUserDirectory) { self.directory = directory }
    override func handle() -> String { "users: \(directory.store.count())" }
}

/// An enum whose cases with associated values are used as constructors.
enum Hunt28BShape: Sendable, Equatable {
    case circle(radius: Double)
    case rectangle(width: Double, height: Double)
}

/// A type built by a static factory method.
struct Hunt28BClient: Sendable {
    let endpoint: String
    private init(endpoint: String) { self.endpoint = endpoint }
    static func make(config: Hunt28BEndpointConfig) -> Hunt28BClient {
        Hunt28BClient(endpoint: "https://\(config.host):\(config.port)")
    }
}
struct Hunt28BEndpointConfig: Sendable {
    let host: String
    let port: Int
}

/// An actor singleton.
actor Hunt28BLedger {
    private(set) var entries: [String] = []
    init(log: Hunt28BBuildLog) { log.record("ledger") }
    func add(_ entry: String) { entries.append(entry) }
}

/// Takes optional and double-optional dependencies.
struct Hunt28BOptionals: Sendable {
    let single: Int?
    let double: Int??
}

/// Namespaces with types of the same name, in a cycle.
enum Hunt28BSales {
    final class Ledger: Sendable {
        let other: Hunt28BAccounting.Ledger
        init(other: Hunt28BAccounting.Ledger) { self.other = other }
    }
}
enum Hunt28BAccounting {
    final class Ledger: Sendable {
        let other: Hunt28BSales.Ledger
        init(other: Hunt28BSales.Ledger) { self.other = other }
    }
}

/// A class-bound protocol, bound to a singleton.
protocol Hunt28BClassBound: AnyObject, Sendable {}
final class Hunt28BClassBoundImpl: Hunt28BClassBound {}

@Suite("Hunt28B: resolving generic, existential and nominal shapes", .timeLimit(.minutes(1)))
struct Hunt28BShapeSemanticsTests {
    @Test("a generic Injectable singleton for two type arguments, 8 threads each: each built once, apart")
    func genericInjectableSingletonAcrossThreads() throws {
        let log = Hunt28BBuildLog()
        let injector = try Injector(ClosureModule { $0.bind(Hunt28BBuildLog.self).toInstance(log) })
        let barrier = Barrier(count: 16)
        let users = Hunt28BLockedList<Hunt28BGenericRepo<Hunt28BUser>>()
        let orders = Hunt28BLockedList<Hunt28BGenericRepo<Hunt28BOrder>>()
        let failures = Hunt28BLockedList<String>()
        let finished = runThreads(16, timeout: 30) { index in
            barrier.arriveAndWait()
            do {
                if index.isMultiple(of: 2) {
                    users.append(try injector.get(Hunt28BGenericRepo<Hunt28BUser>.self))
                } else {
                    orders.append(try injector.get(Hunt28BGenericRepo<Hunt28BOrder>.self))
                }
            } catch {
                failures.append("\(error)")
            }
        }
        #expect(finished)
        #expect(failures.items.isEmpty, "\(failures.items)")
        #expect(log.count("Hunt28BUser") == 1)
        #expect(log.count("Hunt28BOrder") == 1)
        #expect(users.items.count == 8 && orders.items.count == 8)
        #expect(Set(users.items.map(ObjectIdentifier.init)).count == 1)
        #expect(Set(orders.items.map(ObjectIdentifier.init)).count == 1)
    }

    @Test("a generic Injectable singleton first asked of a child is the parent's, for each type argument")
    func genericInjectableInChild() throws {
        let log = Hunt28BBuildLog()
        let parent = try Injector(ClosureModule { $0.bind(Hunt28BBuildLog.self).toInstance(log) })
        let child = try parent.makeChild()
        let fromChild = try child.get(Hunt28BGenericRepo<Hunt28BUser>.self)
        let fromParent = try parent.get(Hunt28BGenericRepo<Hunt28BUser>.self)
        #expect(fromChild === fromParent)
        let lazyOrders = try child.get(Lazy<Hunt28BGenericRepo<Hunt28BOrder>>.self)
        let orders = try parent.get(Hunt28BGenericRepo<Hunt28BOrder>.self)
        #expect(try lazyOrders.value === orders)
        #expect(log.count("Hunt28BUser") == 1)
        #expect(log.count("Hunt28BOrder") == 1)
    }

    @Test("a composition as a multibinding element: getAll and a [any A & B] parameter, in order; validate OK")
    func compositionMultibinding() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.multibind((any Hunt28BNamed & Hunt28BRanked).self).to(Hunt28BPluginA.init)
                binder.multibind((any Hunt28BNamed & Hunt28BRanked).self).toInstance(Hunt28BPluginB())
                binder.bind(Hunt28BPluginHost.self).to(Hunt28BPluginHost.init(plugins:))
            })
        #expect(try injector.validate().isValid)
        let all = try injector.getAll((any Hunt28BNamed & Hunt28BRanked).self)
        #expect(all.map(\.name) == ["a", "b"])
        #expect(try injector.get(Hunt28BPluginHost.self).plugins.map(\.rank) == [1, 2])
    }

    @Test("a multibinding of any Hunt28BStore<Hunt28BUser> injected as an array parameter")
    func genericProtocolMultibinding() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.multibind((any Hunt28BStore<Hunt28BUser>).self).to(Hunt28BUserStoreA.init)
                binder.multibind((any Hunt28BStore<Hunt28BUser>).self).to(Hunt28BUserStoreB.init)
                binder.bind(Hunt28BFederation.self).to(Hunt28BFederation.init(stores:))
            })
        #expect(try injector.get(Hunt28BFederation.self).stores.map { $0.count() } == [1, 2])
    }

    @Test("an empty multibinding of any Hunt28BStore<Hunt28BUser>: validation and resolution agree on the code")
    func emptyGenericProtocolMultibinding() throws {
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt28BFederation.self).to(Hunt28BFederation.init(stores:))
                }
            ], configuration: Injector.Configuration(validatesOnCreation: false))
        let report = injector.validationReport()
        let resolved = Result { () throws(ProvisionError) in try injector.get(Hunt28BFederation.self) }
        if report.isValid {
            #expect(throws: Never.self) { try resolved.get() }
        } else {
            let codes = Set(report.problems.map(\.code))
            guard case .failure(let error) = resolved else {
                Issue.record("validation failed (\(report)) but resolution succeeded")
                return
            }
            #expect(codes.contains(error.code), "validation \(codes), resolution \(error.code)")
            #expect(!"\(report)".contains("Self."), "\(report)")
        }
    }

    @Test("a subclass singleton served for its superclass key by delegation: one instance under both keys")
    func subclassUnderSuperclassKey() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt28BDog.self).to(Hunt28BDog.init).in(.singleton)
                binder.bind(Hunt28BAnimal.self).to(binding: Hunt28BDog.self)
                binder.bind(Hunt28BKennel.self).to(Hunt28BKennel.init(animal:dog:))
            })
        let kennel = try injector.get(Hunt28BKennel.self)
        #expect(kennel.animal === kennel.dog)
        #expect(kennel.animal.sound == "woof")
    }

    @Test("a superclass binding that builds a subclass, delegated to by the subclass key")
    func superclassDelegatedToBySubclass() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt28BAnimal.self).to { Hunt28BDog() }.in(.singleton)
                binder.bind(Hunt28BDog.self).to(binding: Hunt28BAnimal.self)
            })
        #expect(try injector.validate().isValid)
        #expect(try injector.get(Hunt28BDog.self) === injector.get(Hunt28BAnimal.self))
    }

    @Test("a generic base class key bound to a subclass of one specialization, with a generic-protocol dependency")
    func genericBaseClass() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind((any Hunt28BStore<Hunt28BUser>).self).to(Hunt28BMemoryStore.init)
                binder.bind(Hunt28BUserDirectory.self).to(Hunt28BUserDirectory.init(store:))
                binder.bind(Hunt28BHandler<Hunt28BUser>.self).to(Hunt28BUserHandler.init(directory:))
            })
        #expect(try injector.get(Hunt28BHandler<Hunt28BUser>.self).handle() == "users: 3")
        let missing = #expect(throws: ProvisionError.self) { try injector.get(Hunt28BHandler<Hunt28BOrder>.self) }
        #expect(missing?.message == "no binding for Hunt28BHandler<Hunt28BOrder>")
    }

    @Test("enum cases with associated values and a static factory method as constructors")
    func enumCasesAndFactories() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Double.self).toInstance(2)
                binder.bind(Hunt28BShape.self).to(Hunt28BShape.circle(radius:))
                binder.bind(Hunt28BShape.self, named: "square").to { Hunt28BShape.rectangle(width: $0, height: $0) }
                binder.bind(Hunt28BEndpointConfig.self).toInstance(Hunt28BEndpointConfig(host: "db", port: 5432))
                binder.bind(Hunt28BClient.self).to(Hunt28BClient.make(config:)).in(.singleton)
            })
        #expect(try injector.get(Hunt28BShape.self) == .circle(radius: 2))
        #expect(try injector.get(Hunt28BShape.self, named: "square") == .rectangle(width: 2, height: 2))
        #expect(try injector.get(Hunt28BClient.self).endpoint == "https://db:5432")
    }

    @Test("an actor singleton resolved by 12 threads at once is built once")
    func actorSingleton() throws {
        let log = Hunt28BBuildLog()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt28BBuildLog.self).toInstance(log)
                binder.bind(Hunt28BLedger.self).to(Hunt28BLedger.init(log:)).in(.singleton)
            })
        let barrier = Barrier(count: 12)
        let ledgers = Hunt28BLockedList<Hunt28BLedger>()
        let finished = runThreads(12, timeout: 30) { _ in
            barrier.arriveAndWait()
            if let ledger = try? injector.get(Hunt28BLedger.self) { ledgers.append(ledger) }
        }
        #expect(finished)
        #expect(ledgers.items.count == 12)
        #expect(Set(ledgers.items.map(ObjectIdentifier.init)).count == 1)
        #expect(log.count("ledger") == 1)
    }

    @Test("optional and double-optional parameters: Int bound gives 5 and 5; nothing bound gives nil and .some(nil)")
    func doubleOptionals() throws {
        let bound = try Injector(
            ClosureModule { binder in
                binder.bind(Int.self).toInstance(5)
                binder.bind(Hunt28BOptionals.self).to(Hunt28BOptionals.init(single:double:))
            })
        let values = try bound.get(Hunt28BOptionals.self)
        #expect(values.single == 5)
        #expect(values.double == .some(.some(5)))

        let unbound = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt28BOptionals.self).to(Hunt28BOptionals.init(single:double:))
            })
        let empty = try unbound.get(Hunt28BOptionals.self)
        #expect(empty.single == nil)
        // Nothing binds Int: `Int??` resolves `Int?`'s just-in-time binding, which is bound (to nil): the
        // documented "resolves Wrapped when something binds it" gives .some(nil), not nil.
        #expect(empty.double == .some(nil), "got \(String(describing: empty.double))")
    }

    @Test("a cycle through two types named Ledger in different namespaces names both with their namespaces")
    func sameNameCycle() throws {
        let error = #expect(throws: ProvisionError.self) {
            _ = try Injector(
                ClosureModule { binder in
                    binder.bind(Hunt28BSales.Ledger.self).to(Hunt28BSales.Ledger.init(other:))
                    binder.bind(Hunt28BAccounting.Ledger.self).to(Hunt28BAccounting.Ledger.init(other:))
                })
        }
        let text = error.map { "\($0)" } ?? ""
        #expect(error?.code == .cycle || error?.underlyingErrors.contains { $0.code == .cycle } == true, "\(text)")
        #expect(
            text.contains("Hunt28BSales.Ledger -> Hunt28BAccounting.Ledger -> Hunt28BSales.Ledger")
                || text.contains("Hunt28BAccounting.Ledger -> Hunt28BSales.Ledger -> Hunt28BAccounting.Ledger"),
            "\(text)")
    }

    @Test("a class-bound protocol singleton: one object under the existential key across Provider gets")
    func classBoundSingleton() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind((any Hunt28BClassBound).self).to(Hunt28BClassBoundImpl.init).in(.singleton)
            })
        let provider = try injector.get(Provider<any Hunt28BClassBound>.self)
        #expect(try provider.get() === provider.get())
        #expect(try provider.get() === injector.get((any Hunt28BClassBound).self))
    }

    @Test("overriding a generic protocol's existential rebuilds its dependents and keeps a generic singleton")
    func overridingGenericKeys() throws {
        let log = Hunt28BBuildLog()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt28BBuildLog.self).toInstance(log)
                binder.bind((any Hunt28BStore<Hunt28BUser>).self).to(Hunt28BMemoryStore.init)
                binder.bind(Hunt28BUserDirectory.self).to(Hunt28BUserDirectory.init(store:)).in(.singleton)
            })
        let repo = try injector.get(Hunt28BGenericRepo<Hunt28BUser>.self)
        #expect(try injector.get(Hunt28BUserDirectory.self).store.count() == 3)
        let fake = try injector.overriding { binder in
            binder.bind((any Hunt28BStore<Hunt28BUser>).self).to(Hunt28BUserStoreB.init)
        }
        #expect(try fake.get(Hunt28BUserDirectory.self).store.count() == 2)
        #expect(try fake.get(Hunt28BGenericRepo<Hunt28BUser>.self) === repo)
        #expect(log.count("Hunt28BUser") == 1)
    }

    @Test("tuple keys with and without labels are distinct; a labeled tuple singleton is built once")
    func tupleKeys() throws {
        let counter = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind((host: String, port: Int).self).to { () -> (host: String, port: Int) in
                    counter.increment()
                    return (host: "db", port: 5432)
                }.in(.singleton)
                binder.bind((String, Int).self).toInstance(("cache", 6379))
            })
        #expect(try injector.get((host: String, port: Int).self).port == 5432)
        #expect(try injector.get((host: String, port: Int).self).host == "db")
        #expect(try injector.get((String, Int).self).1 == 6379)
        #expect(counter.value == 1)
    }
}

/// A list appended to from several threads.
final class Hunt28BLockedList<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Element] = []

    func append(_ element: Element) {
        lock.lock()
        storage.append(element)
        lock.unlock()
    }

    var items: [Element] {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }
}
