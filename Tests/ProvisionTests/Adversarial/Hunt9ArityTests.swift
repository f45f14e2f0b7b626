import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Provision

/// Every (arity, failing position) pair of the fixed-arity constructor bindings 1 ... 12.
private let failurePositions: [(Int, Int)] = (1...12).flatMap { arity in (0..<arity).map { (arity, $0) } }

/// The optional roots' arities, each with every position.
private let optionalPositions: [(Int, Int)] = [1, 2, 5, 9, 12].flatMap { arity in (0..<arity).map { (arity, $0) } }

@Suite("Hunt9: constructor bindings of every arity", .timeLimit(.minutes(2)))
struct Hunt9ArityTests {
    /// Even positions are singletons, odd ones transient.
    static func mixed(_ index: Int) -> Scope { index % 2 == 0 ? .singleton : .transient }

    @Test(
        "a dependency failing at every position: its path, then a retry builds each singleton once",
        arguments: failurePositions)
    func failureAtEveryPosition(arity: Int, position: Int) async throws {
        let ledger = H9Ledger()
        ledger.failing.store(position, ordering: .relaxed)
        let module = ClosureModule { binder in
            H9Arity.bindParts(binder, count: arity, ledger: ledger, scope: Self.mixed)
            H9Arity.bindRoot(binder, arity: arity, scope: .singleton)
        }
        let injector = try Injector(module)
        let asyncInjector = try Injector(module)
        let sync = Hunt5.result { () throws(ProvisionError) in try H9Arity.root(injector, arity: arity) }
        let error = try #require(sync.hunt5Error)
        #expect(error.code == .factoryFailed)
        #expect(error.path == [H9Arity.rootKey(arity), H9Arity.partKey(position)], "\(error.path)")
        #expect((error.cause as? H9Ledger.Failure)?.index == position)
        let asyncError = await Hunt5.error { () async throws(ProvisionError) in
            try await H9Arity.rootAsync(asyncInjector, arity: arity)
        }
        #expect(asyncError?.description == error.description)
        // No position after the failing one was built.
        for index in position + 1..<max(position + 1, arity) {
            #expect(ledger.builds[index].value == 0, "position \(index) built after \(position) failed")
        }
        ledger.failing.store(-1, ordering: .relaxed)
        let first = try H9Arity.root(injector, arity: arity)
        #expect(first === (try H9Arity.root(injector, arity: arity)))
        #expect(first.parts.count == arity)
        #expect(first.parts.allSatisfy { $0 != nil })
        try await injector.shutdown()
        for index in 0..<arity where index % 2 == 0 {
            // Before the failing position: once per injector. The failing one: its two failures and the
            // retry. After it: by the retry only.
            let expected = index < position ? 2 : (index == position ? 3 : 1)
            #expect(ledger.builds[index].value == expected, "position \(index)")
        }
        for index in 0..<arity {
            // The sync injector's singletons are disposed once each; the async injector wasn't shut down.
            #expect(ledger.disposals[index].value == (index % 2 == 0 ? 1 : 0), "position \(index)")
        }
    }

    @Test(
        "an optional parameter at every position: nil when unbound, the failure when its factory fails",
        arguments: optionalPositions)
    func optionalAtEveryPosition(arity: Int, position: Int) async throws {
        let ledger = H9Ledger()
        let unbound = try Injector(
            ClosureModule { binder in
                H9Arity.bindParts(binder, count: arity, ledger: ledger, isBound: { $0 != position }, scope: Self.mixed)
                H9Arity.bindRoot(binder, arity: arity, optional: true, scope: .transient)
            }
        )
        let root = try H9Arity.root(unbound, arity: arity, optional: true)
        #expect(root.parts.count == arity)
        for index in 0..<arity {
            #expect((root.parts[index] == nil) == (index == position), "position \(index)")
        }
        let asyncRoot = try await H9Arity.rootAsync(unbound, arity: arity, optional: true)
        for index in 0..<arity {
            #expect((asyncRoot.parts[index] == nil) == (index == position), "position \(index) (async)")
        }
        // Bound, but its factory fails: an optional dependency doesn't swallow the failure.
        let failingLedger = H9Ledger()
        failingLedger.failing.store(position, ordering: .relaxed)
        let failing = try Injector(
            ClosureModule { binder in
                H9Arity.bindParts(binder, count: arity, ledger: failingLedger, scope: Self.mixed)
                H9Arity.bindRoot(binder, arity: arity, optional: true, scope: .transient)
            }
        )
        let result = Hunt5.result { () throws(ProvisionError) in try H9Arity.root(failing, arity: arity, optional: true)
        }
        let error = try #require(result.hunt5Error)
        #expect(error.code == .factoryFailed)
        #expect(error.path.first == H9Arity.rootKey(arity, optional: true))
        #expect(error.path.last == H9Arity.partKey(position), "\(error.path)")
    }

    /// A singleton root of twelve singleton parts, built by a thread held in the part at `position`,
    /// when shutdown begins. The request may complete or throw shutDown; either way every part built is
    /// disposed exactly once and no part is built after the shutdown returned.
    @Test("shutdown at every moment of a wide build: each built part disposed exactly once", arguments: 0..<12)
    func shutdownDuringWideBuild(position: Int) async throws {
        let ledger = H9Ledger()
        ledger.holding.store(position, ordering: .relaxed)
        let injector = try Injector(
            ClosureModule { binder in
                H9Arity.bindParts(binder, count: 12, ledger: ledger, scope: { _ in .singleton })
                H9Arity.bindRoot(binder, arity: 12, scope: .singleton)
            }
        )
        let request = Hunt5.Request { () throws(ProvisionError) in try H9Arity.root(injector, arity: 12) }
        #expect(await Hunt5.wait(for: ledger.hold.entered))
        let shutdown = Task { () async -> ProvisionError? in
            do throws(ProvisionError) {
                try await injector.shutdown()
                return nil
            } catch { return error }
        }
        #expect(await Hunt5.until { injector.isShuttingDown })
        ledger.hold.release.signal()
        let outcome = try #require(await request.result())
        #expect(await shutdown.value == nil)
        switch outcome {
        case .success(let root):
            #expect(position == 11, "the root was completed although part \(position + 1) was not built yet")
            #expect(root.parts.count == 12)
        case .failure(let error):
            #expect(error.code == .shutDown, "\(error)")
        }
        let builtAtShutdown = ledger.builds.map(\.value)
        for index in 0..<12 {
            #expect(ledger.builds[index].value == (index <= position ? 1 : 0), "position \(index) built")
            #expect(ledger.disposals[index].value == ledger.builds[index].value, "position \(index) disposed")
        }
        let after = Hunt5.result { () throws(ProvisionError) in try H9Arity.root(injector, arity: 12) }
        #expect(after.hunt5Error?.code == .shutDown)
        #expect(ledger.builds.map(\.value) == builtAtShutdown)
    }

    /// A thread builds a singleton root of twelve singleton parts, held in the part at `position`; other
    /// threads and a task ask for the root, the held part and the next part meanwhile. Every part and the
    /// root are built exactly once, and everyone gets the same root.
    @Test("other threads arriving at every step of a wide singleton build: each built once", arguments: 0..<12)
    func arrivalsDuringWideBuild(position: Int) async throws {
        let ledger = H9Ledger()
        ledger.holding.store(position, ordering: .relaxed)
        let injector = try Injector(
            ClosureModule { binder in
                H9Arity.bindParts(binder, count: 12, ledger: ledger, scope: { _ in .singleton })
                H9Arity.bindRoot(binder, arity: 12, scope: .singleton)
            }
        )
        let builder = Hunt5.Request { () throws(ProvisionError) in try H9Arity.root(injector, arity: 12) }
        #expect(await Hunt5.wait(for: ledger.hold.entered))
        let rootWaiter = Hunt5.Request { () throws(ProvisionError) in try H9Arity.root(injector, arity: 12) }
        #expect(await Hunt5.until { H9Arity.rootWaiters(injector, arity: 12).threads == 1 })
        let partWaiter = Hunt5.Request { () throws(ProvisionError) in try H9Arity.part(injector, position) }
        #expect(await Hunt5.until { H9Arity.partWaiters(injector, position).threads == 1 })
        let task = Task { () async -> Result<any H9AnyRoot, ProvisionError> in
            do throws(ProvisionError) { return .success(try await H9Arity.rootAsync(injector, arity: 12)) } catch {
                return .failure(error)
            }
        }
        #expect(await Hunt5.until { H9Arity.rootWaiters(injector, arity: 12).tasks == 1 })
        // The next part, built by yet another thread while the root's builder is held.
        var next: (any AnyObject & Sendable)?
        if position < 11 {
            next = try H9Arity.part(injector, position + 1)
        }
        ledger.hold.release.signal()
        let built = try #require(await builder.result()).get()
        let waited = try #require(await rootWaiter.result()).get()
        let part = try #require(await partWaiter.result()).get()
        let tasked = try await task.value.get()
        #expect(built === waited)
        #expect(built === tasked)
        #expect(built.parts[position] === part)
        if let next { #expect(built.parts[position + 1] === next) }
        #expect(ledger.builds.map(\.value) == Array(repeating: 1, count: 12))
    }

    /// The initializer of no parameters, a singleton asked by eight threads at once.
    @Test("arity 0: a singleton root asked by 8 threads at once is one instance")
    func arityZero() throws {
        let injector = try Injector(ClosureModule { binder in H9Arity.bindRoot(binder, arity: 0, scope: .singleton) })
        let barrier = Barrier(count: 8)
        let seen = Locked<Set<ObjectIdentifier>>([])
        let failures = Counter()
        let finished = runThreads(8, timeout: 30) { _ in
            barrier.arriveAndWait()
            do {
                let root = try H9Arity.root(injector, arity: 0)
                seen.withLock { _ = $0.insert(ObjectIdentifier(root)) }
            } catch { failures.increment() }
        }
        #expect(finished)
        #expect(failures.value == 0)
        #expect(seen.withLock { $0.count } == 1)
    }
}
