import Dispatch
import Foundation
import Testing

@testable import Provision

/// Defects the random-graph stress run (`Scripts/stress.sh --perturb`) found, reduced to deterministic
/// cases.
@Suite("Correctness: stress-run findings", .timeLimit(.minutes(1)))
struct StressFindingsTests {
    final class Leaf: Sendable {}
    final class Holder: Sendable {
        init(leaf: Leaf) {}
    }
    final class Database: Sendable {}
    final class Handler: PropertyInjectable, @unchecked Sendable {
        var database: Database?
        static var injectedProperties: [InjectedProperty] { [.inject(\Handler.database)] }
    }
    final class Scoped: Disposable {
        let log: EventLog
        init(log: EventLog) { self.log = log }
        func dispose() { log.append("dispose Scoped") }
    }
    final class Probe: Sendable {}
    /// A transient helper, whose injected property holds a service.
    final class Helper: PropertyInjectable, @unchecked Sendable {
        var database: Database?
        static var injectedProperties: [InjectedProperty] { [.inject(\Helper.database)] }
    }
    protocol Tool: AnyObject, Sendable {}
    final class PropertyTool: Tool, PropertyInjectable, @unchecked Sendable {
        var database: Database?
        static var injectedProperties: [InjectedProperty] { [.inject(\PropertyTool.database)] }
    }
    final class Service: Sendable {
        init(helper: Helper) {}
    }
    final class ToolService: Sendable {
        init(tool: any Tool) {}
    }
    final class Port: PropertyInjectable, @unchecked Sendable {
        var database: Database?
        static var injectedProperties: [InjectedProperty] { [.inject(\Port.database)] }
    }

    @Test("childLinkedAfterShutdown: a binding first linked after shutdown throws shutDown, not notBound")
    func childLinkedAfterShutdown() async throws {
        let parent = try Injector(ClosureModule { $0.bind(Leaf.self).to(Leaf.init) })
        let child = try parent.makeChild(ClosureModule { $0.bind(Holder.self).to(Holder.init(leaf:)) })
        try await parent.shutdown()
        let error = #expect(throws: ProvisionError.self) { try child.syncGet(Holder.self) }
        #expect(error?.code == .shutDown)
        #expect(error?.path == [BindingKey(Holder.self), BindingKey(Leaf.self)])
        // A child asked of the shut-down parent is refused.
        let made = #expect(throws: ProvisionError.self) {
            try parent.makeChild(ClosureModule { $0.bind(Holder.self).to(Holder.init(leaf:)) })
        }
        #expect(made?.code == .shutDown)
    }

    @Test("propertyDependencyStartsFirst: a service starts after the services injected into its properties")
    func propertyDependencyStartsFirst() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Database.self).to(Database.init).in(.singleton).onStart { _ in }
                binder.bind(Handler.self).to(Handler.init).in(.singleton).onStart { _ in }
            }
        )
        // Built as start() builds them; Handler's property builds Database first.
        _ = try injector.syncGet(Handler.self)
        let services = injector.registry.nodes.filter(\.scope.isSingleton).compactMap { $0.lifecycleActions() }
        let batches = StartOrder(services: services, injector: injector).batches.map { $0.map(\.key) }
        #expect(batches == [[BindingKey(Database.self)], [BindingKey(Handler.self)]])
    }

    @Test(
        "transientPropertyDependencyStartsFirst: a service starts after the services injected into the properties of transients it is built with"
    )
    func transientPropertyDependencyStartsFirst() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Database.self).to(Database.init).in(.singleton).onStart { _ in }
                binder.bind(Helper.self).to(Helper.init)
                binder.bind(Service.self).to(Service.init(helper:)).in(.singleton).onStart { _ in }
            }
        )
        _ = try injector.syncGet(Service.self)
        let services = injector.registry.nodes.filter(\.scope.isSingleton).compactMap { $0.lifecycleActions() }
        let batches = StartOrder(services: services, injector: injector).batches.map { $0.map(\.key) }
        #expect(batches == [[BindingKey(Database.self)], [BindingKey(Service.self)]])
    }

    @Test(
        "protocolKeyPropertyDependencyStartsFirst: the same when the transient is bound to a protocol and only its instance's class declares the property"
    )
    func protocolKeyPropertyDependencyStartsFirst() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Database.self).to(Database.init).in(.singleton).onStart { _ in }
                binder.bind((any Tool).self).to { () -> any Tool in PropertyTool() }
                binder.bind(ToolService.self).to(ToolService.init(tool:)).in(.singleton).onStart { _ in }
            }
        )
        _ = try injector.syncGet(ToolService.self)
        let services = injector.registry.nodes.filter(\.scope.isSingleton).compactMap { $0.lifecycleActions() }
        let batches = StartOrder(services: services, injector: injector).batches.map { $0.map(\.key) }
        #expect(batches == [[BindingKey(Database.self)], [BindingKey(ToolService.self)]])
    }

    @Test(
        "propertyLinkedAfterShutdown: a binding whose injected property's binding is gone because its parent shut down throws shutDown, not notBound"
    )
    func propertyLinkedAfterShutdown() async throws {
        let parent = try Injector(ClosureModule { $0.bind(Database.self).to(Database.init).in(.singleton) })
        let child = try parent.makeChild(ClosureModule { $0.bind(Port.self).to(Port.init) })
        try await parent.shutdown()
        // Linking Port checks its property's binding, in the parent's table that shutdown emptied.
        let error = #expect(throws: ProvisionError.self) { try child.syncGet(Port.self) }
        #expect(error?.code == .shutDown)
    }

    @Test("scopeClosingDuringBuild: an instance built while its scope closes is disposed exactly once")
    func scopeClosingDuringBuild() async throws {
        let log = EventLog()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Scoped.self).to { _ -> Scoped in
                    entered.signal()
                    _ = release.wait(timeout: .now() + 30)
                    return Scoped(log: log)
                }.in(.scoped)
                binder.bind(Probe.self).to(Probe.init).in(.scoped)
            }
        )
        let scope = injector.makeScope()
        let built = DispatchSemaphore(value: 0)
        Thread {
            _ = try? scope.syncGet(Scoped.self)
            built.signal()
        }.start()
        await wait(for: entered)
        let closing = Task { try await scope.close() }
        // Closed (an observed state): the scope refuses its scoped bindings.
        while (try? scope.syncGet(Probe.self)) != nil { await Task.yield() }
        release.signal()
        await wait(for: built)
        try await closing.value
        #expect(log.all == ["dispose Scoped"])
    }

    private func wait(for semaphore: DispatchSemaphore) async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                semaphore.wait()
                continuation.resume()
            }
        }
    }
}
