import Dispatch
import Foundation
import Testing

@testable import Provision

// Hunt 24B, part 4: a 16-parameter constructor binding mixing singleton, transient, scoped, optional
// (bound and unbound), Provider and Lazy parameters, one of them failing at the first, a middle or the
// last position: the error names `Root -> Dep`, no gate stays locked, nothing is built twice, from many
// threads.

enum Hunt24BP0 {}
enum Hunt24BP1 {}
enum Hunt24BP2 {}
enum Hunt24BP3 {}
enum Hunt24BP4 {}
enum Hunt24BP5 {}
enum Hunt24BP6 {}
enum Hunt24BP7 {}
enum Hunt24BP8 {}
enum Hunt24BP9 {}
enum Hunt24BP10 {}
enum Hunt24BP11 {}
enum Hunt24BP12 {}
enum Hunt24BP13 {}
enum Hunt24BP14 {}
enum Hunt24BP15 {}

final class Hunt24BPart<Tag>: Sendable {
    let position: Int
    init(position: Int) { self.position = position }
}

final class Hunt24BWide: Sendable {
    let p0: Hunt24BPart<Hunt24BP0>
    let p1: Hunt24BPart<Hunt24BP1>
    let p2: Hunt24BPart<Hunt24BP2>
    let p3: Hunt24BPart<Hunt24BP3>?
    let p4: Hunt24BPart<Hunt24BP4>?
    let p5: Provider<Hunt24BPart<Hunt24BP5>>
    let p6: Lazy<Hunt24BPart<Hunt24BP6>>
    let p7: Hunt24BPart<Hunt24BP7>
    let p8: Hunt24BPart<Hunt24BP8>
    let p9: Hunt24BPart<Hunt24BP9>
    let p10: Hunt24BPart<Hunt24BP10>
    let p11: Hunt24BPart<Hunt24BP11>
    let p12: Hunt24BPart<Hunt24BP12>
    let p13: Hunt24BPart<Hunt24BP13>
    let p14: Hunt24BPart<Hunt24BP14>
    let p15: Hunt24BPart<Hunt24BP15>

    init(
        p0: Hunt24BPart<Hunt24BP0>, p1: Hunt24BPart<Hunt24BP1>, p2: Hunt24BPart<Hunt24BP2>, p3: Hunt24BPart<Hunt24BP3>?,
        p4: Hunt24BPart<Hunt24BP4>?, p5: Provider<Hunt24BPart<Hunt24BP5>>, p6: Lazy<Hunt24BPart<Hunt24BP6>>,
        p7: Hunt24BPart<Hunt24BP7>, p8: Hunt24BPart<Hunt24BP8>, p9: Hunt24BPart<Hunt24BP9>,
        p10: Hunt24BPart<Hunt24BP10>, p11: Hunt24BPart<Hunt24BP11>, p12: Hunt24BPart<Hunt24BP12>,
        p13: Hunt24BPart<Hunt24BP13>, p14: Hunt24BPart<Hunt24BP14>, p15: Hunt24BPart<Hunt24BP15>
    ) {
        self.p0 = p0
        self.p1 = p1
        self.p2 = p2
        self.p3 = p3
        self.p4 = p4
        self.p5 = p5
        self.p6 = p6
        self.p7 = p7
        self.p8 = p8
        self.p9 = p9
        self.p10 = p10
        self.p11 = p11
        self.p12 = p12
        self.p13 = p13
        self.p14 = p14
        self.p15 = p15
    }
}

/// The wide root and its parts; the part at `failAt` throws while `failing` is set. Counts each part's
/// builds by position.
struct Hunt24BWideModule: Module {
    let failAt: Int
    let failing: Hunt24BFlag
    let builds: Locked<[Int: Int]>

    func configure(_ binder: Binder) {
        let failAt = self.failAt
        let failing = self.failing
        let builds = self.builds
        @Sendable func make<P>(_ position: Int, _ type: Hunt24BPart<P>.Type) throws -> Hunt24BPart<P> {
            if position == failAt, failing.isSet { throw ExpectedFailure(id: position) }
            builds.withLock { $0[position, default: 0] += 1 }
            return Hunt24BPart<P>(position: position)
        }
        binder.bind(Hunt24BPart<Hunt24BP0>.self).to { try make(0, Hunt24BPart<Hunt24BP0>.self) }.in(.singleton)
        binder.bind(Hunt24BPart<Hunt24BP1>.self).to { try make(1, Hunt24BPart<Hunt24BP1>.self) }.in(.transient)
        binder.bind(Hunt24BPart<Hunt24BP2>.self).to { try make(2, Hunt24BPart<Hunt24BP2>.self) }.in(.scoped)
        binder.bind(Hunt24BPart<Hunt24BP3>.self).to { try make(3, Hunt24BPart<Hunt24BP3>.self) }.in(.singleton)
        binder.bind(Hunt24BPart<Hunt24BP5>.self).to { try make(5, Hunt24BPart<Hunt24BP5>.self) }.in(.singleton)
        binder.bind(Hunt24BPart<Hunt24BP6>.self).to { try make(6, Hunt24BPart<Hunt24BP6>.self) }.in(.transient)
        binder.bind(Hunt24BPart<Hunt24BP7>.self).to { try make(7, Hunt24BPart<Hunt24BP7>.self) }.in(.singleton)
        binder.bind(Hunt24BPart<Hunt24BP8>.self).to { try make(8, Hunt24BPart<Hunt24BP8>.self) }.in(.transient)
        binder.bind(Hunt24BPart<Hunt24BP9>.self).to { try make(9, Hunt24BPart<Hunt24BP9>.self) }.in(.scoped)
        binder.bind(Hunt24BPart<Hunt24BP10>.self).to { try make(10, Hunt24BPart<Hunt24BP10>.self) }.in(.singleton)
        binder.bind(Hunt24BPart<Hunt24BP11>.self).to { try make(11, Hunt24BPart<Hunt24BP11>.self) }.in(.singleton)
        binder.bind(Hunt24BPart<Hunt24BP12>.self).to { try make(12, Hunt24BPart<Hunt24BP12>.self) }.in(.transient)
        binder.bind(Hunt24BPart<Hunt24BP13>.self).to { try make(13, Hunt24BPart<Hunt24BP13>.self) }.in(.singleton)
        binder.bind(Hunt24BPart<Hunt24BP14>.self).to { try make(14, Hunt24BPart<Hunt24BP14>.self) }.in(.scoped)
        binder.bind(Hunt24BPart<Hunt24BP15>.self).to { try make(15, Hunt24BPart<Hunt24BP15>.self) }.in(.singleton)
        binder.bind(Hunt24BWide.self).to(Hunt24BWide.init(p0:p1:p2:p3:p4:p5:p6:p7:p8:p9:p10:p11:p12:p13:p14:p15:))
    }
}

@Suite("Hunt 24B: a wide constructor with a failing parameter")
struct Hunt24BArityTests {
    /// The positions of the parameters of each kind.
    static let singletons = [0, 3, 7, 10, 11, 13, 15]
    static let scoped = [2, 9, 14]

    /// The key of the part at `position`.
    static func key(_ position: Int) -> BindingKey {
        [
            BindingKey(Hunt24BPart<Hunt24BP0>.self), BindingKey(Hunt24BPart<Hunt24BP1>.self),
            BindingKey(Hunt24BPart<Hunt24BP2>.self), BindingKey(Hunt24BPart<Hunt24BP3>.self),
            BindingKey(Hunt24BPart<Hunt24BP4>.self), BindingKey(Hunt24BPart<Hunt24BP5>.self),
            BindingKey(Hunt24BPart<Hunt24BP6>.self), BindingKey(Hunt24BPart<Hunt24BP7>.self),
            BindingKey(Hunt24BPart<Hunt24BP8>.self), BindingKey(Hunt24BPart<Hunt24BP9>.self),
            BindingKey(Hunt24BPart<Hunt24BP10>.self), BindingKey(Hunt24BPart<Hunt24BP11>.self),
            BindingKey(Hunt24BPart<Hunt24BP12>.self), BindingKey(Hunt24BPart<Hunt24BP13>.self),
            BindingKey(Hunt24BPart<Hunt24BP14>.self), BindingKey(Hunt24BPart<Hunt24BP15>.self),
        ][position]
    }

    @Test(
        "a failing parameter at 8 positions: factoryFailed with the path Root -> part from 8 threads, then every part built once",
        arguments: [0, 1, 2, 3, 7, 9, 12, 15])
    func failingParameter(position: Int) throws {
        let failing = Hunt24BFlag()
        failing.set(true)
        let builds = Locked<[Int: Int]>([:])
        let injector = try Injector(Hunt24BWideModule(failAt: position, failing: failing, builds: builds))
        let scope = injector.makeScope()
        let expectedPath = [BindingKey(Hunt24BWide.self), Self.key(position)]
        let first = Hunt24BCatch.error { () throws(ProvisionError) in try scope.syncGet(Hunt24BWide.self) }
        #expect(first?.code == .factoryFailed, "\(String(describing: first))")
        #expect(first?.path == expectedPath, "\(first?.pathDescription ?? "no error")")
        #expect((first?.cause as? ExpectedFailure)?.id == position)
        // 8 threads, still failing: each gets the failure with its own path (waiters inherit it).
        let barrier = Barrier(count: 8)
        let wrong = Locked<[String]>([])
        let failedRun = runThreads(8, timeout: 60) { index in
            barrier.arriveAndWait()
            for _ in 0..<3 {
                let error = Hunt24BCatch.error { () throws(ProvisionError) in try scope.syncGet(Hunt24BWide.self) }
                if error?.code != .factoryFailed || error?.path != expectedPath {
                    wrong.withLock {
                        $0.append("\(index): \(error?.pathDescription ?? "no error") \(String(describing: error))")
                    }
                }
            }
        }
        #expect(failedRun, "the failing requests hung")
        #expect(wrong.withLock { $0 }.isEmpty, "\(wrong.withLock { $0.prefix(3) })")
        let afterFailures = builds.withLock { $0 }
        for singleton in Self.singletons + Self.scoped {
            #expect(
                afterFailures[singleton, default: 0] <= 1,
                "part \(singleton) built \(afterFailures[singleton, default: 0]) times")
        }
        // Fixed: 8 threads build the root at once, in the same scope.
        failing.set(false)
        let roots = Locked<[Hunt24BWide]>([])
        let errors = Locked<[ProvisionError]>([])
        let fixedRun = runThreads(8, timeout: 60) { _ in
            barrier.arriveAndWait()
            do throws(ProvisionError) {
                let root = try scope.syncGet(Hunt24BWide.self)
                roots.withLock { $0.append(root) }
            } catch {
                errors.withLock { $0.append(error) }
            }
        }
        #expect(fixedRun, "the fixed requests hung")
        #expect(errors.withLock { $0 }.isEmpty, "\(errors.withLock { $0 })")
        let built = roots.withLock { $0 }
        #expect(built.count == 8)
        let counts = builds.withLock { $0 }
        for shared in Self.singletons + Self.scoped {
            #expect(counts[shared] == 1, "part \(shared) built \(counts[shared] ?? 0) times")
        }
        guard let one = built.first else { return }
        #expect(built.allSatisfy { $0.p0 === one.p0 && $0.p7 === one.p7 && $0.p15 === one.p15 && $0.p3 === one.p3 })
        #expect(built.allSatisfy { $0.p2 === one.p2 && $0.p9 === one.p9 && $0.p14 === one.p14 })
        #expect(Set(built.map { ObjectIdentifier($0.p1) }).count == 8)
        #expect(built.allSatisfy { $0.p4 == nil && $0.p3?.position == 3 })
        // The handles resolve, and a later request builds only transients.
        #expect(try one.p5.get().position == 5)
        #expect(try one.p6.value.position == 6)
        let again = try injector.makeScope().syncGet(Hunt24BWide.self)
        #expect(again.p0 === one.p0 && again.p2 !== one.p2)
        #expect(builds.withLock { $0 }[5] == 1)
        try scope.syncClose()
    }
}
