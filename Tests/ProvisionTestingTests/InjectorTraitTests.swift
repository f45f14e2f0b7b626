import Provision
import ProvisionTesting
import Synchronization
import Testing

// The Swift Testing trait and helper of ProvisionTesting: each test gets an injector of its own, with its
// overrides, shut down after it, isolated from every other test however many run at once.

protocol Clock: Sendable {
    var now: Int { get }
}

final class SystemClock: Clock {
    var now: Int { 1_000 }
}

final class FixedClock: Clock {
    let now: Int
    init(now: Int) { self.now = now }
}

/// A singleton that remembers what a test wrote into it, and counts its disposals.
final class Ledger: Disposable, Sendable {
    let entries = Locked<[Int]>([])
    let disposals = Atomic<Int>(0)

    func dispose() {
        disposals.add(1, ordering: .relaxed)
    }
}

final class Checkout: Sendable {
    let clock: any Clock
    let ledger: Ledger
    init(clock: any Clock, ledger: Ledger) {
        self.clock = clock
        self.ledger = ledger
    }
}

struct ShopModule: Module {
    func configure(_ binder: Binder) {
        binder.bind((any Clock).self).to(SystemClock.init).in(.singleton)
        binder.bind(Ledger.self).to { Ledger() }.in(.singleton)
        binder.bind(Checkout.self).to(Checkout.init(clock:ledger:))
    }
}

/// An injector built once, shared by the tests that derive from it.
enum SharedShop {
    static let ledgerBuilds = Atomic<Int>(0)
    static let injector = Result { () throws(ProvisionError) in
        try Injector(
            ShopModule(),
            ClosureModule { binder in
                binder.override(Ledger.self).to { () -> Ledger in
                    SharedShop.ledgerBuilds.add(1, ordering: .relaxed)
                    return Ledger()
                }.in(.singleton)
            }
        )
    }
}

/// The injectors the parameterized cases saw, kept alive so that no two of them can share an address.
enum SeenInjectors {
    static let injectors = Locked<[Injector]>([])
}

@Suite(
    "InjectorTrait on a suite", .injector(ShopModule()) { $0.override((any Clock).self).toInstance(FixedClock(now: 7)) }
)
struct InjectorSuiteTraitTests {
    @Test("each test of the suite gets the suite's modules and overrides")
    func overridesApply() throws {
        let checkout = try TestInjector.current.get(Checkout.self)
        #expect(checkout.clock.now == 7)
    }

    @Test("each case of a parameterized test gets an injector of its own, with fresh singletons", arguments: 0..<12)
    func casesAreIsolated(value: Int) async throws {
        let injector = try TestInjector.current
        let inserted = SeenInjectors.injectors.withLock { seen in
            defer { seen.append(injector) }
            return !seen.contains { $0 === injector }
        }
        #expect(inserted, "an injector was given to two test cases")
        let ledger = try await injector.get(Ledger.self)
        #expect(ledger.entries.withLock { $0 }.isEmpty, "a singleton carried another test's writes")
        ledger.entries.withLock { $0.append(value) }
        await Task.yield()
        #expect(try TestInjector.current === injector)
        #expect(try await TestInjector.current.get(Ledger.self).entries.withLock { $0 } == [value])
    }
}

@Suite("InjectorTrait and withTestInjector")
struct InjectorTraitTests {
    @Test("a test with the trait gets its injector; one without it gets an error saying how to fix it")
    func currentInjector() async throws {
        #expect(TestInjector.ifPresent == nil)
        let error = #expect(throws: MissingTestInjector.self) { try TestInjector.current }
        #expect(error?.description.contains(".injector(...)") == true)

        let trait: InjectorTrait = .injector(ShopModule())
        let test = try #require(Test.current)
        try await trait.provideScope(for: test, testCase: Test.Case.current) {
            let checkout = try TestInjector.current.get(Checkout.self)
            #expect(checkout.clock.now == 1_000)
        }
        #expect(TestInjector.ifPresent == nil, "the injector is current only while the test runs")
    }

    @Test("the trait shuts each test's injector down afterwards, also when the test fails")
    func shutsDown() async throws {
        let trait: InjectorTrait = .injector(ShopModule())
        let test = try #require(Test.current)
        let ledgers = Locked<[Ledger]>([])
        try await trait.provideScope(for: test, testCase: Test.Case.current) {
            let ledger = try TestInjector.current.get(Ledger.self)
            ledgers.withLock { $0.append(ledger) }
        }
        await #expect(throws: ExpectedTestFailure.self) {
            try await trait.provideScope(for: test, testCase: Test.Case.current) {
                let ledger = try TestInjector.current.get(Ledger.self)
                ledgers.withLock { $0.append(ledger) }
                throw ExpectedTestFailure()
            }
        }
        let both = ledgers.withLock { $0 }
        #expect(both.count == 2 && both[0] !== both[1])
        #expect(both.allSatisfy { $0.disposals.load(ordering: .relaxed) == 1 })
    }

    @Test("a test's overrides replace bindings; an accidental duplicate is an error at the test's start")
    func overridesAndDuplicates() async throws {
        let fixedClock = ClosureModule { $0.override((any Clock).self).toInstance(FixedClock(now: 3)) }
        let fixed = try await withTestInjector(ShopModule(), fixedClock) { injector in
            try await injector.get(Checkout.self).clock.now
        }
        #expect(fixed == 3)
        let accidental = ClosureModule { $0.bind((any Clock).self).toInstance(FixedClock(now: 3)) }
        let error = await #expect(throws: ProvisionError.self) {
            try await withTestInjector(ShopModule(), accidental) { _ in () }
        }
        #expect(error?.code == .duplicateBinding)
    }

    @Test("16 concurrent test injectors never see each other's injector or singletons")
    func concurrentInjectors() async throws {
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for value in 0..<16 {
                group.addTask {
                    let clock = ClosureModule { $0.override((any Clock).self).toInstance(FixedClock(now: value)) }
                    return try await withTestInjector(ShopModule(), clock) { injector in
                        var isolated = true
                        for _ in 0..<10 {
                            let current = try TestInjector.current
                            let now = try await current.get(Checkout.self).clock.now
                            isolated = isolated && current === injector && now == value
                            try await current.get(Ledger.self).entries.withLock { $0.append(value) }
                            await Task.yield()
                        }
                        let entries = try await injector.get(Ledger.self).entries.withLock { $0 }
                        return isolated && entries == Array(repeating: value, count: 10)
                    }
                }
            }
            var all: [Bool] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 16 && results.allSatisfy { $0 })
    }

    @Test("injectors derived from a shared one share its untouched singletons and replace what each test needs")
    func derivedFromShared() async throws {
        let shared = try SharedShop.injector.get()
        let ledger = try await shared.get(Ledger.self)
        let test = try #require(Test.current)
        for now in [1, 2] {
            let trait: InjectorTrait = .injector(derivedFrom: try SharedShop.injector.get()) { binder in
                binder.bind((any Clock).self).toInstance(FixedClock(now: now))
            }
            try await trait.provideScope(for: test, testCase: Test.Case.current) {
                let checkout = try await TestInjector.current.get(Checkout.self)
                #expect(checkout.clock.now == now)
                #expect(checkout.ledger === ledger)
            }
        }
        #expect(SharedShop.ledgerBuilds.load(ordering: .relaxed) == 1)
        #expect(ledger.disposals.load(ordering: .relaxed) == 0, "the shared injector is not shut down")
        #expect(try await shared.get((any Clock).self).now == 1_000)
    }
}

struct ExpectedTestFailure: Error {}
