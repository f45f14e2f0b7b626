import Foundation
import Testing

@testable import Provision

@Suite("Hunt 26A: scale of modules, collections, children and derivations", .timeLimit(.minutes(5)))
struct Hunt26AScaleTests {
    /// Times of making `depth` nested children, each adding one element to an `Int` collection, and of
    /// the deepest child's first `getAll`; on a thread with a large stack.
    static func collectionChildren(_ depth: Int) -> (make: Duration, getAll: Duration, count: Int)? {
        Hunt26A.onThread(stack: 64 << 20, timeout: 120) { () -> (Duration, Duration, Int)? in
            let clock = ContinuousClock()
            do throws(ProvisionError) {
                let start = clock.now
                var current = try Injector(ClosureModule { _ in })
                for _ in 0..<depth {
                    current = try current.makeChild(ClosureModule { $0.multibind(Int.self).toInstance(1) })
                }
                let made = clock.now
                let count = try current.getAll(Int.self).count
                return (made - start, clock.now - made, count)
            } catch {
                return nil
            }
        } ?? nil
    }

    /// A user expects each child that adds an element to a collection (a plugin, a route) to cost the
    /// same to make, and a request for the collection to cost time linear in its elements, however many
    /// ancestors added them: four times the children, at most 8 times the time (plus 50 ms).
    ///
    /// Known issue, kept (found by hunt 26A): a child's collection is its own list of every inherited
    /// element's key, rather than its parent's collection plus its own elements. Finding (debug): both
    /// are quadratic. Making the chain: 500 children 0.23 s, 1,000 0.73 s, 2,000
    /// 2.4 s, 4,000 9.2 s, 10,000 94 s (the last quarter of 1,000 took 5.4 times the first quarter);
    /// nested children that bind a named key instead take 0.21 s for 4,000. The deepest child's first
    /// `getAll`: 1,000 elements 0.25 s, 2,000 1.0 s, 4,000 4.0 s. Each new child's creation does work
    /// proportional to the elements its ancestors contributed (the collection's validation or merge
    /// walks every inherited element), and the first request links each element's key through the
    /// whole ancestor chain.
    @Test("400 and 1,600 nested children each adding a collection element: creation and getAll scale linearly")
    func collectionChildrenScale() throws {
        let small = try #require(Self.collectionChildren(400))
        let large = try #require(Self.collectionChildren(1_600))
        #expect(small.count == 400 && large.count == 1_600)
        // Known issue: a child's collection lists every inherited element (see above).
        withKnownIssue("a child's collection lists every inherited element", isIntermittent: true) {
            #expect(
                large.make <= small.make * 8 + .milliseconds(50), "making: 400 \(small.make), 1,600 \(large.make)")
            #expect(
                large.getAll <= small.getAll * 8 + .milliseconds(50),
                "getAll: 400 \(small.getAll), 1,600 \(large.getAll)")
        }
    }

    /// A module of `count` named bindings, each of the first half depending (declared) on one of the
    /// second half. Returns the times of creation, validation and both drawings.
    static func wideModule(_ count: Int) throws -> [Duration] {
        let half = count / 2
        let module = ClosureModule { binder in
            for index in 0..<count {
                let below = index < half ? [BindingKey(Hunt26AValue.self, named: "\(index + half)")] : []
                binder.bind(Hunt26AValue.self, named: "\(index)").to(dependencies: below) { _ in Hunt26AValue(index) }
            }
        }
        let clock = ContinuousClock()
        var start = clock.now
        var times: [Duration] = []
        let injector = try Injector(module)
        times.append(clock.now - start)
        start = clock.now
        let report = try injector.validate()
        #expect(report.bindingCount >= count)
        times.append(clock.now - start)
        start = clock.now
        let dot = injector.graph().dot()
        let mermaid = injector.graph().mermaid()
        #expect(dot.contains("\"\(count - 1)\"") || dot.contains("\(count - 1)"))
        #expect(!mermaid.isEmpty)
        times.append(clock.now - start)
        return times
    }

    /// A user expects a module of 40,000 bindings (a generated daemon graph) to be created, validated
    /// and drawn (DOT, Mermaid) in time linear in its bindings: four times the bindings, at most 8
    /// times the time of each step (plus 50 ms).
    @Test("10,000 and 40,000 bindings in one module: creation, validation and drawing scale linearly")
    func wideModuleScale() throws {
        let small = try Self.wideModule(10_000)
        let large = try Self.wideModule(40_000)
        for (step, (a, b)) in zip(["create", "validate", "draw"], zip(small, large)) {
            #expect(b <= a * 8 + .milliseconds(50), "\(step): 10,000 \(a), 40,000 \(b)")
        }
    }

    /// A user expects a collection of 10,000 elements bound in one module to be resolved whole, in
    /// order, and its validation to see every element.
    @Test("a collection of 10,000 elements in one module: got in order, validated")
    func wideCollection() throws {
        let injector = try Injector(
            ClosureModule { binder in
                for index in 0..<10_000 { binder.multibind(Int.self).toInstance(index) }
            })
        #expect(try injector.getAll(Int.self) == Array(0..<10_000))
        #expect(try injector.validate().isValid)
    }

    /// Two threads each make 5,000 sibling children of one parent at once (a request-per-child
    /// server), each child resolving the parent's singleton and its own binding. A user expects every
    /// child made, every singleton the parent's one instance, and the whole done within the wait.
    @Test("10,000 sibling children made concurrently from 2 threads, each resolving the parent's singleton")
    func concurrentSiblings() throws {
        let parent = try Injector(
            ClosureModule { $0.bind(Hunt26AService.self).to { Hunt26AService(-1) }.in(.singleton) })
        let shared = try parent.get(Hunt26AService.self)
        let wrong = Locked(0)
        let barrier = Barrier(count: 2)
        let finished = runThreads(2, timeout: 60) { _ in
            barrier.arriveAndWait()
            for index in 0..<5_000 {
                do throws(ProvisionError) {
                    let child = try parent.makeChild(
                        ClosureModule { $0.bind(Hunt26AValue.self).to { Hunt26AValue(index) } })
                    let service = try child.get(Hunt26AService.self)
                    let value = try child.get(Hunt26AValue.self)
                    if service !== shared || value.index != index { wrong.withLock { $0 += 1 } }
                } catch {
                    wrong.withLock { $0 += 1 }
                }
            }
        }
        #expect(finished)
        #expect(wrong.withLock { $0 } == 0)
    }

    /// Times of creating `count` chained `overriding` derivations, each adding a binding (named by its
    /// index) declared to need the one the derivation before added, as Hunt 25A's chain does.
    static func overridingChain(_ count: Int) throws -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        var current = try Injector(
            ClosureModule { $0.bind(Hunt26AValue.self, named: "0").to(dependencies: []) { _ in Hunt26AValue(0) } })
        for index in 1...count {
            current = try current.overriding(
                ClosureModule { binder in
                    let below = BindingKey(Hunt26AValue.self, named: "\(index - 1)")
                    binder.bind(Hunt26AValue.self, named: "\(index)").to(dependencies: [below]) { resolver in
                        _ = try resolver.get(Hunt26AValue.self, named: "\(index - 1)")
                        return Hunt26AValue(index)
                    }
                })
        }
        #expect(try current.get(Hunt26AValue.self, named: "\(count)").index == count)
        return clock.now - start
    }

    /// Documents the known cost of chained `overriding` derivations (Hunt 25A: 250 took 2.2 s, 500
    /// 15 s, 1,000 120 s in a debug build). A user expects each derivation to cost at most time linear
    /// in the chain above it (each may reconfigure what it inherits), so the whole chain at most
    /// quadratic: twice the derivations, at most 5 times the time (plus 50 ms).
    ///
    /// Fixed in this session (23e67fe, found by hunt 25A): `OverrideAnalysis` reads each original's
    /// bindings once. Finding, before it: the chain's creation is cubic, confirmed (debug: 100 derivations 0.19 s, 200 1.27 s, a
    /// ratio of 6.8 against the bound 5). Derivations that replace one and the same key instead take
    /// 0.26 s for 100 and 200 together. Not traced further: `overriding(_:)`
    /// (Injector/Injector+Overriding.swift) derives from the original's parent and configures the
    /// chain's modules again, which its documented O(n) per derivation doesn't count.
    @Test("100 and 200 chained overriding derivations: at most quadratic in the chain's length")
    func overridingChainScale() throws {
        _ = try Self.overridingChain(20)
        let small = try Self.overridingChain(100)
        let large = try Self.overridingChain(200)
        #expect(large <= small * 5 + .milliseconds(50), "100: \(small), 200: \(large)")
    }
}
