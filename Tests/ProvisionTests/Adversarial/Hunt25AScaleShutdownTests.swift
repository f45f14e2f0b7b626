import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Provision

/// A level of a chain; the name is its index.
final class Hunt25ALevel: Sendable {
    init() {}
}

/// Runs `body` on a thread with a large stack (dropping a chain thousands of injectors deep releases
/// them one inside the other); `nil` when it doesn't finish within `timeout` seconds.
func hunt25AOnLargeStack<T: Sendable>(timeout: Double, _ body: @escaping @Sendable () -> T) -> T? {
    let result = Locked<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        let value = body()
        result.withLock { $0 = value }
        done.signal()
    }
    thread.stackSize = 256 << 20
    thread.start()
    guard done.wait(timeout: .now() + timeout) == .success else { return nil }
    return result.withLock { $0 }
}

@Suite("Hunt 25A: long chains and shutdown below sealed ancestors")
struct Hunt25AScaleShutdownTests {
    private static func key(_ index: Int) -> BindingKey { BindingKey(Hunt25ALevel.self, named: "\(index)") }

    private static func level(_ index: Int) -> ClosureModule {
        ClosureModule { binder in
            binder.bind(Hunt25ALevel.self, named: "\(index)").to(dependencies: [key(index - 1)]) { resolver in
                _ = try resolver.get(Hunt25ALevel.self, named: "\(index - 1)")
                return Hunt25ALevel()
            }
        }
    }

    private static func level(of injector: Injector, _ name: String) throws(ProvisionError) -> Hunt25ALevel {
        try injector.get(Hunt25ALevel.self, named: name)
    }

    private static func provider(of injector: Injector, _ name: String) throws(ProvisionError)
        -> Provider<Hunt25ALevel>
    {
        try injector.get(Provider<Hunt25ALevel>.self, named: name)
    }

    /// Graph sizes of the last child's creation walk, or a description of what failed.
    struct Outcome: Sendable, Equatable {
        var vertices = 0
        var sealed = 0
        var failure: String?
    }

    /// 10,000 levels, 2,000 under ThreadSanitizer. The request recurses through every level (each
    /// level's closure resolves the level below), and ThreadSanitizer's shadow call stack holds 65,536
    /// nested frames per thread whatever the thread's stack: 10,000 levels of a debug build's frames
    /// overflowed it and crashed CI's run of a92072a with a SEGV on a stack write, without a report.
    /// (Measured in a release build: the request uses 815 bytes of stack per level; dropping the chain
    /// doesn't recurse.)
    @Test("10,000 nested children (2,000 under ThreadSanitizer), each over its parent's binding: two bindings read")
    func plainChain() throws {
        let depth = threadSanitizerIsLoaded ? 2_000 : 10_000
        let outcome = hunt25AOnLargeStack(timeout: 120) { () -> Outcome in
            do {
                var current = try Injector(
                    ClosureModule { $0.bind(Hunt25ALevel.self, named: "0").to(Hunt25ALevel.init) })
                for index in 1..<depth { current = try current.makeChild(Self.level(index)) }
                let graph = BindingGraph(injector: current, ancestorsReachedOnly: true, trustingSealedAncestors: true)
                _ = try current.get(Hunt25ALevel.self, named: "\(depth - 1)")
                return Outcome(vertices: graph.vertices.count, sealed: graph.sealedCount)
            } catch {
                return Outcome(failure: "\(error)")
            }
        }
        #expect(outcome == Outcome(vertices: 2, sealed: 1))
    }

    @Test("2,000 nested children each adding a collection element: the last one's collection stands on its parent's")
    func collectionChain() throws {
        let outcome = hunt25AOnLargeStack(timeout: 120) { () -> Outcome in
            do {
                var current = try Injector(ClosureModule { $0.multibind(Int.self).toInstance(0) })
                for index in 1..<2_000 {
                    current = try current.makeChild(ClosureModule { $0.multibind(Int.self).toInstance(index) })
                }
                let graph = BindingGraph(injector: current, ancestorsReachedOnly: true, trustingSealedAncestors: true)
                let values = try current.getAll(Int.self)
                guard values == Array(0..<2_000) else { return Outcome(failure: "values \(values.count)") }
                return Outcome(vertices: graph.vertices.count, sealed: graph.sealedCount)
            } catch {
                return Outcome(failure: "\(error)")
            }
        }
        // The child's collection, its element, and the parent's collection.
        #expect(outcome == Outcome(vertices: 3, sealed: 1))
    }

    /// 300, not thousands. Creating a chain of derivations grew with the cube of its length (250: 2.2 s,
    /// 500: 15 s, 1,000: 120 s in a debug build): `OverrideAnalysis` looked each key up along the whole
    /// chain of originals. It reads each original's bindings once now, so each derivation is linear in
    /// the bindings of the chain (release build, the same chain: 400 derivations in 3.9 s before, 1.0 s
    /// now); the whole chain stays quadratic, as each derivation re-reads every binding it may re-create.
    @Test("300 overriding derivations, each replacing a binding that the next one's binding needs")
    func overridingChain() throws {
        let outcome = hunt25AOnLargeStack(timeout: 120) { () -> Outcome in
            do {
                var current = try Injector(
                    ClosureModule { $0.bind(Hunt25ALevel.self, named: "0").to(Hunt25ALevel.init) })
                for index in 1..<300 { current = try current.overriding(Self.level(index)) }
                let graph = BindingGraph(injector: current, ancestorsReachedOnly: true, trustingSealedAncestors: true)
                _ = try current.get(Hunt25ALevel.self, named: "299")
                return Outcome(vertices: graph.vertices.count, sealed: graph.sealedCount)
            } catch {
                return Outcome(failure: "\(error)")
            }
        }
        #expect(outcome == Outcome(vertices: 2, sealed: 1))
    }

    @Test("children made under a chain while its root shuts down: each made, or refused with shutDown")
    func childrenDuringShutdown() async throws {
        for _ in 0..<20 {
            let root = try Injector(ClosureModule { $0.bind(Hunt25ALevel.self, named: "0").to(Hunt25ALevel.init) })
            var middle = root
            for index in 1..<50 { middle = try middle.makeChild(Self.level(index)) }
            let bottom = middle
            let unexpected = Locked<[String]>([])
            let started = Barrier(count: 5)
            async let finished = offPool {
                runThreads(4) { thread in
                    started.arriveAndWait()
                    for attempt in 0..<200 {
                        do throws(ProvisionError) {
                            let child = try bottom.makeChild(Self.level(50))
                            do throws(ProvisionError) {
                                _ = try Self.level(of: child, "50")
                            } catch  where error.code == .shutDown {
                            } catch {
                                unexpected.withLock { $0.append("get \(thread)/\(attempt): \(error)") }
                            }
                        } catch  where error.code == .shutDown {
                            return
                        } catch {
                            unexpected.withLock { $0.append("make \(thread)/\(attempt): \(error)") }
                        }
                    }
                }
            }
            try await offPool { started.arriveAndWait() }
            try await root.shutdown()
            #expect(try await finished)
            #expect(unexpected.withLock { $0 } == [])
            #expect(bottom.isShuttingDown)
            let refused = #expect(throws: ProvisionError.self) { try bottom.makeChild() }
            #expect(refused?.code == .shutDown)
        }
    }

    @Test("a grandchild that answered is not shutting down sees an ancestor's shutdown at once, on every path")
    func cachedAnswerAfterShutdown() async throws {
        let root = try Injector(ClosureModule { $0.bind(Hunt25ALevel.self, named: "0").to(Hunt25ALevel.init) })
        let sibling = try root.makeChild()
        let parent = try root.makeChild()
        let child = try parent.makeChild(Self.level(1))
        let grandchild = try child.makeChild()
        #expect(!grandchild.isShuttingDown)
        #expect(!child.isShuttingDown)
        // Another injector's shutdown moves the epoch; the chain isn't shutting down.
        try await sibling.shutdown()
        #expect(!grandchild.isShuttingDown)
        _ = try Self.level(of: grandchild, "1")
        try await parent.shutdown()
        #expect(grandchild.isShuttingDown)
        #expect(child.isShuttingDown)
        #expect(!root.isShuttingDown)
        let request = #expect(throws: ProvisionError.self) { try Self.level(of: grandchild, "1") }
        #expect(request?.code == .shutDown)
        // A handle is the grandchild's own just-in-time binding (see `lookup`): made, but what it provides
        // is the shut-down parent's.
        let provider = try Self.provider(of: grandchild, "0")
        let handle = #expect(throws: ProvisionError.self) { try provider.get() }
        #expect(handle?.code == .shutDown)
        let derived = #expect(throws: ProvisionError.self) { try grandchild.overriding(ClosureModule { _ in }) }
        #expect(derived?.code == .shutDown)
        let made = #expect(throws: ProvisionError.self) { try grandchild.makeChild() }
        #expect(made?.code == .shutDown)
        _ = try Self.level(of: root, "0")
    }
}
