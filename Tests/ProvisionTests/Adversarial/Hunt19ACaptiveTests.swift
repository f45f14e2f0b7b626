import Testing

@testable import Provision

// Hunt 19 (A): validation's captive rule for handles (a singleton's Provider/Lazy of a transient, list or
// optional that reaches a scoped binding or a seed). Validation runs when an injector is created, so a
// false positive rejects a valid app: the valid graphs below must be accepted, and work.

// MARK: - Fixtures of this file

/// A per-request value.
final class Hunt19ARequest: Sendable {}

/// A transient that defers the request to a handle of its own.
final class Hunt19ADeferred<Handle: Sendable>: Sendable {
    let handle: Handle
    init(handle: Handle) { self.handle = handle }
}

/// A process-wide holder of a handle.
final class Hunt19AHolder<Handle: Sendable>: Sendable {
    let handle: Handle
    init(handle: Handle) { self.handle = handle }
}

/// A transient with an optional dependency.
final class Hunt19AMaybe: Sendable {
    let request: Hunt19ARequest?
    init(request: Hunt19ARequest?) { self.request = request }
}

/// A transient that needs the request.
final class Hunt19ARequestReader: Sendable {
    let request: Hunt19ARequest
    init(request: Hunt19ARequest) { self.request = request }
}

/// The codes of the problems validation finds in `modules` (empty: valid).
func hunt19AProblems(_ modules: [any Module]) throws -> [ProvisionError.Code] {
    let injector = try Injector(modules: modules, configuration: .unvalidated)
    return injector.validationReport().problems.map(\.code)
}

// MARK: - Tests

@Suite("Hunt19A: captive handles, false positives and negatives", .timeLimit(.minutes(1)))
struct Hunt19ACaptiveTests {
    @Test("a singleton's Provider of a transient that holds a Provider of a scoped binding: valid, and works")
    func handleOfTransientHoldingProvider() throws {
        typealias Inner = Hunt19ADeferred<Provider<Hunt19ARequest>>
        typealias Holder = Hunt19AHolder<Provider<Inner>>
        let module = ClosureModule { binder in
            binder.bind(Hunt19ARequest.self).to { Hunt19ARequest() }.in(.scoped)
            binder.bind(Inner.self).to(Inner.init(handle:))
            binder.bind(Holder.self).to(Holder.init(handle:)).in(.singleton)
        }
        #expect(try hunt19AProblems([module]) == [])
        let injector = try Injector(module)
        let holder = try hunt19ASyncGet(injector, Holder.self)
        #expect(throws: Never.self) { _ = try holder.handle.get() }
    }

    @Test("a singleton's Lazy of a transient that holds a Lazy of a scoped binding: valid")
    func lazyOfTransientHoldingLazy() throws {
        typealias Inner = Hunt19ADeferred<Lazy<Hunt19ARequest>>
        typealias Holder = Hunt19AHolder<Lazy<Inner>>
        let module = ClosureModule { binder in
            binder.bind(Hunt19ARequest.self).to { Hunt19ARequest() }.in(.scoped)
            binder.bind(Inner.self).to(Inner.init(handle:))
            binder.bind(Holder.self).to(Holder.init(handle:)).in(.singleton)
        }
        #expect(try hunt19AProblems([module]) == [])
        #expect(throws: Never.self) { _ = try Injector(module) }
    }

    @Test("a singleton's Provider of a list whose elements are singletons and transients only: valid")
    func handleOfListWithoutScopedElement() throws {
        let module = ClosureModule { binder in
            binder.bind(Hunt19ARequest.self).to { Hunt19ARequest() }.in(.scoped)
            binder.multibind((any Hunt19APlugin).self).to { Hunt19ANamedPlugin("a") }.in(.singleton)
            binder.multibind((any Hunt19APlugin).self).to { Hunt19ANamedPlugin("b") }
            binder.multibind((any Hunt19APlugin).self).to(
                dependencies: [BindingKey(Provider<Hunt19ARequest>.self)]
            ) { resolver in
                _ = try resolver.get(Provider<Hunt19ARequest>.self)
                return Hunt19ANamedPlugin("c")
            }
            binder.bind(Hunt19AHolder<Provider<[any Hunt19APlugin]>>.self).to(
                Hunt19AHolder<Provider<[any Hunt19APlugin]>>.init(handle:)
            ).in(.singleton)
        }
        #expect(try hunt19AProblems([module]) == [])
        let injector = try Injector(module)
        let holder = try hunt19ASyncGet(injector, Hunt19AHolder<Provider<[any Hunt19APlugin]>>.self)
        #expect(try holder.handle.get().map(\.name) == ["a", "b", "c"])
    }

    @Test("a singleton's Provider of a transient with an optional of an unbound key: valid, nil")
    func handleOfOptionalOfUnbound() throws {
        let module = ClosureModule { binder in
            binder.bind(Hunt19AMaybe.self).to(Hunt19AMaybe.init(request:))
            binder.bind(Hunt19AHolder<Provider<Hunt19AMaybe>>.self).to(
                Hunt19AHolder<Provider<Hunt19AMaybe>>.init(handle:)
            ).in(.singleton)
        }
        #expect(try hunt19AProblems([module]) == [])
        let injector = try Injector(module)
        #expect(try hunt19ASyncGet(injector, Hunt19AHolder<Provider<Hunt19AMaybe>>.self).handle.get().request == nil)
    }

    @Test("scoped and transient holders of a Provider of a transient reaching a scoped binding: valid")
    func nonSingletonHolders() throws {
        typealias Holder = Hunt19AHolder<Provider<Hunt19ARequestReader>>
        for scope in [Scope.scoped, Scope.transient] {
            let module = ClosureModule { binder in
                binder.bind(Hunt19ARequest.self).to { Hunt19ARequest() }.in(.scoped)
                binder.bind(Hunt19ARequestReader.self).to(Hunt19ARequestReader.init(request:))
                binder.bind(Holder.self).to(Holder.init(handle:)).in(scope)
            }
            #expect(try hunt19AProblems([module]) == [], "holder \(scope)")
            let injector = try Injector(module)
            let serviceScope = injector.makeScope()
            let holder = try hunt19ASyncGet(serviceScope, Holder.self)
            #expect(throws: Never.self) { _ = try holder.handle.get() }
            try serviceScope.close()
        }
    }

    /// A parent's singleton holds a Provider of the parent's transient, whose optional dependency the
    /// parent doesn't bind; a child binds it scoped. The parent's singleton (and its handle) resolve in
    /// the parent, where the optional is nil: the child is valid.
    @Test("a child binding scoped what a parent singleton's handle only reaches as an unbound optional: valid")
    func childBindsScopedUnderParentHandle() throws {
        typealias Holder = Hunt19AHolder<Provider<Hunt19AMaybe>>
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt19AMaybe.self).to(Hunt19AMaybe.init(request:))
                binder.bind(Holder.self).to(Holder.init(handle:)).in(.singleton)
            })
        let child: Injector
        do {
            child = try parent.makeChild(
                ClosureModule { binder in
                    binder.bind(Hunt19ARequest.self).to { Hunt19ARequest() }.in(.scoped)
                })
        } catch {
            Issue.record("the valid child was rejected: \(error)")
            return
        }
        let holder = try hunt19ASyncGet(parent, Holder.self)
        #expect(try holder.handle.get().request == nil)
        #expect(try hunt19ASyncGet(child, Holder.self) === holder)
    }

    @Test("a singleton's Lazy of a transient reaching a seed is captive (false negative check)")
    func lazyOfTransientReachingSeed() throws {
        let module = ClosureModule { binder in
            binder.bind(Hunt19ARequest.self).toSeed()
            binder.bind(Hunt19ARequestReader.self).to(Hunt19ARequestReader.init(request:))
            binder.bind(Hunt19AHolder<Lazy<Hunt19ARequestReader>>.self).to(
                Hunt19AHolder<Lazy<Hunt19ARequestReader>>.init(handle:)
            ).in(.singleton)
        }
        #expect(try hunt19AProblems([module]) == [.captiveDependency])
    }

    @Test("a singleton closure declaring a Provider of a transient reaching a scoped binding is captive")
    func declaredHandleIsCaptive() throws {
        let module = ClosureModule { binder in
            binder.bind(Hunt19ARequest.self).to { Hunt19ARequest() }.in(.scoped)
            binder.bind(Hunt19ARequestReader.self).to(Hunt19ARequestReader.init(request:))
            binder.bind(Hunt19AHolder<Provider<Hunt19ARequestReader>>.self).to(
                dependencies: [BindingKey(Provider<Hunt19ARequestReader>.self)]
            ) { resolver in
                Hunt19AHolder(handle: try resolver.get(Provider<Hunt19ARequestReader>.self))
            }.in(.singleton)
        }
        #expect(try hunt19AProblems([module]) == [.captiveDependency])
    }
}
