import Dispatch
import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

private final class H12Store: Sendable {
    let label: String
    init(label: String) { self.label = label }
}

/// A child's binding that reaches the parent's store through handles.
private final class H12Handles: Sendable {
    let provider: Provider<H12Store>
    let lazy: Lazy<H12Store>
    init(provider: Provider<H12Store>, lazy: Lazy<H12Store>) {
        self.provider = provider
        self.lazy = lazy
    }
}

/// A child's binding that needs the parent's store through its initializer.
private final class H12Service: Sendable {
    let store: H12Store
    init(store: H12Store) { self.store = store }
}

protocol H12Listener: Sendable {}

private struct H12ParentListener: H12Listener {}

/// Built with an argument, in the parent.
private final class H12Widget: Sendable {
    let size: Int
    init(size: Int) { self.size = size }
}

/// A singleton whose disposal blocks until released.
private final class H12SlowDisposal: Disposable {
    let hold: Hunt5.Hold
    init(hold: Hunt5.Hold) { self.hold = hold }
    func dispose() { hold.run() }
}

private final class H12Unbuilt: Sendable {}

private let h12Parent = ClosureModule { binder in
    binder.bind(H12Store.self).to { H12Store(label: "parent") }
    binder.multibind((any H12Listener).self).to { H12ParentListener() }
    binder.bind(H12Widget.self).withArguments(Int.self).to { _, size in H12Widget(size: size) }
}

private func h12Ancestral(
    _ error: ProvisionError?, first key: BindingKey, sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
    #expect(error?.code == .shutDown, "\(String(describing: error))", sourceLocation: sourceLocation)
    #expect(error?.path.first == key, "path: \(String(describing: error?.path))", sourceLocation: sourceLocation)
    #expect(
        error?.message.contains("ancestor") == true, "message: \(String(describing: error?.message))",
        sourceLocation: sourceLocation)
}

// MARK: - Tests

@Suite("Hunt12: requests that miss because an ancestor shut down", .timeLimit(.minutes(1)))
struct Hunt12ShutdownPathTests {
    // Handles made before the parent's shutdown, read after it: the store is missing because the
    // parent shut down; the error says so, and its path starts at the store (the key the handle reads).
    @Test("a Provider and a Lazy of a parent's key read after the parent's shutdown")
    func handlesAfterParentShutdown() async throws {
        let parent = try Injector(h12Parent)
        let child = try parent.makeChild(
            ClosureModule { binder in binder.bind(H12Handles.self).to(H12Handles.init(provider:lazy:)) })
        let handles = try Hunt5.result { () throws(ProvisionError) in try child.get(H12Handles.self) }.get()
        try await parent.shutdown()
        let provided = Hunt5.result { () throws(ProvisionError) in try handles.provider.get() }
        h12Ancestral(provided.hunt5Error, first: BindingKey(H12Store.self))
        let lazy = Hunt5.result { () throws(ProvisionError) in try handles.lazy.value }
        h12Ancestral(lazy.hunt5Error, first: BindingKey(H12Store.self))
    }

    // The async request of a child's binding that needs the parent's store.
    @Test("an async request through a child of a shut-down parent: shutDown by an ancestor, path from the key")
    func asyncRequest() async throws {
        let parent = try Injector(h12Parent)
        let child = try parent.makeChild(
            ClosureModule { binder in binder.bind(H12Service.self).to(H12Service.init(store:)) })
        try await parent.shutdown()
        let error = await Hunt5.error { () async throws(ProvisionError) in try await child.get(H12Service.self) }
        h12Ancestral(error, first: BindingKey(H12Service.self))
        #expect(
            error?.path == [BindingKey(H12Service.self), BindingKey(H12Store.self)], "\(String(describing: error))")
    }

    // getAll of a parent's collection from a child after the parent's shutdown: the collection is
    // missing because the parent shut down. An empty array would be a silently wrong answer.
    @Test("getAll of a parent's collection through a child of a shut-down parent throws shutDown")
    func getAllAfterParentShutdown() async throws {
        let parent = try Injector(h12Parent)
        let child = try parent.makeChild(ClosureModule { _ in })
        try await parent.shutdown()
        let all = Hunt5.result { () throws(ProvisionError) in try child.getAll((any H12Listener).self) }
        #expect(all.hunt5Error?.code == .shutDown, "\(all)")
        let asyncError = await Hunt5.error { () async throws(ProvisionError) in
            try await child.getAll((any H12Listener).self)
        }
        #expect(asyncError?.code == .shutDown, "\(String(describing: asyncError))")
    }

    // Found by hunt 12, fixed. expected an optional request for a parent's key, through a child whose parent shut down,
    // to throw shutDown saying an ancestor was shut down (ProvisionError.shutDown(_:path:byAncestor:),
    // as the non-optional request does); observed the code is right but the message is "can't resolve
    // H12Store: the injector was shut down" (path: H12Store), about the child, which runs. The optional's
    // just-in-time recipe reports its wrapped key's miss with the plain shutDown error.
    @Test("an optional request of a parent's key through a child of a shut-down parent")
    func optionalAfterParentShutdown() async throws {
        let parent = try Injector(h12Parent)
        let child = try parent.makeChild(ClosureModule { _ in })
        try await parent.shutdown()
        let optional = Hunt5.result { () throws(ProvisionError) in try child.get(H12Store?.self) }
        #expect(optional.hunt5Error?.code == .shutDown, "\(optional)")
        #expect(optional.hunt5Error?.message.contains("ancestor") == true, "\(optional)")
    }

    // A request with arguments of a parent's binding with arguments.
    @Test("a request with arguments through a child of a shut-down parent")
    func argumentsAfterParentShutdown() async throws {
        let parent = try Injector(h12Parent)
        let child = try parent.makeChild(ClosureModule { _ in })
        #expect(
            try Hunt5.result { () throws(ProvisionError) in try child.get(H12Widget.self, arguments: 3) }.get().size
                == 3)
        try await parent.shutdown()
        let widget = Hunt5.result { () throws(ProvisionError) in try child.get(H12Widget.self, arguments: 4) }
        h12Ancestral(widget.hunt5Error, first: BindingKey(H12Widget.self))
    }

    // The injector's own shutdown, after it ended and while a disposal still runs: "the injector was
    // shut down", never "an ancestor".
    @Test("a request of the injector that is shutting down itself says the injector, not an ancestor")
    func ownShutdownMessage() async throws {
        let hold = Hunt5.Hold()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H12SlowDisposal.self).to { H12SlowDisposal(hold: hold) }.in(.singleton)
                binder.bind(H12Unbuilt.self).to(H12Unbuilt.init)
            })
        _ = try Hunt5.result { () throws(ProvisionError) in try injector.get(H12SlowDisposal.self) }.get()
        let shutdown = Task { try await injector.shutdown() }
        #expect(await Hunt5.wait(for: hold.entered))
        let during = Hunt5.result { () throws(ProvisionError) in try injector.get(H12Unbuilt.self) }
        hold.release.signal()
        try await shutdown.value
        let after = Hunt5.result { () throws(ProvisionError) in try injector.get(H12Unbuilt.self) }
        for result in [during, after] {
            #expect(result.hunt5Error?.code == .shutDown, "\(result)")
            #expect(result.hunt5Error?.message.contains("ancestor") == false, "\(result)")
        }
    }

    // A derived injector (overriding) whose original shut down, asked for a shared key. The derived
    // injector itself runs; the request fails with shutDown, path from the requested key.
    @Test("a derived injector whose original shut down: a shared key's request says shutDown")
    func derivedOfShutDownOriginal() async throws {
        let original = try Injector(
            ClosureModule { binder in
                binder.bind(H12Store.self).to { H12Store(label: "real") }
                binder.bind(H12Service.self).to(H12Service.init(store:))
                binder.bind(H12Unbuilt.self).to(H12Unbuilt.init)
            })
        let derived = try original.overriding { binder in binder.bind(H12Store.self).to { H12Store(label: "fake") } }
        try await original.shutdown()
        let service = Hunt5.result { () throws(ProvisionError) in try derived.get(H12Service.self) }
        #expect(try service.get().store.label == "fake", "a re-created binding of the derived injector: \(service)")
        let shared = Hunt5.result { () throws(ProvisionError) in try derived.get(H12Unbuilt.self) }
        #expect(shared.hunt5Error?.code == .shutDown, "\(shared)")
        #expect(shared.hunt5Error?.path.first == BindingKey(H12Unbuilt.self), "\(shared)")
    }
}
