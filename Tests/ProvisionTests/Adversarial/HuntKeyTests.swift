import Foundation
import Provision
import Synchronization
import Testing

// Keys of every shape a user binds: nested types of one name, generics, value types, functions,
// metatypes, existentials, Void and empty structs as singletons.

enum HuntPayments {
    struct Config: Sendable { var url = "pay" }
    final class Client: Sendable {
        let config: HuntStorage.Config
        init(config: HuntStorage.Config) { self.config = config }
    }
}

enum HuntStorage {
    struct Config: Sendable { var path = "/tmp" }
}

struct HuntBox<Value: Sendable>: Sendable {
    var value: Value
}

protocol HuntShape: Sendable {
    var sides: Int { get }
}
struct HuntSquare: HuntShape {
    var sides: Int { 4 }
}
protocol HuntMaker: SendableMetatype {
    static func make() -> Int
}
struct HuntMakerImpl: HuntMaker {
    static func make() -> Int { 42 }
}

struct HuntEmpty: Sendable {}
struct HuntBig: Sendable, Equatable {
    var a = 1, b = 2, c = 3, d = 4, e = 5
    var text = "a string long enough not to be stored inline in the string's own bits"
}

@Suite("Hunt: keys of every shape", .timeLimit(.minutes(1)))
struct HuntKeyTests {
    @Test("two nested types with the same name are told apart in a notBound error's message and hint")
    func nestedTypeNamesInErrors() throws {
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(HuntPayments.Config.self).toInstance(HuntPayments.Config())
                }
            ],
            configuration: Injector.Configuration(validatesOnCreation: false)
        )
        let error = #expect(throws: ProvisionError.self) { try injector.get(HuntStorage.Config.self) }
        #expect(error?.code == .notBound)
        // The key bound is HuntPayments.Config; the one missing is HuntStorage.Config. A message saying
        // "no binding for Config" reads as if the bound type were missing.
        #expect(error?.message.contains("HuntStorage.Config") == true, "message: \(error?.message ?? "")")
        #expect(error?.hint.contains("HuntStorage.Config.self") == true, "hint: \(error?.hint ?? "")")
        #expect(
            BindingKey(HuntStorage.Config.self).description != BindingKey(HuntPayments.Config.self).description,
            "both keys print as \(BindingKey(HuntStorage.Config.self).description)")
    }

    @Test("validation of a nested type needing another nested type of the same name names both distinctly")
    func nestedTypeNamesInValidation() throws {
        let error = #expect(throws: ProvisionError.self) {
            _ = try Injector(
                ClosureModule { binder in
                    binder.bind(HuntPayments.Config.self).toInstance(HuntPayments.Config())
                    binder.bind(HuntPayments.Client.self).to(HuntPayments.Client.init(config:))
                }
            )
        }
        #expect(error?.code == .validationFailed)
        let text = error?.description ?? ""
        #expect(text.contains("HuntStorage.Config"), "\(text)")
    }

    @Test("generic types with different arguments are distinct keys, and errors print their arguments")
    func genericKeys() throws {
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(HuntBox<Int>.self).toInstance(HuntBox(value: 1))
                    binder.bind(HuntBox<String>.self).toInstance(HuntBox(value: "one"))
                    binder.bind(HuntBox<HuntBox<Int>>.self).to { resolver in
                        HuntBox(value: try resolver.get(HuntBox<Int>.self))
                    }.in(.singleton)
                }
            ],
            configuration: Injector.Configuration(validatesOnCreation: false)
        )
        #expect(try injector.get(HuntBox<Int>.self).value == 1)
        #expect(try injector.get(HuntBox<String>.self).value == "one")
        #expect(try injector.get(HuntBox<HuntBox<Int>>.self).value.value == 1)
        let error = #expect(throws: ProvisionError.self) { try injector.get(HuntBox<Double>.self) }
        #expect(error?.code == .notBound)
        #expect(error?.message.contains("HuntBox<Double>") == true, "\(error?.message ?? "")")
    }

    @Test("value-type singletons built by closures are built once: empty struct, Void, false, 0, nil, a big struct")
    func valueTypeSingletons() throws {
        let runs = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(HuntEmpty.self).to { _ in
                    runs.increment()
                    return HuntEmpty()
                }.in(.singleton)
                binder.bind(Void.self).to { _ in runs.increment() }.in(.singleton)
                binder.bind(Bool.self).to { _ in
                    runs.increment()
                    return false
                }.in(.singleton)
                binder.bind(Int.self).to { _ in
                    runs.increment()
                    return 0
                }.in(.singleton)
                binder.bind(HuntLink?.self).to { _ in
                    runs.increment()
                    return nil
                }.in(.singleton)
                binder.bind(HuntBig.self).to { _ in
                    runs.increment()
                    return HuntBig()
                }.in(.singleton)
                binder.bind((Int, String).self).to { _ in
                    runs.increment()
                    return (7, "seven")
                }.in(.singleton)
            }
        )
        for _ in 0..<3 {
            _ = try injector.get(HuntEmpty.self)
            try injector.get(Void.self)
            #expect(try injector.get(Bool.self) == false)
            #expect(try injector.get(Int.self) == 0)
            #expect(try injector.get(HuntLink?.self) == nil)
            #expect(try injector.get(HuntBig.self) == HuntBig())
            let pair = try injector.get((Int, String).self)
            #expect(pair.0 == 7 && pair.1 == "seven")
        }
        #expect(runs.value == 7)
    }

    @Test("functions, metatypes and existentials are keys of their own")
    func unusualKeys() throws {
        typealias Doubler = @Sendable (Int) -> Int
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Doubler.self).toInstance { $0 * 2 }
                binder.bind((any HuntMaker.Type).self).toInstance(HuntMakerImpl.self)
                binder.bind((any HuntShape).self).to(HuntSquare.init).in(.singleton)
                binder.bind(HuntSquare.self).to(HuntSquare.init)
            }
        )
        #expect(try injector.get(Doubler.self)(21) == 42)
        #expect(try injector.get((any HuntMaker.Type).self).make() == 42)
        #expect(try injector.get((any HuntShape).self).sides == 4)
        #expect(try injector.get(HuntSquare.self).sides == 4)
        // An existential's optional and a concrete type's optional resolve their own bindings.
        #expect(try injector.get((any HuntShape)?.self)?.sides == 4)
        #expect(try injector.get(HuntSquare?.self)?.sides == 4)
        // A function type nothing binds.
        let error = #expect(throws: ProvisionError.self) { try injector.get((@Sendable () -> Int).self) }
        #expect(error?.code == .notBound)
    }

    @Test("an optional request of a key with only a named binding is nil, never the named instance")
    func optionalOfNamedOnly() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(HuntLink.self, named: "only").to { HuntLink(next: nil) }
            }
        )
        #expect(try injector.get(HuntLink?.self) == nil)
        #expect(try injector.get(HuntLink?.self, named: "only") != nil)
        #expect(try injector.get(HuntLink?.self, named: "other") == nil)
    }

    @Test("a closure singleton of a value type resolved by 16 threads at once is built once")
    func valueSingletonRace() async throws {
        for _ in 0..<100 {
            let runs = Counter()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(HuntBig.self).to { _ in
                        runs.increment()
                        return HuntBig()
                    }.in(.singleton)
                    binder.bind(Int.self).to { _ in
                        runs.increment()
                        return 0
                    }.in(.singleton)
                }
            )
            let barrier = Barrier(count: 16)
            let bad = Counter()
            let finished = try await offPool {
                runThreads(16) { index in
                    barrier.arriveAndWait()
                    if index % 2 == 0 {
                        if (try? injector.get(HuntBig.self)) != HuntBig() { bad.increment() }
                    } else {
                        if (try? injector.get(Int.self)) != 0 { bad.increment() }
                    }
                }
            }
            #expect(finished)
            #expect(bad.value == 0)
            #expect(runs.value == 2)
        }
    }
}
