import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Provision

// MARK: - Fixtures

private final class H14Part: Sendable {
    let label: String
    init(label: String) { self.label = label }
}

/// A holder whose one property is bound (in these tests) to an async factory.
private final class H14Holder: PropertyInjectable, @unchecked Sendable {
    let hooks = Counter()
    var part: H14Part?
    init() {}
    static var injectedProperties: [InjectedProperty] { [.inject(\H14Holder.part)] }
    func didInjectDependencies() { hooks.increment() }
}

/// Cycle: A's property is B; B is built by an async factory that asks for A.
private final class H14CycA: PropertyInjectable, @unchecked Sendable {
    var b: H14CycB?
    init() {}
    static var injectedProperties: [InjectedProperty] { [.inject(\H14CycA.b)] }
}

private final class H14CycB: Sendable {
    init() {}
}

/// A property of a multibinding's collection type.
private protocol H14Plugin: Sendable {
    var name: String { get }
}

private struct H14NamedPlugin: H14Plugin {
    let name: String
}

private final class H14PluginHost: PropertyInjectable, @unchecked Sendable {
    let hooks = Counter()
    var plugins: [any H14Plugin] = []
    init() {}
    static var injectedProperties: [InjectedProperty] { [.inject(\H14PluginHost.plugins)] }
    func didInjectDependencies() { hooks.increment() }
}

/// A scoped, disposable part and its scoped holder.
private final class H14ScopedPart: Disposable {
    let disposals: Counter
    init(disposals: Counter) { self.disposals = disposals }
    func dispose() throws { disposals.increment() }
}

private final class H14ScopedHolder: PropertyInjectable, Disposable, @unchecked Sendable {
    let disposals: Counter
    var part: H14ScopedPart?
    init(disposals: Counter) { self.disposals = disposals }
    static var injectedProperties: [InjectedProperty] { [.inject(\H14ScopedHolder.part)] }
    func dispose() throws { disposals.increment() }
}

/// Runs `body` in a task and waits for it at most `seconds`; nil when it didn't end (a hang).
private func h14Within<T: Sendable>(
    seconds: Double = 10, _ body: @escaping @Sendable () async -> T
) async -> T? {
    let done = DispatchSemaphore(value: 0)
    let outcome = Locked<T?>(nil)
    Task {
        let value = await body()
        outcome.withLock { $0 = value }
        done.signal()
    }
    guard await Hunt5.wait(for: done, seconds: seconds) else { return nil }
    return outcome.withLock { $0 }
}

private struct H14Failure: Error {}

// MARK: - Tests

@Suite("Hunt14: injected properties on the async path, edge cases", .timeLimit(.minutes(1)))
struct Hunt14AsyncPropertyEdgeTests {
    // A -(property)-> B -(async factory asks for A)-> A: a cycle, reported, never a hang; for a
    // transient A and a singleton A (whose build holds its gate while the property's factory runs).
    @Test("a property cycle through an async factory: cycle, not a hang", arguments: [false, true])
    func cycleThroughAsyncFactory(singleton: Bool) async throws {
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    let a = binder.bind(H14CycA.self).to(H14CycA.init)
                    if singleton { a.in(.singleton) }
                    binder.bind(H14CycB.self).to { (resolver: Resolver) async throws -> H14CycB in
                        _ = try await resolver.get(H14CycA.self)
                        return H14CycB()
                    }
                }
            ], configuration: Injector.Configuration(validatesOnCreation: false))
        let outcome = await h14Within {
            await Hunt5.error { () async throws(ProvisionError) in
                try await injector.get(H14CycA.self)
            }
        }
        let error = try #require(outcome, "the async request hung")
        #expect(error?.code == .cycle, "\(String(describing: error))")
    }

    // A singleton whose async-only property's factory fails the first time: nothing is published, the
    // retry builds and injects it, and the hook runs once in total.
    @Test("a singleton whose async property factory fails once: retry works, hook once")
    func singletonRetry() async throws {
        let calls = Counter()
        let built = Locked<[H14Holder]>([])
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H14Part.self).to { (_: Resolver) async throws -> H14Part in
                    calls.increment()
                    if calls.value == 1 { throw H14Failure() }
                    return H14Part(label: "ok")
                }
                binder.bind(H14Holder.self).to {
                    let holder = H14Holder()
                    built.withLock { $0.append(holder) }
                    return holder
                }.in(.singleton)
            })
        let first = await Hunt5.error { () async throws(ProvisionError) in try await injector.get(H14Holder.self) }
        #expect(first != nil)
        let second = try await injector.get(H14Holder.self)
        let third = try await injector.get(H14Holder.self)
        #expect(second === third)
        #expect(second.part?.label == "ok")
        let hooks = built.withLock { $0.map(\.hooks.value) }
        #expect(hooks.reduce(0, +) == 1, "\(hooks)")
        #expect(second.hooks.value == 1)
        // A synchronous request now finds the published singleton.
        let sync = Hunt5.result { () throws(ProvisionError) in try injector.get(H14Holder.self) }
        #expect((try? sync.get()) === second, "\(sync)")
    }

    // Eight tasks ask at once for a transient whose properties are async-only: eight instances, each
    // injected with its own part, each hook once.
    @Test("concurrent async requests for a transient with an async-only property")
    func concurrentTransients() async throws {
        let parts = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H14Part.self).to { (_: Resolver) async throws -> H14Part in
                    parts.increment()
                    await Task.yield()
                    return H14Part(label: "p")
                }
                binder.bind(H14Holder.self).to(H14Holder.init)
            })
        let holders = try await withThrowingTaskGroup(of: H14Holder.self) { group in
            for _ in 0..<8 { group.addTask { try await injector.get(H14Holder.self) } }
            var all: [H14Holder] = []
            for try await holder in group { all.append(holder) }
            return all
        }
        #expect(holders.count == 8)
        #expect(Set(holders.map(ObjectIdentifier.init)).count == 8)
        #expect(Set(holders.compactMap { $0.part.map(ObjectIdentifier.init) }).count == 8)
        #expect(holders.allSatisfy { $0.hooks.value == 1 })
        #expect(parts.value == 8)
    }

    // A property of type [any Plugin], a multibinding with an async element and a sync one: the async
    // request sets both, in declaration order; the sync request says requiresAsync.
    @Test("a multibinding property with an async element")
    func multibindingProperty() async throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.multibind((any H14Plugin).self).to { (_: Resolver) async throws -> any H14Plugin in
                    H14NamedPlugin(name: "async")
                }
                binder.multibind((any H14Plugin).self).toInstance(H14NamedPlugin(name: "sync"))
                binder.bind(H14PluginHost.self).to(H14PluginHost.init)
            })
        let host = try await injector.get(H14PluginHost.self)
        #expect(host.plugins.map(\.name) == ["async", "sync"])
        #expect(host.hooks.value == 1)
        let sync = Hunt5.result { () throws(ProvisionError) in try injector.get(H14PluginHost.self) }
        #expect(sync.hunt5Error?.code == .requiresAsync, "\(sync)")
    }

    // A scoped holder whose scoped property is built by an async factory; the scope closes while the
    // factory runs. The request gets the holder or outsideScope; every instance that was made is
    // disposed exactly once (none after the close, none twice).
    @Test("a scope closing during a scoped holder's async property factory")
    func scopeClosesDuringPropertyFactory() async throws {
        let hold = Hunt5.Hold()
        let partDisposals = Counter()
        let holderDisposals = Counter()
        let partsBuilt = Counter()
        let holdersBuilt = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H14ScopedPart.self).to { (_: Resolver) async throws -> H14ScopedPart in
                    await hold.runAsync()
                    partsBuilt.increment()
                    return H14ScopedPart(disposals: partDisposals)
                }.in(.scoped)
                binder.bind(H14ScopedHolder.self).to {
                    holdersBuilt.increment()
                    return H14ScopedHolder(disposals: holderDisposals)
                }.in(.scoped)
            })
        let scope = injector.makeScope()
        let request = Task { () async -> Result<H14ScopedHolder, ProvisionError> in
            do throws(ProvisionError) { return .success(try await scope.get(H14ScopedHolder.self)) } catch {
                return .failure(error)
            }
        }
        #expect(await Hunt5.wait(for: hold.entered, seconds: 10))
        let closing = Task { () async -> ProvisionError? in
            do throws(ProvisionError) { try await scope.close() } catch { return error }
            return nil
        }
        hold.release.signal()
        let result = await request.value
        let closeError = await closing.value
        #expect(closeError == nil, "\(String(describing: closeError))")
        switch result {
        case .success(let holder):
            #expect(holder.part != nil)
        case .failure(let error):
            #expect(error.code == .outsideScope, "\(error)")
        }
        // Whatever was built is disposed once, when the scope closes or the request finds it closed.
        #expect(await Hunt5.until { partDisposals.value == partsBuilt.value })
        #expect(await Hunt5.until { holderDisposals.value == holdersBuilt.value })
        #expect(partDisposals.value == partsBuilt.value, "parts \(partsBuilt.value) disposed \(partDisposals.value)")
        #expect(
            holderDisposals.value == holdersBuilt.value,
            "holders \(holdersBuilt.value) disposed \(holderDisposals.value)")
        let again = await Hunt5.error { () async throws(ProvisionError) in try await scope.get(H14ScopedHolder.self) }
        #expect(again?.code == .outsideScope)
    }
}
