import Dispatch
import Foundation
import Testing

@testable import Provision

/// Every constructor arity (1 ... 13 parameters; 13 takes the parameter-pack form) through the async
/// API, with singletons among the dependencies and the last one being built by a thread.
@Suite("Hunt2: every arity through the async API", .timeLimit(.minutes(1)))
struct Hunt2ArityTests {
    enum T0 {}
    enum T1 {}
    enum T2 {}
    enum T3 {}
    enum T4 {}
    enum T5 {}
    enum T6 {}
    enum T7 {}
    enum T8 {}
    enum T9 {}
    enum T10 {}
    enum T11 {}
    enum T12 {}
    final class D<Tag>: Sendable {}
    final class Arity<Tag>: Sendable {
        let parts: [any AnyObject & Sendable]
        init(_ parts: [any AnyObject & Sendable]) { self.parts = parts }
    }
    struct Boom: Error {}

    static func partScope(_ index: Int) -> Scope { index % 2 == 0 ? .singleton : .transient }
    static func isBound(_ index: Int, _ count: Int) -> Bool { index < count }
    static func isLast(_ index: Int, _ count: Int) -> Bool { index == count - 1 }

    /// Binds D<T0> ... D<T(n-1)>: even ones singletons, the last one held by `hold` (or failing).
    static func bindParts(_ binder: Binder, count: Int, hold: Hunt2.Hold?, fails: Bool) {
        if isBound(0, count) {
            if isLast(0, count) {
                binder.bind(D<T0>.self).to { _ -> D<T0> in
                    hold?.run()
                    if fails { throw Boom() }
                    return D<T0>()
                }.in(partScope(0))
            } else {
                binder.bind(D<T0>.self).to { D<T0>() }.in(partScope(0))
            }
        }
        if isBound(1, count) {
            if isLast(1, count) {
                binder.bind(D<T1>.self).to { _ -> D<T1> in
                    hold?.run()
                    if fails { throw Boom() }
                    return D<T1>()
                }.in(partScope(1))
            } else {
                binder.bind(D<T1>.self).to { D<T1>() }.in(partScope(1))
            }
        }
        if isBound(2, count) {
            if isLast(2, count) {
                binder.bind(D<T2>.self).to { _ -> D<T2> in
                    hold?.run()
                    if fails { throw Boom() }
                    return D<T2>()
                }.in(partScope(2))
            } else {
                binder.bind(D<T2>.self).to { D<T2>() }.in(partScope(2))
            }
        }
        if isBound(3, count) {
            if isLast(3, count) {
                binder.bind(D<T3>.self).to { _ -> D<T3> in
                    hold?.run()
                    if fails { throw Boom() }
                    return D<T3>()
                }.in(partScope(3))
            } else {
                binder.bind(D<T3>.self).to { D<T3>() }.in(partScope(3))
            }
        }
        if isBound(4, count) {
            if isLast(4, count) {
                binder.bind(D<T4>.self).to { _ -> D<T4> in
                    hold?.run()
                    if fails { throw Boom() }
                    return D<T4>()
                }.in(partScope(4))
            } else {
                binder.bind(D<T4>.self).to { D<T4>() }.in(partScope(4))
            }
        }
        if isBound(5, count) {
            if isLast(5, count) {
                binder.bind(D<T5>.self).to { _ -> D<T5> in
                    hold?.run()
                    if fails { throw Boom() }
                    return D<T5>()
                }.in(partScope(5))
            } else {
                binder.bind(D<T5>.self).to { D<T5>() }.in(partScope(5))
            }
        }
        if isBound(6, count) {
            if isLast(6, count) {
                binder.bind(D<T6>.self).to { _ -> D<T6> in
                    hold?.run()
                    if fails { throw Boom() }
                    return D<T6>()
                }.in(partScope(6))
            } else {
                binder.bind(D<T6>.self).to { D<T6>() }.in(partScope(6))
            }
        }
        if isBound(7, count) {
            if isLast(7, count) {
                binder.bind(D<T7>.self).to { _ -> D<T7> in
                    hold?.run()
                    if fails { throw Boom() }
                    return D<T7>()
                }.in(partScope(7))
            } else {
                binder.bind(D<T7>.self).to { D<T7>() }.in(partScope(7))
            }
        }
        if isBound(8, count) {
            if isLast(8, count) {
                binder.bind(D<T8>.self).to { _ -> D<T8> in
                    hold?.run()
                    if fails { throw Boom() }
                    return D<T8>()
                }.in(partScope(8))
            } else {
                binder.bind(D<T8>.self).to { D<T8>() }.in(partScope(8))
            }
        }
        if isBound(9, count) {
            if isLast(9, count) {
                binder.bind(D<T9>.self).to { _ -> D<T9> in
                    hold?.run()
                    if fails { throw Boom() }
                    return D<T9>()
                }.in(partScope(9))
            } else {
                binder.bind(D<T9>.self).to { D<T9>() }.in(partScope(9))
            }
        }
        if isBound(10, count) {
            if isLast(10, count) {
                binder.bind(D<T10>.self).to { _ -> D<T10> in
                    hold?.run()
                    if fails { throw Boom() }
                    return D<T10>()
                }.in(partScope(10))
            } else {
                binder.bind(D<T10>.self).to { D<T10>() }.in(partScope(10))
            }
        }
        if isBound(11, count) {
            if isLast(11, count) {
                binder.bind(D<T11>.self).to { _ -> D<T11> in
                    hold?.run()
                    if fails { throw Boom() }
                    return D<T11>()
                }.in(partScope(11))
            } else {
                binder.bind(D<T11>.self).to { D<T11>() }.in(partScope(11))
            }
        }
        if isBound(12, count) {
            if isLast(12, count) {
                binder.bind(D<T12>.self).to { _ -> D<T12> in
                    hold?.run()
                    if fails { throw Boom() }
                    return D<T12>()
                }.in(partScope(12))
            } else {
                binder.bind(D<T12>.self).to { D<T12>() }.in(partScope(12))
            }
        }
    }

    /// Binds Arity<T(n-1)> to a constructor of n parameters, in `scope`.
    static func bindArity(_ binder: Binder, count: Int, scope: Scope) {
        switch count {
        case 1:
            binder.bind(Arity<T0>.self).to { (p0: D<T0>) in Arity<T0>([p0]) }.in(scope)
        case 2:
            binder.bind(Arity<T1>.self).to { (p0: D<T0>, p1: D<T1>) in Arity<T1>([p0, p1]) }.in(scope)
        case 3:
            binder.bind(Arity<T2>.self).to { (p0: D<T0>, p1: D<T1>, p2: D<T2>) in Arity<T2>([p0, p1, p2]) }.in(scope)
        case 4:
            binder.bind(Arity<T3>.self).to { (p0: D<T0>, p1: D<T1>, p2: D<T2>, p3: D<T3>) in
                Arity<T3>([p0, p1, p2, p3])
            }.in(scope)
        case 5:
            binder.bind(Arity<T4>.self).to { (p0: D<T0>, p1: D<T1>, p2: D<T2>, p3: D<T3>, p4: D<T4>) in
                Arity<T4>([p0, p1, p2, p3, p4])
            }.in(scope)
        case 6:
            binder.bind(Arity<T5>.self).to { (p0: D<T0>, p1: D<T1>, p2: D<T2>, p3: D<T3>, p4: D<T4>, p5: D<T5>) in
                Arity<T5>([p0, p1, p2, p3, p4, p5])
            }.in(scope)
        case 7:
            binder.bind(Arity<T6>.self).to {
                (p0: D<T0>, p1: D<T1>, p2: D<T2>, p3: D<T3>, p4: D<T4>, p5: D<T5>, p6: D<T6>) in
                Arity<T6>([p0, p1, p2, p3, p4, p5, p6])
            }.in(scope)
        case 8:
            binder.bind(Arity<T7>.self).to {
                (p0: D<T0>, p1: D<T1>, p2: D<T2>, p3: D<T3>, p4: D<T4>, p5: D<T5>, p6: D<T6>, p7: D<T7>) in
                Arity<T7>([p0, p1, p2, p3, p4, p5, p6, p7])
            }.in(scope)
        case 9:
            binder.bind(Arity<T8>.self).to {
                (p0: D<T0>, p1: D<T1>, p2: D<T2>, p3: D<T3>, p4: D<T4>, p5: D<T5>, p6: D<T6>, p7: D<T7>, p8: D<T8>) in
                Arity<T8>([p0, p1, p2, p3, p4, p5, p6, p7, p8])
            }.in(scope)
        case 10:
            binder.bind(Arity<T9>.self).to {
                (
                    p0: D<T0>, p1: D<T1>, p2: D<T2>, p3: D<T3>, p4: D<T4>, p5: D<T5>, p6: D<T6>, p7: D<T7>, p8: D<T8>,
                    p9: D<T9>
                ) in Arity<T9>([p0, p1, p2, p3, p4, p5, p6, p7, p8, p9])
            }.in(scope)
        case 11:
            binder.bind(Arity<T10>.self).to {
                (
                    p0: D<T0>, p1: D<T1>, p2: D<T2>, p3: D<T3>, p4: D<T4>, p5: D<T5>, p6: D<T6>, p7: D<T7>, p8: D<T8>,
                    p9: D<T9>, p10: D<T10>
                ) in Arity<T10>([p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10])
            }.in(scope)
        case 12:
            binder.bind(Arity<T11>.self).to {
                (
                    p0: D<T0>, p1: D<T1>, p2: D<T2>, p3: D<T3>, p4: D<T4>, p5: D<T5>, p6: D<T6>, p7: D<T7>, p8: D<T8>,
                    p9: D<T9>, p10: D<T10>, p11: D<T11>
                ) in Arity<T11>([p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11])
            }.in(scope)
        case 13:
            binder.bind(Arity<T12>.self).to {
                (
                    p0: D<T0>, p1: D<T1>, p2: D<T2>, p3: D<T3>, p4: D<T4>, p5: D<T5>, p6: D<T6>, p7: D<T7>, p8: D<T8>,
                    p9: D<T9>, p10: D<T10>, p11: D<T11>, p12: D<T12>
                ) in Arity<T12>([p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12])
            }.in(scope)
        default: break
        }
    }

    static func getAsync(_ injector: Injector, count: Int) async throws(ProvisionError) -> [any AnyObject & Sendable] {
        switch count {
        case 1: try await injector.get(Arity<T0>.self).parts
        case 2: try await injector.get(Arity<T1>.self).parts
        case 3: try await injector.get(Arity<T2>.self).parts
        case 4: try await injector.get(Arity<T3>.self).parts
        case 5: try await injector.get(Arity<T4>.self).parts
        case 6: try await injector.get(Arity<T5>.self).parts
        case 7: try await injector.get(Arity<T6>.self).parts
        case 8: try await injector.get(Arity<T7>.self).parts
        case 9: try await injector.get(Arity<T8>.self).parts
        case 10: try await injector.get(Arity<T9>.self).parts
        case 11: try await injector.get(Arity<T10>.self).parts
        case 12: try await injector.get(Arity<T11>.self).parts
        case 13: try await injector.get(Arity<T12>.self).parts
        default: []
        }
    }

    static func getSync(_ injector: Injector, count: Int) throws(ProvisionError) -> [any AnyObject & Sendable] {
        switch count {
        case 1: try injector.syncGet(Arity<T0>.self).parts
        case 2: try injector.syncGet(Arity<T1>.self).parts
        case 3: try injector.syncGet(Arity<T2>.self).parts
        case 4: try injector.syncGet(Arity<T3>.self).parts
        case 5: try injector.syncGet(Arity<T4>.self).parts
        case 6: try injector.syncGet(Arity<T5>.self).parts
        case 7: try injector.syncGet(Arity<T6>.self).parts
        case 8: try injector.syncGet(Arity<T7>.self).parts
        case 9: try injector.syncGet(Arity<T8>.self).parts
        case 10: try injector.syncGet(Arity<T9>.self).parts
        case 11: try injector.syncGet(Arity<T10>.self).parts
        case 12: try injector.syncGet(Arity<T11>.self).parts
        case 13: try injector.syncGet(Arity<T12>.self).parts
        default: []
        }
    }

    static func suspendedOnArity(_ injector: Injector, count: Int) -> Int {
        switch count {
        case 1: injector.gateWaiters(of: Arity<T0>.self)?.tasks ?? 0
        case 2: injector.gateWaiters(of: Arity<T1>.self)?.tasks ?? 0
        case 3: injector.gateWaiters(of: Arity<T2>.self)?.tasks ?? 0
        case 4: injector.gateWaiters(of: Arity<T3>.self)?.tasks ?? 0
        case 5: injector.gateWaiters(of: Arity<T4>.self)?.tasks ?? 0
        case 6: injector.gateWaiters(of: Arity<T5>.self)?.tasks ?? 0
        case 7: injector.gateWaiters(of: Arity<T6>.self)?.tasks ?? 0
        case 8: injector.gateWaiters(of: Arity<T7>.self)?.tasks ?? 0
        case 9: injector.gateWaiters(of: Arity<T8>.self)?.tasks ?? 0
        case 10: injector.gateWaiters(of: Arity<T9>.self)?.tasks ?? 0
        case 11: injector.gateWaiters(of: Arity<T10>.self)?.tasks ?? 0
        case 12: injector.gateWaiters(of: Arity<T11>.self)?.tasks ?? 0
        case 13: injector.gateWaiters(of: Arity<T12>.self)?.tasks ?? 0
        default: 0
        }
    }

    static let arities = Array(1...13)

    @Test(
        "the last parameter's singleton is being built by a thread: the async request suspends, then builds",
        arguments: arities)
    func lastBeingBuilt(count: Int) async throws {
        let hold = Hunt2.Hold()
        let injector = try Injector(
            ClosureModule { binder in
                Self.bindParts(binder, count: count, hold: hold, fails: false)
                Self.bindArity(binder, count: count, scope: .singleton)
            }
        )
        // Only a singleton (an odd count puts the last one at an even index) has a gate to wait at.
        let lastIsSingleton = (count - 1) % 2 == 0
        if lastIsSingleton {
            Hunt2.onThread { _ = try? Self.getSync(injector, count: count) }
            #expect(await Hunt2.wait(for: hold.entered))
        } else {
            hold.release.signal()
        }
        let tasks = (0..<3).map { _ in Task.detached { try await Self.getAsync(injector, count: count) } }
        if lastIsSingleton {
            #expect(await Hunt2.until { Self.suspendedOnArity(injector, count: count) == 3 })
            hold.release.signal()
        }
        var firsts: Set<ObjectIdentifier> = []
        for task in tasks {
            let parts = try await task.value
            #expect(parts.count == count)
            firsts.insert(ObjectIdentifier(parts[count - 1]))
        }
        let parts = try Self.getSync(injector, count: count)
        #expect(firsts == [ObjectIdentifier(parts[count - 1])])
        #expect(hold.builds.value == 1)
    }

    @Test(
        "the last parameter's factory fails: the async request's path is the synchronous one's, and a retry builds",
        arguments: arities)
    func lastFails(count: Int) async throws {
        let syncInjector = try Injector(
            ClosureModule { binder in
                Self.bindParts(binder, count: count, hold: nil, fails: true)
                Self.bindArity(binder, count: count, scope: .singleton)
            }
        )
        let asyncInjector = try Injector(
            ClosureModule { binder in
                Self.bindParts(binder, count: count, hold: nil, fails: true)
                Self.bindArity(binder, count: count, scope: .singleton)
            }
        )
        var s: ProvisionError?
        do { _ = try Self.getSync(syncInjector, count: count) } catch { s = error }
        let a = await Hunt2.error { () async throws(ProvisionError) in
            try await Self.getAsync(asyncInjector, count: count)
        }
        #expect(s?.code == .factoryFailed)
        #expect(a?.description == s?.description)
        #expect(a?.path.count == 2)
    }
}
