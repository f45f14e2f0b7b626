import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Provision

// Where a just-in-time binding of a declared type lives when a child injector asks for it first: in the
// highest ancestor that builds it the same way (Guice's rule), so that its singleton is shared.

private let sharedBuilds = Atomic<Int>(0)

/// An `Injectable` singleton with no dependencies: it can live in any injector.
private final class JITShared: Injectable, Sendable {
    static let injection = Injection(JITShared.init).in(.singleton)
    init() { sharedBuilds.add(1, ordering: .relaxed) }
}

/// A binding only children declare (a request's data, say).
private final class JITRequest: Sendable {
    let id: Int
    init(id: Int) { self.id = id }
}

/// Depends on what only the child binds: it must stay in the child.
private final class JITPerRequest: Injectable, Sendable {
    static let injection = Injection(JITPerRequest.init(request:)).in(.singleton)
    let request: JITRequest
    init(request: JITRequest) { self.request = request }
}

/// Reaches the child's binding through another declared type.
private final class JITIndirect: Injectable, Sendable {
    static let injection = Injection(JITIndirect.init(inner:)).in(.singleton)
    let inner: JITPerRequest
    init(inner: JITPerRequest) { self.inner = inner }
}

/// Reaches the child's binding through a handle and an optional.
private final class JITThroughHandles: Injectable, Sendable {
    static let injection = Injection(JITThroughHandles.init(requests:request:)).in(.singleton)
    let requests: Provider<JITRequest>
    let request: JITRequest?
    init(requests: Provider<JITRequest>, request: JITRequest?) {
        self.requests = requests
        self.request = request
    }
}

/// Depends on the parent's binding and on another declared type: it climbs to the parent.
private final class JITParentBound: Sendable {}

private final class JITUsesParent: Injectable, Sendable {
    static let injection = Injection(JITUsesParent.init(bound:shared:)).in(.singleton)
    let bound: JITParentBound
    let shared: JITShared
    init(bound: JITParentBound, shared: JITShared) {
        self.bound = bound
        self.shared = shared
    }
}

/// Depends on an optional of a type nobody binds: it can live anywhere.
private final class JITOptionalUser: Injectable, Sendable {
    static let injection = Injection(JITOptionalUser.init(request:)).in(.singleton)
    let request: JITRequest?
    init(request: JITRequest?) { self.request = request }
}

private final class JITUnbound: Sendable {}

private final class JITOptionalUnbound: Injectable, Sendable {
    static let injection = Injection(JITOptionalUnbound.init(other:)).in(.singleton)
    let other: JITUnbound?
    init(other: JITUnbound?) { self.other = other }
}

private let racedBuilds = Atomic<Int>(0)

private final class JITRaced: Injectable, Sendable {
    static let injection = Injection(JITRaced.init).in(.singleton)
    init() { racedBuilds.add(1, ordering: .relaxed) }
}

@Suite("Just-in-time bindings asked of a child", .serialized, .timeLimit(.minutes(1)))
struct JustInTimeChildTests {
    private func requestModule(_ id: Int) -> ClosureModule {
        ClosureModule { binder in binder.bind(JITRequest.self).toInstance(JITRequest(id: id)) }
    }

    @Test("an Injectable singleton first asked of a child is the parent's: every child and the parent share it")
    func climbsToTheParent() throws {
        let before = sharedBuilds.load(ordering: .relaxed)
        let parent = try Injector()
        let first = try parent.makeChild(requestModule(1))
        let second = try parent.makeChild(requestModule(2))
        let fromFirst = try first.syncGet(JITShared.self)
        #expect(try second.syncGet(JITShared.self) === fromFirst)
        #expect(try parent.syncGet(JITShared.self) === fromFirst)
        #expect(sharedBuilds.load(ordering: .relaxed) - before == 1)
        #expect(parent.bindingKeys.contains(BindingKey(JITShared.self)))
        #expect(!first.bindingKeys.contains(BindingKey(JITShared.self)))
    }

    @Test("a grandchild's request goes up to the root")
    func climbsToTheRoot() throws {
        let root = try Injector()
        let grandchild = try root.makeChild().makeChild(requestModule(1))
        let fromGrandchild = try grandchild.syncGet(JITShared.self)
        #expect(try root.syncGet(JITShared.self) === fromGrandchild)
    }

    @Test("one that depends on the child's binding stays in the child: one per child, none in the parent")
    func staysWithTheChildsBinding() throws {
        let parent = try Injector()
        let first = try parent.makeChild(requestModule(1))
        let second = try parent.makeChild(requestModule(2))
        #expect(try first.syncGet(JITPerRequest.self).request.id == 1)
        #expect(try second.syncGet(JITPerRequest.self).request.id == 2)
        #expect(try first.syncGet(JITPerRequest.self) === first.syncGet(JITPerRequest.self))
        #expect(throws: ProvisionError.self) { try parent.syncGet(JITPerRequest.self) }
        // Through another declared type, too.
        #expect(try first.syncGet(JITIndirect.self).inner.request.id == 1)
        #expect(try second.syncGet(JITIndirect.self).inner.request.id == 2)
    }

    @Test("one that reaches the child's binding through a Provider or an optional stays in the child")
    func staysThroughHandles() throws {
        let parent = try Injector()
        let child = try parent.makeChild(requestModule(7))
        let built = try child.syncGet(JITThroughHandles.self)
        #expect(try built.requests.get().id == 7)
        #expect(built.request?.id == 7)
        let other = try parent.makeChild(requestModule(8))
        #expect(try other.syncGet(JITThroughHandles.self).requests.get().id == 8)
    }

    @Test("one whose dependencies the parent binds climbs, with its declared dependencies")
    func climbsWithParentBindings() throws {
        let parent = try Injector(
            ClosureModule { binder in binder.bind(JITParentBound.self).to(JITParentBound.init).in(.singleton) })
        let child = try parent.makeChild(requestModule(1))
        let fromChild = try child.syncGet(JITUsesParent.self)
        let fromParent = try parent.syncGet(JITUsesParent.self)
        #expect(fromChild === fromParent)
        #expect(fromChild.shared === (try parent.syncGet(JITShared.self)))
    }

    @Test("a child's own module binding of the type still wins over the climb")
    func moduleBindingWins() throws {
        let parent = try Injector()
        let child = try parent.makeChild(
            ClosureModule { binder in binder.bind(JITShared.self).toSelf().in(.singleton) })
        let fromChild = try child.syncGet(JITShared.self)
        #expect(try parent.syncGet(JITShared.self) !== fromChild)
    }

    @Test("8 children racing for the first request build the parent's singleton exactly once")
    func racingChildren() throws {
        let before = racedBuilds.load(ordering: .relaxed)
        let parent = try Injector()
        let children = try (0..<8).map { try parent.makeChild(requestModule($0)) }
        let results = Locked<[ObjectIdentifier]>([])
        // Every thread waits at the barrier, then all ask at once, each through its own child.
        let barrier = Atomic<Int>(0)
        let finished = runThreads(children.count) { index in
            barrier.add(1, ordering: .sequentiallyConsistent)
            while barrier.load(ordering: .sequentiallyConsistent) < children.count { sched_yield() }
            if let value = try? children[index].syncGet(JITRaced.self) {
                results.withLock { $0.append(ObjectIdentifier(value)) }
            }
        }
        #expect(finished)
        let identities = results.withLock { $0 }
        #expect(identities.count == 8)
        #expect(Set(identities).count == 1)
        #expect(racedBuilds.load(ordering: .relaxed) - before == 1)
        #expect(try ObjectIdentifier(parent.syncGet(JITRaced.self)) == identities.first)
    }

    @Test("where a declared type goes doesn't depend on what was asked first: an optional, or the parent")
    func independentOfOrder() throws {
        // The child resolved the optional first (a just-in-time optional of its own): the declared type
        // still goes up, since nothing it reaches is bound in the child.
        let parent = try Injector()
        let child = try parent.makeChild()
        #expect(try child.syncGet(JITUnbound?.self) == nil)
        let fromChild = try child.syncGet(JITOptionalUnbound.self)
        #expect(try parent.syncGet(JITOptionalUnbound.self) === fromChild)
        // The parent built it first, with a nil request: a child that binds the request builds its own.
        let other = try Injector()
        #expect(try other.syncGet(JITOptionalUser.self).request == nil)
        let requestChild = try other.makeChild(requestModule(3))
        #expect(try requestChild.syncGet(JITOptionalUser.self).request?.id == 3)
        // A child that binds nothing shares the parent's.
        #expect(try other.makeChild().syncGet(JITOptionalUser.self) === other.syncGet(JITOptionalUser.self))
    }

    @Test("a verdict is worked out again after an install into the child")
    func installChangesTheVerdict() throws {
        let parent = try Injector()
        let child = try parent.makeChild()
        // Nobody binds the request yet: missing from the parent as from the child, so the parent may
        // hold the binding, and the request fails there.
        #expect(child.parentMayHoldJustInTime(BindingKey(JITPerRequest.self)))
        #expect(throws: ProvisionError.self) { try child.syncGet(JITPerRequest.self) }
        // Once the child binds it, the child makes its own binding, which builds.
        try child.install(requestModule(5))
        #expect(child.parentMayHoldJustInTime(BindingKey(JITPerRequest.self)) == false)
        #expect(try child.syncGet(JITPerRequest.self).request.id == 5)
        #expect(throws: ProvisionError.self) { try parent.syncGet(JITPerRequest.self) }
    }
}
