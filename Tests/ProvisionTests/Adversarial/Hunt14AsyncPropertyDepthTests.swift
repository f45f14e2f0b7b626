import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Provision

// MARK: - Fixtures

/// The bottom of a chain, built by an async factory.
private final class H14Leaf: Sendable {
    init() {}
}

/// What a chain walk reads: the next object down.
private protocol H14Walkable: AnyObject {
    var below: AnyObject? { get }
    var hookCount: Int { get }
}

/// One level of a chain: its only dependency is an injected property of the level below.
private final class H14Level<Next: AnyObject & Sendable>: PropertyInjectable, H14Walkable, @unchecked Sendable {
    let hooks = Counter()
    var next: Next?
    init() {}
    static var injectedProperties: [InjectedProperty] { [.inject(\H14Level<Next>.next)] }
    func didInjectDependencies() { hooks.increment() }
    var below: AnyObject? { next }
    var hookCount: Int { hooks.value }
}

private enum H14Chain {
    static func levelType<T: AnyObject & Sendable>(_ type: T.Type) -> any (AnyObject & Sendable).Type {
        H14Level<T>.self
    }

    static func bindLevel<T: AnyObject & Sendable>(
        _ binder: Binder, over type: T.Type, singleton: Bool
    ) -> any (AnyObject & Sendable).Type {
        let binding = binder.bind(H14Level<T>.self).to(H14Level<T>.init)
        if singleton { binding.in(.singleton) }
        return H14Level<T>.self
    }

    /// A module binding the leaf (async factory) and `depth` levels over it; and the top type.
    static func module(depth: Int, singleton: Bool) -> (ClosureModule, any (AnyObject & Sendable).Type) {
        var top: any (AnyObject & Sendable).Type = H14Leaf.self
        for _ in 0..<depth { top = levelType(top) }
        let module = ClosureModule { binder in
            binder.bind(H14Leaf.self).to { (_: Resolver) async throws -> H14Leaf in H14Leaf() }
            var current: any (AnyObject & Sendable).Type = H14Leaf.self
            for _ in 0..<depth { current = bindLevel(binder, over: current, singleton: singleton) }
        }
        return (module, top)
    }

    static func getAsync<T: AnyObject & Sendable>(_ injector: Injector, _ type: T.Type) async throws(ProvisionError)
        -> AnyObject
    {
        try await injector.get(type)
    }

    static func getSync<T: AnyObject & Sendable>(_ injector: Injector, _ type: T.Type) throws(ProvisionError)
        -> AnyObject
    {
        try injector.get(type)
    }

    /// Walks down from `top`: the number of levels, whether each hook ran once, and whether the bottom
    /// is a leaf.
    static func walk(_ top: AnyObject) -> (levels: Int, hooksOnce: Bool, leaf: Bool) {
        var levels = 0
        var hooksOnce = true
        var current: AnyObject? = top
        while let level = current as? any H14Walkable {
            levels += 1
            if level.hookCount != 1 { hooksOnce = false }
            current = level.below
        }
        return (levels, hooksOnce, current is H14Leaf)
    }
}

// MARK: - Tests

@Suite("Hunt14: deep chains of injected properties on the async path", .timeLimit(.minutes(2)))
struct Hunt14AsyncPropertyDepthTests {
    // Each level's only dependency is a property; the leaf is async-only. The async request either
    // builds the whole chain (every level injected, every hook once) or stops with depthExceeded; it
    // never crashes. A synchronous request says requiresAsync (needsAsync reaches the top through
    // every property edge).
    //
    // 200 and 400 levels, not 2,000: each level is a generic class over the level below, so the type of the
    // 2,000th is nested 2,000 deep. Under AddressSanitizer (bigger frames) the stack guard trips first,
    // and describing that type for the depthExceeded error (the runtime demangles it recursively)
    // overflowed the stack that the guard had left (CI of 5b83f5e). A limitation of naming a type
    // nested thousands deep, which no program writes; a chain of distinct types is what users build.
    @Test(
        "a deep chain of property-only levels over an async leaf",
        arguments: [(200, false), (200, true), (400, false), (400, true)])
    func deepChain(depth: Int, singleton: Bool) async throws {
        let (module, top) = H14Chain.module(depth: depth, singleton: singleton)
        let injector = try Injector(modules: [module])
        do throws(ProvisionError) {
            let object = try await H14Chain.getAsync(injector, top)
            let walk = H14Chain.walk(object)
            #expect(walk.levels == depth)
            #expect(walk.hooksOnce)
            #expect(walk.leaf)
        } catch {
            #expect(error.code == .depthExceeded, "\(error.code)")
        }
        let sync = Hunt5.result { () throws(ProvisionError) in try H14Chain.getSync(injector, top) }
        if singleton, sync.hunt5Error == nil {
            // Every singleton was built by the async request: the sync request returns them.
            #expect(try H14Chain.walk(sync.get()).levels == depth)
        } else {
            #expect(sync.hunt5Error?.code == .requiresAsync || sync.hunt5Error?.code == .depthExceeded)
        }
    }

    // The same chain with the request made twice: singletons come back identical, transients differ.
    @Test("a deep chain asked twice: singletons identical, transients fresh", arguments: [false, true])
    func deepChainTwice(singleton: Bool) async throws {
        let (module, top) = H14Chain.module(depth: 300, singleton: singleton)
        let injector = try Injector(modules: [module])
        let first = try await H14Chain.getAsync(injector, top)
        let second = try await H14Chain.getAsync(injector, top)
        #expect((first === second) == singleton)
        #expect(H14Chain.walk(first).hooksOnce)
        #expect(H14Chain.walk(second).hooksOnce)
    }
}
