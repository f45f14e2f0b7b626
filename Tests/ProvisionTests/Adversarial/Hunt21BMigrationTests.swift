import Testing

@testable import Provision

// Hunt 21B, part 4: code written by someone coming from Swinject (`.container` in child containers),
// Needle and Weaver (component trees as child injectors), Cleanse (assisted injection) and Resolver or
// Factory (`.graph` and `.cached` scopes), mapped to what Provision documents, with the errors a
// migrant meets: they name the types in Swift syntax and say how to fix.

final class Hunt21BFeatureFlags: Sendable {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}

final class Hunt21BFeature: Sendable {
    let flags: Hunt21BFeatureFlags
    let pool: Hunt21BPool
    init(flags: Hunt21BFeatureFlags, pool: Hunt21BPool) {
        self.flags = flags
        self.pool = pool
    }
}

final class Hunt21BScreen: Sendable {
    let feature: Hunt21BFeature
    let flags: Hunt21BFeatureFlags
    init(feature: Hunt21BFeature, flags: Hunt21BFeatureFlags) {
        self.feature = feature
        self.flags = flags
    }
}

/// Cleanse's assisted injection: an order built from an id given at the call site and a repository.
final class Hunt21BOrder: Sendable {
    let id: Int
    let repository: Hunt21BRepository
    init(id: Int, repository: Hunt21BRepository) {
        self.id = id
        self.repository = repository
    }
}

final class Hunt21BCheckout: Sendable {
    let orders: Provider<Hunt21BOrder>
    let factory: ObjectFactory
    init(orders: Provider<Hunt21BOrder>, factory: ObjectFactory) {
        self.orders = orders
        self.factory = factory
    }
}

final class Hunt21BSessionHolder: Sendable {
    let lazy: Lazy<Hunt21BSession>
    let provider: Provider<Hunt21BSession>
    let direct: Hunt21BSession
    init(lazy: Lazy<Hunt21BSession>, provider: Provider<Hunt21BSession>, direct: Hunt21BSession) {
        self.lazy = lazy
        self.provider = provider
        self.direct = direct
    }
}

final class Hunt21BRequestGraph: Sendable {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}

final class Hunt21BHandler: Sendable {
    let graph: Hunt21BRequestGraph
    init(graph: Hunt21BRequestGraph) { self.graph = graph }
}

@Suite("Hunt 21B: migrating from Swinject, Needle, Cleanse, Resolver and Factory", .timeLimit(.minutes(1)))
struct Hunt21BMigrationTests {
    static func base(_ counts: Hunt21BCounts) -> ClosureModule {
        Hunt21BStormTests.constructorModule(counts)
    }

    @Test("Swinject's .container in child containers: a child's singleton per child, the parent's shared")
    func containerScopePerChild() throws {
        let counts = Hunt21BCounts()
        let serial = Counter()
        let parent = try Injector(Self.base(counts))
        let flagsModule = ClosureModule { binder in
            binder.bind(Hunt21BFeatureFlags.self).to { Hunt21BFeatureFlags(serial: serial.increment()) }.in(.singleton)
            binder.bind(Hunt21BFeature.self).to(Hunt21BFeature.init(flags:pool:)).in(.singleton)
        }
        let first = try parent.makeChild(flagsModule)
        let second = try parent.makeChild(flagsModule)
        let a = try first.get(Hunt21BFeature.self)
        let b = try second.get(Hunt21BFeature.self)
        #expect(a !== b)
        #expect(a.flags !== b.flags)
        #expect(a.pool === b.pool)
        #expect(try first.get(Hunt21BFeature.self) === a)
        #expect(serial.value == 2)
        #expect(counts.count("pool") == 1)
        #expect(try parent.get(Hunt21BFeature?.self) == nil)
    }

    @Test("a Needle component tree of three levels: each level resolves its ancestors', none its children's")
    func componentTree() throws {
        let counts = Hunt21BCounts()
        let serial = Counter()
        let root = try Injector(Self.base(counts))
        let feature = try root.makeChild(
            ClosureModule { binder in
                binder.bind(Hunt21BFeatureFlags.self).to { Hunt21BFeatureFlags(serial: serial.increment()) }
                    .in(.singleton)
                binder.bind(Hunt21BFeature.self).to(Hunt21BFeature.init(flags:pool:))
            })
        let screen = try feature.makeChild(
            ClosureModule { $0.bind(Hunt21BScreen.self).to(Hunt21BScreen.init(feature:flags:)) })
        let built = try screen.get(Hunt21BScreen.self)
        #expect(built.flags === built.feature.flags)
        #expect(built.feature.pool === (try root.get(Hunt21BPool.self)))
        #expect(try feature.get(Hunt21BFeatureFlags.self) === built.flags)
        #expect(serial.value == 1)

        let fromRoot = #expect(throws: ProvisionError.self) { try root.get(Hunt21BScreen.self) }
        #expect(fromRoot?.code == .notBound)
        #expect(fromRoot?.message == "no binding for Hunt21BScreen")
        let fromFeature = #expect(throws: ProvisionError.self) { try feature.get(Hunt21BScreen.self) }
        #expect(fromFeature?.code == .notBound)
    }

    @Test("Cleanse's assisted injection: arguments through an injected Provider and ObjectFactory")
    func assistedInjection() throws {
        let counts = Hunt21BCounts()
        let injector = try Injector(
            Self.base(counts),
            ClosureModule { binder in
                binder.bind(Hunt21BOrder.self).withArguments(Int.self).to { resolver, id in
                    Hunt21BOrder(id: id, repository: try resolver.get())
                }
                binder.bind(Hunt21BCheckout.self).to(Hunt21BCheckout.init(orders:factory:))
            })
        let checkout = try injector.get(Hunt21BCheckout.self)
        let first = try checkout.orders.get(arguments: 7)
        let second = try checkout.factory.get(Hunt21BOrder.self, arguments: 8)
        let lazy = checkout.orders.lazy(arguments: 9)
        #expect(first.id == 7)
        #expect(second.id == 8)
        #expect(try lazy.value.id == 9)
        #expect(first.repository === second.repository)
        #expect(counts.count("repository") == 1)

        let mismatch = #expect(throws: ProvisionError.self) { try checkout.orders.get(arguments: "seven") }
        #expect(mismatch?.code == .argumentMismatch)
        #expect(mismatch?.key == BindingKey(Hunt21BOrder.self))
        #expect(mismatch?.description.contains("(Int)") == true, "\(String(describing: mismatch?.description))")
        let none = #expect(throws: ProvisionError.self) { try checkout.orders.get() }
        #expect(none?.code == .argumentMismatch, "no defaults: an order needs its id")
    }

    @Test("Resolver's .graph mapped to .scoped: outside a scope the request says so, naming the path")
    func graphScopeOutsideScope() throws {
        let serial = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt21BRequestGraph.self).to { Hunt21BRequestGraph(serial: serial.increment()) }
                    .in(.scoped)
                binder.bind(Hunt21BHandler.self).to(Hunt21BHandler.init(graph:))
            })
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt21BHandler.self) }
        #expect(error?.code == .outsideScope)
        #expect(error?.key == BindingKey(Hunt21BRequestGraph.self))
        #expect(error?.path == [BindingKey(Hunt21BHandler.self), BindingKey(Hunt21BRequestGraph.self)])
        #expect(error?.message.contains("Hunt21BRequestGraph") == true)
        #expect(error?.hint.lowercased().contains("scope") == true, "\(String(describing: error?.hint))")
        #expect(serial.value == 0)

        let scope = injector.makeScope()
        let handler = try scope.get(Hunt21BHandler.self)
        #expect(try scope.get(Hunt21BHandler.self).graph === handler.graph)
        try scope.close()
        let closed = #expect(throws: ProvisionError.self) { try scope.get(Hunt21BHandler.self) }
        #expect(closed?.code == .outsideScope)
    }

    @Test("a binding with arguments made .scoped (Resolver's graph with args) is invalidLifecycle, with a fix")
    func scopedWithArguments() throws {
        let error = #expect(throws: ProvisionError.self) {
            try Injector(
                ClosureModule { binder in
                    binder.bind(Hunt21BOrder.self).withArguments(Int.self).to { resolver, id in
                        Hunt21BOrder(id: id, repository: try resolver.get())
                    }.in(.scoped)
                })
        }
        let lifecycle = error?.code == .invalidLifecycle ? error : error?.underlyingErrors.first
        #expect(lifecycle?.code == .invalidLifecycle, "\(String(describing: error))")
        #expect(lifecycle?.key == BindingKey(Hunt21BOrder.self))
        #expect(lifecycle?.hint.contains("singleton") == true)
        #expect(lifecycle?.location?.fileID.hasSuffix("Hunt21BMigrationTests.swift") == true)
    }

    @Test("Factory's .cached with reset(): a derived injector has new singletons, the old keeps its own")
    func cachedAndReset() throws {
        let counts = Hunt21BCounts()
        let injector = try Injector(Self.base(counts))
        let before = try injector.get(Hunt21BRepository.self)
        let reset = try injector.with()
        let after = try reset.get(Hunt21BRepository.self)
        #expect(after !== before)
        #expect(after.pool !== before.pool)
        #expect(try injector.get(Hunt21BRepository.self) === before)
        #expect(counts.count("repository") == 2)
        #expect(counts.count("pool") == 2)
    }

    @Test("a child singleton over the parent's transient and singleton: built once, with the parent's singleton")
    func childSingletonOverParent() throws {
        let counts = Hunt21BCounts()
        let parent = try Injector(Self.base(counts))
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(Hunt21BAuditUser.self).to { resolver in
                    _ = try resolver.get(Hunt21BService.self)
                    return Hunt21BAuditUser(audit: Hunt21BAudit(counts: counts))
                }.in(.singleton)
            })
        let user = try child.get(Hunt21BAuditUser.self)
        #expect(try child.get(Hunt21BAuditUser.self) === user)
        #expect(counts.count("service") == 1)
        #expect(counts.count("pool") == 1)
        #expect(try parent.get(Hunt21BPool.self) === child.get(Hunt21BPool.self))
    }
    @Test("handles of a binding with arguments and defaults: Lazy and Provider.get() use the defaults")
    func handlesUseDefaults() throws {
        let counts = Hunt21BCounts()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt21BSession.self).withArguments(String.self).to { _, user in
                    Hunt21BSession(user: user, counts: counts)
                }.defaults("guest")
                binder.bind(Hunt21BSessionHolder.self).to(Hunt21BSessionHolder.init(lazy:provider:direct:))
            })
        let holder = try injector.get(Hunt21BSessionHolder.self)
        #expect(holder.direct.user == "guest")
        #expect(try holder.lazy.value.user == "guest")
        #expect(try holder.provider.get().user == "guest")
        #expect(try holder.provider.get(arguments: "alice").user == "alice")
        #expect(counts.count("session") == 4)
    }
}
