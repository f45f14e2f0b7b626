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

/// Binds the root of `arity` to its initializer, the natural way.
private func bindRoot(_ binder: Binder, arity: Int) {
    switch arity {
    case 1: binder.bind(ArityRoot1.self).to(ArityRoot1.init(l0:))
    case 2: binder.bind(ArityRoot2.self).to(ArityRoot2.init(l0:l1:))
    case 3: binder.bind(ArityRoot3.self).to(ArityRoot3.init(l0:l1:l2:))
    case 4: binder.bind(ArityRoot4.self).to(ArityRoot4.init(l0:l1:l2:l3:))
    case 5: binder.bind(ArityRoot5.self).to(ArityRoot5.init(l0:l1:l2:l3:l4:))
    case 6: binder.bind(ArityRoot6.self).to(ArityRoot6.init(l0:l1:l2:l3:l4:l5:))
    case 7: binder.bind(ArityRoot7.self).to(ArityRoot7.init(l0:l1:l2:l3:l4:l5:l6:))
    case 8: binder.bind(ArityRoot8.self).to(ArityRoot8.init(l0:l1:l2:l3:l4:l5:l6:l7:))
    case 9: binder.bind(ArityRoot9.self).to(ArityRoot9.init(l0:l1:l2:l3:l4:l5:l6:l7:l8:))
    case 10: binder.bind(ArityRoot10.self).to(ArityRoot10.init(l0:l1:l2:l3:l4:l5:l6:l7:l8:l9:))
    case 11: binder.bind(ArityRoot11.self).to(ArityRoot11.init(l0:l1:l2:l3:l4:l5:l6:l7:l8:l9:l10:))
    case 12: binder.bind(ArityRoot12.self).to(ArityRoot12.init(l0:l1:l2:l3:l4:l5:l6:l7:l8:l9:l10:l11:))
    case 13: binder.bind(ArityRoot13.self).to(ArityRoot13.init(l0:l1:l2:l3:l4:l5:l6:l7:l8:l9:l10:l11:l12:))
    case 14: binder.bind(ArityRoot14.self).to(ArityRoot14.init(l0:l1:l2:l3:l4:l5:l6:l7:l8:l9:l10:l11:l12:l13:))
    default: break
    }
}

/// Resolves the root of `arity`.
private func resolveRoot(_ injector: Injector, arity: Int) throws(ProvisionError) -> any ArityRoot {
    switch arity {
    case 1: return try injector.get(ArityRoot1.self)
    case 2: return try injector.get(ArityRoot2.self)
    case 3: return try injector.get(ArityRoot3.self)
    case 4: return try injector.get(ArityRoot4.self)
    case 5: return try injector.get(ArityRoot5.self)
    case 6: return try injector.get(ArityRoot6.self)
    case 7: return try injector.get(ArityRoot7.self)
    case 8: return try injector.get(ArityRoot8.self)
    case 9: return try injector.get(ArityRoot9.self)
    case 10: return try injector.get(ArityRoot10.self)
    case 11: return try injector.get(ArityRoot11.self)
    case 12: return try injector.get(ArityRoot12.self)
    case 13: return try injector.get(ArityRoot13.self)
    case 14: return try injector.get(ArityRoot14.self)
    default: throw ProvisionError.outsideScope(BindingKey(Int.self), hint: "no root of arity \(arity)")
    }
}

/// The key of the root of `arity` and of the leaf at `position`.
private func rootKey(_ arity: Int) -> BindingKey {
    switch arity {
    case 1: BindingKey(ArityRoot1.self)
    case 2: BindingKey(ArityRoot2.self)
    case 3: BindingKey(ArityRoot3.self)
    case 4: BindingKey(ArityRoot4.self)
    case 5: BindingKey(ArityRoot5.self)
    case 6: BindingKey(ArityRoot6.self)
    case 7: BindingKey(ArityRoot7.self)
    case 8: BindingKey(ArityRoot8.self)
    case 9: BindingKey(ArityRoot9.self)
    case 10: BindingKey(ArityRoot10.self)
    case 11: BindingKey(ArityRoot11.self)
    case 12: BindingKey(ArityRoot12.self)
    case 13: BindingKey(ArityRoot13.self)
    case 14: BindingKey(ArityRoot14.self)
    default: BindingKey(Int.self)
    }
}

private func leafKey(_ position: Int) -> BindingKey {
    switch position {
    case 0: BindingKey(ArityLeaf0.self)
    case 1: BindingKey(ArityLeaf1.self)
    case 2: BindingKey(ArityLeaf2.self)
    case 3: BindingKey(ArityLeaf3.self)
    case 4: BindingKey(ArityLeaf4.self)
    case 5: BindingKey(ArityLeaf5.self)
    case 6: BindingKey(ArityLeaf6.self)
    case 7: BindingKey(ArityLeaf7.self)
    case 8: BindingKey(ArityLeaf8.self)
    case 9: BindingKey(ArityLeaf9.self)
    case 10: BindingKey(ArityLeaf10.self)
    case 11: BindingKey(ArityLeaf11.self)
    case 12: BindingKey(ArityLeaf12.self)
    case 13: BindingKey(ArityLeaf13.self)
    default: BindingKey(Int.self)
    }
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
                    bindRoot(binder, arity: arity)
                }
            ],
            configuration: Injector.Configuration(validatesOnCreation: false)
        )
    }

    @Test("a missing dependency at any position is notBound, with the path root -> leaf", arguments: positions)
    func missing(arity: Int, position: Int) throws {
        let injector = try Self.injector(arity: arity, position: position, leaf: .missing)
        for _ in 0..<2 {
            let error = #expect(throws: ProvisionError.self) { try resolveRoot(injector, arity: arity) }
            #expect(error?.code == .notBound)
            #expect(error?.path == [rootKey(arity), leafKey(position)])
        }
        let validation = #expect(throws: ProvisionError.self) { try injector.validate() }
        #expect(validation != nil)
    }

    @Test(
        "a dependency that throws at any position is factoryFailed, with the path and the cause", arguments: positions)
    func throwing(arity: Int, position: Int) throws {
        let injector = try Self.injector(arity: arity, position: position, leaf: .throwing)
        for _ in 0..<2 {
            let error = #expect(throws: ProvisionError.self) { try resolveRoot(injector, arity: arity) }
            #expect(error?.code == .factoryFailed)
            #expect(error?.key == leafKey(position))
            #expect(error?.path == [rootKey(arity), leafKey(position)])
            #expect(error?.cause is LeafFailure)
        }
    }

    @Test("a singleton at any position is shared by every root; the others are new each time", arguments: positions)
    func singleton(arity: Int, position: Int) throws {
        let builds = Counter()
        let injector = try Self.injector(arity: arity, position: position, leaf: .singleton, builds: builds)
        let first = try resolveRoot(injector, arity: arity).leaves
        let second = try resolveRoot(injector, arity: arity).leaves
        #expect(first.count == arity)
        for index in 0..<arity {
            #expect((first[index] === second[index]) == (index == position))
        }
        #expect(builds.value == 1)
    }

    @Test("8 threads racing the first request build the singleton at any position exactly once", arguments: 1...14)
    func firstRequestRace(arity: Int) throws {
        for position in [0, arity / 2, arity - 1] {
            let builds = Counter()
            let injector = try Self.injector(arity: arity, position: position, leaf: .singleton, builds: builds)
            let barrier = Barrier(count: 8)
            let shared = Locked<Set<ObjectIdentifier>>([])
            let failures = Counter()
            let finished = runThreads(8) { _ in
                barrier.arriveAndWait()
                guard let root = try? resolveRoot(injector, arity: arity) else {
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
