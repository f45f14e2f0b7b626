import Provision
import Testing

@Suite("Injector lifetime")
struct InjectorLifetimeTests {
    /// Counts its own deinitializations.
    final class Tracked: Sendable {
        let deinits: Counter
        init(_ deinits: Counter) { self.deinits = deinits }
        deinit { deinits.increment() }
    }

    /// A singleton that holds handles to its own injector, the classic source of retain cycles.
    final class HandleHolder: Sendable {
        let provider: Provider<Engine>
        let factory: ObjectFactory
        let tracked: Tracked
        init(provider: Provider<Engine>, factory: ObjectFactory, tracked: Tracked) {
            self.provider = provider
            self.factory = factory
            self.tracked = tracked
        }
    }

    private func module(_ deinits: Counter) -> ClosureModule {
        ClosureModule { binder in
            binder.bind(Engine.self).to(Engine.init)
            binder.bind(Tracked.self).to { _ in Tracked(deinits) }.in(.singleton)
            binder.bind(Tracked.self, named: "constructor").to { _ in Tracked(deinits) }
            binder.bind(HandleHolder.self).to(HandleHolder.init(provider:factory:tracked:)).in(.singleton)
        }
    }

    @Test("dropping an injector frees its singletons, also those holding handles to it")
    func droppingFreesSingletons() throws {
        let deinits = Counter()
        var injector: Injector? = try Injector(module(deinits))
        _ = try injector?.get(HandleHolder.self)
        _ = try injector?.get(Tracked.self)
        #expect(deinits.value == 0)
        injector = nil
        #expect(deinits.value == 1, "the singleton Tracked outlived its injector")
    }

    @Test("a handle used after its injector is gone throws injectorReleased")
    func handleAfterRelease() throws {
        let deinits = Counter()
        var injector: Injector? = try Injector(module(deinits))
        let provider = try injector?.get(Provider<Engine>.self)
        injector = nil
        let error = #expect(throws: ProvisionError.self) { try provider?.get() }
        #expect(error?.code == .injectorReleased)
        #expect(error?.message.contains("Engine") == true)
    }

    @Test("dropping a child or derived injector frees its own singletons and keeps the parent's")
    func childAndDerived() throws {
        let parentDeinits = Counter()
        let childDeinits = Counter()
        let parent = try Injector(module(parentDeinits))
        _ = try parent.get(Tracked.self)
        var child: Injector? = try parent.makeChild(
            ClosureModule { $0.bind(Tracked.self, named: "child").to { _ in Tracked(childDeinits) }.in(.singleton) }
        )
        _ = try child?.get(Tracked.self, named: "child")
        _ = try child?.get(Tracked.self)
        var derived: Injector? = try parent.with(ClosureModule { $0.bind(Brakes.self).to(Brakes.init) })
        _ = try derived?.get(Tracked.self)
        child = nil
        #expect(childDeinits.value == 1)
        #expect(parentDeinits.value == 0)
        derived = nil
        #expect(parentDeinits.value == 1, "the derived injector's own singleton was not freed")
        _ = try parent.get(Tracked.self)
        #expect(parentDeinits.value == 1, "the parent's singleton was freed with its child")
    }
}
