import Dispatch
import Foundation
import Synchronization

@testable import Provision

// Generated for the Hunt9 arity suites: the parts H9Part<H9T0> ... H9Part<H9T11>, a root of every arity
// 0 ... 12 (H9Root0 ... H9Root12, bound with the fixed-arity `to(Root.init(a0:...))` forms) and a root of
// optional parameters of every arity 1 ... 12 (H9OptRoot1 ... H9OptRoot12).

enum H9T0 {}
enum H9T1 {}
enum H9T2 {}
enum H9T3 {}
enum H9T4 {}
enum H9T5 {}
enum H9T6 {}
enum H9T7 {}
enum H9T8 {}
enum H9T9 {}
enum H9T10 {}
enum H9T11 {}

/// What the parts' factories do and what happened to them, by position.
final class H9Ledger: Sendable {
    let builds = (0..<12).map { _ in Counter() }
    let disposals = (0..<12).map { _ in Counter() }
    /// The position whose factory throws, or -1.
    let failing = Atomic(-1)
    /// The position whose factory holds on `hold`, or -1 (only its first build holds).
    let holding = Atomic(-1)
    let hold = Hunt5.Hold()

    struct Failure: Error, Equatable {
        let index: Int
    }

    func make(_ index: Int) throws {
        let build = builds[index].increment()
        if index == holding.load(ordering: .relaxed), build == 1 { hold.run() }
        if index == failing.load(ordering: .relaxed) { throw Failure(index: index) }
    }
}

/// A part at one position: disposable, recording its disposal.
final class H9Part<Tag>: Disposable {
    let ledger: H9Ledger
    let index: Int
    init(ledger: H9Ledger, index: Int) {
        self.ledger = ledger
        self.index = index
    }
    func dispose() { ledger.disposals[index].increment() }
}

/// A root, whatever its arity: its parameters in order (`nil` for an optional one that was `nil`).
protocol H9AnyRoot: AnyObject, Sendable {
    var parts: [(any AnyObject & Sendable)?] { get }
}

enum H9Arity {
    /// Binds the part at `index` in `scope`.
    static func bindPart<Tag>(_ binder: Binder, _ tag: Tag.Type, index: Int, ledger: H9Ledger, scope: Scope) {
        binder.bind(H9Part<Tag>.self).to { () throws -> H9Part<Tag> in
            try ledger.make(index)
            return H9Part<Tag>(ledger: ledger, index: index)
        }.in(scope)
    }

    /// Binds the parts at the positions `0 ..< count` for which `isBound` holds, in `scope(index)`.
    static func bindParts(
        _ binder: Binder,
        count: Int,
        ledger: H9Ledger,
        isBound: (Int) -> Bool = { _ in true },
        scope: (Int) -> Scope
    ) {
        if 0 < count, isBound(0) { bindPart(binder, H9T0.self, index: 0, ledger: ledger, scope: scope(0)) }
        if 1 < count, isBound(1) { bindPart(binder, H9T1.self, index: 1, ledger: ledger, scope: scope(1)) }
        if 2 < count, isBound(2) { bindPart(binder, H9T2.self, index: 2, ledger: ledger, scope: scope(2)) }
        if 3 < count, isBound(3) { bindPart(binder, H9T3.self, index: 3, ledger: ledger, scope: scope(3)) }
        if 4 < count, isBound(4) { bindPart(binder, H9T4.self, index: 4, ledger: ledger, scope: scope(4)) }
        if 5 < count, isBound(5) { bindPart(binder, H9T5.self, index: 5, ledger: ledger, scope: scope(5)) }
        if 6 < count, isBound(6) { bindPart(binder, H9T6.self, index: 6, ledger: ledger, scope: scope(6)) }
        if 7 < count, isBound(7) { bindPart(binder, H9T7.self, index: 7, ledger: ledger, scope: scope(7)) }
        if 8 < count, isBound(8) { bindPart(binder, H9T8.self, index: 8, ledger: ledger, scope: scope(8)) }
        if 9 < count, isBound(9) { bindPart(binder, H9T9.self, index: 9, ledger: ledger, scope: scope(9)) }
        if 10 < count, isBound(10) { bindPart(binder, H9T10.self, index: 10, ledger: ledger, scope: scope(10)) }
        if 11 < count, isBound(11) { bindPart(binder, H9T11.self, index: 11, ledger: ledger, scope: scope(11)) }
    }

    /// The key of the part at `index`.
    static func partKey(_ index: Int) -> BindingKey {
        switch index {
        case 0: BindingKey(H9Part<H9T0>.self)
        case 1: BindingKey(H9Part<H9T1>.self)
        case 2: BindingKey(H9Part<H9T2>.self)
        case 3: BindingKey(H9Part<H9T3>.self)
        case 4: BindingKey(H9Part<H9T4>.self)
        case 5: BindingKey(H9Part<H9T5>.self)
        case 6: BindingKey(H9Part<H9T6>.self)
        case 7: BindingKey(H9Part<H9T7>.self)
        case 8: BindingKey(H9Part<H9T8>.self)
        case 9: BindingKey(H9Part<H9T9>.self)
        case 10: BindingKey(H9Part<H9T10>.self)
        case 11: BindingKey(H9Part<H9T11>.self)
        default: fatalError("no part \(index)")
        }
    }

    /// The key of the root of `arity` (of optional parameters when `optional`).
    static func rootKey(_ arity: Int, optional: Bool = false) -> BindingKey {
        switch (arity, optional) {
        case (0, false): BindingKey(H9Root0.self)
        case (1, false): BindingKey(H9Root1.self)
        case (2, false): BindingKey(H9Root2.self)
        case (3, false): BindingKey(H9Root3.self)
        case (4, false): BindingKey(H9Root4.self)
        case (5, false): BindingKey(H9Root5.self)
        case (6, false): BindingKey(H9Root6.self)
        case (7, false): BindingKey(H9Root7.self)
        case (8, false): BindingKey(H9Root8.self)
        case (9, false): BindingKey(H9Root9.self)
        case (10, false): BindingKey(H9Root10.self)
        case (11, false): BindingKey(H9Root11.self)
        case (12, false): BindingKey(H9Root12.self)
        case (1, true): BindingKey(H9OptRoot1.self)
        case (2, true): BindingKey(H9OptRoot2.self)
        case (3, true): BindingKey(H9OptRoot3.self)
        case (4, true): BindingKey(H9OptRoot4.self)
        case (5, true): BindingKey(H9OptRoot5.self)
        case (6, true): BindingKey(H9OptRoot6.self)
        case (7, true): BindingKey(H9OptRoot7.self)
        case (8, true): BindingKey(H9OptRoot8.self)
        case (9, true): BindingKey(H9OptRoot9.self)
        case (10, true): BindingKey(H9OptRoot10.self)
        case (11, true): BindingKey(H9OptRoot11.self)
        case (12, true): BindingKey(H9OptRoot12.self)
        default: fatalError("no root \(arity)")
        }
    }

    /// Binds the root of `arity` to its initializer, in `scope`.
    static func bindRoot(_ binder: Binder, arity: Int, optional: Bool = false, scope: Scope) {
        switch (arity, optional) {
        case (0, false): binder.bind(H9Root0.self).to(H9Root0.init).in(scope)
        case (1, false): binder.bind(H9Root1.self).to(H9Root1.init(a0:)).in(scope)
        case (2, false): binder.bind(H9Root2.self).to(H9Root2.init(a0:a1:)).in(scope)
        case (3, false): binder.bind(H9Root3.self).to(H9Root3.init(a0:a1:a2:)).in(scope)
        case (4, false): binder.bind(H9Root4.self).to(H9Root4.init(a0:a1:a2:a3:)).in(scope)
        case (5, false): binder.bind(H9Root5.self).to(H9Root5.init(a0:a1:a2:a3:a4:)).in(scope)
        case (6, false): binder.bind(H9Root6.self).to(H9Root6.init(a0:a1:a2:a3:a4:a5:)).in(scope)
        case (7, false): binder.bind(H9Root7.self).to(H9Root7.init(a0:a1:a2:a3:a4:a5:a6:)).in(scope)
        case (8, false): binder.bind(H9Root8.self).to(H9Root8.init(a0:a1:a2:a3:a4:a5:a6:a7:)).in(scope)
        case (9, false): binder.bind(H9Root9.self).to(H9Root9.init(a0:a1:a2:a3:a4:a5:a6:a7:a8:)).in(scope)
        case (10, false): binder.bind(H9Root10.self).to(H9Root10.init(a0:a1:a2:a3:a4:a5:a6:a7:a8:a9:)).in(scope)
        case (11, false): binder.bind(H9Root11.self).to(H9Root11.init(a0:a1:a2:a3:a4:a5:a6:a7:a8:a9:a10:)).in(scope)
        case (12, false): binder.bind(H9Root12.self).to(H9Root12.init(a0:a1:a2:a3:a4:a5:a6:a7:a8:a9:a10:a11:)).in(scope)
        case (1, true): binder.bind(H9OptRoot1.self).to(H9OptRoot1.init(a0:)).in(scope)
        case (2, true): binder.bind(H9OptRoot2.self).to(H9OptRoot2.init(a0:a1:)).in(scope)
        case (3, true): binder.bind(H9OptRoot3.self).to(H9OptRoot3.init(a0:a1:a2:)).in(scope)
        case (4, true): binder.bind(H9OptRoot4.self).to(H9OptRoot4.init(a0:a1:a2:a3:)).in(scope)
        case (5, true): binder.bind(H9OptRoot5.self).to(H9OptRoot5.init(a0:a1:a2:a3:a4:)).in(scope)
        case (6, true): binder.bind(H9OptRoot6.self).to(H9OptRoot6.init(a0:a1:a2:a3:a4:a5:)).in(scope)
        case (7, true): binder.bind(H9OptRoot7.self).to(H9OptRoot7.init(a0:a1:a2:a3:a4:a5:a6:)).in(scope)
        case (8, true): binder.bind(H9OptRoot8.self).to(H9OptRoot8.init(a0:a1:a2:a3:a4:a5:a6:a7:)).in(scope)
        case (9, true): binder.bind(H9OptRoot9.self).to(H9OptRoot9.init(a0:a1:a2:a3:a4:a5:a6:a7:a8:)).in(scope)
        case (10, true): binder.bind(H9OptRoot10.self).to(H9OptRoot10.init(a0:a1:a2:a3:a4:a5:a6:a7:a8:a9:)).in(scope)
        case (11, true):
            binder.bind(H9OptRoot11.self).to(H9OptRoot11.init(a0:a1:a2:a3:a4:a5:a6:a7:a8:a9:a10:)).in(scope)
        case (12, true):
            binder.bind(H9OptRoot12.self).to(H9OptRoot12.init(a0:a1:a2:a3:a4:a5:a6:a7:a8:a9:a10:a11:)).in(scope)
        default: fatalError("no root \(arity)")
        }
    }

    /// The root of `arity`, resolved synchronously.
    static func root(_ injector: Injector, arity: Int, optional: Bool = false) throws(ProvisionError) -> any H9AnyRoot {
        switch (arity, optional) {
        case (0, false): try injector.get(H9Root0.self)
        case (1, false): try injector.get(H9Root1.self)
        case (2, false): try injector.get(H9Root2.self)
        case (3, false): try injector.get(H9Root3.self)
        case (4, false): try injector.get(H9Root4.self)
        case (5, false): try injector.get(H9Root5.self)
        case (6, false): try injector.get(H9Root6.self)
        case (7, false): try injector.get(H9Root7.self)
        case (8, false): try injector.get(H9Root8.self)
        case (9, false): try injector.get(H9Root9.self)
        case (10, false): try injector.get(H9Root10.self)
        case (11, false): try injector.get(H9Root11.self)
        case (12, false): try injector.get(H9Root12.self)
        case (1, true): try injector.get(H9OptRoot1.self)
        case (2, true): try injector.get(H9OptRoot2.self)
        case (3, true): try injector.get(H9OptRoot3.self)
        case (4, true): try injector.get(H9OptRoot4.self)
        case (5, true): try injector.get(H9OptRoot5.self)
        case (6, true): try injector.get(H9OptRoot6.self)
        case (7, true): try injector.get(H9OptRoot7.self)
        case (8, true): try injector.get(H9OptRoot8.self)
        case (9, true): try injector.get(H9OptRoot9.self)
        case (10, true): try injector.get(H9OptRoot10.self)
        case (11, true): try injector.get(H9OptRoot11.self)
        case (12, true): try injector.get(H9OptRoot12.self)
        default: fatalError("no root \(arity)")
        }
    }

    /// The root of `arity`, resolved asynchronously.
    static func rootAsync(
        _ injector: Injector,
        arity: Int,
        optional: Bool = false
    ) async throws(ProvisionError) -> any H9AnyRoot {
        switch (arity, optional) {
        case (0, false): try await injector.get(H9Root0.self)
        case (1, false): try await injector.get(H9Root1.self)
        case (2, false): try await injector.get(H9Root2.self)
        case (3, false): try await injector.get(H9Root3.self)
        case (4, false): try await injector.get(H9Root4.self)
        case (5, false): try await injector.get(H9Root5.self)
        case (6, false): try await injector.get(H9Root6.self)
        case (7, false): try await injector.get(H9Root7.self)
        case (8, false): try await injector.get(H9Root8.self)
        case (9, false): try await injector.get(H9Root9.self)
        case (10, false): try await injector.get(H9Root10.self)
        case (11, false): try await injector.get(H9Root11.self)
        case (12, false): try await injector.get(H9Root12.self)
        case (1, true): try await injector.get(H9OptRoot1.self)
        case (2, true): try await injector.get(H9OptRoot2.self)
        case (3, true): try await injector.get(H9OptRoot3.self)
        case (4, true): try await injector.get(H9OptRoot4.self)
        case (5, true): try await injector.get(H9OptRoot5.self)
        case (6, true): try await injector.get(H9OptRoot6.self)
        case (7, true): try await injector.get(H9OptRoot7.self)
        case (8, true): try await injector.get(H9OptRoot8.self)
        case (9, true): try await injector.get(H9OptRoot9.self)
        case (10, true): try await injector.get(H9OptRoot10.self)
        case (11, true): try await injector.get(H9OptRoot11.self)
        case (12, true): try await injector.get(H9OptRoot12.self)
        default: fatalError("no root \(arity)")
        }
    }

    /// The part at `index`, resolved synchronously.
    static func part(_ injector: Injector, _ index: Int) throws(ProvisionError) -> any AnyObject & Sendable {
        switch index {
        case 0: try injector.get(H9Part<H9T0>.self)
        case 1: try injector.get(H9Part<H9T1>.self)
        case 2: try injector.get(H9Part<H9T2>.self)
        case 3: try injector.get(H9Part<H9T3>.self)
        case 4: try injector.get(H9Part<H9T4>.self)
        case 5: try injector.get(H9Part<H9T5>.self)
        case 6: try injector.get(H9Part<H9T6>.self)
        case 7: try injector.get(H9Part<H9T7>.self)
        case 8: try injector.get(H9Part<H9T8>.self)
        case 9: try injector.get(H9Part<H9T9>.self)
        case 10: try injector.get(H9Part<H9T10>.self)
        case 11: try injector.get(H9Part<H9T11>.self)
        default: fatalError("no part \(index)")
        }
    }

    /// Threads waiting at the gate of the root of `arity`, and at the part at `index`.
    static func rootWaiters(_ injector: Injector, arity: Int) -> (threads: Int, tasks: Int) {
        switch arity {
        case 0: injector.gateWaiters(of: H9Root0.self) ?? (0, 0)
        case 1: injector.gateWaiters(of: H9Root1.self) ?? (0, 0)
        case 2: injector.gateWaiters(of: H9Root2.self) ?? (0, 0)
        case 3: injector.gateWaiters(of: H9Root3.self) ?? (0, 0)
        case 4: injector.gateWaiters(of: H9Root4.self) ?? (0, 0)
        case 5: injector.gateWaiters(of: H9Root5.self) ?? (0, 0)
        case 6: injector.gateWaiters(of: H9Root6.self) ?? (0, 0)
        case 7: injector.gateWaiters(of: H9Root7.self) ?? (0, 0)
        case 8: injector.gateWaiters(of: H9Root8.self) ?? (0, 0)
        case 9: injector.gateWaiters(of: H9Root9.self) ?? (0, 0)
        case 10: injector.gateWaiters(of: H9Root10.self) ?? (0, 0)
        case 11: injector.gateWaiters(of: H9Root11.self) ?? (0, 0)
        case 12: injector.gateWaiters(of: H9Root12.self) ?? (0, 0)
        default: (0, 0)
        }
    }

    static func partWaiters(_ injector: Injector, _ index: Int) -> (threads: Int, tasks: Int) {
        switch index {
        case 0: injector.gateWaiters(of: H9Part<H9T0>.self) ?? (0, 0)
        case 1: injector.gateWaiters(of: H9Part<H9T1>.self) ?? (0, 0)
        case 2: injector.gateWaiters(of: H9Part<H9T2>.self) ?? (0, 0)
        case 3: injector.gateWaiters(of: H9Part<H9T3>.self) ?? (0, 0)
        case 4: injector.gateWaiters(of: H9Part<H9T4>.self) ?? (0, 0)
        case 5: injector.gateWaiters(of: H9Part<H9T5>.self) ?? (0, 0)
        case 6: injector.gateWaiters(of: H9Part<H9T6>.self) ?? (0, 0)
        case 7: injector.gateWaiters(of: H9Part<H9T7>.self) ?? (0, 0)
        case 8: injector.gateWaiters(of: H9Part<H9T8>.self) ?? (0, 0)
        case 9: injector.gateWaiters(of: H9Part<H9T9>.self) ?? (0, 0)
        case 10: injector.gateWaiters(of: H9Part<H9T10>.self) ?? (0, 0)
        case 11: injector.gateWaiters(of: H9Part<H9T11>.self) ?? (0, 0)
        default: (0, 0)
        }
    }
}

final class H9Root0: H9AnyRoot {
    let parts: [(any AnyObject & Sendable)?]
    init() { parts = [] }
}

final class H9Root1: H9AnyRoot {
    let parts: [(any AnyObject & Sendable)?]
    init(a0: H9Part<H9T0>) { parts = [a0] }
}

final class H9Root2: H9AnyRoot {
    let parts: [(any AnyObject & Sendable)?]
    init(a0: H9Part<H9T0>, a1: H9Part<H9T1>) { parts = [a0, a1] }
}

final class H9Root3: H9AnyRoot {
    let parts: [(any AnyObject & Sendable)?]
    init(a0: H9Part<H9T0>, a1: H9Part<H9T1>, a2: H9Part<H9T2>) { parts = [a0, a1, a2] }
}

final class H9Root4: H9AnyRoot {
    let parts: [(any AnyObject & Sendable)?]
    init(a0: H9Part<H9T0>, a1: H9Part<H9T1>, a2: H9Part<H9T2>, a3: H9Part<H9T3>) { parts = [a0, a1, a2, a3] }
}

final class H9Root5: H9AnyRoot {
    let parts: [(any AnyObject & Sendable)?]
    init(a0: H9Part<H9T0>, a1: H9Part<H9T1>, a2: H9Part<H9T2>, a3: H9Part<H9T3>, a4: H9Part<H9T4>) {
        parts = [a0, a1, a2, a3, a4]
    }
}

final class H9Root6: H9AnyRoot {
    let parts: [(any AnyObject & Sendable)?]
    init(a0: H9Part<H9T0>, a1: H9Part<H9T1>, a2: H9Part<H9T2>, a3: H9Part<H9T3>, a4: H9Part<H9T4>, a5: H9Part<H9T5>) {
        parts = [a0, a1, a2, a3, a4, a5]
    }
}

final class H9Root7: H9AnyRoot {
    let parts: [(any AnyObject & Sendable)?]
    init(
        a0: H9Part<H9T0>, a1: H9Part<H9T1>, a2: H9Part<H9T2>, a3: H9Part<H9T3>, a4: H9Part<H9T4>, a5: H9Part<H9T5>,
        a6: H9Part<H9T6>
    ) { parts = [a0, a1, a2, a3, a4, a5, a6] }
}

final class H9Root8: H9AnyRoot {
    let parts: [(any AnyObject & Sendable)?]
    init(
        a0: H9Part<H9T0>, a1: H9Part<H9T1>, a2: H9Part<H9T2>, a3: H9Part<H9T3>, a4: H9Part<H9T4>, a5: H9Part<H9T5>,
        a6: H9Part<H9T6>, a7: H9Part<H9T7>
    ) { parts = [a0, a1, a2, a3, a4, a5, a6, a7] }
}

final class H9Root9: H9AnyRoot {
    let parts: [(any AnyObject & Sendable)?]
    init(
        a0: H9Part<H9T0>, a1: H9Part<H9T1>, a2: H9Part<H9T2>, a3: H9Part<H9T3>, a4: H9Part<H9T4>, a5: H9Part<H9T5>,
        a6: H9Part<H9T6>, a7: H9Part<H9T7>, a8: H9Part<H9T8>
    ) { parts = [a0, a1, a2, a3, a4, a5, a6, a7, a8] }
}

final class H9Root10: H9AnyRoot {
    let parts: [(any AnyObject & Sendable)?]
    init(
        a0: H9Part<H9T0>, a1: H9Part<H9T1>, a2: H9Part<H9T2>, a3: H9Part<H9T3>, a4: H9Part<H9T4>, a5: H9Part<H9T5>,
        a6: H9Part<H9T6>, a7: H9Part<H9T7>, a8: H9Part<H9T8>, a9: H9Part<H9T9>
    ) { parts = [a0, a1, a2, a3, a4, a5, a6, a7, a8, a9] }
}

final class H9Root11: H9AnyRoot {
    let parts: [(any AnyObject & Sendable)?]
    init(
        a0: H9Part<H9T0>, a1: H9Part<H9T1>, a2: H9Part<H9T2>, a3: H9Part<H9T3>, a4: H9Part<H9T4>, a5: H9Part<H9T5>,
        a6: H9Part<H9T6>, a7: H9Part<H9T7>, a8: H9Part<H9T8>, a9: H9Part<H9T9>, a10: H9Part<H9T10>
    ) { parts = [a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10] }
}

final class H9Root12: H9AnyRoot {
    let parts: [(any AnyObject & Sendable)?]
    init(
        a0: H9Part<H9T0>, a1: H9Part<H9T1>, a2: H9Part<H9T2>, a3: H9Part<H9T3>, a4: H9Part<H9T4>, a5: H9Part<H9T5>,
        a6: H9Part<H9T6>, a7: H9Part<H9T7>, a8: H9Part<H9T8>, a9: H9Part<H9T9>, a10: H9Part<H9T10>, a11: H9Part<H9T11>
    ) { parts = [a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11] }
}

final class H9OptRoot1: H9AnyRoot {
    let parts: [(any AnyObject & Sendable)?]
    init(a0: H9Part<H9T0>?) { parts = [a0] }
}

final class H9OptRoot2: H9AnyRoot {
    let parts: [(any AnyObject & Sendable)?]
    init(a0: H9Part<H9T0>?, a1: H9Part<H9T1>?) { parts = [a0, a1] }
}

final class H9OptRoot3: H9AnyRoot {
    let parts: [(any AnyObject & Sendable)?]
    init(a0: H9Part<H9T0>?, a1: H9Part<H9T1>?, a2: H9Part<H9T2>?) { parts = [a0, a1, a2] }
}

final class H9OptRoot4: H9AnyRoot {
    let parts: [(any AnyObject & Sendable)?]
    init(a0: H9Part<H9T0>?, a1: H9Part<H9T1>?, a2: H9Part<H9T2>?, a3: H9Part<H9T3>?) { parts = [a0, a1, a2, a3] }
}

final class H9OptRoot5: H9AnyRoot {
    let parts: [(any AnyObject & Sendable)?]
    init(a0: H9Part<H9T0>?, a1: H9Part<H9T1>?, a2: H9Part<H9T2>?, a3: H9Part<H9T3>?, a4: H9Part<H9T4>?) {
        parts = [a0, a1, a2, a3, a4]
    }
}

final class H9OptRoot6: H9AnyRoot {
    let parts: [(any AnyObject & Sendable)?]
    init(
        a0: H9Part<H9T0>?, a1: H9Part<H9T1>?, a2: H9Part<H9T2>?, a3: H9Part<H9T3>?, a4: H9Part<H9T4>?, a5: H9Part<H9T5>?
    ) { parts = [a0, a1, a2, a3, a4, a5] }
}

final class H9OptRoot7: H9AnyRoot {
    let parts: [(any AnyObject & Sendable)?]
    init(
        a0: H9Part<H9T0>?, a1: H9Part<H9T1>?, a2: H9Part<H9T2>?, a3: H9Part<H9T3>?, a4: H9Part<H9T4>?,
        a5: H9Part<H9T5>?, a6: H9Part<H9T6>?
    ) { parts = [a0, a1, a2, a3, a4, a5, a6] }
}

final class H9OptRoot8: H9AnyRoot {
    let parts: [(any AnyObject & Sendable)?]
    init(
        a0: H9Part<H9T0>?, a1: H9Part<H9T1>?, a2: H9Part<H9T2>?, a3: H9Part<H9T3>?, a4: H9Part<H9T4>?,
        a5: H9Part<H9T5>?, a6: H9Part<H9T6>?, a7: H9Part<H9T7>?
    ) { parts = [a0, a1, a2, a3, a4, a5, a6, a7] }
}

final class H9OptRoot9: H9AnyRoot {
    let parts: [(any AnyObject & Sendable)?]
    init(
        a0: H9Part<H9T0>?, a1: H9Part<H9T1>?, a2: H9Part<H9T2>?, a3: H9Part<H9T3>?, a4: H9Part<H9T4>?,
        a5: H9Part<H9T5>?, a6: H9Part<H9T6>?, a7: H9Part<H9T7>?, a8: H9Part<H9T8>?
    ) { parts = [a0, a1, a2, a3, a4, a5, a6, a7, a8] }
}

final class H9OptRoot10: H9AnyRoot {
    let parts: [(any AnyObject & Sendable)?]
    init(
        a0: H9Part<H9T0>?, a1: H9Part<H9T1>?, a2: H9Part<H9T2>?, a3: H9Part<H9T3>?, a4: H9Part<H9T4>?,
        a5: H9Part<H9T5>?, a6: H9Part<H9T6>?, a7: H9Part<H9T7>?, a8: H9Part<H9T8>?, a9: H9Part<H9T9>?
    ) { parts = [a0, a1, a2, a3, a4, a5, a6, a7, a8, a9] }
}

final class H9OptRoot11: H9AnyRoot {
    let parts: [(any AnyObject & Sendable)?]
    init(
        a0: H9Part<H9T0>?, a1: H9Part<H9T1>?, a2: H9Part<H9T2>?, a3: H9Part<H9T3>?, a4: H9Part<H9T4>?,
        a5: H9Part<H9T5>?, a6: H9Part<H9T6>?, a7: H9Part<H9T7>?, a8: H9Part<H9T8>?, a9: H9Part<H9T9>?,
        a10: H9Part<H9T10>?
    ) { parts = [a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10] }
}

final class H9OptRoot12: H9AnyRoot {
    let parts: [(any AnyObject & Sendable)?]
    init(
        a0: H9Part<H9T0>?, a1: H9Part<H9T1>?, a2: H9Part<H9T2>?, a3: H9Part<H9T3>?, a4: H9Part<H9T4>?,
        a5: H9Part<H9T5>?, a6: H9Part<H9T6>?, a7: H9Part<H9T7>?, a8: H9Part<H9T8>?, a9: H9Part<H9T9>?,
        a10: H9Part<H9T10>?, a11: H9Part<H9T11>?
    ) { parts = [a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11] }
}
