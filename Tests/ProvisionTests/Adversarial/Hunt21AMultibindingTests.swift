import Testing

@testable import Provision

// Hunt 21 (A): multibinding errors at request time, as validation reports them: a `[T]` dependency with
// nothing multibound is emptyMultibinding, a single `T` that is only multibound ambiguousMultibinding;
// through children, named collections, optionals, closures, async requests and scopes; an ordinary
// `bind([T].self)` is not a multibinding.

// MARK: - Fixtures

private protocol H21APlugin: Sendable {}

private struct H21APluginA: H21APlugin {}

private struct H21APluginB: H21APlugin {}

/// Needs one plugin.
private final class H21AOne: Sendable {
    let plugin: any H21APlugin
    init(plugin: any H21APlugin) { self.plugin = plugin }
}

/// Needs every plugin.
private final class H21AAll: Sendable {
    let plugins: [any H21APlugin]
    init(plugins: [any H21APlugin]) { self.plugins = plugins }
}

/// Needs one plugin, if there is one.
private final class H21AMaybe: Sendable {
    let plugin: (any H21APlugin)?
    init(plugin: (any H21APlugin)?) { self.plugin = plugin }
}

/// A singleton in the middle of a path.
private final class H21AMiddle: Sendable {
    let one: H21AOne
    init(one: H21AOne) { self.one = one }
}

/// A transient at the top of a path.
private final class H21ATop: Sendable {
    let middle: H21AMiddle
    init(middle: H21AMiddle) { self.middle = middle }
}

/// Gets the plugins named "x" through an injected property.
private final class H21ANamedPlugins: PropertyInjectable, @unchecked Sendable {
    // swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
    var plugins: [any H21APlugin]!
    init() {}
    static var injectedProperties: [InjectedProperty] { [.inject(\H21ANamedPlugins.plugins, named: "x")] }
}

/// Gets the one plugin named "z" through an injected property.
private final class H21ANamedPlugin: PropertyInjectable, @unchecked Sendable {
    // swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
    var plugin: (any H21APlugin)!
    init() {}
    static var injectedProperties: [InjectedProperty] { [.inject(\H21ANamedPlugin.plugin, named: "z")] }
}

/// Gets the one plugin named "y" (nothing binds it) through an injected property.
private final class H21AUnboundPlugin: PropertyInjectable, @unchecked Sendable {
    // swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
    var plugin: (any H21APlugin)!
    init() {}
    static var injectedProperties: [InjectedProperty] { [.inject(\H21AUnboundPlugin.plugin, named: "y")] }
}

/// Gets one plugin through an injected optional property.
private final class H21APropertyPlugin: PropertyInjectable, @unchecked Sendable {
    var plugin: (any H21APlugin)?
    init() {}
    static var injectedProperties: [InjectedProperty] { [.inject(\H21APropertyPlugin.plugin)] }
}

private let h21AOneKey = BindingKey(H21AOne.self)
private let h21APluginKey = BindingKey((any H21APlugin).self)
private let h21APluginsKey = BindingKey([any H21APlugin].self)

// MARK: - Tests

@Suite("Hunt 21A: multibinding errors at request time", .timeLimit(.minutes(1)))
struct Hunt21AMultibindingTests {
    private static func error<T>(_ body: () throws(ProvisionError) -> T) -> ProvisionError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    /// A child's constructor over one plugin, which only its parent multibinds: ambiguousMultibinding
    /// naming the parent's two elements, with the child's path; its constructor over every plugin gets
    /// the parent's two.
    @Test("a child over one T that its parent only multibinds: ambiguousMultibinding; over [T]: the parent's")
    func childOfMultibindingParent() throws {
        let parent = try Injector(
            ClosureModule { binder in
                binder.multibind((any H21APlugin).self).toInstance(H21APluginA())
                binder.multibind((any H21APlugin).self).toInstance(H21APluginB())
            })
        let child = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(H21AOne.self).to(H21AOne.init(plugin:))
                    binder.bind(H21AAll.self).to(H21AAll.init(plugins:))
                }
            ],
            configuration: .unvalidated,
            parent: parent
        )
        let error = Self.error { () throws(ProvisionError) in try child.get(H21AOne.self) }
        #expect(error?.code == .ambiguousMultibinding, "\(String(describing: error))")
        #expect(error?.path == [h21AOneKey, h21APluginKey])
        #expect(error?.message.contains("2 multibinding elements") == true, "\(error?.message ?? "")")
        #expect(try child.get(H21AAll.self).plugins.count == 2)
        #expect(child.validationReport().problems.map(\.code) == [.ambiguousMultibinding])
    }

    /// A child multibinds the plugins; the parent's constructor over every plugin doesn't see them
    /// (emptyMultibinding), the child's over one is ambiguous.
    @Test("a child's own multibinding: the parent's [T] is empty, the child's one T ambiguous")
    func childMultibinds() throws {
        let parent = try Injector.unvalidated(
            ClosureModule { binder in binder.bind(H21AAll.self).to(H21AAll.init(plugins:)) })
        let child = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.multibind((any H21APlugin).self).toInstance(H21APluginA())
                    binder.bind(H21AOne.self).to(H21AOne.init(plugin:))
                }
            ],
            configuration: .unvalidated,
            parent: parent
        )
        let parentError = Self.error { () throws(ProvisionError) in try parent.get(H21AAll.self) }
        #expect(parentError?.code == .emptyMultibinding, "\(String(describing: parentError))")
        let childError = Self.error { () throws(ProvisionError) in try child.get(H21AOne.self) }
        #expect(childError?.code == .ambiguousMultibinding, "\(String(describing: childError))")
        #expect(childError?.message.contains("1 multibinding element") == true, "\(childError?.message ?? "")")
    }

    /// Named collections through injected properties: `[T]` named "x" with only unnamed elements is
    /// emptyMultibinding naming "x"; one T named "z", whose elements are named "z", ambiguousMultibinding;
    /// one T named "y" notBound; each as validation reports it.
    @Test("named collections through injected properties: by name, as validation reports them")
    func namedCollections() throws {
        let injector = try Injector.unvalidated(
            ClosureModule { binder in
                binder.multibind((any H21APlugin).self).toInstance(H21APluginA())
                binder.multibind((any H21APlugin).self, named: "z").toInstance(H21APluginB())
                binder.bind(H21ANamedPlugins.self).to(H21ANamedPlugins.init)
                binder.bind(H21ANamedPlugin.self).to(H21ANamedPlugin.init)
                binder.bind(H21AUnboundPlugin.self).to(H21AUnboundPlugin.init)
            })
        let empty = Self.error { () throws(ProvisionError) in try injector.get(H21ANamedPlugins.self) }
        #expect(empty?.code == .emptyMultibinding, "\(String(describing: empty))")
        #expect(empty?.key == BindingKey([any H21APlugin].self, named: "x"))
        #expect(empty?.message.contains("\"x\"") == true, "\(empty?.message ?? "")")
        let ambiguous = Self.error { () throws(ProvisionError) in try injector.get(H21ANamedPlugin.self) }
        #expect(ambiguous?.code == .ambiguousMultibinding, "\(String(describing: ambiguous))")
        #expect(ambiguous?.key == BindingKey((any H21APlugin).self, named: "z"))
        let unbound = Self.error { () throws(ProvisionError) in try injector.get(H21AUnboundPlugin.self) }
        #expect(unbound?.code == .notBound, "\(String(describing: unbound))")
        let codes = injector.validationReport().problems.map(\.code)
        #expect(Set(codes) == [.emptyMultibinding, .ambiguousMultibinding, .notBound], "\(codes)")
    }

    /// Found by hunt 21A, fixed: a closure that declares its dependencies (`to(dependencies:_:)`) on `[T]`, with
    /// nothing multibound, or on one T that is only multibound: validation reports emptyMultibinding /
    /// ambiguousMultibinding with the path [closure's key, dependency], but the request, failing on the
    /// closure's `resolver.get` with the same path, throws notBound.
    @Test(
        "a declared closure's missing list or ambiguous T: the request's code is validation's",
        arguments: [false, true])
    func declaredClosureMatchesValidation(list: Bool) throws {
        let injector = try Injector.unvalidated(
            ClosureModule { binder in
                if list {
                    binder.bind(H21AAll.self).to(dependencies: [h21APluginsKey]) { resolver in
                        H21AAll(plugins: try resolver.get([any H21APlugin].self))
                    }
                } else {
                    binder.multibind((any H21APlugin).self).toInstance(H21APluginA())
                    binder.bind(H21AOne.self).to(dependencies: [h21APluginKey]) { resolver in
                        H21AOne(plugin: try resolver.get((any H21APlugin).self))
                    }
                }
            })
        let problem = try #require(injector.validationReport().problems.first)
        let request =
            list
            ? Self.error { () throws(ProvisionError) in try injector.get(H21AAll.self) }
            : Self.error { () throws(ProvisionError) in try injector.get(H21AOne.self) }
        #expect(problem.code == (list ? .emptyMultibinding : .ambiguousMultibinding))
        #expect(request?.path == problem.path, "request: \(String(describing: request)); validation: \(problem)")
        #expect(request?.code == problem.code, "request: \(String(describing: request)); validation: \(problem)")
    }

    /// An ordinary binding of `[T]` (an instance, or a constructor) is not a multibinding: one T is then
    /// notBound, at request and at validation.
    @Test("bind([T].self) is not a multibinding: one T is notBound", arguments: [false, true])
    func ordinaryListIsNoMultibinding(constructed: Bool) throws {
        let injector = try Injector.unvalidated(
            ClosureModule { binder in
                if constructed {
                    binder.bind(H21APluginA.self).toInstance(H21APluginA())
                    binder.bind([any H21APlugin].self).to { (plugin: H21APluginA) -> [any H21APlugin] in [plugin] }
                } else {
                    binder.bind([any H21APlugin].self).toInstance([H21APluginA()])
                }
                binder.bind(H21AOne.self).to(H21AOne.init(plugin:))
                binder.bind(H21AAll.self).to(H21AAll.init(plugins:))
            })
        let error = Self.error { () throws(ProvisionError) in try injector.get(H21AOne.self) }
        #expect(error?.code == .notBound, "\(String(describing: error))")
        #expect(try injector.get(H21AAll.self).plugins.count == 1)
        #expect(injector.validationReport().problems.map(\.code) == [.notBound])
    }

    /// An optional dependency on a T that is only multibound, as a constructor parameter and as an
    /// injected property: the request and validation agree (both fine with nil, or both report it).
    @Test("T? of an only-multibound T: request and validation agree", arguments: [false, true])
    func optionalOfOnlyMultibound(property: Bool) throws {
        let injector = try Injector.unvalidated(
            ClosureModule { binder in
                binder.multibind((any H21APlugin).self).toInstance(H21APluginA())
                binder.bind(H21AMaybe.self).to(H21AMaybe.init(plugin:))
                binder.bind(H21APropertyPlugin.self).to(H21APropertyPlugin.init)
            })
        let key = property ? BindingKey(H21APropertyPlugin.self) : BindingKey(H21AMaybe.self)
        let problems = injector.validationReport().problems.filter { $0.path.first == key }
        let outcome: Result<Bool, ProvisionError> =
            property
            ? Hunt5.result { () throws(ProvisionError) in try injector.get(H21APropertyPlugin.self).plugin == nil }
            : Hunt5.result { () throws(ProvisionError) in try injector.get(H21AMaybe.self).plugin == nil }
        switch outcome {
        case .success(let isNil):
            #expect(problems.isEmpty, "validation reports \(problems) but the request succeeds")
            #expect(isNil)
        case .failure(let error):
            #expect(problems.map(\.code) == [error.code], "validation: \(problems); request: \(error)")
        }
    }

    /// A transient over a singleton over a constructor of one T, T only multibound: the error is
    /// ambiguousMultibinding with the whole path, naming the constructor as the one that needs it; the
    /// same from an async request and from a scope.
    @Test("ambiguousMultibinding through a chain: the whole path, sync, async and in a scope")
    func ambiguousThroughChain() async throws {
        let module = ClosureModule { binder in
            binder.multibind((any H21APlugin).self).toInstance(H21APluginA())
            binder.multibind((any H21APlugin).self).toInstance(H21APluginB())
            binder.bind(H21AOne.self).to(H21AOne.init(plugin:))
            binder.bind(H21AMiddle.self).to(H21AMiddle.init(one:)).in(.singleton)
            binder.bind(H21ATop.self).to(H21ATop.init(middle:)).in(.scoped)
        }
        let path = [BindingKey(H21ATop.self), BindingKey(H21AMiddle.self), h21AOneKey, h21APluginKey]
        let sync = try Injector.unvalidated(module)
        let scope = sync.makeScope()
        let syncError = Self.error { () throws(ProvisionError) in try scope.get(H21ATop.self) }
        #expect(syncError?.code == .ambiguousMultibinding, "\(String(describing: syncError))")
        #expect(syncError?.path == path)
        #expect(syncError?.message.contains("H21AOne needs one") == true, "\(syncError?.message ?? "")")
        let async = try Injector.unvalidated(module)
        let asyncScope = async.makeScope()
        let asyncError = await Hunt5.error { () async throws(ProvisionError) in try await asyncScope.get(H21ATop.self) }
        #expect(asyncError?.code == .ambiguousMultibinding, "\(String(describing: asyncError))")
        #expect(asyncError?.path == path)
        try await scope.close()
        try await asyncScope.close()
    }

    /// A `[T]` dependency with nothing multibound from an async request, and through an async singleton's
    /// resolver: emptyMultibinding, as for a synchronous request.
    @Test("emptyMultibinding from async requests: a constructor and an async closure's resolver")
    func emptyFromAsync() async throws {
        let injector = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(H21AAll.self).to(H21AAll.init(plugins:))
                binder.bind(H21AOne.self).to { resolver async throws in
                    let all = try await resolver.get(H21AAll.self)
                    return H21AOne(plugin: all.plugins.first ?? H21APluginA())
                }.in(.singleton)
            })
        let direct = await Hunt5.error { () async throws(ProvisionError) in try await injector.get(H21AAll.self) }
        #expect(direct?.code == .emptyMultibinding, "\(String(describing: direct))")
        #expect(direct?.path == [BindingKey(H21AAll.self), h21APluginsKey])
        let nested = await Hunt5.error { () async throws(ProvisionError) in try await injector.get(H21AOne.self) }
        #expect(nested?.code == .emptyMultibinding, "\(String(describing: nested))")
        #expect(nested?.path == [h21AOneKey, BindingKey(H21AAll.self), h21APluginsKey])
    }

    /// Found by hunt 21A, fixed: an undeclared closure's request for `[T]` with nothing multibound (path [closure's
    /// key, [T]]) throws notBound, not emptyMultibinding, and its request for one T that is only
    /// multibound throws notBound, not ambiguousMultibinding, unlike the same dependency of a constructor.
    @Test("an undeclared closure's requests: emptyMultibinding and ambiguousMultibinding with its path")
    func undeclaredClosureRequests() throws {
        let injector = try Injector.unvalidated(
            ClosureModule { binder in
                binder.multibind((any H21APlugin).self, named: "some").toInstance(H21APluginA())
                binder.bind(H21AAll.self).to { resolver in H21AAll(plugins: try resolver.get([any H21APlugin].self)) }
                binder.bind(H21AOne.self).to { resolver in
                    H21AOne(plugin: try resolver.get((any H21APlugin).self, named: "some"))
                }
            })
        let empty = Self.error { () throws(ProvisionError) in try injector.get(H21AAll.self) }
        #expect(empty?.code == .emptyMultibinding, "\(String(describing: empty))")
        #expect(empty?.path == [BindingKey(H21AAll.self), h21APluginsKey])
        let ambiguous = Self.error { () throws(ProvisionError) in try injector.get(H21AOne.self) }
        #expect(ambiguous?.code == .ambiguousMultibinding, "\(String(describing: ambiguous))")
        #expect(ambiguous?.path == [h21AOneKey, BindingKey((any H21APlugin).self, named: "some")])
    }

    /// A request for `[T]` itself, or for one T itself, is notBound (documented); `getAll` of nothing is
    /// empty.
    @Test("a request for [T] or T itself: notBound; getAll: empty")
    func topLevelRequests() throws {
        let injector = try Injector(
            ClosureModule { binder in binder.multibind((any H21APlugin).self).toInstance(H21APluginA()) })
        let list = Self.error { () throws(ProvisionError) in try injector.get([H21AOne].self) }
        #expect(list?.code == .notBound, "\(String(describing: list))")
        let one = Self.error { () throws(ProvisionError) in try injector.get((any H21APlugin).self) }
        #expect(one?.code == .notBound, "\(String(describing: one))")
        #expect(try injector.getAll(H21AOne.self).isEmpty)
    }
}
