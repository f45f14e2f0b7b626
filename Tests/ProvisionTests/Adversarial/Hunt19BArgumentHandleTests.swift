import Dispatch
import Foundation
import Testing

@testable import Provision

// Hunt 19 (B): bindings with arguments, property injection, handles, async factories, named keys and
// delegations, combined.

// MARK: - Fixtures

/// Built from a resolve-time name.
private final class Hunt19BAGreeter: Sendable {
    let text: String
    init(text: String) { self.text = text }
}

/// Property-injected with a lazy and a provider of the argument binding.
private final class Hunt19BAPage: PropertyInjectable, @unchecked Sendable {
    var greeter: Lazy<Hunt19BAGreeter>?
    var greeters: Provider<Hunt19BAGreeter>?
    var injections = 0
    init() {}
    static var injectedProperties: [InjectedProperty] {
        [.inject(\Hunt19BAPage.greeter), .inject(\Hunt19BAPage.greeters)]
    }

    func didInjectDependencies() { injections += 1 }
}

/// Property-injected with a provider only (for an argument binding with no defaults).
private final class Hunt19BAForm: PropertyInjectable, @unchecked Sendable {
    var greeters: Provider<Hunt19BAGreeter>?
    init() {}
    static var injectedProperties: [InjectedProperty] { [.inject(\Hunt19BAForm.greeters)] }
}

/// Depends on the greeter as a plain dependency (defaults).
private final class Hunt19BAWelcome: Sendable {
    let greeter: Hunt19BAGreeter
    init(greeter: Hunt19BAGreeter) { self.greeter = greeter }
}

private protocol Hunt19BAStore: AnyObject, Sendable {
    var serial: Int { get }
}

/// Opened asynchronously; disposed asynchronously.
private final class Hunt19BAPool: Hunt19BAStore, AsyncDisposable {
    let serial: Int
    let log: EventLog
    init(serial: Int, log: EventLog) {
        self.serial = serial
        self.log = log
    }

    func dispose() async throws { log.append("dispose pool \(serial)") }
}

/// Property-injected with an async singleton.
private final class Hunt19BARepository: PropertyInjectable, @unchecked Sendable {
    var pool: Hunt19BAPool?
    var injections = 0
    init() {}
    static var injectedProperties: [InjectedProperty] { [.inject(\Hunt19BARepository.pool, named: "primary")] }
    func didInjectDependencies() { injections += 1 }
}

/// A scoped object property-injected with a lazy of a scoped context.
private final class Hunt19BAContext: Disposable {
    let serial: Int
    let log: EventLog
    init(serial: Int, log: EventLog) {
        self.serial = serial
        self.log = log
    }

    func dispose() { log.append("dispose context \(serial)") }
}

private final class Hunt19BAHandler: PropertyInjectable, @unchecked Sendable {
    var context: Lazy<Hunt19BAContext>?
    init() {}
    static var injectedProperties: [InjectedProperty] { [.inject(\Hunt19BAHandler.context)] }
}

private protocol Hunt19BAClock: Sendable {
    var now: Int { get }
}

private struct Hunt19BAFixedClock: Hunt19BAClock {
    let now: Int
}

/// A self-declaring type with no dependencies.
private struct Hunt19BADeclared: Injectable, Sendable {
    static let injection = Injection(Hunt19BADeclared.init)
}

/// Managed, disposable singletons: a pool and a server that depends on it.
private final class Hunt19BAManagedPool: ManagedService, Disposable {
    let log: EventLog
    init(log: EventLog) { self.log = log }
    func start() async throws { log.append("start pool") }
    func stop() async throws { log.append("stop pool") }
    func dispose() { log.append("dispose pool") }
}

private final class Hunt19BAServer: Disposable {
    let pool: Hunt19BAManagedPool
    init(pool: Hunt19BAManagedPool) { self.pool = pool }
    func dispose() { pool.log.append("dispose server") }
}

/// Closes asynchronously; built by an async scoped factory.
private final class Hunt19BAUnitOfWork: AsyncDisposable {
    let serial: Int
    let log: EventLog
    init(serial: Int, log: EventLog) {
        self.serial = serial
        self.log = log
    }

    func dispose() async throws { log.append("dispose unit \(serial)") }
}

private func hunt19BAGreeterModule(builds: Counter, defaults: Bool) -> ClosureModule {
    ClosureModule { binder in
        let builder = binder.bind(Hunt19BAGreeter.self).withArguments(String.self).to { _, name in
            builds.increment()
            return Hunt19BAGreeter(text: "hello \(name)")
        }
        if defaults { builder.defaults("world") }
    }
}

/// A singleton page property-injected with a lazy of the argument binding.
private final class Hunt19BALazyPage: PropertyInjectable, @unchecked Sendable {
    var greeter: Lazy<Hunt19BAGreeter>?
    init() {}
    static var injectedProperties: [InjectedProperty] { [.inject(\Hunt19BALazyPage.greeter)] }
}

private protocol Hunt19BAPlugin: AnyObject, Sendable {}

/// A disposable singleton handed out as a multibinding element through a delegation.
private final class Hunt19BASharedPlugin: Hunt19BAPlugin, Disposable {
    let log: EventLog
    init(log: EventLog) { self.log = log }
    func dispose() { log.append("dispose shared plugin") }
}

// MARK: - Tests

@Suite("Hunt19B: arguments, properties, handles, async factories, names and delegations", .timeLimit(.minutes(1)))
struct Hunt19BArgumentHandleTests {
    /// The brief's example: property injection of a Lazy of an argument binding. The lazy resolves with
    /// the defaults, once, on its first read; the provider property builds from given arguments.
    @Test("property-injected Lazy and Provider of a binding with arguments and defaults")
    func propertyLazyOfArgumentBinding() throws {
        let builds = Counter()
        let injector = try Injector(
            hunt19BAGreeterModule(builds: builds, defaults: true),
            ClosureModule { binder in binder.bind(Hunt19BAPage.self).to(Hunt19BAPage.init) })
        let page = try injector.get(Hunt19BAPage.self)
        #expect(page.injections == 1)
        #expect(builds.value == 0, "a lazy resolves nothing until read")
        let lazy = try #require(page.greeter)
        #expect(try lazy.value.text == "hello world")
        #expect(try lazy.value === lazy.value)
        #expect(builds.value == 1)
        let provider = try #require(page.greeters)
        #expect(try provider.get(arguments: "ann").text == "hello ann")
        #expect(try provider.get(arguments: "ann") !== provider.get(arguments: "ann"))
        #expect(builds.value == 4)
        #expect(try provider.lazy(arguments: "bob").value.text == "hello bob")
    }

    /// Without defaults, a Provider of the argument binding is still injectable (it is what supplies the
    /// arguments), and a plain request without arguments is an argument mismatch.
    @Test("property-injected Provider of an argument binding without defaults: works with arguments only")
    func propertyProviderWithoutDefaults() throws {
        let builds = Counter()
        let injector = try Injector(
            hunt19BAGreeterModule(builds: builds, defaults: false),
            ClosureModule { binder in binder.bind(Hunt19BAForm.self).to(Hunt19BAForm.init) })
        let form = try injector.get(Hunt19BAForm.self)
        let provider = try #require(form.greeters)
        #expect(try provider.get(arguments: "cy").text == "hello cy")
        do {
            _ = try provider.get()
            Issue.record("a provider built without arguments or defaults")
        } catch {
            #expect(error.code == .argumentMismatch, "\(error)")
        }
        #expect(builds.value == 1)
    }

    /// A type bound with two argument lists, the first with defaults: a constructor dependency takes the
    /// defaults, a request with (String, Int) the second list, and a child's ObjectFactory the same.
    @Test("two argument lists with defaults: dependency, explicit arguments and a child's ObjectFactory")
    func severalArgumentListsThroughChildFactory() throws {
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt19BAGreeter.self).withArguments(String.self).to { _, name in
                    Hunt19BAGreeter(text: "hello \(name)")
                }.defaults("world")
                binder.bind(Hunt19BAGreeter.self).withArguments(String.self, Int.self).to { _, name, times in
                    Hunt19BAGreeter(text: String(repeating: "hi \(name) ", count: times))
                }
                binder.bind(Hunt19BAWelcome.self).to(Hunt19BAWelcome.init(greeter:))
            })
        let child = try parent.makeChild()
        #expect(try child.get(Hunt19BAWelcome.self).greeter.text == "hello world")
        let factory = try child.get(ObjectFactory.self)
        #expect(try factory.get(Hunt19BAGreeter.self, arguments: "ann", 2).text == "hi ann hi ann ")
        #expect(try factory.get(Hunt19BAGreeter.self, arguments: "bob").text == "hello bob")
        #expect(try factory.get(Hunt19BAGreeter.self).text == "hello world")
        do {
            _ = try factory.get(Hunt19BAGreeter.self, arguments: 3)
            Issue.record("an Int argument matched")
        } catch {
            #expect(error.code == .argumentMismatch, "\(error)")
        }
    }

    /// A singleton bound with arguments, built first through a child's ObjectFactory: the parent's
    /// requests, whatever their arguments, get that instance.
    @Test("a singleton with arguments built through a child's ObjectFactory is the parent's, built once")
    func argumentSingletonThroughChild() throws {
        let builds = Counter()
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt19BAGreeter.self).withArguments(String.self).to { _, name in
                    builds.increment()
                    return Hunt19BAGreeter(text: "hello \(name)")
                }.in(.singleton)
            })
        let child = try parent.makeChild()
        let first = try child.get(ObjectFactory.self).get(Hunt19BAGreeter.self, arguments: "a")
        let second = try parent.get(Hunt19BAGreeter.self, arguments: "b")
        #expect(first === second)
        #expect(second.text == "hello a")
        #expect(builds.value == 1)
    }

    /// The brief's example: a delegation to a named async singleton resolved via ObjectFactory. Before
    /// start the synchronous factory can't build it (requiresAsync); start builds it once; then the
    /// factory, the delegation and the named key hand out that instance, disposed once at shutdown.
    @Test("a delegation to a named async singleton through ObjectFactory: before and after start()")
    func delegationToNamedAsyncSingleton() async throws {
        let log = EventLog()
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt19BAPool.self, named: "primary").to { _ async throws in
                    Hunt19BAPool(serial: builds.increment(), log: log)
                }.in(.singleton)
                binder.bind((any Hunt19BAStore).self).to(binding: Hunt19BAPool.self, named: "primary")
            })
        let factory = try injector.syncGet(ObjectFactory.self)
        do {
            _ = try factory.get((any Hunt19BAStore).self)
            Issue.record("the synchronous factory built an async singleton")
        } catch {
            #expect(error.code == .requiresAsync, "\(error)")
        }
        #expect(builds.value == 0)
        try await injector.start()
        #expect(builds.value == 1)
        let viaFactory = try factory.get((any Hunt19BAStore).self)
        let named = try await injector.get(Hunt19BAPool.self, named: "primary")
        let viaDelegation = try await injector.get((any Hunt19BAStore).self)
        #expect(viaFactory === named)
        #expect(viaDelegation === named)
        #expect(builds.value == 1)
        #expect(!injector.hasBinding(for: Hunt19BAPool.self))
        try await injector.shutdown()
        #expect(log.all == ["dispose pool 1"])
    }

    /// An async request for a constructor-bound class whose injected property is a named async
    /// singleton: the property is set, the hook runs once, and the singleton is built once.
    @Test("async request: a property-injected named async singleton is awaited and set once")
    func asyncPropertyInjection() async throws {
        let log = EventLog()
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt19BAPool.self, named: "primary").to { _ async throws in
                    Hunt19BAPool(serial: builds.increment(), log: log)
                }.in(.singleton)
                binder.bind(Hunt19BARepository.self).to(Hunt19BARepository.init)
            })
        let first = try await injector.get(Hunt19BARepository.self)
        let second = try await injector.get(Hunt19BARepository.self)
        #expect(first.injections == 1)
        #expect(first.pool != nil)
        #expect(first.pool === second.pool)
        #expect(builds.value == 1)
        try await injector.shutdown()
        #expect(log.all == ["dispose pool 1"])
    }

    /// Property injection of a Lazy of a scoped binding into a scoped object: the lazy reads its own
    /// scope's context, and each scope disposes its own once.
    @Test("a scoped object with a property-injected Lazy<scoped>: each reads its own scope's instance")
    func propertyLazyOfScoped() throws {
        let log = EventLog()
        let serials = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt19BAContext.self).to { Hunt19BAContext(serial: serials.increment(), log: log) }
                    .in(.scoped)
                binder.bind(Hunt19BAHandler.self).to(Hunt19BAHandler.init).in(.scoped)
            })
        let first = injector.makeScope()
        let second = injector.makeScope()
        let firstHandler = try first.get(Hunt19BAHandler.self)
        let secondHandler = try second.get(Hunt19BAHandler.self)
        let secondContext = try #require(secondHandler.context).value
        let firstContext = try #require(firstHandler.context).value
        #expect(firstContext === (try first.get(Hunt19BAContext.self)))
        #expect(secondContext === (try second.get(Hunt19BAContext.self)))
        #expect(firstContext !== secondContext)
        #expect(serials.value == 2)
        try first.close()
        try second.close()
        #expect(log.all == ["dispose context 2", "dispose context 1"])
    }

    /// An async scoped factory of an AsyncDisposable, used through withScope: built once per scope,
    /// disposed (awaited) once when withScope returns.
    @Test("an async scoped AsyncDisposable in withScope: once per scope, disposed when it returns")
    func asyncScopedInWithScope() async throws {
        let log = EventLog()
        let serials = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt19BAUnitOfWork.self).to { _ async throws in
                    Hunt19BAUnitOfWork(serial: serials.increment(), log: log)
                }.in(.scoped)
            })
        for round in 1...2 {
            let same = try await injector.withScope { scope in
                let first = try await scope.get(Hunt19BAUnitOfWork.self)
                let second = try await scope.get(Hunt19BAUnitOfWork.self)
                return first === second
            }
            #expect(same)
            #expect(log.all == (1...round).map { "dispose unit \($0)" })
        }
        #expect(serials.value == 2)
    }

    /// An argument binding that declares its dependency on the clock: an overriding injector that
    /// replaces the clock re-creates it, and the original keeps the real clock.
    @Test("overriding the declared dependency of a binding with arguments re-creates it")
    func overrideDependencyOfArgumentBinding() throws {
        let app = try Injector(
            ClosureModule { binder in
                binder.bind((any Hunt19BAClock).self).toInstance(Hunt19BAFixedClock(now: 1))
                binder.bind(Hunt19BAGreeter.self).withArguments(String.self)
                    .to(dependencies: [BindingKey((any Hunt19BAClock).self)]) { resolver, name in
                        Hunt19BAGreeter(text: "\(name) at \(try resolver.get((any Hunt19BAClock).self).now)")
                    }.defaults("noon")
                binder.bind(Hunt19BAWelcome.self).to(Hunt19BAWelcome.init(greeter:))
            })
        let test = try app.overriding { binder in
            binder.bind((any Hunt19BAClock).self).toInstance(Hunt19BAFixedClock(now: 42))
        }
        #expect(try test.get(Hunt19BAGreeter.self, arguments: "ann").text == "ann at 42")
        #expect(try test.get(Hunt19BAWelcome.self).greeter.text == "noon at 42")
        #expect(try app.get(Hunt19BAGreeter.self, arguments: "ann").text == "ann at 1")
    }

    /// Just-in-time bindings are made for unnamed keys only: a named request for a self-declaring type
    /// is notBound, in the injector and in a child, and doesn't create the unnamed one's binding there.
    @Test("a named request for an Injectable type is notBound, in an injector and its child")
    func namedRequestForDeclaredType() throws {
        let injector = try Injector()
        let child = try injector.makeChild()
        for target in [injector, child] {
            do {
                _ = try target.get(Hunt19BADeclared.self, named: "x")
                Issue.record("a named just-in-time binding was made")
            } catch {
                #expect(error.code == .notBound, "\(error)")
            }
        }
        _ = try child.get(Hunt19BADeclared.self)
        #expect(!injector.hasBinding(for: Hunt19BADeclared.self, named: "x"))
    }

    /// A managed, disposable pool and a disposable server built from it: start, stop, then dispose newest
    /// first, each once, also when a delegation hands the pool out under another key.
    @Test("ManagedService + Disposable singletons with a delegation: start, stop and disposal order")
    func lifecycleOrderWithDelegation() async throws {
        let log = EventLog()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(EventLog.self).toInstance(log)
                binder.bind(Hunt19BAManagedPool.self).to(Hunt19BAManagedPool.init(log:)).in(.singleton)
                binder.bind((any ManagedService).self, named: "pool").to(binding: Hunt19BAManagedPool.self)
                binder.bind(Hunt19BAServer.self).to(Hunt19BAServer.init(pool:)).in(.singleton)
            })
        try await injector.start()
        let viaDelegation = try injector.syncGet((any ManagedService).self, named: "pool")
        #expect(viaDelegation as AnyObject === (try injector.syncGet(Hunt19BAManagedPool.self)))
        try await injector.shutdown()
        #expect(log.all == ["start pool", "stop pool", "dispose server", "dispose pool"])
    }

    /// Overriding a binding with arguments re-creates the singleton whose injected property is a Lazy
    /// of it: the test's page reads the fake, the app's the real one.
    @Test("overriding an argument binding re-creates a singleton with a property-injected Lazy of it")
    func overridingLazyPropertyOfArgumentBinding() throws {
        let app = try Injector(
            hunt19BAGreeterModule(builds: Counter(), defaults: true),
            ClosureModule { binder in binder.bind(Hunt19BALazyPage.self).to(Hunt19BALazyPage.init).in(.singleton) })
        let appPage = try app.get(Hunt19BALazyPage.self)
        let test = try app.overriding { binder in
            binder.bind(Hunt19BAGreeter.self).withArguments(String.self).to { _, name in
                Hunt19BAGreeter(text: "fake \(name)")
            }.defaults("moon")
        }
        let testPage = try test.get(Hunt19BALazyPage.self)
        #expect(testPage !== appPage)
        #expect(try #require(testPage.greeter).value.text == "fake moon")
        #expect(try #require(appPage.greeter).value.text == "hello world")
    }

    /// A multibinding element that delegates to a disposable singleton: the element is that singleton,
    /// in the injector and in a child, and the shutdown disposes it once.
    @Test("a multibinding element delegating to a Disposable singleton: same instance, disposed once")
    func elementDelegatingToSingleton() async throws {
        let log = EventLog()
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt19BASharedPlugin.self).to { () -> Hunt19BASharedPlugin in
                    builds.increment()
                    return Hunt19BASharedPlugin(log: log)
                }.in(.singleton)
                binder.multibind((any Hunt19BAPlugin).self).to(binding: Hunt19BASharedPlugin.self)
            })
        let child = try injector.makeChild()
        let fromParent = try await injector.getAll((any Hunt19BAPlugin).self)
        let fromChild = try await child.getAll((any Hunt19BAPlugin).self)
        let target = try await injector.get(Hunt19BASharedPlugin.self)
        #expect(fromParent.count == 1)
        #expect(fromParent[0] === target)
        #expect(fromChild[0] === target)
        #expect(builds.value == 1)
        try await child.shutdown()
        #expect(log.all.isEmpty)
        try await injector.shutdown()
        #expect(log.all == ["dispose shared plugin"])
    }

    /// An async singleton element resolved with the async getAll of a child first: built once, the
    /// parent's synchronous getAll then serves it.
    @Test("an async singleton element: a child's async getAll builds it once, the parent's sync getAll serves it")
    func asyncElementThroughChild() async throws {
        let log = EventLog()
        let builds = Counter()
        let parent = try Injector(
            ClosureModule { binder in
                binder.multibind((any Hunt19BAStore).self).to { _ async throws in
                    Hunt19BAPool(serial: builds.increment(), log: log)
                }.in(.singleton)
            })
        let child = try parent.makeChild()
        do {
            _ = try parent.syncGetAll((any Hunt19BAStore).self)
            Issue.record("a synchronous getAll built an async element")
        } catch {
            #expect(error.code == .requiresAsync, "\(error)")
        }
        let fromChild = try await child.getAll((any Hunt19BAStore).self)
        let fromParent = try parent.syncGetAll((any Hunt19BAStore).self)
        #expect(fromChild.count == 1)
        #expect(fromChild[0] === fromParent[0])
        #expect(builds.value == 1)
        try await parent.shutdown()
        #expect(log.all == ["dispose pool 1"])
    }
}

extension Injector {
    fileprivate func syncGetAll<T>(_ type: T.Type) throws(ProvisionError) -> [T] {
        try getAll(type)
    }
}
