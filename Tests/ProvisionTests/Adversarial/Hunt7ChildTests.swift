import Dispatch
import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

private final class Hunt7Resource: Disposable {
    let disposals: Counter
    init(disposals: Counter) { self.disposals = disposals }
    func dispose() { disposals.increment() }
    var isDisposed: Bool { disposals.value > 0 }
}

/// The child's own plug-in, multibound in the child only.
private final class Hunt7Plugin: Sendable {
    let id: Int
    init(id: Int) { self.id = id }
}

/// The child's own scoped unit of work, and one that reaches the parent's resource.
private final class Hunt7OwnWork: Sendable {
    let id: Int
    init(id: Int) { self.id = id }
}

private final class Hunt7ParentWork: Sendable {
    let resource: Hunt7Resource
    init(resource: Hunt7Resource) { self.resource = resource }
}

private let hunt7RootBuilds = Counter()

/// A declared type that reaches nothing: its just-in-time binding belongs to the root.
private final class Hunt7Root: Injectable, Sendable {
    static let injection = Injection(Hunt7Root.init).in(.singleton)
    init() { hunt7RootBuilds.increment() }
}

/// A setting the root or a child binds, and a declared type that needs it.
private final class Hunt7Setting: Sendable {
    let id: Int
    init(id: Int) { self.id = id }
}

private final class Hunt7UsesSetting: Injectable, Sendable {
    static let injection = Injection(Hunt7UsesSetting.init(setting:root:)).in(.singleton)
    let setting: Hunt7Setting
    let root: Hunt7Root
    init(setting: Hunt7Setting, root: Hunt7Root) {
        self.setting = setting
        self.root = root
    }
}

/// A declared type the child makes itself (it needs the child's own work).
private final class Hunt7OwnDeclared: Injectable, Sendable {
    static let injection = Injection(Hunt7OwnDeclared.init(work:)).in(.singleton)
    let work: Hunt7OwnWork
    init(work: Hunt7OwnWork) { self.work = work }
}

private func hunt7Setting(_ id: Int) -> ClosureModule {
    ClosureModule { binder in binder.bind(Hunt7Setting.self).toInstance(Hunt7Setting(id: id)) }
}

private func hunt7OverrideSetting(_ id: Int) -> ClosureModule {
    ClosureModule { binder in binder.override(Hunt7Setting.self).toInstance(Hunt7Setting(id: id)) }
}

// MARK: - Tests

@Suite("Hunt7: a child's own multibindings, scopes and declared types around its parent", .timeLimit(.minutes(1)))
struct Hunt7ChildTests {
    /// Found by the seventh hunt, fixed (the async `getAll` checks this injector first, ancestors after a miss). `shutdown()` (Injector+Lifecycle.swift, lines 223-226): "Child injectors are not shut down with
    /// their parent: a child's request that falls back to it ... throws `shutDown`, while the child's own
    /// bindings, and the handles, optionals and self-declaring types the child makes itself, keep
    /// resolving." The synchronous `getAll` of a multibinding that only the child's module declares keeps
    /// working (control below); the async `getAll` (Injector+AsyncResolution.swift) begins with
    /// `if isShuttingDown { throw }`, and `isShuttingDown` (Injector+JustInTime.swift) is true when any
    /// ancestor shut down: the child's own multibinding throws `shutDown`.
    @Test("the child's own multibinding through the async getAll after the parent's shutdown")
    func childsOwnMultibindingAsync() async throws {
        let parent = try Injector()
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.multibind(Hunt7Plugin.self).to { Hunt7Plugin(id: 1) }
                binder.multibind(Hunt7Plugin.self).to { Hunt7Plugin(id: 2) }
            })
        #expect(try await child.getAll(Hunt7Plugin.self).map(\.id) == [1, 2])
        try await parent.shutdown()
        var ids: [Int]?
        var failure: ProvisionError?
        do {
            ids = try await child.getAll(Hunt7Plugin.self).map(\.id)
        } catch {
            failure = error
        }
        #expect(ids == [1, 2])
        #expect(failure == nil, "\(failure.map { "\($0.code)" } ?? "")")
    }

    /// Control: the synchronous `getAll` of the same multibinding keeps working.
    @Test("control: the child's own multibinding through the synchronous getAll after the parent's shutdown")
    func childsOwnMultibindingSync() async throws {
        let parent = try Injector()
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.multibind(Hunt7Plugin.self).to { Hunt7Plugin(id: 1) }
            })
        try await parent.shutdown()
        let sync = Hunt5.result { () throws(ProvisionError) in try child.getAll(Hunt7Plugin.self) }
        #expect((try? sync.get())?.map(\.id) == [1])
    }

    /// A multibinding only the parent declares: after the parent's shutdown, the child's fallback throws
    /// `shutDown`, synchronously and asynchronously (never an empty array, never disposed elements).
    @Test("the parent's multibinding asked of the child after the parent's shutdown throws shutDown")
    func parentsMultibindingThroughChild() async throws {
        let disposals = Counter()
        let parent = try Injector(
            ClosureModule { binder in
                binder.multibind(Hunt7Resource.self).to { Hunt7Resource(disposals: disposals) }.in(.singleton)
            })
        let child = try parent.makeChild(ClosureModule { _ in })
        #expect(try await child.getAll(Hunt7Resource.self).count == 1)
        try await parent.shutdown()
        #expect(disposals.value == 1)
        let sync = Hunt5.result { () throws(ProvisionError) in try child.getAll(Hunt7Resource.self) }
        #expect(sync.hunt5Error?.code == .shutDown)
        let async = await Hunt5.error { () async throws(ProvisionError) in try await child.getAll(Hunt7Resource.self) }
        #expect(async?.code == .shutDown)
    }

    /// A scope of the child after the parent's shutdown: the child's own scoped binding keeps working;
    /// one that reaches the parent's singleton throws `shutDown` (sync and async), and the close disposes
    /// nothing twice.
    @Test("a child's scope after the parent's shutdown: own scoped works, the edge into the parent throws")
    func childsScopeAfterShutdown() async throws {
        let disposals = Counter()
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt7Resource.self).to { Hunt7Resource(disposals: disposals) }.in(.singleton)
            })
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(Hunt7OwnWork.self).to { (_: Resolver) async throws -> Hunt7OwnWork in Hunt7OwnWork(id: 7) }
                    .in(.scoped)
                binder.bind(Hunt7ParentWork.self).to(Hunt7ParentWork.init(resource:)).in(.scoped)
            })
        let before = child.makeScope()
        #expect(try await !before.get(Hunt7ParentWork.self).resource.isDisposed)
        try await before.close()
        try await parent.shutdown()
        #expect(disposals.value == 1)
        let scope = child.makeScope()
        #expect(try await scope.get(Hunt7OwnWork.self).id == 7)
        let async = await Hunt5.error { () async throws(ProvisionError) in try await scope.get(Hunt7ParentWork.self) }
        #expect(async?.code == .shutDown)
        let sync = Hunt5.result { () throws(ProvisionError) in try scope.get(Hunt7ParentWork.self) }
        #expect(sync.hunt5Error?.code == .shutDown)
        try await scope.close()
        #expect(disposals.value == 1)
    }

    /// A declared type that reaches nothing, first asked asynchronously of a grandchild: made in the root
    /// (the highest ancestor that builds it alike), so every injector of the tree shares one instance.
    @Test("a declared singleton first asked asynchronously of a grandchild is the root's")
    func grandchildAsyncClimbs() async throws {
        let before = hunt7RootBuilds.value
        let root = try Injector()
        let middle = try root.makeChild(
            ClosureModule { binder in binder.bind(Hunt7OwnWork.self).toInstance(Hunt7OwnWork(id: 1)) })
        let leaf = try middle.makeChild(ClosureModule { _ in })
        let fromLeaf = try await leaf.get(Hunt7Root.self)
        #expect(try root.syncGet(Hunt7Root.self) === fromLeaf)
        #expect(try await middle.get(Hunt7Root.self) === fromLeaf)
        #expect(hunt7RootBuilds.value - before == 1)
    }

    /// An overriding injector of a grandchild that overrides the root's setting: a declared type that
    /// needs it climbed to the root when the grandchild asked first (asynchronously); the derived
    /// injector must build its own with the override (`overriding(_:)`, Injector+Overriding.swift:
    /// "re-creates ... exactly the bindings that depend on a replaced key"), and share the rest.
    @Test("an overriding injector of a grandchild, asked asynchronously, sees its override of the root's binding")
    func overridingGrandchildAsync() async throws {
        for leafFirst in [true, false] {
            let root = try Injector(modules: [hunt7Setting(1)])
            let middle = try root.makeChild()
            let leaf = try middle.makeChild()
            if leafFirst { #expect(try await leaf.get(Hunt7UsesSetting.self).setting.id == 1) }
            let derived = try leaf.overriding(hunt7OverrideSetting(2))
            let fromDerived = try await derived.get(Hunt7UsesSetting.self)
            #expect(fromDerived.setting.id == 2, "leaf first: \(leafFirst)")
            #expect(try await leaf.get(Hunt7UsesSetting.self).setting.id == 1)
            #expect(try await root.get(Hunt7UsesSetting.self) === leaf.get(Hunt7UsesSetting.self))
            #expect(try await fromDerived.root === root.get(Hunt7Root.self))
        }
    }

    /// After the parent's shutdown, the child's own declared type, optional and Provider resolve through
    /// the async API as they do synchronously (`shutdown()`: "the handles, optionals and self-declaring
    /// types the child makes itself, keep resolving"); the root's declared type (it climbed) throws.
    @Test("after the parent's shutdown, the child's own just-in-time bindings resolve asynchronously")
    func childsOwnJustInTimeAsync() async throws {
        let parent = try Injector()
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(Hunt7OwnWork.self).to { (_: Resolver) async throws -> Hunt7OwnWork in Hunt7OwnWork(id: 5) }
                    .in(.singleton)
            })
        _ = try await child.get(Hunt7Root.self)
        try await parent.shutdown()
        #expect(try await child.get(Hunt7OwnDeclared.self).work.id == 5)
        #expect(try await child.get(Hunt7OwnWork?.self)?.id == 5)
        #expect(try await child.get(Provider<Hunt7OwnWork>.self).get().id == 5)
        let climbed = await Hunt5.error { () async throws(ProvisionError) in try await child.get(Hunt7Root.self) }
        #expect(climbed?.code == .shutDown)
    }

    /// After the parent's shutdown, the child's own lifecycle is its own: `start()` builds and starts the
    /// child's own singleton service (which reaches nothing of the parent), and the child's `shutdown()`
    /// stops it and disposes it once (`shutdown()`: "Child injectors are not shut down with their
    /// parent ... the child's own bindings ... keep resolving").
    @Test("after the parent's shutdown, the child starts and shuts down its own services")
    func childsLifecycleAfterParentShutdown() async throws {
        let disposals = Counter()
        let starts = Counter()
        let stops = Counter()
        let parent = try Injector()
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(Hunt7Resource.self).to { Hunt7Resource(disposals: disposals) }.in(.singleton)
                    .onStart { _ in starts.increment() }
                    .onStop { _ in stops.increment() }
            })
        try await parent.shutdown()
        let started = await Hunt5.error { () async throws(ProvisionError) in try await child.start() }
        #expect(started == nil, "\(started.map { "\($0.code): \($0)" } ?? "")")
        #expect(starts.value == 1)
        try await child.shutdown()
        #expect(stops.value == starts.value)
        #expect(disposals.value == starts.value)
    }

    /// Design question: an optional of a type that nothing binds, asked of the child after the parent's
    /// shutdown, throws `shutDown` rather than being `nil` (the child can't tell whether the parent, its
    /// tables emptied, would have bound it). `shutdown()` says "optionals ... the child makes itself,
    /// keep resolving"; this records what happens.
    @Test("design: an optional of an unbound type asked of the child after the parent's shutdown")
    func unboundOptionalAfterShutdown() async throws {
        let parent = try Injector()
        let child = try parent.makeChild(ClosureModule { _ in })
        #expect(try child.syncGet(Hunt7Setting?.self) == nil)
        try await parent.shutdown()
        let sync = Hunt5.result { () throws(ProvisionError) in try child.syncGet(Hunt7Setting?.self) }
        #expect(sync.hunt5Error?.code == .shutDown)
    }
}
