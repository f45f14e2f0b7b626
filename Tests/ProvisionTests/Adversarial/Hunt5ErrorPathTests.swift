import Dispatch
import Foundation
import Provision
import Testing

// MARK: - Fixtures

private struct Hunt5Failure: Error, Equatable {
    var id = 0
}

private final class Hunt5Leaf: Sendable {}
private final class Hunt5SideA: Sendable {}
private final class Hunt5SideB: Sendable {}
private final class Hunt5SideC: Sendable {}
private final class Hunt5SideD: Sendable {}

/// Arity 1 to 5 constructor levels, a closure level, and levels that reach the next one through a handle
/// read in their initializer, or an optional parameter.
private final class Hunt5Level1<Inner: Sendable>: Sendable {
    let inner: Inner
    init(inner: Inner) { self.inner = inner }
}
private final class Hunt5Level2<Inner: Sendable>: Sendable {
    let inner: Inner
    init(a: Hunt5SideA, inner: Inner) { self.inner = inner }
}
private final class Hunt5Level3<Inner: Sendable>: Sendable {
    let inner: Inner
    init(a: Hunt5SideA, b: Hunt5SideB, inner: Inner) { self.inner = inner }
}
private final class Hunt5Level4<Inner: Sendable>: Sendable {
    let inner: Inner
    init(a: Hunt5SideA, b: Hunt5SideB, inner: Inner, c: Hunt5SideC) { self.inner = inner }
}
private final class Hunt5Level5<Inner: Sendable>: Sendable {
    let inner: Inner
    init(a: Hunt5SideA, b: Hunt5SideB, c: Hunt5SideC, d: Hunt5SideD, inner: Inner) { self.inner = inner }
}
private final class Hunt5ClosureLevel<Inner: Sendable>: Sendable {
    let inner: Inner
    init(inner: Inner) { self.inner = inner }
}
private final class Hunt5ProviderLevel<Inner: Sendable>: Sendable {
    let inner: Inner
    init(inner: Provider<Inner>) throws { self.inner = try inner.get() }
}
private final class Hunt5LazyLevel<Inner: Sendable>: Sendable {
    let inner: Inner
    init(inner: Lazy<Inner>) throws { self.inner = try inner.value }
}
private final class Hunt5OptionalLevel<Inner: Sendable>: Sendable {
    let inner: Inner?
    init(inner: Inner?) { self.inner = inner }
}
private final class Hunt5FactoryLevel<Inner: Sendable>: Sendable {
    let inner: Inner
    init(factory: ObjectFactory) throws { self.inner = try factory.get(Inner.self) }
}

private enum Hunt5LevelKind: CaseIterable {
    case arity1, arity2, arity3, arity4, arity5, closure, provider, lazy, optional, objectFactory
}

/// Binds a chain of levels over the failing leaf, each of the kinds given in turn, and returns the path
/// a request for the top level must report (outermost first).
private enum Hunt5Chain {
    static func bind(_ binder: Binder, kinds: [Hunt5LevelKind], scopes: (Int) -> Scope) -> [BindingKey] {
        binder.bind(Hunt5SideA.self).to(Hunt5SideA.init)
        binder.bind(Hunt5SideB.self).to(Hunt5SideB.init).in(.singleton)
        binder.bind(Hunt5SideC.self).to(Hunt5SideC.init)
        binder.bind(Hunt5SideD.self).to(Hunt5SideD.init)
        binder.bind(Hunt5Leaf.self).to { () throws -> Hunt5Leaf in throw Hunt5Failure(id: 42) }
        var path = [BindingKey(Hunt5Leaf.self)]
        level(binder, over: Hunt5Leaf.self, kinds: kinds[...], index: 0, scopes: scopes, path: &path)
        return path.reversed()
    }

    private static func level<Inner: Sendable>(
        _ binder: Binder, over: Inner.Type, kinds: ArraySlice<Hunt5LevelKind>, index: Int, scopes: (Int) -> Scope,
        path: inout [BindingKey]
    ) {
        guard let kind = kinds.first else { return }
        let scope = scopes(index)
        let rest = kinds.dropFirst()
        switch kind {
        case .arity1:
            binder.bind(Hunt5Level1<Inner>.self).to(Hunt5Level1<Inner>.init(inner:)).in(scope)
            next(binder, Hunt5Level1<Inner>.self, rest, index, scopes, &path)
        case .arity2:
            binder.bind(Hunt5Level2<Inner>.self).to(Hunt5Level2<Inner>.init(a:inner:)).in(scope)
            next(binder, Hunt5Level2<Inner>.self, rest, index, scopes, &path)
        case .arity3:
            binder.bind(Hunt5Level3<Inner>.self).to(Hunt5Level3<Inner>.init(a:b:inner:)).in(scope)
            next(binder, Hunt5Level3<Inner>.self, rest, index, scopes, &path)
        case .arity4:
            binder.bind(Hunt5Level4<Inner>.self).to(Hunt5Level4<Inner>.init(a:b:inner:c:)).in(scope)
            next(binder, Hunt5Level4<Inner>.self, rest, index, scopes, &path)
        case .arity5:
            binder.bind(Hunt5Level5<Inner>.self).to(Hunt5Level5<Inner>.init(a:b:c:d:inner:)).in(scope)
            next(binder, Hunt5Level5<Inner>.self, rest, index, scopes, &path)
        case .closure:
            binder.bind(Hunt5ClosureLevel<Inner>.self).to { resolver in
                Hunt5ClosureLevel(inner: try resolver.get(Inner.self))
            }.in(scope)
            next(binder, Hunt5ClosureLevel<Inner>.self, rest, index, scopes, &path)
        case .provider:
            binder.bind(Hunt5ProviderLevel<Inner>.self).to(Hunt5ProviderLevel<Inner>.init(inner:)).in(scope)
            next(binder, Hunt5ProviderLevel<Inner>.self, rest, index, scopes, &path)
        case .lazy:
            binder.bind(Hunt5LazyLevel<Inner>.self).to(Hunt5LazyLevel<Inner>.init(inner:)).in(scope)
            next(binder, Hunt5LazyLevel<Inner>.self, rest, index, scopes, &path)
        case .optional:
            binder.bind(Hunt5OptionalLevel<Inner>.self).to(Hunt5OptionalLevel<Inner>.init(inner:)).in(scope)
            next(binder, Hunt5OptionalLevel<Inner>.self, rest, index, scopes, &path)
        case .objectFactory:
            binder.bind(Hunt5FactoryLevel<Inner>.self).to(Hunt5FactoryLevel<Inner>.init(factory:)).in(scope)
            next(binder, Hunt5FactoryLevel<Inner>.self, rest, index, scopes, &path)
        }
    }

    private static func next<Outer: Sendable>(
        _ binder: Binder, _ outer: Outer.Type, _ rest: ArraySlice<Hunt5LevelKind>, _ index: Int,
        _ scopes: (Int) -> Scope, _ path: inout [BindingKey]
    ) {
        path.append(BindingKey(Outer.self))
        level(binder, over: Outer.self, kinds: rest, index: index + 1, scopes: scopes, path: &path)
    }

    /// Resolves the top of a chain bound by `bind` (the last key of `path`), by opening its type.
    static func top(_ injector: Injector, _ key: BindingKey) -> ProvisionError? {
        func open<T>(_ type: T.Type) -> ProvisionError? {
            Hunt5.result { () throws(ProvisionError) in try injector.get(T.self) }.hunt5Error
        }
        return _openExistential(key.type, do: open)
    }

    /// The same, asynchronously.
    static func topAsync(_ injector: Injector, _ key: BindingKey) async -> ProvisionError? {
        func open<T>(_ type: T.Type) async -> ProvisionError? {
            await Hunt5.error { () async throws(ProvisionError) in try await injector.get(T.self) }
        }
        return await _openExistential(key.type, do: open)
    }

    /// `count` kinds, cycling through `kinds`.
    static func kinds(_ count: Int, from kinds: [Hunt5LevelKind]) -> [Hunt5LevelKind] {
        (0..<count).map { kinds[$0 % kinds.count] }
    }
}

// MARK: - Tests

/// A failing factory 1, 5 and 50 levels down, through every kind of edge: the error names the failing
/// binding and the whole path, outermost first, in Swift syntax.
@Suite("Hunt5: errors at every depth, through every kind of edge", .timeLimit(.minutes(1)))
struct Hunt5ErrorPathTests {
    private static let staticKinds: [Hunt5LevelKind] = [.arity1, .arity2, .arity3, .arity4, .arity5, .closure]
    private static let handleKinds: [Hunt5LevelKind] = [.provider, .arity2, .lazy, .optional, .objectFactory, .closure]

    static func check(
        _ error: ProvisionError?, path: [BindingKey], sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        #expect(error?.code == .factoryFailed, "\(String(describing: error))", sourceLocation: sourceLocation)
        #expect(error?.cause as? Hunt5Failure == Hunt5Failure(id: 42), sourceLocation: sourceLocation)
        #expect(error?.key == BindingKey(Hunt5Leaf.self), sourceLocation: sourceLocation)
        #expect(
            error?.path == path,
            "got:\n\(error?.pathDescription ?? "nil")\nexpected:\n\(path.map(\.description).joined(separator: " -> "))",
            sourceLocation: sourceLocation)
        let text = error?.pathDescription ?? ""
        #expect(
            !text.contains("unknown context") && !text.contains("ProvisionTests."), "\(text)",
            sourceLocation: sourceLocation)
    }

    @Test("constructor bindings of arity 1 to 5 and closures, transient", arguments: [1, 5, 50])
    func staticEdgesTransient(depth: Int) throws {
        let kinds = Hunt5Chain.kinds(depth, from: Self.staticKinds)
        let path = Locked<[BindingKey]>([])
        let injector = try Injector(
            ClosureModule { binder in
                let bound = Hunt5Chain.bind(binder, kinds: kinds, scopes: { _ in .transient })
                path.withLock { $0 = bound }
            }
        )
        let expected = path.withLock { $0 }
        #expect(expected.count == depth + 1)
        Self.check(Hunt5Chain.top(injector, expected[0]), path: expected)
        // Again: the second request runs the linked plans.
        Self.check(Hunt5Chain.top(injector, expected[0]), path: expected)
    }

    @Test("constructor bindings and closures, every other level a singleton", arguments: [5, 50])
    func staticEdgesSingletons(depth: Int) async throws {
        let kinds = Hunt5Chain.kinds(depth, from: Self.staticKinds)
        let path = Locked<[BindingKey]>([])
        let injector = try Injector(
            ClosureModule { binder in
                let bound = Hunt5Chain.bind(binder, kinds: kinds, scopes: { $0 % 2 == 0 ? .singleton : .transient })
                path.withLock { $0 = bound }
            }
        )
        let expected = path.withLock { $0 }
        Self.check(Hunt5Chain.top(injector, expected[0]), path: expected)
        Self.check(await Hunt5Chain.topAsync(injector, expected[0]), path: expected)
    }

    @Test(
        "levels that reach the next through a Provider, Lazy, optional or ObjectFactory, transient",
        arguments: [1, 5, 50])
    func handleEdgesTransient(depth: Int) throws {
        let kinds = Hunt5Chain.kinds(depth, from: Self.handleKinds)
        let path = Locked<[BindingKey]>([])
        let injector = try Injector(
            ClosureModule { binder in
                let bound = Hunt5Chain.bind(binder, kinds: kinds, scopes: { _ in .transient })
                path.withLock { $0 = bound }
            }
        )
        let expected = path.withLock { $0 }
        Self.check(Hunt5Chain.top(injector, expected[0]), path: expected)
    }

    @Test("the same through handles with singletons on the way, sync and async", arguments: [5, 50])
    func handleEdgesSingletons(depth: Int) async throws {
        let kinds = Hunt5Chain.kinds(depth, from: Self.handleKinds)
        let path = Locked<[BindingKey]>([])
        let injector = try Injector(
            ClosureModule { binder in
                let bound = Hunt5Chain.bind(binder, kinds: kinds, scopes: { $0 % 3 == 0 ? .singleton : .transient })
                path.withLock { $0 = bound }
            }
        )
        let expected = path.withLock { $0 }
        Self.check(Hunt5Chain.top(injector, expected[0]), path: expected)
        Self.check(await Hunt5Chain.topAsync(injector, expected[0]), path: expected)
    }

    @Test("8 threads hitting the same failing chain with singletons at once: each gets the whole path")
    func concurrentFailures() throws {
        let kinds = Hunt5Chain.kinds(12, from: Self.staticKinds)
        let path = Locked<[BindingKey]>([])
        let injector = try Injector(
            ClosureModule { binder in
                let bound = Hunt5Chain.bind(binder, kinds: kinds, scopes: { $0 % 2 == 0 ? .singleton : .transient })
                path.withLock { $0 = bound }
            }
        )
        let expected = path.withLock { $0 }
        let errors = Locked<[ProvisionError?]>([])
        #expect(
            runThreads(8) { _ in
                let error = Hunt5Chain.top(injector, expected[0])
                errors.withLock { $0.append(error) }
            })
        let all = errors.withLock { $0 }
        #expect(all.count == 8)
        for error in all {
            // A thread that waited for another's failing build inherits its failure: the leaf is the
            // failing binding, and the path still starts at the request's own root.
            #expect(error?.code == .factoryFailed, "\(String(describing: error))")
            #expect(error?.key == BindingKey(Hunt5Leaf.self))
            #expect(error?.path.first == expected.first, "\(error?.pathDescription ?? "nil")")
            #expect(error?.path.last == BindingKey(Hunt5Leaf.self), "\(error?.pathDescription ?? "nil")")
        }
    }
}
