import Dispatch
import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

/// The root's singleton, which a grandchild reaches through its (shut-down) parent.
private final class H9RootService: Disposable {
    let disposals: Counter
    init(disposals: Counter) { self.disposals = disposals }
    func dispose() { disposals.increment() }
}

/// A grandchild's own binding over the root's singleton.
private final class H9ChildUser: Sendable {
    let service: H9RootService
    init(service: H9RootService) { self.service = service }
}

/// A binding only the middle injector's module declares.
private final class H9MiddleOnly: Sendable {}

/// A self-declaring type with no dependencies: its just-in-time binding climbs to the root.
private final class H9Declared: Injectable, Sendable {
    static let injection = Injection(H9Declared.init).in(.singleton)
    init() {}
}

/// A fresh key for installs.
private final class H9Fresh: Sendable {}

@Suite("Hunt9: a grandchild after an intermediate injector's shutdown", .timeLimit(.minutes(1)))
struct Hunt9ChildShutdownTests {
    /// root <- middle <- leaf, the root binding the service, the middle its own key.
    private static func chain(
        disposals: Counter,
        builds: Counter
    ) throws -> (root: Injector, middle: Injector, leaf: Injector) {
        let root = try Injector(
            ClosureModule { binder in
                binder.bind(H9RootService.self).to { () -> H9RootService in
                    builds.increment()
                    return H9RootService(disposals: disposals)
                }.in(.singleton)
            }
        )
        let middle = try root.makeChild(
            ClosureModule { binder in binder.bind(H9MiddleOnly.self).to(H9MiddleOnly.init) }
        )
        let leaf = try middle.makeChild(
            ClosureModule { binder in binder.bind(H9ChildUser.self).to(H9ChildUser.init(service:)) }
        )
        return (root, middle, leaf)
    }

    // Found by hunt 9, fixed: root <- middle <- leaf, the middle injector shut down and the root not. The
    // leaf's requests that reached the root's binding passed over the shut-down middle and were served
    // (the cross-injector plan checked the root's chain only, and `lookup` walked through the middle's
    // emptied tables up to the root). Now a lookup stops at a shut-down ancestor and the plan checks the
    // dependent injector's parent and its ancestors: `shutDown`, as for the middle's own bindings.
    @Test("a grandchild's direct request for the root's key after the middle injector's shutdown")
    func directRequestThroughShutDownMiddle() async throws {
        let disposals = Counter()
        let builds = Counter()
        let (root, middle, leaf) = try Self.chain(disposals: disposals, builds: builds)
        try await middle.shutdown()
        // A key the middle bound: shutDown.
        let middleKey = Hunt5.result { () throws(ProvisionError) in try leaf.get(H9MiddleOnly.self) }
        #expect(middleKey.hunt5Error?.code == .shutDown)
        // Through the leaf's own binding.
        let throughBinding = Hunt5.result { () throws(ProvisionError) in try leaf.get(H9ChildUser.self) }
        #expect(throughBinding.hunt5Error?.code == .shutDown)
        // Directly: the same key, the same answer.
        let direct = Hunt5.result { () throws(ProvisionError) in try leaf.get(H9RootService.self) }
        #expect(direct.hunt5Error?.code == .shutDown, "the leaf's direct request was served: \(direct)")
        #expect(builds.value == 0, "the root's singleton was built for a grandchild of a shut-down injector")
        _ = try await root.get(H9RootService.self)
        try await root.shutdown()
        #expect(disposals.value == builds.value)
    }

    // Found by hunt 9, fixed: the same through the asynchronous API.
    @Test("the same through the async API")
    func directAsyncRequestThroughShutDownMiddle() async throws {
        let disposals = Counter()
        let builds = Counter()
        let (root, middle, leaf) = try Self.chain(disposals: disposals, builds: builds)
        try await middle.shutdown()
        let throughBinding = await Hunt5.error { () async throws(ProvisionError) in
            try await leaf.get(H9ChildUser.self)
        }
        #expect(throughBinding?.code == .shutDown)
        let direct = await Hunt5.error { () async throws(ProvisionError) in try await leaf.get(H9RootService.self) }
        #expect(direct?.code == .shutDown, "the leaf's async request was served")
        #expect(builds.value == 0)
        try await root.shutdown()
        #expect(disposals.value == builds.value)
    }

    // The leaf's binding over the root's key linked (and used) before the middle's shutdown: its plan,
    // kept since, checks the injectors between the leaf and the root too, sync and async.
    @Test("a grandchild's binding linked before the middle injector's shutdown throws shutDown after it")
    func linkedBeforeMiddleShutdown() async throws {
        let disposals = Counter()
        let builds = Counter()
        let (root, middle, leaf) = try Self.chain(disposals: disposals, builds: builds)
        let before = try Hunt5.result { () throws(ProvisionError) in try leaf.get(H9ChildUser.self) }.get()
        let asyncBefore = try await leaf.get(H9ChildUser.self)
        #expect(before.service === asyncBefore.service)
        let provider = try Hunt5.result { () throws(ProvisionError) in try leaf.get(Provider<H9ChildUser>.self) }.get()
        #expect(try provider.get().service === before.service)
        try await middle.shutdown()
        let sync = Hunt5.result { () throws(ProvisionError) in try leaf.get(H9ChildUser.self) }
        #expect(sync.hunt5Error?.code == .shutDown)
        let async = await Hunt5.error { () async throws(ProvisionError) in try await leaf.get(H9ChildUser.self) }
        #expect(async?.code == .shutDown)
        let handle = Hunt5.result { () throws(ProvisionError) in try provider.get() }
        #expect(handle.hunt5Error?.code == .shutDown)
        // The root still runs: its own requests get its singleton, built once.
        #expect(try await root.get(H9RootService.self) === before.service)
        #expect(builds.value == 1)
        try await root.shutdown()
        #expect(disposals.value == 1)
    }

    // Found by hunt 9, fixed (same cause): a grandchild's handles for the root's key, made after the
    // middle shut down.
    @Test("a grandchild's Provider and Lazy of the root's key after the middle injector's shutdown")
    func handlesThroughShutDownMiddle() async throws {
        let disposals = Counter()
        let builds = Counter()
        let (root, middle, leaf) = try Self.chain(disposals: disposals, builds: builds)
        try await middle.shutdown()
        let provider = Hunt5.result { () throws(ProvisionError) in
            try leaf.get(Provider<H9RootService>.self).get()
        }
        #expect(provider.hunt5Error?.code == .shutDown, "served through a Provider: \(provider)")
        let lazy = Hunt5.result { () throws(ProvisionError) in try leaf.get(Lazy<H9RootService>.self).value }
        #expect(lazy.hunt5Error?.code == .shutDown, "served through a Lazy: \(lazy)")
        #expect(builds.value == 0)
        try await root.shutdown()
        #expect(disposals.value == builds.value)
    }

    // Found by hunt 9, fixed (same cause): asked of the shut-down middle's child, a declared type that
    // reaches nothing climbed past the middle (whose verdict let it leave the binding to its parent) and
    // the root made it. A shut-down injector's lookup now has no nodes, so the climb ends there.
    @Test("a grandchild's declared type after the middle injector's shutdown climbs past it to the root")
    func declaredTypeThroughShutDownMiddle() async throws {
        let root = try Injector()
        let middle = try root.makeChild()
        let leaf = try middle.makeChild()
        try await middle.shutdown()
        let fromMiddle = Hunt5.result { () throws(ProvisionError) in try middle.get(H9Declared.self) }
        #expect(fromMiddle.hunt5Error?.code == .shutDown)
        let fromLeaf = Hunt5.result { () throws(ProvisionError) in try leaf.get(H9Declared.self) }
        #expect(fromLeaf.hunt5Error?.code == .shutDown, "served past the shut-down middle: \(fromLeaf)")
        #expect(!root.hasBinding(for: H9Declared.self), "the root made the binding for the grandchild")
    }

    /// Control: with the middle injector alive, the grandchild gets the root's singleton; after the root
    /// shut down, the grandchild's request throws shutDown.
    @Test("control: a grandchild reaches the root's singleton, and throws shutDown after the root's shutdown")
    func grandchildControl() async throws {
        let disposals = Counter()
        let builds = Counter()
        let (root, _, leaf) = try Self.chain(disposals: disposals, builds: builds)
        let first = try await leaf.get(H9RootService.self)
        #expect(first === (try await root.get(H9RootService.self)))
        try await root.shutdown()
        let after = Hunt5.result { () throws(ProvisionError) in try leaf.get(H9RootService.self) }
        #expect(after.hunt5Error?.code == .shutDown)
        #expect(builds.value == 1)
        #expect(disposals.value == 1)
    }

    /// An install into the grandchild after the root's shutdown, of a key the root held: refused with
    /// `shutDown` (the walk of `heldBeforeShutdown` goes past the middle injector, which is not closed).
    @Test("install into a grandchild after the root's shutdown: the root's key is refused, a new one accepted")
    func installIntoGrandchildAfterRootShutdown() async throws {
        let disposals = Counter()
        let builds = Counter()
        let (root, _, leaf) = try Self.chain(disposals: disposals, builds: builds)
        try await root.shutdown()
        var refused: ProvisionError?
        do {
            try leaf.install(
                ClosureModule { binder in
                    binder.bind(H9RootService.self).to { H9RootService(disposals: disposals) }.in(.singleton)
                }
            )
        } catch { refused = error }
        #expect(refused?.code == .shutDown, "\(String(describing: refused))")
        let served = Hunt5.result { () throws(ProvisionError) in try leaf.get(H9RootService.self) }
        #expect(served.hunt5Error?.code == .shutDown)
        try leaf.install(ClosureModule { binder in binder.bind(H9Fresh.self).to(H9Fresh.init) })
        _ = try await leaf.get(H9Fresh.self)
    }

    /// A declared type the parent bound just-in-time before its shutdown was held by the parent: an
    /// install of it into the child is refused with `shutDown`, like a module binding's key.
    @Test("install into a child after the parent's shutdown: a key the parent bound just-in-time")
    func installJustInTimeKeys() async throws {
        let parent = try Injector()
        let child = try parent.makeChild()
        _ = try await child.get(H9Declared.self)
        // Climbed to the parent, which holds it.
        #expect(parent.hasBinding(for: H9Declared.self))
        try await parent.shutdown()
        var refused: ProvisionError?
        do {
            try child.install(ClosureModule { binder in binder.bind(H9Declared.self).to(H9Declared.init) })
        } catch { refused = error }
        #expect(refused?.code == .shutDown, "\(String(describing: refused))")
        let served = Hunt5.result { () throws(ProvisionError) in try child.get(H9Declared.self) }
        #expect(served.hunt5Error?.code == .shutDown)
    }

    /// An `override` binding installed into the child for a key the shut-down parent held: refused too.
    @Test("install of an override into a child after the parent's shutdown, of the parent's key")
    func installOverrideOfParentsKey() async throws {
        let disposals = Counter()
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(H9RootService.self).to { H9RootService(disposals: disposals) }.in(.singleton)
            }
        )
        let child = try parent.makeChild()
        try await parent.shutdown()
        var refused: ProvisionError?
        do {
            try child.install(
                ClosureModule { binder in
                    binder.override(H9RootService.self).to { H9RootService(disposals: disposals) }.in(.singleton)
                }
            )
        } catch { refused = error }
        #expect(refused?.code == .shutDown, "\(String(describing: refused))")
        let served = Hunt5.result { () throws(ProvisionError) in try child.get(H9RootService.self) }
        #expect(served.hunt5Error?.code == .shutDown, "\(served)")
        #expect(disposals.value == 0)
    }
}
