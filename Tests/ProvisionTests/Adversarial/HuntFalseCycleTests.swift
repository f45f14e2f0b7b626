import Foundation
import Provision
import Synchronization
import Testing

// The same key requested twice in one resolution, legitimately: a binding that decorates the binding
// of the same key in *another* injector (its parent, the original of an overriding injector, an
// unrelated injector), or the same scoped key in another scope. These are different bindings, so
// there is no cycle.

struct HFConfig: Sendable, Equatable {
    var port: Int
}

final class HFApp: Sendable {
    let config: HFConfig
    init(config: HFConfig) { self.config = config }
}

final class HFJob: Sendable {
    let depth: Int
    let inner: HFJob?
    init(depth: Int, inner: HFJob?) {
        self.depth = depth
        self.inner = inner
    }
}

@Suite("Hunt: no false cycle across injectors and scopes", .timeLimit(.minutes(1)))
struct HuntFalseCycleTests {
    static func parent(scope: Scope) throws -> Injector {
        try Injector(
            ClosureModule { binder in
                binder.bind(HFConfig.self).to { _ in HFConfig(port: 8080) }.in(scope)
            }
        )
    }

    // MARK: child injector decorating its parent's binding

    @Test(
        "sync: a child's singleton decorating the parent's singleton of the same key",
        arguments: [Scope.singleton, .transient])
    func childDecoratesParentSync(parentScope: Scope) throws {
        let parent = try Self.parent(scope: parentScope)
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(HFConfig.self).to { _ in
                    var config = try parent.get(HFConfig.self)
                    config.port += 1
                    return config
                }.in(.singleton)
            }
        )
        #expect(try child.get(HFConfig.self) == HFConfig(port: 8081))
        #expect(try parent.get(HFConfig.self) == HFConfig(port: 8080))
    }

    @Test(
        "async API: a child's singleton (sync closure) decorating the parent's binding of the same key",
        arguments: [Scope.singleton, .transient])
    func childDecoratesParentThroughAsyncAPI(parentScope: Scope) async throws {
        let parent = try Self.parent(scope: parentScope)
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(HFConfig.self).to { _ in
                    var config = try parent.syncGet(HFConfig.self)
                    config.port += 1
                    return config
                }.in(.singleton)
            }
        )
        let config = try await child.get(HFConfig.self)
        #expect(config == HFConfig(port: 8081))
    }

    @Test(
        "async closure: a child's async singleton awaiting the parent's binding of the same key",
        arguments: [Scope.singleton, .transient])
    func childDecoratesParentAsyncClosure(parentScope: Scope) async throws {
        let parent = try Self.parent(scope: parentScope)
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(HFConfig.self).to { _ async throws in
                    var config = try await parent.get(HFConfig.self)
                    config.port += 1
                    return config
                }.in(.singleton)
            }
        )
        let config = try await child.get(HFConfig.self)
        #expect(config == HFConfig(port: 8081))
    }

    @Test("async closure: a child's transient async closure awaiting the parent's closure of the same key")
    func childTransientDecoratesParent() async throws {
        let parent = try Self.parent(scope: .transient)
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(HFConfig.self).to { _ async throws in
                    var config = try await parent.get(HFConfig.self)
                    config.port += 1
                    return config
                }
            }
        )
        let config = try await child.get(HFConfig.self)
        #expect(config == HFConfig(port: 8081))
    }

    // MARK: overriding: a test fake that wraps the original

    @Test("overriding: a replacement that decorates the original's singleton, resolved sync and async")
    func overridingDecoratesOriginal() async throws {
        let app = try Injector(
            ClosureModule { binder in
                binder.bind(HFConfig.self).to { _ in HFConfig(port: 8080) }.in(.singleton)
                binder.bind(HFApp.self).to(HFApp.init(config:)).in(.singleton)
            }
        )
        let syncTest = try app.overriding { binder in
            binder.bind(HFConfig.self).to { _ in
                var config = try app.syncGet(HFConfig.self)
                config.port = 0
                return config
            }.in(.singleton)
        }
        #expect(try syncTest.syncGet(HFApp.self).config == HFConfig(port: 0))

        let asyncTest = try app.overriding { binder in
            binder.bind(HFConfig.self).to { _ in
                var config = try app.syncGet(HFConfig.self)
                config.port = 1
                return config
            }.in(.singleton)
        }
        let built = try await asyncTest.get(HFApp.self)
        #expect(built.config == HFConfig(port: 1))
    }

    // MARK: two unrelated injectors

    @Test("an async singleton in one injector awaiting the same type's singleton in another injector")
    func twoInjectors() async throws {
        let global = try Injector(
            ClosureModule { binder in
                binder.bind(HFConfig.self).to { _ in HFConfig(port: 1) }.in(.singleton)
            }
        )
        let tenant = try Injector(
            ClosureModule { binder in
                binder.bind(HFConfig.self).to { _ async throws in
                    HFConfig(port: try await global.get(HFConfig.self).port + 100)
                }.in(.singleton)
            }
        )
        #expect(try await tenant.get(HFConfig.self) == HFConfig(port: 101))
    }

    @Test("control: the same two injectors resolved synchronously, with a sync factory")
    func twoInjectorsSync() throws {
        let global = try Injector(
            ClosureModule { binder in
                binder.bind(HFConfig.self).to { _ in HFConfig(port: 1) }.in(.singleton)
            }
        )
        let tenant = try Injector(
            ClosureModule { binder in
                binder.bind(HFConfig.self).to { _ in
                    HFConfig(port: try global.get(HFConfig.self).port + 100)
                }.in(.singleton)
            }
        )
        #expect(try tenant.get(HFConfig.self) == HFConfig(port: 101))
    }

    // MARK: nested scopes

    @Test("a scoped job whose async factory runs a sub-job in a scope of its own (the same scoped key, another scope)")
    func nestedScopeAsync() async throws {
        let slot = HuntInjectorSlot()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Int.self, named: "depth").toSeed()
                binder.bind(HFJob.self).to { resolver async throws in
                    let depth = try await resolver.get(Int.self, named: "depth")
                    guard depth < 2 else { return HFJob(depth: depth, inner: nil) }
                    let inner = try await slot.injector.withScope(seeding: { seed in
                        seed.provide(depth + 1, named: "depth")
                    }) { scope in
                        try await scope.get(HFJob.self)
                    }
                    return HFJob(depth: depth, inner: inner)
                }.in(.scoped)
            }
        )
        slot.injector = injector
        let seedDepth: (inout ScopeSeed) throws(ProvisionError) -> Void = { $0.provide(0, named: "depth") }
        let job = try await injector.withScope(seeding: seedDepth) { scope in
            try await scope.get(HFJob.self)
        }
        #expect(job.depth == 0 && job.inner?.depth == 1 && job.inner?.inner?.depth == 2)
    }

    @Test("control: the same nested scopes with a synchronous factory")
    func nestedScopeSync() throws {
        let slot = HuntInjectorSlot()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Int.self, named: "depth").toSeed()
                binder.bind(HFJob.self).to { resolver in
                    let depth = try resolver.get(Int.self, named: "depth")
                    guard depth < 2 else { return HFJob(depth: depth, inner: nil) }
                    let scope = try slot.injector.makeScope { seed in seed.provide(depth + 1, named: "depth") }
                    defer { try? scope.syncClose() }
                    return HFJob(depth: depth, inner: try scope.syncGet(HFJob.self))
                }.in(.scoped)
            }
        )
        slot.injector = injector
        let scope = try injector.makeScope { $0.provide(0, named: "depth") }
        let job = try scope.syncGet(HFJob.self)
        #expect(job.depth == 0 && job.inner?.depth == 1 && job.inner?.inner?.depth == 2)
        try scope.syncClose()
    }
}
