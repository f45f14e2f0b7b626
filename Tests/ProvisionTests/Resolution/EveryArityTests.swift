import Synchronization
import Testing

@testable import Provision

// Every constructor arity a user writes, from 1 to 14 parameters: 1 to 12 take the generated fixed-arity
// plans, 13 and 14 the parameter-pack plan. For each arity, and each parameter position: a missing
// dependency, a throwing dependency, a singleton dependency shared across requests, and threads racing
// the first request. Written out per arity (not generated at run time) because each initializer is its
// own overload of `to(_:)`.

/// The leaves: one class per parameter position.

private final class ArityLeaf0: Sendable { init() {} }
private final class ArityLeaf1: Sendable { init() {} }
private final class ArityLeaf2: Sendable { init() {} }
private final class ArityLeaf3: Sendable { init() {} }
private final class ArityLeaf4: Sendable { init() {} }
private final class ArityLeaf5: Sendable { init() {} }
private final class ArityLeaf6: Sendable { init() {} }
private final class ArityLeaf7: Sendable { init() {} }
private final class ArityLeaf8: Sendable { init() {} }
private final class ArityLeaf9: Sendable { init() {} }
private final class ArityLeaf10: Sendable { init() {} }
private final class ArityLeaf11: Sendable { init() {} }
private final class ArityLeaf12: Sendable { init() {} }
private final class ArityLeaf13: Sendable { init() {} }

/// The roots: `ArityRootN` takes the first N leaves.
private final class ArityRoot1: Sendable, ArityRoot {
    let l0: ArityLeaf0
    init(l0: ArityLeaf0) {
        self.l0 = l0
    }
    var leaves: [AnyObject] { [l0] }
}
private final class ArityRoot2: Sendable, ArityRoot {
    let l0: ArityLeaf0
    let l1: ArityLeaf1
    init(l0: ArityLeaf0, l1: ArityLeaf1) {
        self.l0 = l0
        self.l1 = l1
    }
    var leaves: [AnyObject] { [l0, l1] }
}
private final class ArityRoot3: Sendable, ArityRoot {
    let l0: ArityLeaf0
    let l1: ArityLeaf1
    let l2: ArityLeaf2
    init(l0: ArityLeaf0, l1: ArityLeaf1, l2: ArityLeaf2) {
        self.l0 = l0
        self.l1 = l1
        self.l2 = l2
    }
    var leaves: [AnyObject] { [l0, l1, l2] }
}
private final class ArityRoot4: Sendable, ArityRoot {
    let l0: ArityLeaf0
    let l1: ArityLeaf1
    let l2: ArityLeaf2
    let l3: ArityLeaf3
    init(l0: ArityLeaf0, l1: ArityLeaf1, l2: ArityLeaf2, l3: ArityLeaf3) {
        self.l0 = l0
        self.l1 = l1
        self.l2 = l2
        self.l3 = l3
    }
    var leaves: [AnyObject] { [l0, l1, l2, l3] }
}
private final class ArityRoot5: Sendable, ArityRoot {
    let l0: ArityLeaf0
    let l1: ArityLeaf1
    let l2: ArityLeaf2
    let l3: ArityLeaf3
    let l4: ArityLeaf4
    init(l0: ArityLeaf0, l1: ArityLeaf1, l2: ArityLeaf2, l3: ArityLeaf3, l4: ArityLeaf4) {
        self.l0 = l0
        self.l1 = l1
        self.l2 = l2
        self.l3 = l3
        self.l4 = l4
    }
    var leaves: [AnyObject] { [l0, l1, l2, l3, l4] }
}
private final class ArityRoot6: Sendable, ArityRoot {
    let l0: ArityLeaf0
    let l1: ArityLeaf1
    let l2: ArityLeaf2
    let l3: ArityLeaf3
    let l4: ArityLeaf4
    let l5: ArityLeaf5
    init(l0: ArityLeaf0, l1: ArityLeaf1, l2: ArityLeaf2, l3: ArityLeaf3, l4: ArityLeaf4, l5: ArityLeaf5) {
        self.l0 = l0
        self.l1 = l1
        self.l2 = l2
        self.l3 = l3
        self.l4 = l4
        self.l5 = l5
    }
    var leaves: [AnyObject] { [l0, l1, l2, l3, l4, l5] }
}
private final class ArityRoot7: Sendable, ArityRoot {
    let l0: ArityLeaf0
    let l1: ArityLeaf1
    let l2: ArityLeaf2
    let l3: ArityLeaf3
    let l4: ArityLeaf4
    let l5: ArityLeaf5
    let l6: ArityLeaf6
    init(l0: ArityLeaf0, l1: ArityLeaf1, l2: ArityLeaf2, l3: ArityLeaf3, l4: ArityLeaf4, l5: ArityLeaf5, l6: ArityLeaf6)
    {
        self.l0 = l0
        self.l1 = l1
        self.l2 = l2
        self.l3 = l3
        self.l4 = l4
        self.l5 = l5
        self.l6 = l6
    }
    var leaves: [AnyObject] { [l0, l1, l2, l3, l4, l5, l6] }
}
private final class ArityRoot8: Sendable, ArityRoot {
    let l0: ArityLeaf0
    let l1: ArityLeaf1
    let l2: ArityLeaf2
    let l3: ArityLeaf3
    let l4: ArityLeaf4
    let l5: ArityLeaf5
    let l6: ArityLeaf6
    let l7: ArityLeaf7
    init(
        l0: ArityLeaf0, l1: ArityLeaf1, l2: ArityLeaf2, l3: ArityLeaf3, l4: ArityLeaf4, l5: ArityLeaf5, l6: ArityLeaf6,
        l7: ArityLeaf7
    ) {
        self.l0 = l0
        self.l1 = l1
        self.l2 = l2
        self.l3 = l3
        self.l4 = l4
        self.l5 = l5
        self.l6 = l6
        self.l7 = l7
    }
    var leaves: [AnyObject] { [l0, l1, l2, l3, l4, l5, l6, l7] }
}
private final class ArityRoot9: Sendable, ArityRoot {
    let l0: ArityLeaf0
    let l1: ArityLeaf1
    let l2: ArityLeaf2
    let l3: ArityLeaf3
    let l4: ArityLeaf4
    let l5: ArityLeaf5
    let l6: ArityLeaf6
    let l7: ArityLeaf7
    let l8: ArityLeaf8
    init(
        l0: ArityLeaf0, l1: ArityLeaf1, l2: ArityLeaf2, l3: ArityLeaf3, l4: ArityLeaf4, l5: ArityLeaf5, l6: ArityLeaf6,
        l7: ArityLeaf7, l8: ArityLeaf8
    ) {
        self.l0 = l0
        self.l1 = l1
        self.l2 = l2
        self.l3 = l3
        self.l4 = l4
        self.l5 = l5
        self.l6 = l6
        self.l7 = l7
        self.l8 = l8
    }
    var leaves: [AnyObject] { [l0, l1, l2, l3, l4, l5, l6, l7, l8] }
}
private final class ArityRoot10: Sendable, ArityRoot {
    let l0: ArityLeaf0
    let l1: ArityLeaf1
    let l2: ArityLeaf2
    let l3: ArityLeaf3
    let l4: ArityLeaf4
    let l5: ArityLeaf5
    let l6: ArityLeaf6
    let l7: ArityLeaf7
    let l8: ArityLeaf8
    let l9: ArityLeaf9
    init(
        l0: ArityLeaf0, l1: ArityLeaf1, l2: ArityLeaf2, l3: ArityLeaf3, l4: ArityLeaf4, l5: ArityLeaf5, l6: ArityLeaf6,
        l7: ArityLeaf7, l8: ArityLeaf8, l9: ArityLeaf9
    ) {
        self.l0 = l0
        self.l1 = l1
        self.l2 = l2
        self.l3 = l3
        self.l4 = l4
        self.l5 = l5
        self.l6 = l6
        self.l7 = l7
        self.l8 = l8
        self.l9 = l9
    }
    var leaves: [AnyObject] { [l0, l1, l2, l3, l4, l5, l6, l7, l8, l9] }
}
private final class ArityRoot11: Sendable, ArityRoot {
    let l0: ArityLeaf0
    let l1: ArityLeaf1
    let l2: ArityLeaf2
    let l3: ArityLeaf3
    let l4: ArityLeaf4
    let l5: ArityLeaf5
    let l6: ArityLeaf6
    let l7: ArityLeaf7
    let l8: ArityLeaf8
    let l9: ArityLeaf9
    let l10: ArityLeaf10
    init(
        l0: ArityLeaf0, l1: ArityLeaf1, l2: ArityLeaf2, l3: ArityLeaf3, l4: ArityLeaf4, l5: ArityLeaf5, l6: ArityLeaf6,
        l7: ArityLeaf7, l8: ArityLeaf8, l9: ArityLeaf9, l10: ArityLeaf10
    ) {
        self.l0 = l0
        self.l1 = l1
        self.l2 = l2
        self.l3 = l3
        self.l4 = l4
        self.l5 = l5
        self.l6 = l6
        self.l7 = l7
        self.l8 = l8
        self.l9 = l9
        self.l10 = l10
    }
    var leaves: [AnyObject] { [l0, l1, l2, l3, l4, l5, l6, l7, l8, l9, l10] }
}
private final class ArityRoot12: Sendable, ArityRoot {
    let l0: ArityLeaf0
    let l1: ArityLeaf1
    let l2: ArityLeaf2
    let l3: ArityLeaf3
    let l4: ArityLeaf4
    let l5: ArityLeaf5
    let l6: ArityLeaf6
    let l7: ArityLeaf7
    let l8: ArityLeaf8
    let l9: ArityLeaf9
    let l10: ArityLeaf10
    let l11: ArityLeaf11
    init(
        l0: ArityLeaf0, l1: ArityLeaf1, l2: ArityLeaf2, l3: ArityLeaf3, l4: ArityLeaf4, l5: ArityLeaf5, l6: ArityLeaf6,
        l7: ArityLeaf7, l8: ArityLeaf8, l9: ArityLeaf9, l10: ArityLeaf10, l11: ArityLeaf11
    ) {
        self.l0 = l0
        self.l1 = l1
        self.l2 = l2
        self.l3 = l3
        self.l4 = l4
        self.l5 = l5
        self.l6 = l6
        self.l7 = l7
        self.l8 = l8
        self.l9 = l9
        self.l10 = l10
        self.l11 = l11
    }
    var leaves: [AnyObject] { [l0, l1, l2, l3, l4, l5, l6, l7, l8, l9, l10, l11] }
}
private final class ArityRoot13: Sendable, ArityRoot {
    let l0: ArityLeaf0
    let l1: ArityLeaf1
    let l2: ArityLeaf2
    let l3: ArityLeaf3
    let l4: ArityLeaf4
    let l5: ArityLeaf5
    let l6: ArityLeaf6
    let l7: ArityLeaf7
    let l8: ArityLeaf8
    let l9: ArityLeaf9
    let l10: ArityLeaf10
    let l11: ArityLeaf11
    let l12: ArityLeaf12
    init(
        l0: ArityLeaf0, l1: ArityLeaf1, l2: ArityLeaf2, l3: ArityLeaf3, l4: ArityLeaf4, l5: ArityLeaf5, l6: ArityLeaf6,
        l7: ArityLeaf7, l8: ArityLeaf8, l9: ArityLeaf9, l10: ArityLeaf10, l11: ArityLeaf11, l12: ArityLeaf12
    ) {
        self.l0 = l0
        self.l1 = l1
        self.l2 = l2
        self.l3 = l3
        self.l4 = l4
        self.l5 = l5
        self.l6 = l6
        self.l7 = l7
        self.l8 = l8
        self.l9 = l9
        self.l10 = l10
        self.l11 = l11
        self.l12 = l12
    }
    var leaves: [AnyObject] { [l0, l1, l2, l3, l4, l5, l6, l7, l8, l9, l10, l11, l12] }
}
private final class ArityRoot14: Sendable, ArityRoot {
    let l0: ArityLeaf0
    let l1: ArityLeaf1
    let l2: ArityLeaf2
    let l3: ArityLeaf3
    let l4: ArityLeaf4
    let l5: ArityLeaf5
    let l6: ArityLeaf6
    let l7: ArityLeaf7
    let l8: ArityLeaf8
    let l9: ArityLeaf9
    let l10: ArityLeaf10
    let l11: ArityLeaf11
    let l12: ArityLeaf12
    let l13: ArityLeaf13
    init(
        l0: ArityLeaf0, l1: ArityLeaf1, l2: ArityLeaf2, l3: ArityLeaf3, l4: ArityLeaf4, l5: ArityLeaf5, l6: ArityLeaf6,
        l7: ArityLeaf7, l8: ArityLeaf8, l9: ArityLeaf9, l10: ArityLeaf10, l11: ArityLeaf11, l12: ArityLeaf12,
        l13: ArityLeaf13
    ) {
        self.l0 = l0
        self.l1 = l1
        self.l2 = l2
        self.l3 = l3
        self.l4 = l4
        self.l5 = l5
        self.l6 = l6
        self.l7 = l7
        self.l8 = l8
        self.l9 = l9
        self.l10 = l10
        self.l11 = l11
        self.l12 = l12
        self.l13 = l13
    }
    var leaves: [AnyObject] { [l0, l1, l2, l3, l4, l5, l6, l7, l8, l9, l10, l11, l12, l13] }
}

/// What every root offers the tests: its leaves, in parameter order.
private protocol ArityRoot: AnyObject, Sendable {
    var leaves: [AnyObject] { get }
}

private struct LeafFailure: Error {}

/// How the leaf at one position is bound.
private enum LeafBinding: Sendable {
    case transient, missing, throwing, singleton
}

/// Binds the leaves of an arity: the one at `position` as `special`, the others as transients.
private func bindLeaves(_ binder: Binder, count: Int, position: Int, as special: LeafBinding, builds: Counter) {
    func bind<L: AnyObject & Sendable>(_ type: L.Type, _ index: Int, _ make: @escaping @Sendable () -> L) {
        switch index == position ? special : .transient {
        case .transient: binder.bind(type).to { make() }
        case .missing: break
        case .throwing: binder.bind(type).to { () throws -> L in throw LeafFailure() }
        case .singleton:
            binder.bind(type).to { () -> L in
                builds.increment()
                return make()
            }.in(.singleton)
        }
    }
    if 0 < count { bind(ArityLeaf0.self, 0, ArityLeaf0.init) }
    if 1 < count { bind(ArityLeaf1.self, 1, ArityLeaf1.init) }
    if 2 < count { bind(ArityLeaf2.self, 2, ArityLeaf2.init) }
    if 3 < count { bind(ArityLeaf3.self, 3, ArityLeaf3.init) }
    if 4 < count { bind(ArityLeaf4.self, 4, ArityLeaf4.init) }
    if 5 < count { bind(ArityLeaf5.self, 5, ArityLeaf5.init) }
    if 6 < count { bind(ArityLeaf6.self, 6, ArityLeaf6.init) }
    if 7 < count { bind(ArityLeaf7.self, 7, ArityLeaf7.init) }
    if 8 < count { bind(ArityLeaf8.self, 8, ArityLeaf8.init) }
    if 9 < count { bind(ArityLeaf9.self, 9, ArityLeaf9.init) }
    if 10 < count { bind(ArityLeaf10.self, 10, ArityLeaf10.init) }
    if 11 < count { bind(ArityLeaf11.self, 11, ArityLeaf11.init) }
    if 12 < count { bind(ArityLeaf12.self, 12, ArityLeaf12.init) }
    if 13 < count { bind(ArityLeaf13.self, 13, ArityLeaf13.init) }
}

/// How the tests reach the root of one arity, from one place: its binding (to its initializer, the
/// natural way), its request and its key.
private struct RootShape: Sendable {
    let bind: @Sendable (Binder) -> Void
    let resolve: @Sendable (Injector) throws(ProvisionError) -> any ArityRoot
    let key: BindingKey

    init<Root: ArityRoot>(_ type: Root.Type, _ target: @escaping @Sendable (BindingBuilder<Root>) -> Void) {
        self.bind = { binder in target(binder.bind(type)) }
        self.resolve = { injector throws(ProvisionError) in try injector.get(type) }
        self.key = BindingKey(type)
    }
}

/// The root of each arity, by arity.
private let roots: [Int: RootShape] = [
    1: RootShape(ArityRoot1.self) { _ = $0.to(ArityRoot1.init(l0:)) },
    2: RootShape(ArityRoot2.self) { _ = $0.to(ArityRoot2.init(l0:l1:)) },
    3: RootShape(ArityRoot3.self) { _ = $0.to(ArityRoot3.init(l0:l1:l2:)) },
    4: RootShape(ArityRoot4.self) { _ = $0.to(ArityRoot4.init(l0:l1:l2:l3:)) },
    5: RootShape(ArityRoot5.self) { _ = $0.to(ArityRoot5.init(l0:l1:l2:l3:l4:)) },
    6: RootShape(ArityRoot6.self) { _ = $0.to(ArityRoot6.init(l0:l1:l2:l3:l4:l5:)) },
    7: RootShape(ArityRoot7.self) { _ = $0.to(ArityRoot7.init(l0:l1:l2:l3:l4:l5:l6:)) },
    8: RootShape(ArityRoot8.self) { _ = $0.to(ArityRoot8.init(l0:l1:l2:l3:l4:l5:l6:l7:)) },
    9: RootShape(ArityRoot9.self) { _ = $0.to(ArityRoot9.init(l0:l1:l2:l3:l4:l5:l6:l7:l8:)) },
    10: RootShape(ArityRoot10.self) { _ = $0.to(ArityRoot10.init(l0:l1:l2:l3:l4:l5:l6:l7:l8:l9:)) },
    11: RootShape(ArityRoot11.self) { _ = $0.to(ArityRoot11.init(l0:l1:l2:l3:l4:l5:l6:l7:l8:l9:l10:)) },
    12: RootShape(ArityRoot12.self) { _ = $0.to(ArityRoot12.init(l0:l1:l2:l3:l4:l5:l6:l7:l8:l9:l10:l11:)) },
    13: RootShape(ArityRoot13.self) { _ = $0.to(ArityRoot13.init(l0:l1:l2:l3:l4:l5:l6:l7:l8:l9:l10:l11:l12:)) },
    14: RootShape(ArityRoot14.self) { _ = $0.to(ArityRoot14.init(l0:l1:l2:l3:l4:l5:l6:l7:l8:l9:l10:l11:l12:l13:)) },
]

/// The key of the leaf at each position.
private let leafKeys: [BindingKey] = [
    BindingKey(ArityLeaf0.self),
    BindingKey(ArityLeaf1.self),
    BindingKey(ArityLeaf2.self),
    BindingKey(ArityLeaf3.self),
    BindingKey(ArityLeaf4.self),
    BindingKey(ArityLeaf5.self),
    BindingKey(ArityLeaf6.self),
    BindingKey(ArityLeaf7.self),
    BindingKey(ArityLeaf8.self),
    BindingKey(ArityLeaf9.self),
    BindingKey(ArityLeaf10.self),
    BindingKey(ArityLeaf11.self),
    BindingKey(ArityLeaf12.self),
    BindingKey(ArityLeaf13.self),
]

/// The root of `arity` (1 to 14).
private func root(_ arity: Int) throws -> RootShape {
    try #require(roots[arity])
}

/// Every (arity, position) pair.
private let positions: [(Int, Int)] = (1...14).flatMap { arity in (0..<arity).map { (arity, $0) } }

@Suite("Every constructor arity")
struct EveryArityTests {
    private static func injector(arity: Int, position: Int, leaf: LeafBinding, builds: Counter = Counter())
        throws(ProvisionError) -> Injector
    {
        try Injector(
            modules: [
                ClosureModule { binder in
                    bindLeaves(binder, count: arity, position: position, as: leaf, builds: builds)
                    roots[arity]?.bind(binder)
                }
            ],
            configuration: Injector.Configuration(validatesOnCreation: false)
        )
    }

    @Test("a missing dependency at any position is notBound, with the path root -> leaf", arguments: positions)
    func missing(arity: Int, position: Int) throws {
        let shape = try root(arity)
        let injector = try Self.injector(arity: arity, position: position, leaf: .missing)
        for _ in 0..<2 {
            let error = #expect(throws: ProvisionError.self) { try shape.resolve(injector) }
            #expect(error?.code == .notBound)
            #expect(error?.path == [shape.key, leafKeys[position]])
        }
        let validation = #expect(throws: ProvisionError.self) { try injector.validate() }
        #expect(validation != nil)
    }

    @Test(
        "a dependency that throws at any position is factoryFailed, with the path and the cause", arguments: positions)
    func throwing(arity: Int, position: Int) throws {
        let shape = try root(arity)
        let injector = try Self.injector(arity: arity, position: position, leaf: .throwing)
        for _ in 0..<2 {
            let error = #expect(throws: ProvisionError.self) { try shape.resolve(injector) }
            #expect(error?.code == .factoryFailed)
            #expect(error?.key == leafKeys[position])
            #expect(error?.path == [shape.key, leafKeys[position]])
            #expect(error?.cause is LeafFailure)
        }
    }

    @Test("a singleton at any position is shared by every root; the others are new each time", arguments: positions)
    func singleton(arity: Int, position: Int) throws {
        let shape = try root(arity)
        let builds = Counter()
        let injector = try Self.injector(arity: arity, position: position, leaf: .singleton, builds: builds)
        let first = try shape.resolve(injector).leaves
        let second = try shape.resolve(injector).leaves
        #expect(first.count == arity)
        for index in 0..<arity {
            #expect((first[index] === second[index]) == (index == position))
        }
        #expect(builds.value == 1)
    }

    @Test("8 threads racing the first request build the singleton at any position exactly once", arguments: 1...14)
    func firstRequestRace(arity: Int) throws {
        let shape = try root(arity)
        for position in [0, arity / 2, arity - 1] {
            let builds = Counter()
            let injector = try Self.injector(arity: arity, position: position, leaf: .singleton, builds: builds)
            let barrier = Barrier(count: 8)
            let shared = Locked<Set<ObjectIdentifier>>([])
            let failures = Counter()
            let finished = runThreads(8) { _ in
                barrier.arriveAndWait()
                guard let root = try? shape.resolve(injector) else {
                    failures.increment()
                    return
                }
                shared.withLock { _ = $0.insert(ObjectIdentifier(root.leaves[position])) }
            }
            #expect(finished)
            #expect(failures.value == 0)
            #expect(builds.value == 1)
            #expect(shared.withLock { $0.count } == 1)
        }
    }
}
