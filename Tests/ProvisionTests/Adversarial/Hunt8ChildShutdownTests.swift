import Dispatch
import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

/// The parent's singleton, disposed by the parent's shutdown.
private final class Hunt8Shared: Disposable {
    let disposals: Counter
    init(disposals: Counter) { self.disposals = disposals }
    func dispose() { disposals.increment() }
}

/// The child's own transient and singleton.
private final class Hunt8Own: Sendable {
    let id: Int
    init(id: Int) { self.id = id }
}

private final class Hunt8OwnSingleton: Disposable {
    let disposals: Counter
    init(disposals: Counter) { self.disposals = disposals }
    func dispose() { disposals.increment() }
}

/// A binding of the child built from arguments.
private final class Hunt8Labelled: Sendable {
    let label: String
    let own: Hunt8Own
    init(label: String, own: Hunt8Own) {
        self.label = label
        self.own = own
    }
}

/// The child's seed.
private final class Hunt8Request: Sendable {
    let id: Int
    init(id: Int) { self.id = id }
}

/// A child's scoped unit of work over its seed.
private final class Hunt8Work: Sendable {
    let request: Hunt8Request
    let own: Hunt8Own
    init(request: Hunt8Request, own: Hunt8Own) {
        self.request = request
        self.own = own
    }
}

/// Filled by property injection with the child's own binding.
private final class Hunt8Filled: PropertyInjectable, @unchecked Sendable {
    var own: Hunt8Own?
    var ownFactory: ObjectFactory?
    init() {}
    static var injectedProperties: [InjectedProperty] {
        [.inject(\Hunt8Filled.own), .inject(\Hunt8Filled.ownFactory)]
    }
}

/// A binding of the child that holds handles of its own binding.
private final class Hunt8Handles: Sendable {
    let provider: Provider<Hunt8Own>
    let lazy: Lazy<Hunt8Own>
    let labelled: Provider<Hunt8Labelled>
    let factory: ObjectFactory
    init(provider: Provider<Hunt8Own>, lazy: Lazy<Hunt8Own>, labelled: Provider<Hunt8Labelled>, factory: ObjectFactory)
    {
        self.provider = provider
        self.lazy = lazy
        self.labelled = labelled
        self.factory = factory
    }
}

/// The installed binding and a binding the parent binds, for installs into the child.
private final class Hunt8Installed: Sendable {
    let own: Hunt8Own
    init(own: Hunt8Own) { self.own = own }
}

private struct Hunt8Family {
    let parent: Injector
    let child: Injector
    let parentDisposals = Counter()
    let childDisposals = Counter()

    init() throws {
        let parentDisposals = self.parentDisposals
        let childDisposals = self.childDisposals
        parent = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt8Shared.self).to { Hunt8Shared(disposals: parentDisposals) }.in(.singleton)
            })
        child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(Hunt8Own.self).to { Hunt8Own(id: 1) }
                binder.bind(Hunt8OwnSingleton.self).to { Hunt8OwnSingleton(disposals: childDisposals) }.in(.singleton)
                binder.bind(Hunt8Labelled.self).withArguments(String.self).to { resolver, label in
                    Hunt8Labelled(label: label, own: try resolver.get(Hunt8Own.self))
                }
                binder.bind(Hunt8Request.self).toSeed()
                binder.bind(Hunt8Work.self).to(Hunt8Work.init(request:own:)).in(.scoped)
                binder.bind(Hunt8Handles.self).to(Hunt8Handles.init(provider:lazy:labelled:factory:))
            })
    }
}

private func hunt8Code<T>(_ body: () throws(ProvisionError) -> T) -> ProvisionError.Code? {
    Hunt5.result(body).hunt5Error?.code
}

private func hunt8AsyncCode<T>(_ body: () async throws(ProvisionError) -> T) async -> ProvisionError.Code? {
    await Hunt5.error(body)?.code
}

// MARK: - Tests

/// `shutdown()` (Sources/Provision/Lifecycle/Injector+Lifecycle.swift, doc comment): "Child injectors
/// are not shut down with their parent: a child's request that falls back to it ... throws `shutDown`,
/// while the child's own bindings, and the handles, optionals and self-declaring types the child makes
/// itself, keep resolving."
@Suite("Hunt8: every API of a child after its parent's shutdown", .timeLimit(.minutes(1)))
struct Hunt8ChildShutdownTests {
    @Test(
        "arguments: the child's withArguments binding, linked before and first asked after", arguments: [false, true])
    func argumentsBinding(linkedBefore: Bool) async throws {
        let family = try Hunt8Family()
        if linkedBefore { #expect(try family.child.get(Hunt8Labelled.self, arguments: "a").label == "a") }
        try await family.parent.shutdown()
        let built = Hunt5.result { () throws(ProvisionError) in try family.child.get(Hunt8Labelled.self, arguments: "b")
        }
        #expect((try? built.get())?.label == "b", "\(String(describing: built.hunt5Error))")
    }

    @Test(
        "handles: Provider, Provider with arguments, Lazy and ObjectFactory of the child's own bindings",
        arguments: [false, true])
    func handles(linkedBefore: Bool) async throws {
        let family = try Hunt8Family()
        var early: Hunt8Handles?
        if linkedBefore { early = try family.child.syncGet(Hunt8Handles.self) }
        try await family.parent.shutdown()
        let handles = try early ?? family.child.syncGet(Hunt8Handles.self)
        #expect(hunt8Code { () throws(ProvisionError) in try handles.provider.get() } == nil)
        #expect(hunt8Code { () throws(ProvisionError) in try handles.labelled.get(arguments: "x") } == nil)
        #expect(hunt8Code { () throws(ProvisionError) in try handles.factory.get(Hunt8Own.self) } == nil)
        #expect(hunt8Code { () throws(ProvisionError) in try handles.factory.get(Hunt8OwnSingleton.self) } == nil)
        #expect(hunt8Code { () throws(ProvisionError) in try handles.lazy.value } == nil)
        // The fallbacks to the parent throw shutDown.
        #expect(hunt8Code { () throws(ProvisionError) in try handles.factory.get(Hunt8Shared.self) } == .shutDown)
        // Handles asked of the child directly, sync and async.
        #expect(hunt8Code { () throws(ProvisionError) in try family.child.get(Provider<Hunt8Own>.self).get() } == nil)
        #expect(hunt8Code { () throws(ProvisionError) in try family.child.get(Lazy<Hunt8Own>.self).value } == nil)
        #expect(
            await hunt8AsyncCode { () async throws(ProvisionError) in
                try await family.child.get(Provider<Hunt8Own>.self).get()
            }
                == nil)
        #expect(
            await hunt8AsyncCode { () async throws(ProvisionError) in
                try await family.child.get(ObjectFactory.self).get(Hunt8OwnSingleton.self)
            } == nil)
        #expect(
            await hunt8AsyncCode { () async throws(ProvisionError) in
                try await family.child.get(Provider<Hunt8Labelled>.self).get(arguments: "y")
            } == nil)
    }

    @Test("property injection of the child's own bindings", arguments: [false, true])
    func propertyInjection(linkedBefore: Bool) async throws {
        let family = try Hunt8Family()
        if linkedBefore { try family.child.injectDependencies(into: Hunt8Filled()) }
        try await family.parent.shutdown()
        let filled = Hunt8Filled()
        let code = hunt8Code { () throws(ProvisionError) in try family.child.injectDependencies(into: filled) }
        #expect(code == nil)
        #expect(filled.own?.id == 1)
        #expect(filled.ownFactory != nil)
    }

    @Test("scopes of the child: plain and seeded, sync and async", arguments: [false, true])
    func scopes(linkedBefore: Bool) async throws {
        let family = try Hunt8Family()
        if linkedBefore {
            let scope = try family.child.makeScope { seed in seed.provide(Hunt8Request(id: 0)) }
            _ = try scope.syncGet(Hunt8Work.self)
            try scope.syncClose()
        }
        try await family.parent.shutdown()
        let seeded = Hunt5.result { () throws(ProvisionError) in
            try family.child.makeScope { seed in seed.provide(Hunt8Request(id: 5)) }
        }
        let scope = try #require(try? seeded.get(), "\(String(describing: seeded.hunt5Error))")
        #expect(hunt8Code { () throws(ProvisionError) in try scope.get(Hunt8Work.self).request.id } == nil)
        #expect(await hunt8AsyncCode { () async throws(ProvisionError) in try await scope.get(Hunt8Work.self) } == nil)
        #expect(hunt8Code { () throws(ProvisionError) in try scope.get(Provider<Hunt8Work>.self).get() } == nil)
        #expect(hunt8Code { () throws(ProvisionError) in try scope.get(Hunt8Shared.self) } == .shutDown)
        try scope.syncClose()
        let plain = family.child.makeScope()
        #expect(hunt8Code { () throws(ProvisionError) in try plain.get(Hunt8OwnSingleton.self) } == nil)
        try plain.syncClose()
    }

    @Test("install into the child after the parent's shutdown: a new key works")
    func installNewKey() async throws {
        let family = try Hunt8Family()
        try await family.parent.shutdown()
        let code = hunt8Code { () throws(ProvisionError) in
            try family.child.install(
                ClosureModule { binder in binder.bind(Hunt8Installed.self).to(Hunt8Installed.init(own:)) })
        }
        #expect(code == nil)
        #expect(hunt8Code { () throws(ProvisionError) in try family.child.get(Hunt8Installed.self) } == nil)
    }

    /// Found by the eighth hunt, fixed (`Injector.heldBeforeShutdown`: such an install throws shutDown). `install(_:)` (Sources/Provision/Injector/Injector.swift): "A running injector never replaces a
    /// binding: installing a key that is already bound (here, or by an ancestor, which a child's requests
    /// fall back to) throws and adds nothing." The parent's key, once emptied by the shutdown, must not
    /// become the child's own binding (plans linked before still fall back to the parent).
    @Test("install into the child after the parent's shutdown: a key the parent bound is refused")
    func installParentsKey() async throws {
        let family = try Hunt8Family()
        let disposals = Counter()
        #expect(try family.child.syncGet(Hunt8Shared.self).disposals === family.parentDisposals)
        try await family.parent.shutdown()
        let code = hunt8Code { () throws(ProvisionError) in
            try family.child.install(
                ClosureModule { binder in
                    binder.bind(Hunt8Shared.self).to { Hunt8Shared(disposals: disposals) }.in(.singleton)
                })
        }
        #expect(code == .duplicateBinding || code == .shutDown, "\(String(describing: code))")
        let after = hunt8Code { () throws(ProvisionError) in try family.child.get(Hunt8Shared.self) }
        #expect(after == .shutDown)
    }

    @Test("start() and shutdown() of the child after the parent's shutdown", arguments: [false, true])
    func startAndShutdown(linkedBefore: Bool) async throws {
        let family = try Hunt8Family()
        if linkedBefore { _ = try family.child.syncGet(Hunt8OwnSingleton.self) }
        try await family.parent.shutdown()
        let started = await hunt8AsyncCode { () async throws(ProvisionError) in try await family.child.start() }
        #expect(started == nil)
        #expect(hunt8Code { () throws(ProvisionError) in try family.child.get(Hunt8OwnSingleton.self) } == nil)
        let stopped = await hunt8AsyncCode { () async throws(ProvisionError) in try await family.child.shutdown() }
        #expect(stopped == nil)
        #expect(family.childDisposals.value == 1)
        #expect(family.parentDisposals.value == 0)
    }

    @Test("overriding and with derived from the child after the parent's shutdown", arguments: [false, true])
    func derived(linkedBefore: Bool) async throws {
        let family = try Hunt8Family()
        let overriding = try family.child.overriding(
            ClosureModule { binder in binder.override(Hunt8Own.self).to { Hunt8Own(id: 2) } })
        if linkedBefore {
            _ = try overriding.syncGet(Hunt8Handles.self)
            _ = try overriding.get(Hunt8Labelled.self, arguments: "a")
        }
        try await family.parent.shutdown()
        #expect(hunt8Code { () throws(ProvisionError) in try overriding.get(Hunt8Own.self).id } == nil)
        #expect(
            hunt8Code { () throws(ProvisionError) in try overriding.get(Hunt8Labelled.self, arguments: "b").own.id }
                == nil)
        #expect(hunt8Code { () throws(ProvisionError) in try overriding.get(Hunt8Handles.self).lazy.value } == nil)
        #expect(
            await hunt8AsyncCode { () async throws(ProvisionError) in try await overriding.get(Hunt8OwnSingleton.self) }
                == nil)
        #expect(hunt8Code { () throws(ProvisionError) in try overriding.get(Hunt8Shared.self) } == .shutDown)
        // Derived after the parent's shutdown: `with` makes a sibling of the child under the shut-down
        // parent, which is refused (decided after hunt 11: no injector is made from a shut-down one).
        let with = Hunt5.result { () throws(ProvisionError) in
            try family.child.with(
                ClosureModule { binder in binder.bind(Hunt8Installed.self).to(Hunt8Installed.init(own:)) })
        }
        #expect(with.hunt5Error?.code == .shutDown)
    }

    @Test("optionals through the child: own binding a value, the parent's shutDown", arguments: [false, true])
    func optionals(linkedBefore: Bool) async throws {
        let family = try Hunt8Family()
        if linkedBefore {
            _ = try family.child.syncGet(Hunt8Own?.self)
            _ = try family.child.syncGet(Hunt8Shared?.self)
        }
        try await family.parent.shutdown()
        #expect(hunt8Code { () throws(ProvisionError) in try family.child.get(Hunt8Own?.self) } == nil)
        #expect(
            await hunt8AsyncCode { () async throws(ProvisionError) in try await family.child.get(Hunt8Own?.self) }
                == nil)
        #expect(hunt8Code { () throws(ProvisionError) in try family.child.get(Hunt8Shared?.self) } == .shutDown)
        #expect(
            await hunt8AsyncCode { () async throws(ProvisionError) in try await family.child.get(Hunt8Shared?.self) }
                == .shutDown)
    }
}
