import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

/// A distinct leaf per position.
struct Hunt24ALeaf<Tag>: Sendable {}

enum Hunt24ATag1 {}
enum Hunt24ATag2 {}
enum Hunt24ATag3 {}
enum Hunt24ATag4 {}
enum Hunt24ATag5 {}
enum Hunt24ATag6 {}
enum Hunt24ATag7 {}
enum Hunt24ATag8 {}
enum Hunt24ATag9 {}
enum Hunt24ATag10 {}
enum Hunt24ATag11 {}
enum Hunt24ATag12 {}
enum Hunt24ATag13 {}

/// A protocol for an existential parameter.
protocol Hunt24AGauge: Sendable {}

/// The bound gauge.
struct Hunt24AOilGauge: Hunt24AGauge {}

/// A custom error a factory throws.
struct Hunt24ABoom: Error, CustomStringConvertible {
    var description: String { "boom" }
}

/// Thirteen parameters (past the fixed arities): leaves, an optional, an existential, handles and a list.
struct Hunt24AWide13: Sendable {
    let optional: Hunt24ALeaf<Hunt24ATag2>?
    init(
        a: Hunt24ALeaf<Hunt24ATag1>, b: Hunt24ALeaf<Hunt24ATag2>?, c: any Hunt24AGauge,
        d: Provider<Hunt24ALeaf<Hunt24ATag4>>, e: Lazy<Hunt24ALeaf<Hunt24ATag5>>, f: [any Hunt24AGauge],
        g: Hunt24ALeaf<Hunt24ATag7>, h: Hunt24ALeaf<Hunt24ATag8>, i: Hunt24ALeaf<Hunt24ATag9>,
        j: Hunt24ALeaf<Hunt24ATag10>, k: Hunt24ALeaf<Hunt24ATag11>, l: Hunt24ALeaf<Hunt24ATag12>,
        m: Hunt24ALeaf<Hunt24ATag13>
    ) {
        optional = b
    }
}

/// A provider that fails.
struct Hunt24AFailingProvider: ServiceProvider {
    func provide(_ resolver: Resolver, arguments: String) throws -> Hunt24ALeaf<Hunt24ATag13> {
        throw Hunt24ABoom()
    }
}

// MARK: - Tests

@Suite("Hunt 24A: a thirteen-parameter constructor", .timeLimit(.minutes(2)))
struct Hunt24AArityTests {
    /// Binds every leaf except those in `skipping`; `failing13` makes the 13th leaf's factory throw.
    static func module(skipping: Set<Int>, failing13: Bool = false) -> ClosureModule {
        ClosureModule { binder in
            func leaf<Tag>(_ tag: Tag.Type, _ index: Int) {
                guard !skipping.contains(index) else { return }
                binder.bind(Hunt24ALeaf<Tag>.self).to(Hunt24ALeaf<Tag>.init)
            }
            leaf(Hunt24ATag1.self, 1)
            leaf(Hunt24ATag4.self, 4)
            leaf(Hunt24ATag5.self, 5)
            leaf(Hunt24ATag7.self, 7)
            leaf(Hunt24ATag8.self, 8)
            leaf(Hunt24ATag9.self, 9)
            leaf(Hunt24ATag10.self, 10)
            leaf(Hunt24ATag11.self, 11)
            leaf(Hunt24ATag12.self, 12)
            if failing13 {
                binder.bind(Hunt24ALeaf<Hunt24ATag13>.self).withArguments(String.self)
                    .to(provider: Hunt24AFailingProvider()).defaults("x").in(.singleton)
            } else {
                leaf(Hunt24ATag13.self, 13)
            }
            binder.bind((any Hunt24AGauge).self).to(Hunt24AOilGauge.init)
            binder.multibind((any Hunt24AGauge).self).to(Hunt24AOilGauge.init)
            binder.bind(Hunt24AWide13.self).to(Hunt24AWide13.init(a:b:c:d:e:f:g:h:i:j:k:l:m:))
        }
    }

    @Test("built, with the unbound optional nil")
    func builds() throws {
        let injector = try Injector(Self.module(skipping: []))
        #expect(try injector.syncGet(Hunt24AWide13.self).optional == nil)
    }

    @Test("missing 1st, 7th and 13th: one validation error lists all three, each with its path")
    func missingThree() throws {
        let error = #expect(throws: ProvisionError.self) { _ = try Injector(Self.module(skipping: [1, 7, 13])) }
        #expect(error?.code == .validationFailed)
        let keys = Set(error?.underlyingErrors.compactMap(\.key) ?? [])
        #expect(
            keys
                == [
                    BindingKey(Hunt24ALeaf<Hunt24ATag1>.self), BindingKey(Hunt24ALeaf<Hunt24ATag7>.self),
                    BindingKey(Hunt24ALeaf<Hunt24ATag13>.self),
                ])
        for problem in error?.underlyingErrors ?? [] {
            #expect(problem.path.first == BindingKey(Hunt24AWide13.self))
            #expect(problem.path.count == 2)
        }
    }

    @Test("missing 1st, 7th and 13th, unvalidated: the request lists every missing dependency at once")
    func missingThreeAtRuntime() throws {
        let injector = try Injector(
            modules: [Self.module(skipping: [1, 7, 13])],
            configuration: Injector.Configuration(validatesOnCreation: false))
        let error = #expect(throws: ProvisionError.self) { try injector.syncGet(Hunt24AWide13.self) }
        let keys = Set([error?.key].compactMap { $0 } + (error?.underlyingErrors.compactMap(\.key) ?? []))
        #expect(keys.contains(BindingKey(Hunt24ALeaf<Hunt24ATag13>.self)))
        #expect(keys.contains(BindingKey(Hunt24ALeaf<Hunt24ATag7>.self)))
        #expect(keys.contains(BindingKey(Hunt24ALeaf<Hunt24ATag1>.self)))
    }

    @Test("the 13th dependency's provider throws: factoryFailed with the cause and the path, twice (not cached)")
    func failingLast() throws {
        let injector = try Injector(Self.module(skipping: [], failing13: true))
        for _ in 0..<2 {
            let error = #expect(throws: ProvisionError.self) { try injector.syncGet(Hunt24AWide13.self) }
            #expect(error?.code == .factoryFailed)
            #expect(error?.cause is Hunt24ABoom)
            #expect(error?.path == [BindingKey(Hunt24AWide13.self), BindingKey(Hunt24ALeaf<Hunt24ATag13>.self)])
        }
    }
}
