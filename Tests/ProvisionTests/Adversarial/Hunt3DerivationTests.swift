import Dispatch
import Foundation
import Testing

@testable import Provision

/// Children and derived injectors against the lifecycle and installs of the injector they come from.
@Suite("Hunt3: children and derived injectors", .timeLimit(.minutes(1)))
struct Hunt3DerivationTests {
    final class Plugin: Sendable {}
    final class Extra: Sendable {}
    final class Own: Sendable {}
    final class Leaf: Disposable {
        let disposals = Counter()
        func dispose() { disposals.increment() }
    }
    final class Service: ManagedService {
        let starts = Counter()
        let stops = Counter()
        func start() async throws { starts.increment() }
        func stop() async throws { stops.increment() }
    }

    @Test("with(_:) on an injector that installed a plugin keeps the plugin's bindings")
    func withKeepsInstalled() throws {
        let injector = try Injector()
        try injector.install(ClosureModule { binder in binder.bind(Plugin.self).to { Plugin() } })
        let overridden = try injector.overriding { _ in }
        #expect(throws: Never.self) { _ = try overridden.syncGet(Plugin.self) }
        let derived = try injector.with(ClosureModule { binder in binder.bind(Extra.self).to { Extra() } })
        // Found by the third hunt, fixed: `with` rebuilds from `modules` only and drops the installed module
        // (`overriding` keeps it).
        #expect(throws: Never.self) { _ = try derived.syncGet(Plugin.self) }
    }

    @Test("after the parent's shutdown a child's fallbacks to it throw shutDown, optionals too")
    func childAfterParentShutdown() async throws {
        let parent = try Injector(ClosureModule { binder in binder.bind(Leaf.self).to { Leaf() }.in(.singleton) })
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(Own.self).to { Own() }
                binder.bind(Service.self).to { Service() }.in(.singleton)
            }
        )
        try await child.start()
        let service = try child.syncGet(Service.self)
        #expect(service.starts.value == 1)
        try await parent.shutdown()
        // "Child injectors are not shut down with their parent": the child's own bindings resolve.
        #expect(throws: Never.self) { _ = try child.syncGet(Own.self) }
        let leafError = #expect(throws: ProvisionError.self) { _ = try child.syncGet(Leaf.self) }
        #expect(leafError?.code == .shutDown, "\(String(describing: leafError))")
        // An optional's fallback to the shut-down parent is an error too, not nil.
        let optional = Hunt2.result { () throws(ProvisionError) in try child.syncGet(Leaf?.self) }
        if case .success(let value) = optional {
            Issue.record("child.get(Leaf?.self) after the parent's shutdown returned \(String(describing: value))")
        }
        // The child's service: stopped by the parent's shutdown, or by the child's own, exactly once.
        _ = await Hunt2.error { () async throws(ProvisionError) in try await child.shutdown() }
        #expect(service.stops.value == 1)
    }

    static func syncGetAll(_ injector: Injector) -> Result<[Plugin], ProvisionError> {
        Hunt2.result { () throws(ProvisionError) in try injector.getAll(Plugin.self) }
    }

    @Test("getAll through a child of a shut-down parent throws shutDown, not an empty array")
    func getAllAfterShutdown() async throws {
        let parent = try Injector(ClosureModule { binder in binder.multibind(Plugin.self).to { Plugin() } })
        let child = try parent.makeChild()
        #expect((try? Self.syncGetAll(parent).get())?.count == 1)
        try await parent.shutdown()
        let syncResult = Self.syncGetAll(parent)
        let asyncError = await Hunt2.error { () async throws(ProvisionError) in try await parent.getAll(Plugin.self) }
        #expect(asyncError?.code == .shutDown)
        // Found by the third hunt, fixed: the synchronous getAll finds no collection in the emptied registry and
        // returns [].
        if case .success(let elements) = syncResult {
            Issue.record("getAll after shutdown returned \(elements.count) elements instead of throwing shutDown")
        }
        let childResult = Self.syncGetAll(child)
        if case .success(let elements) = childResult {
            Issue.record("a child's getAll after its parent's shutdown returned \(elements.count) elements")
        }
        // The async getAll checks only the child's own lifecycle, not its ancestors'.
        let childAsync = await Hunt2.error { () async throws(ProvisionError) in
            let elements = try await child.getAll(Plugin.self)
            Issue.record("a child's async getAll after its parent's shutdown returned \(elements.count) elements")
        }
        #expect(childAsync?.code == .shutDown, "\(String(describing: childAsync))")
    }
}

/// Deriving from an injector that was shut down, eager misuse, just-in-time scoped declarations.
@Suite("Hunt3: derived after shutdown", .timeLimit(.minutes(1)))
struct Hunt3DerivedAfterShutdownTests {
    final class Leaf: Disposable {
        let disposals = Counter()
        func dispose() { disposals.increment() }
    }
    final class Other: Sendable {}

    @Test("overriding() a shut-down injector never hands out its disposed singletons")
    func overridingAfterShutdown() async throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Leaf.self).to { Leaf() }.in(.singleton)
                binder.bind(Other.self).to { Other() }
            }
        )
        let leaf = try injector.syncGet(Leaf.self)
        try await injector.shutdown()
        #expect(leaf.disposals.value == 1)
        let outcome = Hunt2.result { () throws(ProvisionError) -> Leaf in
            let derived = try injector.overriding { binder in binder.override(Other.self).to { Other() } }
            return try derived.syncGet(Leaf.self)
        }
        switch outcome {
        case .success(let value):
            #expect(value !== leaf, "the derived injector handed out the original's disposed singleton")
        case .failure(let error):
            #expect(error.code == .shutDown, "\(error)")
        }
    }

    @Test("eager marks of unbound or scoped keys are errors at creation")
    func eagerMisuse() {
        let unbound = #expect(throws: ProvisionError.self) {
            _ = try Injector(ClosureModule { binder in binder.eager(Other.self) })
        }
        #expect(unbound?.description.contains("Other") == true, "\(String(describing: unbound))")
        let scoped = #expect(throws: ProvisionError.self) {
            _ = try Injector(
                ClosureModule { binder in
                    binder.bind(Leaf.self).to { Leaf() }.in(.scoped)
                    binder.eager(Leaf.self)
                }
            )
        }
        #expect(scoped != nil)
    }

    @Test("a just-in-time scoped declaration: once per scope from 8 threads, outsideScope outside")
    func justInTimeScoped() throws {
        let injector = try Injector()
        let outside = #expect(throws: ProvisionError.self) { _ = try injector.syncGet(Hunt3ScopedDeclared.self) }
        #expect(outside?.code == .outsideScope)
        let scope = injector.makeScope()
        let seen = Locked<Set<ObjectIdentifier>>([])
        #expect(
            runThreads(8, timeout: 20) { _ in
                if let value = try? scope.syncGet(Hunt3ScopedDeclared.self) {
                    seen.withLock { _ = $0.insert(ObjectIdentifier(value)) }
                }
            })
        #expect(seen.withLock { $0.count } == 1)
        try scope.syncClose()
    }
}

final class Hunt3ScopedDeclared: Injectable, Sendable {
    static let injection = Injection(Hunt3ScopedDeclared.init).in(.scoped)
}

/// Starting a child and its parent: each service starts once.
@Suite("Hunt3: child and parent lifecycles", .timeLimit(.minutes(1)))
struct Hunt3ChildLifecycleTests {
    final class Service: ManagedService {
        let starts = Counter()
        let stops = Counter()
        func start() async throws { starts.increment() }
        func stop() async throws { stops.increment() }
    }
    final class ChildService: ManagedService {
        let parent: Service
        let starts = Counter()
        init(parent: Service) { self.parent = parent }
        func start() async throws { starts.increment() }
    }

    @Test("child.start() then parent.start(): the parent's service starts once, stops once")
    func childThenParentStart() async throws {
        let parent = try Injector(ClosureModule { binder in binder.bind(Service.self).to { Service() }.in(.singleton) })
        let child = try parent.makeChild(
            ClosureModule { binder in binder.bind(ChildService.self).to(ChildService.init(parent:)).in(.singleton) }
        )
        try await child.start()
        let service = try parent.syncGet(Service.self)
        let childService = try child.syncGet(ChildService.self)
        #expect(childService.starts.value == 1)
        try await parent.start()
        #expect(service.starts.value == 1, "the parent's service started \(service.starts.value) times")
        try await child.shutdown()
        try await parent.shutdown()
        #expect(service.stops.value == service.starts.value)
    }

    @Test("an ObjectFactory with the wrong arguments is argumentMismatch naming the types")
    func objectFactoryArguments() throws {
        final class Made: Sendable {}
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Made.self).withArguments(String.self, Int.self).to { _, _, _ in Made() }
            }
        )
        let factory = try injector.syncGet(ObjectFactory.self)
        let error = #expect(throws: ProvisionError.self) { _ = try factory.get(Made.self, arguments: 1, "a") }
        #expect(error?.code == .argumentMismatch)
        #expect(error?.description.contains("(String, Int)") == true, "\(String(describing: error))")
        #expect(throws: Never.self) { _ = try factory.get(Made.self, arguments: "a", 1) }
    }
}
