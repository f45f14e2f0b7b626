import Dispatch
import Synchronization
import Testing

@testable import Provision

// Hunt 19 (A): what the latest fixes broke or missed. This file probes the settling of what a synchronous
// closure declares (`to(dependencies:_:)`) before it runs in an async request (ScopesAndLifetimes.md,
// "Async factories": "If the closure declares its dependencies, an async request first builds, awaiting
// them, the async singletons those dependencies reach ... and then runs the closure, whose requests find
// them built").

// MARK: - Helpers shared by the Hunt19A files

/// Runs the async `body` in a detached task and waits at most `seconds` for it (the wait blocks a
/// Dispatch thread, not one of the cooperative pool's): a hang is a failed expectation. Returns `body`'s
/// result, or `nil` when it didn't finish in time.
func hunt19AWithin<T: Sendable>(
    seconds: Int = 10,
    sourceLocation: Testing.SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () async -> T
) async -> T? {
    let result = Locked<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        let value = await body()
        result.withLock { $0 = value }
        done.signal()
    }
    let finished = await hunt19AWait(done, seconds: seconds)
    #expect(finished, "the work hung", sourceLocation: sourceLocation)
    return finished ? result.withLock { $0 } : nil
}

/// Waits for `semaphore` on a Dispatch thread, at most `seconds`; whether it was signalled.
func hunt19AWait(_ semaphore: DispatchSemaphore, seconds: Int = 10) async -> Bool {
    await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        DispatchQueue.global().async {
            continuation.resume(returning: semaphore.wait(timeout: .now() + .seconds(seconds)) == .success)
        }
    }
}

/// The outcome of an async request: its error, or `nil` when it returned.
func hunt19AError<T>(_ body: () async throws(ProvisionError) -> T) async -> ProvisionError? {
    do throws(ProvisionError) {
        _ = try await body()
        return nil
    } catch {
        return error
    }
}

/// A synchronous request (in async code, `injector.get` is the async overload).
func hunt19ASyncGet<T>(_ injector: Injector, _ type: T.Type, named name: String? = nil) throws(ProvisionError) -> T {
    try injector.get(type, named: name)
}

/// A synchronous request through a scope.
func hunt19ASyncGet<T>(_ scope: ServiceScope, _ type: T.Type) throws(ProvisionError) -> T {
    try scope.get(type)
}

// MARK: - Fixtures of this file

/// An async singleton (a pool opened asynchronously).
final class Hunt19APool: Sendable {}

/// An async scoped instance (a request's context, loaded asynchronously).
final class Hunt19AContext: Sendable {}

/// A synchronous closure's product, holding what it resolved.
final class Hunt19AHandler: Sendable {
    let pool: Hunt19APool?
    let context: Hunt19AContext?
    init(pool: Hunt19APool? = nil, context: Hunt19AContext? = nil) {
        self.pool = pool
        self.context = context
    }
}

/// A transient constructor binding between a closure and the async scoped context.
final class Hunt19AReader: Sendable {
    let context: Hunt19AContext
    init(context: Hunt19AContext) { self.context = context }
}

/// A link of a chain of declared closures (one named key per level).
final class Hunt19ALink: Sendable {
    let pool: Hunt19APool
    init(pool: Hunt19APool) { self.pool = pool }
}

protocol Hunt19APlugin: Sendable {
    var name: String { get }
}

final class Hunt19ANamedPlugin: Hunt19APlugin {
    let name: String
    init(_ name: String) { self.name = name }
}

final class Hunt19AWidget: Sendable {
    let pool: Hunt19APool
    let size: Int
    init(pool: Hunt19APool, size: Int) {
        self.pool = pool
        self.size = size
    }
}

/// Self-declaring: a closure that declares the async pool.
final class Hunt19ASelfDeclared: Injectable, Sendable {
    let pool: Hunt19APool
    init(pool: Hunt19APool) { self.pool = pool }
    static var injection: Injection<Hunt19ASelfDeclared> {
        Injection(dependencies: [BindingKey(Hunt19APool.self)]) { resolver in
            Hunt19ASelfDeclared(pool: try resolver.get())
        }
    }
}

/// Binds the async pool singleton, counting its builds.
func hunt19ABindPool(_ binder: Binder, builds: Counter, named name: String? = nil) {
    binder.bind(Hunt19APool.self, named: name).to { (_: Resolver) async -> Hunt19APool in
        builds.increment()
        await Task.yield()
        return Hunt19APool()
    }.in(.singleton)
}

/// Binds the async scoped context, counting its builds.
func hunt19ABindContext(_ binder: Binder, builds: Counter) {
    binder.bind(Hunt19AContext.self).to { (_: Resolver) async -> Hunt19AContext in
        builds.increment()
        await Task.yield()
        return Hunt19AContext()
    }.in(.scoped)
}

// MARK: - Tests

@Suite("Hunt19A: declared closures settled by async requests", .timeLimit(.minutes(1)))
struct Hunt19ASettlingTests {
    /// A transient closure declaring an async scoped binding, requested in two scopes one after the
    /// other. The first scope's settling builds the context; the second scope has its own context to
    /// build, so it must be settled again (a scoped instance is per scope, "Scopes": "scoped bindings
    /// get this scope's instance").
    /// Found by hunt 19, fixed.
    @Test("a declared async scoped key is settled in every scope, not only the first")
    func declaredScopedKeyInEveryScope() async throws {
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                hunt19ABindContext(binder, builds: builds)
                binder.bind(Hunt19AHandler.self).to(dependencies: [BindingKey(Hunt19AContext.self)]) { resolver in
                    Hunt19AHandler(context: try resolver.get())
                }
            })
        let first = injector.makeScope()
        let second = injector.makeScope()
        let one = try await first.get(Hunt19AHandler.self)
        let twoError = await hunt19AError { () async throws(ProvisionError) in
            try await second.get(Hunt19AHandler.self)
        }
        #expect(twoError == nil, "the second scope's request failed: \(String(describing: twoError))")
        let two = try? await second.get(Hunt19AHandler.self)
        #expect(one.context !== two?.context)
        #expect(builds.value == 2)
        try await first.close()
        try await second.close()
    }

    /// The same through a transient constructor between the closure and the scoped context: the
    /// settling of what lies below a declared transient must also be repeated per scope.
    /// Found by hunt 19, fixed.
    @Test("a declared transient above an async scoped key is settled in every scope")
    func declaredTransientAboveScopedInEveryScope() async throws {
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                hunt19ABindContext(binder, builds: builds)
                binder.bind(Hunt19AReader.self).to(Hunt19AReader.init(context:))
                binder.bind(Hunt19AHandler.self).to(dependencies: [BindingKey(Hunt19AReader.self)]) { resolver in
                    Hunt19AHandler(context: try resolver.get(Hunt19AReader.self).context)
                }
            })
        var failures: [ProvisionError.Code] = []
        for _ in 0..<3 {
            let scope = injector.makeScope()
            if let error = await hunt19AError({ () async throws(ProvisionError) in
                try await scope.get(Hunt19AHandler.self)
            }) {
                failures.append(error.code)
            }
            try await scope.close()
        }
        #expect(failures.isEmpty, "requests in later scopes failed: \(failures)")
        #expect(builds.value == 3)
    }

    /// The most common shape: a closure declaring a transient constructor binding (`Repository.init(pool:)`)
    /// whose dependency is an async singleton. The declared key reaches the pool.
    /// Found by hunt 19, fixed.
    @Test("a declared transient constructor above an async singleton: the pool is settled, built once")
    func declaredConstructorAboveAsyncSingleton() async throws {
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                hunt19ABindPool(binder, builds: builds)
                binder.bind(Hunt19ALink.self).to(Hunt19ALink.init(pool:))
                binder.bind(Hunt19AHandler.self).to(dependencies: [BindingKey(Hunt19ALink.self)]) { resolver in
                    Hunt19AHandler(pool: try resolver.get(Hunt19ALink.self).pool)
                }
            })
        let error = await hunt19AError { () async throws(ProvisionError) in try await injector.get(Hunt19AHandler.self)
        }
        #expect(error == nil, "\(String(describing: error))")
        #expect(builds.value == 1)
    }

    /// Many tasks, each in its own scope, onto the same declared closure: one context per scope.
    /// Found by hunt 19, fixed.
    @Test("after a first request, 20 tasks in 20 scopes onto a declared async scoped key: 20 contexts, no failure")
    func manyScopesAtOnce() async throws {
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                hunt19ABindContext(binder, builds: builds)
                binder.bind(Hunt19AHandler.self).to(dependencies: [BindingKey(Hunt19AContext.self)]) { resolver in
                    Hunt19AHandler(context: try resolver.get())
                }
            })
        // A server's first request, then 20 at once (each in a scope of its own).
        let warmUp = injector.makeScope()
        _ = try await warmUp.get(Hunt19AHandler.self)
        try await warmUp.close()
        let failures = await withTaskGroup(of: ProvisionError.Code?.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    let scope = injector.makeScope()
                    let error = await hunt19AError { () async throws(ProvisionError) in
                        try await scope.get(Hunt19AHandler.self)
                    }
                    try? await scope.close()
                    return error?.code
                }
            }
            var codes: [ProvisionError.Code] = []
            for await code in group { if let code { codes.append(code) } }
            return codes
        }
        #expect(failures.isEmpty, "\(failures.count) of 20 requests failed: \(failures.first.map { "\($0)" } ?? "")")
        #expect(builds.value == 21)
    }

    /// Outside any scope, a closure that tolerates the missing request context (`try?`) works
    /// synchronously; the async request must not fail where the synchronous one succeeds because
    /// settling tried to build the scoped key outside a scope (the commit: a key that can't be settled
    /// "settles nothing and the closure reports it as before").
    /// Found by hunt 19, fixed.
    @Test("outside a scope, a tolerated declared scoped key: the async request succeeds like the synchronous one")
    func declaredScopedKeyOutsideScopeTolerated() async throws {
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                hunt19ABindContext(binder, builds: builds)
                binder.bind(Hunt19AHandler.self).to(dependencies: [BindingKey(Hunt19AContext.self)]) { resolver in
                    Hunt19AHandler(context: try? resolver.get(Hunt19AContext.self))
                }
            })
        let synchronous = try hunt19ASyncGet(injector, Hunt19AHandler.self)
        #expect(synchronous.context == nil)
        let asyncError = await hunt19AError { () async throws(ProvisionError) in
            try await injector.get(Hunt19AHandler.self)
        }
        #expect(asyncError == nil, "the async request failed: \(String(describing: asyncError))")
        #expect(builds.value == 0)
    }

    @Test("a declared named async singleton is settled: built once, the closure gets it")
    func declaredNamedKey() async throws {
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                hunt19ABindPool(binder, builds: builds, named: "primary")
                binder.bind(Hunt19AHandler.self).to(dependencies: [BindingKey(Hunt19APool.self, named: "primary")]) {
                    resolver in Hunt19AHandler(pool: try resolver.get(Hunt19APool.self, named: "primary"))
                }
            })
        let handler = try await injector.get(Hunt19AHandler.self)
        #expect(handler.pool === (try await injector.get(Hunt19APool.self, named: "primary")))
        #expect(builds.value == 1)
    }

    /// `Dog?` declared: the optional reaches `Dog`, an async singleton (Optional: "When `Dog` is bound
    /// ... its plan runs `Dog`'s plan").
    /// Found by hunt 19, fixed.
    @Test("a declared optional of an async singleton is settled: the closure gets the pool, not an error")
    func declaredOptionalKey() async throws {
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                hunt19ABindPool(binder, builds: builds)
                binder.bind(Hunt19AHandler.self).to(dependencies: [BindingKey(Hunt19APool?.self)]) { resolver in
                    Hunt19AHandler(pool: try resolver.get(Hunt19APool?.self))
                }
            })
        let error = await hunt19AError { () async throws(ProvisionError) in try await injector.get(Hunt19AHandler.self)
        }
        #expect(error == nil, "\(String(describing: error))")
        let handler = try? await injector.get(Hunt19AHandler.self)
        #expect(handler?.pool != nil)
        #expect(builds.value == 1)
    }

    @Test("an optional of an unbound key, declared: nil, no error, in both APIs")
    func declaredOptionalOfUnbound() async throws {
        final class Unbound: Sendable {}
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt19AHandler.self).to(dependencies: [BindingKey(Unbound?.self)]) { resolver in
                    _ = try resolver.get(Unbound?.self)
                    return Hunt19AHandler()
                }
            })
        #expect(throws: Never.self) { _ = try hunt19ASyncGet(injector, Hunt19AHandler.self) }
        let error = await hunt19AError { () async throws(ProvisionError) in try await injector.get(Hunt19AHandler.self)
        }
        #expect(error == nil)
    }

    /// Found by hunt 19, fixed.
    @Test("a declared multibinding list with an async singleton element is settled")
    func declaredList() async throws {
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.multibind((any Hunt19APlugin).self).to { (_: Resolver) async -> Hunt19ANamedPlugin in
                    builds.increment()
                    await Task.yield()
                    return Hunt19ANamedPlugin("async")
                }.in(.singleton)
                binder.multibind((any Hunt19APlugin).self).to { Hunt19ANamedPlugin("sync") }
                binder.bind(String.self).to(dependencies: [BindingKey([any Hunt19APlugin].self)]) { resolver in
                    try resolver.get([any Hunt19APlugin].self).map(\.name).joined(separator: ",")
                }
            })
        let error = await hunt19AError { () async throws(ProvisionError) in try await injector.get(String.self) }
        #expect(error == nil, "\(String(describing: error))")
        #expect((try? await injector.get(String.self)) == "async,sync")
        #expect(builds.value == 1)
    }

    /// A `Lazy` defers its build to its first read: declaring a `Lazy` must not build its target.
    @Test("a declared Lazy of an async singleton is not built by settling")
    func declaredLazyNotBuilt() async throws {
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                hunt19ABindPool(binder, builds: builds)
                binder.bind(Hunt19AHandler.self).to(dependencies: [BindingKey(Lazy<Hunt19APool>.self)]) { resolver in
                    _ = try resolver.get(Lazy<Hunt19APool>.self)
                    return Hunt19AHandler()
                }
            })
        _ = try await injector.get(Hunt19AHandler.self)
        #expect(builds.value == 0)
    }

    /// A binding with arguments and defaults, declaring the async pool, declared by a closure: the chain
    /// of declarations reaches the pool.
    /// Found by hunt 19, fixed.
    @Test("a declared argument binding with defaults that declares an async singleton: settled through it")
    func declaredArgumentBinding() async throws {
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                hunt19ABindPool(binder, builds: builds)
                binder.bind(Hunt19AWidget.self).withArguments(Int.self)
                    .to(dependencies: [BindingKey(Hunt19APool.self)]) { resolver, size in
                        Hunt19AWidget(pool: try resolver.get(), size: size)
                    }
                    .defaults(7)
                binder.bind(Hunt19AHandler.self).to(dependencies: [BindingKey(Hunt19AWidget.self)]) { resolver in
                    Hunt19AHandler(pool: try resolver.get(Hunt19AWidget.self).pool)
                }
            })
        let error = await hunt19AError { () async throws(ProvisionError) in try await injector.get(Hunt19AHandler.self)
        }
        #expect(error == nil, "\(String(describing: error))")
        #expect(builds.value == 1)
    }

    @Test("an overriding injector's async fake below a declared closure is settled, the original untouched")
    func overridingAsyncFake() async throws {
        let originals = Counter()
        let fakes = Counter()
        let base = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt19APool.self).to { () -> Hunt19APool in
                    originals.increment()
                    return Hunt19APool()
                }.in(.singleton)
                binder.bind(Hunt19AHandler.self).to(dependencies: [BindingKey(Hunt19APool.self)]) { resolver in
                    Hunt19AHandler(pool: try resolver.get())
                }
            })
        let test = try base.overriding { binder in
            binder.override(Hunt19APool.self).to { (_: Resolver) async -> Hunt19APool in
                fakes.increment()
                await Task.yield()
                return Hunt19APool()
            }.in(.singleton)
        }
        let handler = try await test.get(Hunt19AHandler.self)
        #expect(handler.pool === (try await test.get(Hunt19APool.self)))
        #expect(fakes.value == 1)
        #expect(originals.value == 0)
    }

    @Test(
        "declared cycles of length 1 to 4, requested asynchronously: a cycle error, no hang", arguments: [1, 2, 3, 4])
    func declaredCycles(length: Int) async throws {
        let builds = Counter()
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    hunt19ABindPool(binder, builds: builds)
                    for index in 0..<length {
                        let next = "\((index + 1) % length)"
                        binder.bind(Hunt19ALink.self, named: "\(index)").to(
                            dependencies: [BindingKey(Hunt19APool.self), BindingKey(Hunt19ALink.self, named: next)]
                        ) { resolver in
                            _ = try resolver.get(Hunt19ALink.self, named: next)
                            return Hunt19ALink(pool: try resolver.get())
                        }
                    }
                }
            ], configuration: .unvalidated)
        let error = await hunt19AWithin { () async -> ProvisionError? in
            await hunt19AError { () async throws(ProvisionError) in try await injector.get(Hunt19ALink.self, named: "0")
            }
        }
        #expect(error??.code == .cycle)
        #expect(error??.path.count == length + 1)
    }

    @Test("a chain of 1,000 declared closures above an async singleton: built once, no error")
    func deepDeclaredChain() async throws {
        let depth = 1000
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                hunt19ABindPool(binder, builds: builds)
                for index in 0..<depth {
                    let next = BindingKey(Hunt19ALink.self, named: "\(index + 1)")
                    let below = index + 1 == depth ? BindingKey(Hunt19APool.self) : next
                    binder.bind(Hunt19ALink.self, named: "\(index)").to(dependencies: [below]) { resolver in
                        if index + 1 == depth { return Hunt19ALink(pool: try resolver.get()) }
                        return Hunt19ALink(pool: try resolver.get(Hunt19ALink.self, named: "\(index + 1)").pool)
                    }
                }
            })
        let error = await hunt19AWithin(seconds: 30) { () async -> ProvisionError? in
            await hunt19AError { () async throws(ProvisionError) in try await injector.get(Hunt19ALink.self, named: "0")
            }
        }
        #expect(error != nil, "the request hung")
        if let outcome = error { #expect(outcome == nil, "\(String(describing: outcome))") }
        #expect(builds.value == 1)
    }

    @Test("an Injectable type declaring an async singleton, resolved just in time asynchronously")
    func injectableDeclaring() async throws {
        let builds = Counter()
        let injector = try Injector(ClosureModule { binder in hunt19ABindPool(binder, builds: builds) })
        let value = try await injector.get(Hunt19ASelfDeclared.self)
        #expect(value.pool === (try await injector.get(Hunt19APool.self)))
        #expect(builds.value == 1)
    }

    /// A singleton closure declared before the async singleton it declares: start() builds both, the
    /// pool once.
    @Test("start() with a singleton closure declaring an async singleton bound after it")
    func startWithDeclaredSingletonClosure() async throws {
        let builds = Counter()
        let closures = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt19AHandler.self).to(dependencies: [BindingKey(Hunt19APool.self)]) { resolver in
                    closures.increment()
                    return Hunt19AHandler(pool: try resolver.get())
                }.in(.singleton)
                hunt19ABindPool(binder, builds: builds)
            })
        try await injector.start()
        #expect(builds.value == 1)
        #expect(closures.value == 1)
        #expect(
            try hunt19ASyncGet(injector, Hunt19AHandler.self).pool === (try hunt19ASyncGet(injector, Hunt19APool.self)))
        try await injector.shutdown()
    }

    /// The requesting task is cancelled while the declared async singleton is being built: no hang, one
    /// build, and a later request gets the singleton.
    @Test("cancelling the requesting task during settling: one build, a later request succeeds")
    func cancelledDuringSettling() async throws {
        let builds = Counter()
        let entered = DispatchSemaphore(value: 0)
        let release = AsyncLatch()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt19APool.self).to { (_: Resolver) async -> Hunt19APool in
                    builds.increment()
                    entered.signal()
                    await release.wait()
                    return Hunt19APool()
                }.in(.singleton)
                binder.bind(Hunt19AHandler.self).to(dependencies: [BindingKey(Hunt19APool.self)]) { resolver in
                    Hunt19AHandler(pool: try resolver.get())
                }
            })
        let requester = Task { try await injector.get(Hunt19AHandler.self) }
        #expect(await hunt19AWait(entered))
        requester.cancel()
        release.open()
        let finished = await hunt19AWithin { () async -> Bool in
            _ = try? await requester.value
            return true
        }
        #expect(finished == true)
        let later = await hunt19AWithin { () async -> Hunt19AHandler? in try? await injector.get(Hunt19AHandler.self) }
        #expect(later??.pool != nil)
        #expect(builds.value == 1)
    }
}
