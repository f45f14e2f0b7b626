import Testing

@testable import Provision

/// A level of a chain of children.
final class SealLevel: Sendable {
    let index: Int
    init(index: Int) { self.index = index }
}

/// One instance per scope.
final class SealScoped: Sendable {
    init() {}
}

/// A transient that holds a scoped instance.
final class SealScopedUser: Sendable {
    let scoped: SealScoped
    init(scoped: SealScoped) { self.scoped = scoped }
}

/// A transient over ``SealScopedUser``.
final class SealOuterUser: Sendable {
    let user: SealScopedUser
    init(user: SealScopedUser) { self.user = user }
}

/// A transient that holds nothing shorter-lived.
final class SealPlain: Sendable {
    init() {}
}

/// A singleton over a ``SealScopedUser``: captive.
final class SealHolder: Sendable {
    let user: SealScopedUser
    init(user: SealScopedUser) { self.user = user }
}

/// A singleton over a ``SealOuterUser``: captive, two transients down.
final class SealOuterHolder: Sendable {
    let user: SealOuterUser
    init(user: SealOuterUser) { self.user = user }
}

/// A singleton over a ``SealPlain``: fine.
final class SealPlainHolder: Sendable {
    let plain: SealPlain
    init(plain: SealPlain) { self.plain = plain }
}

/// Built just in time, until a module binds it.
struct SealJustInTime: Injectable {
    static let injection = Injection(SealJustInTime.init)
}

/// Depends on ``SealJustInTime``.
struct SealNeedsJustInTime: Sendable {
    let value: SealJustInTime
}

/// A child validates its own bindings and stops at the bindings of ancestors that were validated when
/// they were created (see `ValidationSeal`): a chain of children costs each child its own bindings.
@Suite("Validation seals")
struct ValidationSealTests {
    private static func level(_ index: Int) -> BindingKey { BindingKey(SealLevel.self, named: "\(index)") }

    /// The graph a new child's validation reads.
    private static func creationGraph(of injector: Injector) -> BindingGraph {
        BindingGraph(injector: injector, ancestorsReachedOnly: true, trustingSealedAncestors: true)
    }

    @Test("a chain of 3,000 children: each child's validation reads its own binding and its parent's")
    func chainOfChildren() throws {
        var current = try Injector(ClosureModule { $0.bind(SealLevel.self, named: "0").to { SealLevel(index: 0) } })
        for index in 1..<3_000 {
            current = try current.makeChild(
                ClosureModule { binder in
                    binder.bind(SealLevel.self, named: "\(index)").to(dependencies: [Self.level(index - 1)]) {
                        resolver in
                        _ = try resolver.get(SealLevel.self, named: "\(index - 1)")
                        return SealLevel(index: index)
                    }
                })
        }
        let graph = Self.creationGraph(of: current)
        #expect(graph.vertices.map(\.key) == [Self.level(2_999), Self.level(2_998)])
        #expect(graph.sealedCount == 1)
        #expect(graph.vertices.last?.edges.isEmpty == true)
        // Without the seals, the walk goes down the whole chain.
        let unsealed = BindingGraph(injector: current, ancestorsReachedOnly: true)
        #expect(unsealed.vertices.count == 3_000)
        #expect(unsealed.sealedCount == 0)
        // The full report still reads everything, and finds the chain valid.
        #expect(current.validationReport().isValid)
        #expect(current.validationReport().bindingCount == 3_000)
    }

    @Test("a child's singleton over a parent's transient that holds a scoped binding is captive")
    func captiveThroughSealedParent() throws {
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(SealScoped.self).to(SealScoped.init).in(.scoped)
                binder.bind(SealScopedUser.self).to(SealScopedUser.init(scoped:))
                binder.bind(SealPlain.self).to(SealPlain.init)
            })
        #expect(parent.currentSeal?.transientsReachingScoped == [BindingKey(SealScopedUser.self)])
        let error = #expect(throws: ProvisionError.self) {
            try parent.makeChild(
                ClosureModule { $0.bind(SealHolder.self).to(SealHolder.init(user:)).in(.singleton) })
        }
        #expect(error?.code == .validationFailed)
        #expect(error?.underlyingErrors.map(\.code) == [.captiveDependency])
        #expect(error?.underlyingErrors.first?.pathDescription == "SealHolder -> SealScopedUser -> SealScoped")
        // A transient that reaches nothing shorter-lived is sealed, and fine under a singleton.
        let child = try parent.makeChild(
            ClosureModule { $0.bind(SealPlainHolder.self).to(SealPlainHolder.init(plain:)).in(.singleton) })
        #expect(Self.creationGraph(of: child).sealedCount == 1)
        _ = try child.get(SealPlainHolder.self)
    }

    @Test("a transient of a parent over a grandparent's transient that holds a scoped binding is captive too")
    func captiveThroughTwoSealedAncestors() throws {
        let grandparent = try Injector(
            ClosureModule { binder in
                binder.bind(SealScoped.self).to(SealScoped.init).in(.scoped)
                binder.bind(SealScopedUser.self).to(SealScopedUser.init(scoped:))
            })
        let parent = try grandparent.makeChild(
            ClosureModule { $0.bind(SealOuterUser.self).to(SealOuterUser.init(user:)) })
        #expect(parent.currentSeal?.transientsReachingScoped == [BindingKey(SealOuterUser.self)])
        let error = #expect(throws: ProvisionError.self) {
            try parent.makeChild(
                ClosureModule { $0.bind(SealOuterHolder.self).to(SealOuterHolder.init(user:)).in(.singleton) })
        }
        #expect(error?.underlyingErrors.map(\.code) == [.captiveDependency])
        #expect(
            error?.underlyingErrors.first?.pathDescription
                == "SealOuterHolder -> SealOuterUser -> SealScopedUser -> SealScoped")
    }

    @Test("an ancestor created without validation is walked into, and its missing binding found")
    func unvalidatedParentIsNotTrusted() throws {
        let parent = try Injector(
            modules: [ClosureModule { $0.bind(SealHolder.self).to(SealHolder.init(user:)) }],
            configuration: Injector.Configuration(validatesOnCreation: false)
        )
        #expect(parent.currentSeal == nil)
        // Its child doesn't validate on creation either (it takes the parent's configuration): read the
        // graph its validation would read.
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(SealLevel.self).to(dependencies: [BindingKey(SealHolder.self)]) { resolver in
                    _ = try resolver.get(SealHolder.self)
                    return SealLevel(index: 1)
                }
            })
        let graph = Self.creationGraph(of: child)
        #expect(graph.sealedCount == 0)
        let problems = GraphValidator(graph).findings().map(\.error)
        #expect(problems.map(\.code) == [.notBound])
        #expect(problems.first?.pathDescription == "SealLevel -> SealHolder -> SealScopedUser")
    }

    @Test("an install into a grandparent breaks the seals made before it: a grandchild walks into the install")
    func installBreaksSeals() throws {
        let grandparent = try Injector()
        // Validated with a just-in-time SealJustInTime, which the grandparent would make.
        let parent = try grandparent.makeChild(
            ClosureModule { $0.bind(SealNeedsJustInTime.self).to(SealNeedsJustInTime.init(value:)) })
        #expect(parent.currentSeal != nil)
        // The grandparent now binds SealJustInTime to a closure that needs something nobody binds.
        try grandparent.install(
            ClosureModule { binder in
                binder.bind(SealJustInTime.self).to(dependencies: [BindingKey(SealScoped.self)]) { resolver in
                    _ = try resolver.get(SealScoped.self)
                    return SealJustInTime()
                }
            })
        #expect(parent.currentSeal == nil)
        let error = #expect(throws: ProvisionError.self) {
            try parent.makeChild(
                ClosureModule { binder in
                    binder.bind(SealLevel.self).to(dependencies: [BindingKey(SealNeedsJustInTime.self)]) {
                        resolver in
                        _ = try resolver.get(SealNeedsJustInTime.self)
                        return SealLevel(index: 1)
                    }
                })
        }
        #expect(error?.underlyingErrors.map(\.code) == [.notBound])
        #expect(
            error?.underlyingErrors.first?.pathDescription
                == "SealLevel -> SealNeedsJustInTime -> SealJustInTime -> SealScoped")
    }

    @Test("a child's collection stands on its sealed parent's collection, and its own elements are checked")
    func collectionOverSealedParent() throws {
        let parent = try Injector(
            ClosureModule { binder in
                for index in 0..<5 { binder.multibind(Int.self).toInstance(index) }
            })
        let child = try parent.makeChild(ClosureModule { $0.multibind(Int.self).toInstance(5) })
        let graph = Self.creationGraph(of: child)
        let collection = try #require(graph.vertices.first { $0.key == BindingKey([Int].self) && $0.depth == 0 })
        // The parent's collection, then the child's one element.
        #expect(collection.edges.count == 2)
        #expect(try child.getAll(Int.self) == [0, 1, 2, 3, 4, 5])
        // A grandchild's element that needs a missing binding is still reported.
        let error = #expect(throws: ProvisionError.self) {
            try child.makeChild(
                ClosureModule { binder in
                    binder.multibind(Int.self).to(dependencies: [BindingKey(SealScoped.self)]) { resolver in
                        _ = try resolver.get(SealScoped.self)
                        return 6
                    }
                })
        }
        #expect(error?.underlyingErrors.map(\.code) == [.notBound])
        #expect(error?.underlyingErrors.first?.key == BindingKey(SealScoped.self))
    }

    @Test("a child's singleton over a collection whose inherited element holds a scoped binding is captive")
    func captiveThroughSealedCollection() throws {
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(SealScoped.self).to(SealScoped.init).in(.scoped)
                binder.multibind(SealScopedUser.self).to(SealScopedUser.init(scoped:))
            })
        let error = #expect(throws: ProvisionError.self) {
            try parent.makeChild(
                ClosureModule { binder in
                    binder.multibind(SealScopedUser.self).to { SealScopedUser(scoped: SealScoped()) }
                    binder.bind(SealLevel.self).to { (users: [SealScopedUser]) in SealLevel(index: users.count) }
                        .in(.singleton)
                })
        }
        #expect(error?.underlyingErrors.map(\.code) == [.captiveDependency])
        #expect(error?.underlyingErrors.first?.key == BindingKey(SealScoped.self))
    }

    @Test("a grandchild that answered before sees its grandparent's shutdown, and can't get a child")
    func shutdownAfterCachedAnswer() async throws {
        let grandparent = try Injector(ClosureModule { $0.bind(SealPlain.self).to(SealPlain.init) })
        let parent = try grandparent.makeChild()
        let child = try parent.makeChild()
        #expect(!child.isShuttingDown)
        #expect(!child.isShuttingDown)
        try await grandparent.shutdown()
        #expect(child.isShuttingDown)
        #expect(parent.isShuttingDown)
        let error = #expect(throws: ProvisionError.self) { try child.makeChild() }
        #expect(error?.code == .shutDown)
        let request = #expect(throws: ProvisionError.self) { try child.get(SealPlain.self) }
        #expect(request?.code == .shutDown)
    }
}
