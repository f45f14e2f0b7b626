import Dispatch
import Foundation
import Testing

@testable import Provision

/// Records disposals in order; the one at `throwing` throws.
private final class H9DisposalLog: Sendable {
    let order = Locked<[Int]>([])
    let throwing: Int
    init(throwing: Int) { self.throwing = throwing }

    struct Failure: Error {}

    func dispose(_ index: Int) throws {
        order.withLock { $0.append(index) }
        if index == throwing { throw Failure() }
    }
}

/// A scoped link of a chain: link i is built from link i - 1.
private final class H9Link<Tag>: Disposable {
    let log: H9DisposalLog
    let index: Int
    init(log: H9DisposalLog, index: Int) {
        self.log = log
        self.index = index
    }
    func dispose() throws { try log.dispose(index) }
}

@Suite("Hunt9: a scope's disposals that throw", .timeLimit(.minutes(1)))
struct Hunt9ScopeDisposalTests {
    /// Five scoped links, each built from the previous one (H9T0 first), the one at `position` throwing
    /// from `dispose()`. Every link is disposed exactly once, newest first, and the close reports exactly
    /// the one failure, synchronously and asynchronously.
    @Test("a disposal throwing at every position of a chain of scoped instances", arguments: 0..<5)
    func throwingAtEveryPosition(position: Int) async throws {
        for asynchronously in [false, true] {
            let log = H9DisposalLog(throwing: position)
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(H9Link<H9T0>.self).to { H9Link<H9T0>(log: log, index: 0) }.in(.scoped)
                    binder.bind(H9Link<H9T1>.self).to { (_: H9Link<H9T0>) in H9Link<H9T1>(log: log, index: 1) }
                        .in(.scoped)
                    binder.bind(H9Link<H9T2>.self).to { (_: H9Link<H9T1>) in H9Link<H9T2>(log: log, index: 2) }
                        .in(.scoped)
                    binder.bind(H9Link<H9T3>.self).to { (_: H9Link<H9T2>) in H9Link<H9T3>(log: log, index: 3) }
                        .in(.scoped)
                    binder.bind(H9Link<H9T4>.self).to { (_: H9Link<H9T3>) in H9Link<H9T4>(log: log, index: 4) }
                        .in(.scoped)
                }
            )
            let scope = injector.makeScope()
            _ = try Hunt5.result { () throws(ProvisionError) in try scope.get(H9Link<H9T4>.self) }.get()
            var failure: ProvisionError?
            if asynchronously {
                do throws(ProvisionError) { try await scope.close() } catch { failure = error }
            } else {
                failure = Hunt5.result { () throws(ProvisionError) in try scope.close() }.hunt5Error
            }
            #expect(failure?.code == .stopFailed, "async \(asynchronously)")
            #expect(failure?.underlyingErrors.count == 1, "async \(asynchronously)")
            #expect(log.order.withLock { $0 } == [4, 3, 2, 1, 0], "async \(asynchronously)")
            // A second close disposes nothing again and reports nothing.
            let again = Hunt5.result { () throws(ProvisionError) in try scope.close() }
            #expect(again.hunt5Error == nil)
            #expect(log.order.withLock { $0.count } == 5)
            let after = Hunt5.result { () throws(ProvisionError) in try scope.get(H9Link<H9T0>.self) }
            #expect(after.hunt5Error?.code == .outsideScope)
        }
    }
}
