import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Provision

// Hunt 18B, part 4: every initializer arity and every depth. Constructor bindings of 13, 16 and 20
// parameters (past the generated fixed arities: the parameter-pack path) with a failing dependency at
// every position, sync and async; an async dependency at every position of every arity 1...12, 13, 16
// and 20 whose waiting request is cancelled there; throwing initializers of arity 0, 12, 13, 16, 20;
// threads and tasks arriving at every step of a 20-wide singleton build. Then chains of 1,000, 5,000
// and 10,000 levels with a failure at the bottom, on 512 KiB and 8 MiB threads and from a task, each
// in a child process: a crash is a failed expectation, not a dead suite.

/// A root of any arity: its parts in position order.
protocol Hunt18BWide: AnyObject, Sendable {
    var parts: [any AnyObject & Sendable] { get }
}

extension Hunt18BWide {
    /// The parts' identities, in position order (the parts are alive as long as the root).
    var ids: [ObjectIdentifier] { parts.map { ObjectIdentifier($0) } }
}

/// One part, told apart by its tag.
final class Hunt18BPart<Tag>: Sendable {
    let index: Int
    init(_ index: Int) { self.index = index }
}

struct Hunt18BPartFailure: Error, Equatable {
    let index: Int
}

/// What a root's throwing initializer throws, while failures are pending.
struct Hunt18BRootFailure: Error {
    static let pending = Locked<Int>(0)
}

// Twenty part types, told apart by their tag: `Hunt18BPart<Hunt18BP7>` is position 7.
protocol Hunt18BPartTag: SendableMetatype {}
enum Hunt18BP0: Hunt18BPartTag {}
enum Hunt18BP1: Hunt18BPartTag {}
enum Hunt18BP2: Hunt18BPartTag {}
enum Hunt18BP3: Hunt18BPartTag {}
enum Hunt18BP4: Hunt18BPartTag {}
enum Hunt18BP5: Hunt18BPartTag {}
enum Hunt18BP6: Hunt18BPartTag {}
enum Hunt18BP7: Hunt18BPartTag {}
enum Hunt18BP8: Hunt18BPartTag {}
enum Hunt18BP9: Hunt18BPartTag {}
enum Hunt18BP10: Hunt18BPartTag {}
enum Hunt18BP11: Hunt18BPartTag {}
enum Hunt18BP12: Hunt18BPartTag {}
enum Hunt18BP13: Hunt18BPartTag {}
enum Hunt18BP14: Hunt18BPartTag {}
enum Hunt18BP15: Hunt18BPartTag {}
enum Hunt18BP16: Hunt18BPartTag {}
enum Hunt18BP17: Hunt18BPartTag {}
enum Hunt18BP18: Hunt18BPartTag {}
enum Hunt18BP19: Hunt18BPartTag {}

/// The tags in position order.
let hunt18BPartTags: [any Hunt18BPartTag.Type] = [
    Hunt18BP0.self,
    Hunt18BP1.self,
    Hunt18BP2.self,
    Hunt18BP3.self,
    Hunt18BP4.self,
    Hunt18BP5.self,
    Hunt18BP6.self,
    Hunt18BP7.self,
    Hunt18BP8.self,
    Hunt18BP9.self,
    Hunt18BP10.self,
    Hunt18BP11.self,
    Hunt18BP12.self,
    Hunt18BP13.self,
    Hunt18BP14.self,
    Hunt18BP15.self,
    Hunt18BP16.self,
    Hunt18BP17.self,
    Hunt18BP18.self,
    Hunt18BP19.self,
]

/// Throws once for each pending root failure (set by a test): a throwing initializer of any arity.
func hunt18BRootCheck() throws {
    if Hunt18BRootFailure.pending.withLock({ pending in
        guard pending > 0 else { return false }
        pending -= 1
        return true
    }) {
        throw Hunt18BRootFailure()
    }
}

/// A root of no parameter whose initializer throws.
final class Hunt18BWide0: Hunt18BWide {
    let parts: [any AnyObject & Sendable] = []
    init() throws { try hunt18BRootCheck() }
}

final class Hunt18BWide1: Hunt18BWide {
    let parts: [any AnyObject & Sendable]
    init(
        p0: Hunt18BPart<Hunt18BP0>
    ) throws {
        parts = [p0]
        try hunt18BRootCheck()
    }
}

final class Hunt18BWide2: Hunt18BWide {
    let parts: [any AnyObject & Sendable]
    init(
        p0: Hunt18BPart<Hunt18BP0>,
        p1: Hunt18BPart<Hunt18BP1>
    ) throws {
        parts = [p0, p1]
        try hunt18BRootCheck()
    }
}

final class Hunt18BWide3: Hunt18BWide {
    let parts: [any AnyObject & Sendable]
    init(
        p0: Hunt18BPart<Hunt18BP0>,
        p1: Hunt18BPart<Hunt18BP1>,
        p2: Hunt18BPart<Hunt18BP2>
    ) throws {
        parts = [p0, p1, p2]
        try hunt18BRootCheck()
    }
}

final class Hunt18BWide4: Hunt18BWide {
    let parts: [any AnyObject & Sendable]
    init(
        p0: Hunt18BPart<Hunt18BP0>,
        p1: Hunt18BPart<Hunt18BP1>,
        p2: Hunt18BPart<Hunt18BP2>,
        p3: Hunt18BPart<Hunt18BP3>
    ) throws {
        parts = [p0, p1, p2, p3]
        try hunt18BRootCheck()
    }
}

final class Hunt18BWide5: Hunt18BWide {
    let parts: [any AnyObject & Sendable]
    init(
        p0: Hunt18BPart<Hunt18BP0>,
        p1: Hunt18BPart<Hunt18BP1>,
        p2: Hunt18BPart<Hunt18BP2>,
        p3: Hunt18BPart<Hunt18BP3>,
        p4: Hunt18BPart<Hunt18BP4>
    ) throws {
        parts = [p0, p1, p2, p3, p4]
        try hunt18BRootCheck()
    }
}

final class Hunt18BWide6: Hunt18BWide {
    let parts: [any AnyObject & Sendable]
    init(
        p0: Hunt18BPart<Hunt18BP0>,
        p1: Hunt18BPart<Hunt18BP1>,
        p2: Hunt18BPart<Hunt18BP2>,
        p3: Hunt18BPart<Hunt18BP3>,
        p4: Hunt18BPart<Hunt18BP4>,
        p5: Hunt18BPart<Hunt18BP5>
    ) throws {
        parts = [p0, p1, p2, p3, p4, p5]
        try hunt18BRootCheck()
    }
}

final class Hunt18BWide7: Hunt18BWide {
    let parts: [any AnyObject & Sendable]
    init(
        p0: Hunt18BPart<Hunt18BP0>,
        p1: Hunt18BPart<Hunt18BP1>,
        p2: Hunt18BPart<Hunt18BP2>,
        p3: Hunt18BPart<Hunt18BP3>,
        p4: Hunt18BPart<Hunt18BP4>,
        p5: Hunt18BPart<Hunt18BP5>,
        p6: Hunt18BPart<Hunt18BP6>
    ) throws {
        parts = [p0, p1, p2, p3, p4, p5, p6]
        try hunt18BRootCheck()
    }
}

final class Hunt18BWide8: Hunt18BWide {
    let parts: [any AnyObject & Sendable]
    init(
        p0: Hunt18BPart<Hunt18BP0>,
        p1: Hunt18BPart<Hunt18BP1>,
        p2: Hunt18BPart<Hunt18BP2>,
        p3: Hunt18BPart<Hunt18BP3>,
        p4: Hunt18BPart<Hunt18BP4>,
        p5: Hunt18BPart<Hunt18BP5>,
        p6: Hunt18BPart<Hunt18BP6>,
        p7: Hunt18BPart<Hunt18BP7>
    ) throws {
        parts = [p0, p1, p2, p3, p4, p5, p6, p7]
        try hunt18BRootCheck()
    }
}

final class Hunt18BWide9: Hunt18BWide {
    let parts: [any AnyObject & Sendable]
    init(
        p0: Hunt18BPart<Hunt18BP0>,
        p1: Hunt18BPart<Hunt18BP1>,
        p2: Hunt18BPart<Hunt18BP2>,
        p3: Hunt18BPart<Hunt18BP3>,
        p4: Hunt18BPart<Hunt18BP4>,
        p5: Hunt18BPart<Hunt18BP5>,
        p6: Hunt18BPart<Hunt18BP6>,
        p7: Hunt18BPart<Hunt18BP7>,
        p8: Hunt18BPart<Hunt18BP8>
    ) throws {
        parts = [p0, p1, p2, p3, p4, p5, p6, p7, p8]
        try hunt18BRootCheck()
    }
}

final class Hunt18BWide10: Hunt18BWide {
    let parts: [any AnyObject & Sendable]
    init(
        p0: Hunt18BPart<Hunt18BP0>,
        p1: Hunt18BPart<Hunt18BP1>,
        p2: Hunt18BPart<Hunt18BP2>,
        p3: Hunt18BPart<Hunt18BP3>,
        p4: Hunt18BPart<Hunt18BP4>,
        p5: Hunt18BPart<Hunt18BP5>,
        p6: Hunt18BPart<Hunt18BP6>,
        p7: Hunt18BPart<Hunt18BP7>,
        p8: Hunt18BPart<Hunt18BP8>,
        p9: Hunt18BPart<Hunt18BP9>
    ) throws {
        parts = [p0, p1, p2, p3, p4, p5, p6, p7, p8, p9]
        try hunt18BRootCheck()
    }
}

final class Hunt18BWide11: Hunt18BWide {
    let parts: [any AnyObject & Sendable]
    init(
        p0: Hunt18BPart<Hunt18BP0>,
        p1: Hunt18BPart<Hunt18BP1>,
        p2: Hunt18BPart<Hunt18BP2>,
        p3: Hunt18BPart<Hunt18BP3>,
        p4: Hunt18BPart<Hunt18BP4>,
        p5: Hunt18BPart<Hunt18BP5>,
        p6: Hunt18BPart<Hunt18BP6>,
        p7: Hunt18BPart<Hunt18BP7>,
        p8: Hunt18BPart<Hunt18BP8>,
        p9: Hunt18BPart<Hunt18BP9>,
        p10: Hunt18BPart<Hunt18BP10>
    ) throws {
        parts = [p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10]
        try hunt18BRootCheck()
    }
}

final class Hunt18BWide12: Hunt18BWide {
    let parts: [any AnyObject & Sendable]
    init(
        p0: Hunt18BPart<Hunt18BP0>,
        p1: Hunt18BPart<Hunt18BP1>,
        p2: Hunt18BPart<Hunt18BP2>,
        p3: Hunt18BPart<Hunt18BP3>,
        p4: Hunt18BPart<Hunt18BP4>,
        p5: Hunt18BPart<Hunt18BP5>,
        p6: Hunt18BPart<Hunt18BP6>,
        p7: Hunt18BPart<Hunt18BP7>,
        p8: Hunt18BPart<Hunt18BP8>,
        p9: Hunt18BPart<Hunt18BP9>,
        p10: Hunt18BPart<Hunt18BP10>,
        p11: Hunt18BPart<Hunt18BP11>
    ) throws {
        parts = [p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11]
        try hunt18BRootCheck()
    }
}

final class Hunt18BWide13: Hunt18BWide {
    let parts: [any AnyObject & Sendable]
    init(
        p0: Hunt18BPart<Hunt18BP0>,
        p1: Hunt18BPart<Hunt18BP1>,
        p2: Hunt18BPart<Hunt18BP2>,
        p3: Hunt18BPart<Hunt18BP3>,
        p4: Hunt18BPart<Hunt18BP4>,
        p5: Hunt18BPart<Hunt18BP5>,
        p6: Hunt18BPart<Hunt18BP6>,
        p7: Hunt18BPart<Hunt18BP7>,
        p8: Hunt18BPart<Hunt18BP8>,
        p9: Hunt18BPart<Hunt18BP9>,
        p10: Hunt18BPart<Hunt18BP10>,
        p11: Hunt18BPart<Hunt18BP11>,
        p12: Hunt18BPart<Hunt18BP12>
    ) throws {
        parts = [p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12]
        try hunt18BRootCheck()
    }
}

final class Hunt18BWide16: Hunt18BWide {
    let parts: [any AnyObject & Sendable]
    init(
        p0: Hunt18BPart<Hunt18BP0>,
        p1: Hunt18BPart<Hunt18BP1>,
        p2: Hunt18BPart<Hunt18BP2>,
        p3: Hunt18BPart<Hunt18BP3>,
        p4: Hunt18BPart<Hunt18BP4>,
        p5: Hunt18BPart<Hunt18BP5>,
        p6: Hunt18BPart<Hunt18BP6>,
        p7: Hunt18BPart<Hunt18BP7>,
        p8: Hunt18BPart<Hunt18BP8>,
        p9: Hunt18BPart<Hunt18BP9>,
        p10: Hunt18BPart<Hunt18BP10>,
        p11: Hunt18BPart<Hunt18BP11>,
        p12: Hunt18BPart<Hunt18BP12>,
        p13: Hunt18BPart<Hunt18BP13>,
        p14: Hunt18BPart<Hunt18BP14>,
        p15: Hunt18BPart<Hunt18BP15>
    ) throws {
        parts = [p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14, p15]
        try hunt18BRootCheck()
    }
}

final class Hunt18BWide20: Hunt18BWide {
    let parts: [any AnyObject & Sendable]
    init(
        p0: Hunt18BPart<Hunt18BP0>,
        p1: Hunt18BPart<Hunt18BP1>,
        p2: Hunt18BPart<Hunt18BP2>,
        p3: Hunt18BPart<Hunt18BP3>,
        p4: Hunt18BPart<Hunt18BP4>,
        p5: Hunt18BPart<Hunt18BP5>,
        p6: Hunt18BPart<Hunt18BP6>,
        p7: Hunt18BPart<Hunt18BP7>,
        p8: Hunt18BPart<Hunt18BP8>,
        p9: Hunt18BPart<Hunt18BP9>,
        p10: Hunt18BPart<Hunt18BP10>,
        p11: Hunt18BPart<Hunt18BP11>,
        p12: Hunt18BPart<Hunt18BP12>,
        p13: Hunt18BPart<Hunt18BP13>,
        p14: Hunt18BPart<Hunt18BP14>,
        p15: Hunt18BPart<Hunt18BP15>,
        p16: Hunt18BPart<Hunt18BP16>,
        p17: Hunt18BPart<Hunt18BP17>,
        p18: Hunt18BPart<Hunt18BP18>,
        p19: Hunt18BPart<Hunt18BP19>
    ) throws {
        parts = [p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14, p15, p16, p17, p18, p19]
        try hunt18BRootCheck()
    }
}

enum Hunt18BWideRoots {
    /// The root type of each arity.
    static func type(_ arity: Int) -> any Hunt18BWide.Type {
        switch arity {
        case 0: Hunt18BWide0.self
        case 1: Hunt18BWide1.self
        case 2: Hunt18BWide2.self
        case 3: Hunt18BWide3.self
        case 4: Hunt18BWide4.self
        case 5: Hunt18BWide5.self
        case 6: Hunt18BWide6.self
        case 7: Hunt18BWide7.self
        case 8: Hunt18BWide8.self
        case 9: Hunt18BWide9.self
        case 10: Hunt18BWide10.self
        case 11: Hunt18BWide11.self
        case 12: Hunt18BWide12.self
        case 13: Hunt18BWide13.self
        case 16: Hunt18BWide16.self
        case 20: Hunt18BWide20.self
        default: fatalError("no root of arity \(arity)")
        }
    }

    /// Binds the root of `arity` to its initializer, in `scope`.
    static func bind(_ binder: Binder, arity: Int, scope: Scope) {
        switch arity {
        case 0: binder.bind(Hunt18BWide0.self).to(Hunt18BWide0.init).in(scope)
        case 1: binder.bind(Hunt18BWide1.self).to(Hunt18BWide1.init(p0:)).in(scope)
        case 2: binder.bind(Hunt18BWide2.self).to(Hunt18BWide2.init(p0:p1:)).in(scope)
        case 3: binder.bind(Hunt18BWide3.self).to(Hunt18BWide3.init(p0:p1:p2:)).in(scope)
        case 4: binder.bind(Hunt18BWide4.self).to(Hunt18BWide4.init(p0:p1:p2:p3:)).in(scope)
        case 5: binder.bind(Hunt18BWide5.self).to(Hunt18BWide5.init(p0:p1:p2:p3:p4:)).in(scope)
        case 6: binder.bind(Hunt18BWide6.self).to(Hunt18BWide6.init(p0:p1:p2:p3:p4:p5:)).in(scope)
        case 7: binder.bind(Hunt18BWide7.self).to(Hunt18BWide7.init(p0:p1:p2:p3:p4:p5:p6:)).in(scope)
        case 8: binder.bind(Hunt18BWide8.self).to(Hunt18BWide8.init(p0:p1:p2:p3:p4:p5:p6:p7:)).in(scope)
        case 9: binder.bind(Hunt18BWide9.self).to(Hunt18BWide9.init(p0:p1:p2:p3:p4:p5:p6:p7:p8:)).in(scope)
        case 10: binder.bind(Hunt18BWide10.self).to(Hunt18BWide10.init(p0:p1:p2:p3:p4:p5:p6:p7:p8:p9:)).in(scope)
        case 11: binder.bind(Hunt18BWide11.self).to(Hunt18BWide11.init(p0:p1:p2:p3:p4:p5:p6:p7:p8:p9:p10:)).in(scope)
        case 12:
            binder.bind(Hunt18BWide12.self).to(Hunt18BWide12.init(p0:p1:p2:p3:p4:p5:p6:p7:p8:p9:p10:p11:)).in(scope)
        case 13:
            binder.bind(Hunt18BWide13.self).to(Hunt18BWide13.init(p0:p1:p2:p3:p4:p5:p6:p7:p8:p9:p10:p11:p12:)).in(scope)
        case 16:
            binder.bind(Hunt18BWide16.self).to(
                Hunt18BWide16.init(p0:p1:p2:p3:p4:p5:p6:p7:p8:p9:p10:p11:p12:p13:p14:p15:)
            ).in(scope)
        case 20:
            binder.bind(Hunt18BWide20.self).to(
                Hunt18BWide20.init(p0:p1:p2:p3:p4:p5:p6:p7:p8:p9:p10:p11:p12:p13:p14:p15:p16:p17:p18:p19:)
            ).in(scope)
        default: fatalError("no root of arity \(arity)")
        }
    }
}

extension Hunt18BWideRoots {
    static func key(_ arity: Int) -> BindingKey {
        func make<R: Hunt18BWide>(_: R.Type) -> BindingKey { BindingKey(R.self) }
        return make(type(arity))
    }

    static func get(_ injector: Injector, arity: Int) throws(ProvisionError) -> any Hunt18BWide {
        func make<R: Hunt18BWide>(_: R.Type) throws(ProvisionError) -> any Hunt18BWide { try injector.syncGet(R.self) }
        return try make(type(arity))
    }

    static func getAsync(_ injector: Injector, arity: Int) async throws(ProvisionError) -> any Hunt18BWide {
        func make<R: Hunt18BWide>(_: R.Type) async throws(ProvisionError) -> any Hunt18BWide {
            try await injector.get(R.self)
        }
        return try await make(type(arity))
    }

    static func waiters(_ injector: Injector, arity: Int) -> (threads: Int, tasks: Int)? {
        func make<R: Hunt18BWide>(_: R.Type) -> (threads: Int, tasks: Int)? { injector.gateWaiters(of: R.self) }
        return make(type(arity))
    }
}

/// Builds of each position, a failing position, and a position whose build is held.
final class Hunt18BArityLedger: Sendable {
    let builds = (0..<20).map { _ in Hunt18BCount() }
    let failing = Atomic<Int>(-1)
    let holdIndex = Atomic<Int>(-1)
    /// Runs inside the held position's factory (synchronous parts).
    let hold = Locked<(@Sendable () -> Void)?>(nil)
    /// Signalled when the held async part's factory starts; `release` lets it finish.
    let entered = DispatchSemaphore(value: 0)
    let release = AsyncLatch()

    func build(_ index: Int) throws(Hunt18BPartFailure) {
        builds[index].bump()
        if holdIndex.load(ordering: .sequentiallyConsistent) == index { hold.withLock { $0 }?() }
        if failing.load(ordering: .sequentiallyConsistent) == index { throw Hunt18BPartFailure(index: index) }
    }

    func count(_ index: Int) -> Int { builds[index].count }
}

enum Hunt18BParts {
    enum Kind {
        case sync(Scope)
        /// An async singleton; `held`: its factory waits for the ledger's release.
        case asyncSingleton(held: Bool)
    }

    /// Even positions singletons, odd ones transient.
    static func mixed(_ index: Int) -> Scope { index % 2 == 0 ? .singleton : .transient }

    static func bind(_ binder: Binder, index: Int, kind: Kind, ledger: Hunt18BArityLedger) {
        func open<Tag: Hunt18BPartTag>(_: Tag.Type) {
            switch kind {
            case .sync(let scope):
                binder.bind(Hunt18BPart<Tag>.self).to { (_: Resolver) throws -> Hunt18BPart<Tag> in
                    try ledger.build(index)
                    return Hunt18BPart<Tag>(index)
                }.in(scope)
            case .asyncSingleton(let held):
                binder.bind(Hunt18BPart<Tag>.self).to { (_: Resolver) async throws -> Hunt18BPart<Tag> in
                    try ledger.build(index)
                    if held {
                        ledger.entered.signal()
                        await ledger.release.wait()
                    }
                    return Hunt18BPart<Tag>(index)
                }.in(.singleton)
            }
        }
        open(hunt18BPartTags[index])
    }

    static func key(_ index: Int) -> BindingKey {
        func make<Tag: Hunt18BPartTag>(_: Tag.Type) -> BindingKey { BindingKey(Hunt18BPart<Tag>.self) }
        return make(hunt18BPartTags[index])
    }

    static func getAsync(_ injector: Injector, index: Int) async throws(ProvisionError) -> any AnyObject & Sendable {
        func make<Tag: Hunt18BPartTag>(_: Tag.Type) async throws(ProvisionError) -> any AnyObject & Sendable {
            try await injector.get(Hunt18BPart<Tag>.self)
        }
        return try await make(hunt18BPartTags[index])
    }

    static func waiters(_ injector: Injector, index: Int) -> (threads: Int, tasks: Int)? {
        func make<Tag: Hunt18BPartTag>(_: Tag.Type) -> (threads: Int, tasks: Int)? {
            injector.gateWaiters(of: Hunt18BPart<Tag>.self)
        }
        return make(hunt18BPartTags[index])
    }
}

/// Every (arity, position) of the parameter-pack arities.
private let hunt18BPackPositions: [(Int, Int)] = [13, 16, 20].flatMap { arity in (0..<arity).map { (arity, $0) } }

/// Every (arity, position) of every arity 1...12, 13, 16 and 20.
private let hunt18BAllPositions: [(Int, Int)] = (Array(1...12) + [13, 16, 20]).flatMap { arity in
    (0..<arity).map { (arity, $0) }
}

@Suite("Hunt18B: every arity of a constructor binding", .serialized, .timeLimit(.minutes(2)))
struct Hunt18BArityTests {
    @Test(
        "a dependency failing at every position of a 13-, 16- and 20-parameter constructor: its key, path and text",
        arguments: hunt18BPackPositions)
    func packFailureAtEveryPosition(arity: Int, position: Int) async throws {
        let ledger = Hunt18BArityLedger()
        ledger.failing.store(position, ordering: .sequentiallyConsistent)
        let injector = try Injector(
            ClosureModule { binder in
                for index in 0..<arity {
                    Hunt18BParts.bind(binder, index: index, kind: .sync(Hunt18BParts.mixed(index)), ledger: ledger)
                }
                Hunt18BWideRoots.bind(binder, arity: arity, scope: .transient)
            })
        let root = Hunt18BWideRoots.key(arity)
        let part = Hunt18BParts.key(position)
        let sync = Hunt18BOutcome<Int>()
        sync.record { () throws(ProvisionError) in try Hunt18BWideRoots.get(injector, arity: arity).parts.count }
        let error = try #require(sync.error)
        #expect(error.code == .factoryFailed)
        #expect(error.key == part)
        #expect(error.path == [root, part], "\(error.pathDescription)")
        #expect((error.cause as? Hunt18BPartFailure)?.index == position)
        #expect(error.description.contains("\(root) -> \(part)"), "\(error.description)")
        let async = Hunt18BOutcome<Int>()
        await async.recordAsync { () async throws(ProvisionError) in
            try await Hunt18BWideRoots.getAsync(injector, arity: arity).parts.count
        }
        #expect(async.error?.description == error.description)
        for index in position + 1..<max(position + 1, arity) {
            #expect(ledger.count(index) == 0, "position \(index) built after \(position) failed")
        }
        ledger.failing.store(-1, ordering: .sequentiallyConsistent)
        let first = try Hunt18BWideRoots.get(injector, arity: arity)
        let second = try await Hunt18BWideRoots.getAsync(injector, arity: arity)
        #expect(first.parts.count == arity && second.parts.count == arity)
        for index in 0..<arity {
            let singleton = index % 2 == 0
            #expect((first.ids[index] == second.ids[index]) == singleton, "position \(index)")
            // Singletons: once, the failing one twice more. Transients: once per request that reached them.
            let expected =
                singleton
                ? (index == position ? 3 : 1)
                : (index <= position ? 4 : 2)
            #expect(ledger.count(index) == expected, "position \(index)")
        }
    }

    @Test(
        "an async singleton failing at every position of a 13-, 16- and 20-parameter constructor",
        arguments: hunt18BPackPositions)
    func packAsyncFailureAtEveryPosition(arity: Int, position: Int) async throws {
        let ledger = Hunt18BArityLedger()
        ledger.failing.store(position, ordering: .sequentiallyConsistent)
        let injector = try Injector(
            ClosureModule { binder in
                for index in 0..<arity {
                    let kind: Hunt18BParts.Kind =
                        index == position ? .asyncSingleton(held: false) : .sync(Hunt18BParts.mixed(index))
                    Hunt18BParts.bind(binder, index: index, kind: kind, ledger: ledger)
                }
                Hunt18BWideRoots.bind(binder, arity: arity, scope: .transient)
            })
        let root = Hunt18BWideRoots.key(arity)
        let part = Hunt18BParts.key(position)
        // A synchronous request before the async part is built: requiresAsync, naming the part and the path.
        let sync = Hunt18BOutcome<Int>()
        sync.record { () throws(ProvisionError) in try Hunt18BWideRoots.get(injector, arity: arity).parts.count }
        let syncError = try #require(sync.error)
        #expect(syncError.code == .requiresAsync)
        #expect(syncError.path.first == root && syncError.path.last == part, "\(syncError.pathDescription)")
        #expect(syncError.description.contains("\(part)"))
        #expect(ledger.count(position) == 0, "a synchronous request ran the async factory")
        let async = Hunt18BOutcome<Int>()
        await async.recordAsync { () async throws(ProvisionError) in
            try await Hunt18BWideRoots.getAsync(injector, arity: arity).parts.count
        }
        let error = try #require(async.error)
        #expect(error.code == .factoryFailed)
        #expect(error.key == part)
        #expect(error.path == [root, part], "\(error.pathDescription)")
        #expect((error.cause as? Hunt18BPartFailure)?.index == position)
        for index in position + 1..<max(position + 1, arity) {
            #expect(ledger.count(index) == 0, "position \(index) built after \(position) failed")
        }
        ledger.failing.store(-1, ordering: .sequentiallyConsistent)
        let built = try await Hunt18BWideRoots.getAsync(injector, arity: arity)
        #expect(built.parts.count == arity)
        // Built now: the synchronous API serves it.
        let again = try Hunt18BWideRoots.get(injector, arity: arity)
        #expect(again.ids[position] == built.ids[position])
        #expect(ledger.count(position) == 2)
    }

    @Test(
        "a request cancelled while it waits for an async dependency, at every position of every arity",
        arguments: hunt18BAllPositions)
    func cancelledAtEveryPosition(arity: Int, position: Int) async throws {
        let ledger = Hunt18BArityLedger()
        let injector = try Injector(
            ClosureModule { binder in
                for index in 0..<arity {
                    let kind: Hunt18BParts.Kind =
                        index == position ? .asyncSingleton(held: true) : .sync(Hunt18BParts.mixed(index))
                    Hunt18BParts.bind(binder, index: index, kind: kind, ledger: ledger)
                }
                Hunt18BWideRoots.bind(binder, arity: arity, scope: .transient)
            })
        // Another task builds the part at `position` and is held there.
        let builder = Task { try await Hunt18BParts.getAsync(injector, index: position) }
        #expect(await hunt18BWaitAsync(ledger.entered))
        let outcome = Hunt18BOutcome<Int>()
        let request = Task {
            await outcome.recordAsync { () async throws(ProvisionError) in
                try await Hunt18BWideRoots.getAsync(injector, arity: arity).parts.count
            }
        }
        #expect(await hunt18BUntilAsync { Hunt18BParts.waiters(injector, index: position)?.tasks == 1 })
        request.cancel()
        #expect(await hunt18BWithin { await request.value }, "the cancelled request hung")
        let error = outcome.error
        #expect(error?.code == .cancelled, "\(String(describing: error))")
        #expect(
            error?.path == [Hunt18BWideRoots.key(arity), Hunt18BParts.key(position)], "\(error?.pathDescription ?? "")")
        for index in position + 1..<max(position + 1, arity) {
            #expect(ledger.count(index) == 0, "position \(index) built after the cancellation at \(position)")
        }
        ledger.release.open()
        let part = try await builder.value
        let built = try await Hunt18BWideRoots.getAsync(injector, arity: arity)
        #expect(built.parts.count == arity)
        #expect(built.ids[position] == ObjectIdentifier(part))
        for index in 0..<arity {
            let expected = index == position || index % 2 == 0 ? 1 : (index < position ? 2 : 1)
            #expect(ledger.count(index) == expected, "position \(index)")
        }
    }

    @Test(
        "a throwing initializer of 0, 12, 13, 16 and 20 parameters: factoryFailed on the root, then built once",
        arguments: [0, 12, 13, 16, 20], [false, true])
    func throwingRootInitializer(arity: Int, async: Bool) async throws {
        let ledger = Hunt18BArityLedger()
        let injector = try Injector(
            ClosureModule { binder in
                for index in 0..<arity {
                    Hunt18BParts.bind(binder, index: index, kind: .sync(.singleton), ledger: ledger)
                }
                Hunt18BWideRoots.bind(binder, arity: arity, scope: .singleton)
            })
        Hunt18BRootFailure.pending.withLock { $0 = 1 }
        defer { Hunt18BRootFailure.pending.withLock { $0 = 0 } }
        let outcome = Hunt18BOutcome<Int>()
        if async {
            await outcome.recordAsync { () async throws(ProvisionError) in
                try await Hunt18BWideRoots.getAsync(injector, arity: arity).parts.count
            }
        } else {
            outcome.record { () throws(ProvisionError) in try Hunt18BWideRoots.get(injector, arity: arity).parts.count }
        }
        let root = Hunt18BWideRoots.key(arity)
        let error = try #require(outcome.error)
        #expect(error.code == .factoryFailed)
        #expect(error.key == root)
        #expect(error.path == [root], "\(error.pathDescription)")
        #expect(error.cause is Hunt18BRootFailure)
        #expect(error.description.contains("\(root)"))
        #expect(Hunt18BRootFailure.pending.withLock { $0 } == 0)
        let first = try await Hunt18BWideRoots.getAsync(injector, arity: arity)
        let second = try Hunt18BWideRoots.get(injector, arity: arity)
        #expect(ObjectIdentifier(first) == ObjectIdentifier(second))
        #expect(first.parts.count == arity)
        for index in 0..<arity {
            #expect(ledger.count(index) == 1, "position \(index) built again after the root's failure")
        }
    }

    @Test(
        "7 threads and 8 tasks arrive while a thread's build of a 20-wide singleton is at each position: once each",
        arguments: 0..<20)
    func arrivalsAtEveryStepOfWideBuild(position: Int) async throws {
        let ledger = Hunt18BArityLedger()
        let slot = Hunt18BSlot()
        let entered = DispatchSemaphore(value: 0)
        ledger.holdIndex.store(position, ordering: .sequentiallyConsistent)
        ledger.hold.withLock {
            $0 = {
                entered.signal()
                // Every other request is waiting at the root's gate before this part is built.
                _ = hunt18BUntil {
                    guard let injector = slot.injector else { return false }
                    let waiters = Hunt18BWideRoots.waiters(injector, arity: 20)
                    return waiters?.threads == 7 && waiters?.tasks == 8
                }
            }
        }
        let injector = try Injector(
            ClosureModule { binder in
                for index in 0..<20 {
                    Hunt18BParts.bind(binder, index: index, kind: .sync(Hunt18BParts.mixed(index)), ledger: ledger)
                }
                Hunt18BWideRoots.bind(binder, arity: 20, scope: .singleton)
            })
        slot.injector = injector
        let outcomes = (0..<16).map { _ in Hunt18BOutcome<ObjectIdentifier>() }
        let group = DispatchGroup()
        group.enter()
        hunt18BThread {
            outcomes[0].record { () throws(ProvisionError) in
                ObjectIdentifier(try Hunt18BWideRoots.get(injector, arity: 20))
            }
            group.leave()
        }
        #expect(await hunt18BWaitAsync(entered))
        for index in 1..<8 {
            group.enter()
            hunt18BThread {
                outcomes[index].record { () throws(ProvisionError) in
                    ObjectIdentifier(try Hunt18BWideRoots.get(injector, arity: 20))
                }
                group.leave()
            }
        }
        for index in 8..<16 {
            group.enter()
            Task.detached {
                await outcomes[index].recordAsync { () async throws(ProvisionError) in
                    ObjectIdentifier(try await Hunt18BWideRoots.getAsync(injector, arity: 20))
                }
                group.leave()
            }
        }
        #expect(await hunt18BBlocking { group.wait(timeout: .now() + 10) == .success }, "hung")
        let errors = outcomes.compactMap(\.error)
        #expect(errors.isEmpty, "\(errors.map(\.description))")
        #expect(Set(outcomes.compactMap(\.value)).count == 1)
        for index in 0..<20 {
            #expect(ledger.count(index) == 1, "position \(index)")
        }
        slot.injector = nil
    }
}

// MARK: - Depth

/// One level of a deep chain. It holds no other level, so freeing a chain never recurses.
final class Hunt18BLevel: Sendable {
    let level: Int
    init(level: Int) { self.level = level }
}

struct Hunt18BBottomFailure: Error {}

/// A type identity per level of a chain of constructor bindings: the level's number in binary.
protocol Hunt18BID: SendableMetatype {}
enum Hunt18BEnd: Hunt18BID {}
enum Hunt18BBit0<Rest: Hunt18BID>: Hunt18BID {}
enum Hunt18BBit1<Rest: Hunt18BID>: Hunt18BID {}

final class Hunt18BLink<ID>: Sendable {}

extension Hunt18BID {
    /// Binds this level to a constructor of the next level's link.
    static func link(_ binder: Binder, to next: any Hunt18BID.Type, scope: Scope) {
        func open<Next: Hunt18BID>(_: Next.Type) {
            binder.bind(Hunt18BLink<Self>.self).to { (_: Hunt18BLink<Next>) in Hunt18BLink<Self>() }.in(scope)
        }
        open(next)
    }

    /// Binds this level to a throwing initializer of no parameter: the bottom.
    static func bottom(_ binder: Binder, scope: Scope) {
        binder.bind(Hunt18BLink<Self>.self).to { () throws -> Hunt18BLink<Self> in throw Hunt18BBottomFailure() }
            .in(scope)
    }

    static var linkKey: BindingKey { BindingKey(Hunt18BLink<Self>.self) }

    static func resolve(_ injector: Injector) throws(ProvisionError) -> AnyObject {
        try injector.syncGet(Hunt18BLink<Self>.self)
    }
}

enum Hunt18BDeep {
    static func name(_ level: Int) -> String { "level \(level)" }

    static func key(_ level: Int) -> BindingKey { BindingKey(Hunt18BLevel.self, named: name(level)) }

    /// Named closure bindings 0..<depth, each resolving the next through its resolver; the last throws.
    /// Odd levels are singletons.
    static func closureChain(depth: Int, async: Bool) -> ClosureModule {
        ClosureModule { binder in
            for level in 0..<depth {
                let next = level + 1 < depth ? name(level + 1) : nil
                let scope: Scope = level % 2 == 1 ? .singleton : .transient
                if async {
                    binder.bind(Hunt18BLevel.self, named: name(level)).to {
                        (resolver: Resolver) async throws -> Hunt18BLevel in
                        guard let next else { throw Hunt18BBottomFailure() }
                        _ = try await resolver.get(Hunt18BLevel.self, named: next)
                        return Hunt18BLevel(level: level)
                    }.in(scope)
                } else {
                    binder.bind(Hunt18BLevel.self, named: name(level)).to {
                        (resolver: Resolver) throws -> Hunt18BLevel in
                        guard let next else { throw Hunt18BBottomFailure() }
                        _ = try resolver.get(Hunt18BLevel.self, named: next)
                        return Hunt18BLevel(level: level)
                    }.in(scope)
                }
            }
        }
    }

    /// The type identity of level `number`.
    static func id(_ number: Int) -> any Hunt18BID.Type {
        var type: any Hunt18BID.Type = Hunt18BEnd.self
        var rest = number
        repeat {
            type = rest & 1 == 0 ? bit0(type) : bit1(type)
            rest >>= 1
        } while rest > 0
        return type
    }

    static func bit0<T: Hunt18BID>(_: T.Type) -> any Hunt18BID.Type { Hunt18BBit0<T>.self }
    static func bit1<T: Hunt18BID>(_: T.Type) -> any Hunt18BID.Type { Hunt18BBit1<T>.self }

    /// Constructor bindings 0..<depth, each over the next; the last one's initializer throws.
    static func constructorChain(depth: Int) -> (ClosureModule, [any Hunt18BID.Type]) {
        let ids = (0..<depth).map(id)
        let module = ClosureModule { binder in
            for level in 0..<depth - 1 {
                ids[level].link(binder, to: ids[level + 1], scope: level % 2 == 1 ? .singleton : .transient)
            }
            ids[depth - 1].bottom(binder, scope: .transient)
        }
        return (module, ids)
    }

    /// 0 when `error` is the bottom's failure with the whole path from `top` to `bottom`, or
    /// depthExceeded; otherwise a code, and the reason on standard error.
    static func verdict(_ error: ProvisionError?, depth: Int, top: BindingKey, bottom: BindingKey) -> Int32 {
        guard let error else {
            FileHandle.standardError.write(Data("resolved, but the bottom throws\n".utf8))
            return 4
        }
        if error.code == .depthExceeded {
            FileHandle.standardError.write(Data("outcome: depthExceeded\n".utf8))
            return 0
        }
        guard error.code == .factoryFailed, error.cause is Hunt18BBottomFailure else {
            FileHandle.standardError.write(Data("unexpected: \(error.description.prefix(2_000))\n".utf8))
            return 3
        }
        let path = error.path
        guard path.count == depth, path.first == top, path.last == bottom, error.key == bottom else {
            FileHandle.standardError.write(
                Data(
                    "path of \(path.count) keys, from \(String(describing: path.first)) to \(String(describing: path.last))\n"
                        .utf8))
            return 5
        }
        FileHandle.standardError.write(Data("outcome: whole path\n".utf8))
        return 0
    }

    /// What a child process reported: ThreadSafety.md's table stops a chain of closure bindings at 189
    /// levels on a 512 KiB thread and at about 4,000 on an 8 MiB one (debug), so a chain of 1,000 fails
    /// with its whole path on 8 MiB and with depthExceeded on 512 KiB; longer chains may end either way.
    static func expectOutcome(
        _ result: ExitTest.Result?, depth: Int, stack: Int, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        guard let result else { return }
        let output = String(decoding: result.standardErrorContent, as: UTF8.self)
        if stack < 1 << 20 {
            #expect(
                output.contains("outcome: depthExceeded"), "\(output.suffix(2_000))", sourceLocation: sourceLocation)
        } else if depth <= 1_000 {
            #expect(output.contains("outcome: whole path"), "\(output.suffix(2_000))", sourceLocation: sourceLocation)
        } else {
            #expect(output.contains("outcome: "), "\(output.suffix(2_000))", sourceLocation: sourceLocation)
        }
    }

    /// Runs `body` on a thread with `stack` bytes of stack; 7 when it didn't finish within a minute.
    static func onThread(stack: Int, _ body: @escaping @Sendable () -> Int32) -> Int32 {
        let result = Locked<Int32>(7)
        let done = hunt18BThread(stackSize: stack) {
            let code = body()
            result.withLock { $0 = code }
        }
        guard hunt18BWait(done, seconds: 60) else { return 7 }
        return result.withLock { $0 }
    }
}

@Suite("Hunt18B: failures at the bottom of deep chains, on small stacks", .timeLimit(.minutes(5)))
struct Hunt18BDepthTests {
    @Test(
        "a failure at the bottom of 1,000, 5,000 and 10,000 closure bindings on a 512 KiB and an 8 MiB thread",
        arguments: [1_000, 5_000, 10_000], [512 << 10, 8 << 20])
    func closureChainFailure(depth: Int, stack: Int) async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) { [depth, stack] in
            let code = Hunt18BDeep.onThread(stack: stack) {
                let outcome = Hunt18BOutcome<Hunt18BLevel>()
                do {
                    let injector = try Injector(Hunt18BDeep.closureChain(depth: depth, async: false))
                    _ = Unmanaged.passRetained(injector)
                    outcome.record { () throws(ProvisionError) in
                        try injector.syncGet(Hunt18BLevel.self, named: Hunt18BDeep.name(0))
                    }
                    // Twice: the singletons built the first time are served the second.
                    let first = Hunt18BDeep.verdict(
                        outcome.error, depth: depth, top: Hunt18BDeep.key(0), bottom: Hunt18BDeep.key(depth - 1))
                    outcome.record { () throws(ProvisionError) in
                        try injector.syncGet(Hunt18BLevel.self, named: Hunt18BDeep.name(0))
                    }
                    return first != 0
                        ? first
                        : Hunt18BDeep.verdict(
                            outcome.error, depth: depth, top: Hunt18BDeep.key(0), bottom: Hunt18BDeep.key(depth - 1))
                } catch {
                    FileHandle.standardError.write(Data("\(error)\n".utf8))
                    return 6
                }
            }
            exit(code)
        }
        Hunt18BDeep.expectOutcome(result, depth: depth, stack: stack)
    }

    @Test(
        "a failure at the bottom of 1,000 and 5,000 async closure bindings, resolved from a task",
        // 10,000 resolves too, with its whole path, but takes about 4.5 s in a debug build: each level of
        // a closure chain costs time proportional to its depth (about 50 µs a level at 1,000, 450 µs at
        // 10,000), failing or not.
        arguments: [1_000, 5_000])
    func asyncClosureChainFailure(depth: Int) async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) { [depth] in
            let injector = try Injector(Hunt18BDeep.closureChain(depth: depth, async: true))
            _ = Unmanaged.passRetained(injector)
            let outcome = Hunt18BOutcome<Hunt18BLevel>()
            await outcome.recordAsync { () async throws(ProvisionError) in
                try await injector.get(Hunt18BLevel.self, named: Hunt18BDeep.name(0))
            }
            exit(
                Hunt18BDeep.verdict(
                    outcome.error, depth: depth, top: Hunt18BDeep.key(0), bottom: Hunt18BDeep.key(depth - 1)))
        }
        Hunt18BDeep.expectOutcome(result, depth: depth, stack: 8 << 20)
    }

    @Test(
        "a throwing initializer at the bottom of 1,000 and 5,000 constructor bindings on a 512 KiB and an 8 MiB thread",
        arguments: [1_000, 5_000], [512 << 10, 8 << 20])
    func constructorChainFailure(depth: Int, stack: Int) async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) { [depth, stack] in
            let (module, ids) = Hunt18BDeep.constructorChain(depth: depth)
            let code = Hunt18BDeep.onThread(stack: stack) {
                do {
                    let injector = try Injector(module)
                    _ = Unmanaged.passRetained(injector)
                    let outcome = Hunt18BOutcome<Int>()
                    outcome.record { () throws(ProvisionError) in
                        _ = try ids[0].resolve(injector)
                        return 0
                    }
                    return Hunt18BDeep.verdict(
                        outcome.error, depth: depth, top: ids[0].linkKey, bottom: ids[depth - 1].linkKey)
                } catch {
                    FileHandle.standardError.write(Data("creation: \(String(describing: error).prefix(2_000))\n".utf8))
                    return 6
                }
            }
            exit(code)
        }
        Hunt18BDeep.expectOutcome(result, depth: depth, stack: stack)
    }
}
