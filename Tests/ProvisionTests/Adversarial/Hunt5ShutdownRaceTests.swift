import Dispatch
import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

private final class Hunt5Resource: Disposable {
    let disposals: Counter
    init(disposals: Counter) { self.disposals = disposals }
    func dispose() { disposals.increment() }
}

/// A transient that holds handles of the resource.
private final class Hunt5Holder: Sendable {
    let provider: Provider<Hunt5Resource>
    let lazy: Lazy<Hunt5Resource>
    let factory: ObjectFactory
    init(provider: Provider<Hunt5Resource>, lazy: Lazy<Hunt5Resource>, factory: ObjectFactory) {
        self.provider = provider
        self.lazy = lazy
        self.factory = factory
    }
}

/// Something cheap to ask for, to see that shutdown has begun.
private final class Hunt5Probe: Sendable {}

private final class Hunt5Service: ManagedService, Disposable {
    let starts = Counter()
    let stops = Counter()
    let disposals = Counter()
    func start() async throws { starts.increment() }
    func stop() async throws { stops.increment() }
    func dispose() { disposals.increment() }
}

private final class Hunt5Dependent: Sendable {
    let resource: Hunt5Resource
    init(resource: Hunt5Resource) { self.resource = resource }
}

enum Hunt5ShutdownVia: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case get, provider, objectFactory, lazy, optional, getAll
    var testDescription: String { rawValue }
}

// MARK: - Tests

/// `shutdown()` while a singleton's factory runs, reached through every API: each request succeeds or
/// throws `shutDown`, the factory runs once, and the instance is disposed exactly once.
@Suite("Hunt5: shutdown at every moment", .timeLimit(.minutes(1)))
struct Hunt5ShutdownRaceTests {
    static func module(_ hold: Hunt5.Hold, _ disposals: Counter) -> ClosureModule {
        ClosureModule { binder in
            binder.bind(Hunt5Probe.self).to(Hunt5Probe.init)
            binder.bind(Hunt5Resource.self).to { () -> Hunt5Resource in
                hold.run()
                return Hunt5Resource(disposals: disposals)
            }.in(.singleton)
            binder.multibind(Hunt5Resource.self, named: "all").to(binding: Hunt5Resource.self)
            binder.bind(Hunt5Holder.self).to(Hunt5Holder.init(provider:lazy:factory:))
        }
    }

    /// Whether shutdown has begun (a fresh request throws `shutDown`).
    static func shuttingDown(_ injector: Injector) -> Bool {
        Hunt5.result { () throws(ProvisionError) in try injector.get(Hunt5Probe.self) }.hunt5Error?.code == .shutDown
    }

    fileprivate static func request(_ via: Hunt5ShutdownVia, _ injector: Injector, holder given: Hunt5Holder?)
        throws(ProvisionError) -> Hunt5Resource
    {
        let holder: Hunt5Holder
        if let given { holder = given } else { holder = try injector.get(Hunt5Holder.self) }
        switch via {
        case .get: return try injector.get(Hunt5Resource.self)
        case .provider: return try holder.provider.get()
        case .objectFactory: return try holder.factory.get(Hunt5Resource.self)
        case .lazy: return try holder.lazy.value
        case .optional:
            guard let resource = try injector.get(Hunt5Resource?.self) else {
                throw ProvisionError.shutDown(nil)
            }
            return resource
        case .getAll:
            let all = try injector.getAll(Hunt5Resource.self, named: "all")
            guard let first = all.first else { throw ProvisionError.shutDown(nil) }
            return first
        }
    }

    @Test(
        "a second request arriving during shutdown throws shutDown at once; the build in flight ends once",
        arguments: Hunt5ShutdownVia.allCases)
    func shutdownDuringBuild(via: Hunt5ShutdownVia) async throws {
        let hold = Hunt5.Hold()
        let disposals = Counter()
        let injector = try Injector(Self.module(hold, disposals))
        // Handles are made before the shutdown (they are what a running service holds).
        let holder = try Hunt5.result { () throws(ProvisionError) in try injector.get(Hunt5Holder.self) }.get()
        let first = Hunt5.Request { () throws(ProvisionError) in try Self.request(via, injector, holder: holder) }
        #expect(await Hunt5.wait(for: hold.entered))

        let shutdown = Task { await Hunt5.error { () async throws(ProvisionError) in try await injector.shutdown() } }
        #expect(await Hunt5.until { Self.shuttingDown(injector) })

        // A second request, through a handle of its own (the lazy's is shared with the first request).
        let secondHolder = via == .lazy ? nil : holder
        let second = Hunt5.Request { () throws(ProvisionError) in
            try Self.request(via, injector, holder: secondHolder)
        }
        // "From the moment shutdown() begins, every request ... throws shutDown" (Injector+Lifecycle.swift):
        // it must not wait for the build in flight.
        let secondEarly = await second.result(seconds: 10)
        hold.release.signal()
        let firstResult = await first.result()
        let secondResult: Result<Hunt5Resource, ProvisionError>?
        if let secondEarly { secondResult = secondEarly } else { secondResult = await second.result() }
        let shutdownError = await shutdown.value

        #expect(secondEarly != nil, "the request made after shutdown began waited for the build in flight")
        #expect(secondResult?.hunt5Error?.code == .shutDown, "\(String(describing: secondResult))")
        if let error = firstResult?.hunt5Error {
            #expect(error.code == .shutDown, "\(error)")
        } else {
            #expect(firstResult != nil)
        }
        #expect(shutdownError == nil, "\(String(describing: shutdownError))")
        #expect(hold.builds.value == 1)
        // "Every singleton the injector built that is Disposable ... is disposed, exactly once"; shutdown
        // waits for the builds in flight first.
        #expect(disposals.value == 1)
    }

    @Test("a Lazy read by two threads when shutdown begins: both get the one outcome, built and disposed once")
    func lazyReadersDuringShutdown() async throws {
        let hold = Hunt5.Hold()
        let disposals = Counter()
        let injector = try Injector(Self.module(hold, disposals))
        let holder = try Hunt5.result { () throws(ProvisionError) in try injector.get(Hunt5Holder.self) }.get()
        let first = Hunt5.Request { () throws(ProvisionError) in try holder.lazy.value }
        #expect(await Hunt5.wait(for: hold.entered))
        let second = Hunt5.Request { () throws(ProvisionError) in try holder.lazy.value }
        let shutdown = Task { await Hunt5.error { () async throws(ProvisionError) in try await injector.shutdown() } }
        #expect(await Hunt5.until { Self.shuttingDown(injector) })
        hold.release.signal()
        let firstResult = await first.result()
        let secondResult = await second.result()
        #expect(await shutdown.value == nil)
        #expect(firstResult != nil && secondResult != nil)
        switch (firstResult, secondResult) {
        case (.success(let a), .success(let b)): #expect(a === b)
        case (.failure(let a), .failure(let b)): #expect(a.code == .shutDown && b.code == .shutDown, "\(a) \(b)")
        case (.success, .failure(let b)): #expect(b.code == .shutDown, "\(b)")
        case (.failure(let a), .success): #expect(a.code == .shutDown, "\(a)")
        default: break
        }
        #expect(hold.builds.value == 1)
        #expect(disposals.value == 1)
        // After shutdown the handle never builds again.
        if case .failure = firstResult {
            #expect(throws: ProvisionError.self) { try holder.lazy.value }
            #expect(hold.builds.value == 1)
        }
    }

    @Test("an async request held in an async factory when shutdown begins: one build, one disposal")
    func asyncFactoryDuringShutdown() async throws {
        let hold = Hunt5.Hold()
        let disposals = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt5Probe.self).to(Hunt5Probe.init)
                binder.bind(Hunt5Resource.self).to { (_: Resolver) async throws -> Hunt5Resource in
                    await hold.runAsync()
                    return Hunt5Resource(disposals: disposals)
                }.in(.singleton)
            }
        )
        let first = Task { () -> Result<Hunt5Resource, ProvisionError> in
            do throws(ProvisionError) {
                return .success(try await injector.get(Hunt5Resource.self))
            } catch { return .failure(error) }
        }
        #expect(await Hunt5.wait(for: hold.entered))
        let shutdown = Task { await Hunt5.error { () async throws(ProvisionError) in try await injector.shutdown() } }
        #expect(await Hunt5.until { Self.shuttingDown(injector) })
        let secondError = await Hunt5.error { () async throws(ProvisionError) in
            try await injector.get(Hunt5Resource.self)
        }
        #expect(secondError?.code == .shutDown, "\(String(describing: secondError))")
        hold.release.signal()
        let firstResult = await first.value
        if let error = firstResult.hunt5Error { #expect(error.code == .shutDown, "\(error)") }
        #expect(await shutdown.value == nil)
        #expect(hold.builds.value == 1)
        #expect(disposals.value == 1)
    }

    @Test("a scoped build in flight when shutdown begins: the scope's next request throws, the close disposes once")
    func scopedBuildDuringShutdown() async throws {
        let hold = Hunt5.Hold()
        let disposals = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt5Probe.self).to(Hunt5Probe.init)
                binder.bind(Hunt5Resource.self).to { () -> Hunt5Resource in
                    hold.run()
                    return Hunt5Resource(disposals: disposals)
                }.in(.scoped)
            }
        )
        let scope = injector.makeScope()
        let first = Hunt5.Request { () throws(ProvisionError) in try scope.get(Hunt5Resource.self) }
        #expect(await Hunt5.wait(for: hold.entered))
        let shutdown = Task { await Hunt5.error { () async throws(ProvisionError) in try await injector.shutdown() } }
        #expect(await Hunt5.until { Self.shuttingDown(injector) })
        let second = Hunt5.Request { () throws(ProvisionError) in try scope.get(Hunt5Resource.self) }
        let secondEarly = await second.result(seconds: 10)
        hold.release.signal()
        let firstResult = await first.result()
        let secondResult: Result<Hunt5Resource, ProvisionError>?
        if let secondEarly { secondResult = secondEarly } else { secondResult = await second.result() }
        #expect(await shutdown.value == nil)
        let closeError = await Hunt5.error { () async throws(ProvisionError) in try await scope.close() }
        #expect(closeError == nil, "\(String(describing: closeError))")
        #expect(secondEarly != nil, "a scope's request made after shutdown began waited for the build in flight")
        #expect(secondResult?.hunt5Error?.code == .shutDown, "\(String(describing: secondResult))")
        if let error = firstResult?.hunt5Error { #expect(error.code == .shutDown, "\(error)") }
        #expect(hold.builds.value == 1)
        #expect(disposals.value == 1)
    }

    @Test("install racing shutdown while its eager singleton builds: install succeeds or throws, disposed once")
    func installDuringShutdown() async throws {
        let hold = Hunt5.Hold()
        let disposals = Counter()
        let injector = try Injector(ClosureModule { binder in binder.bind(Hunt5Probe.self).to(Hunt5Probe.init) })
        let install = Hunt5.Request { () throws(ProvisionError) in
            try injector.install(
                ClosureModule { binder in
                    binder.bind(Hunt5Resource.self).to { () -> Hunt5Resource in
                        hold.run()
                        return Hunt5Resource(disposals: disposals)
                    }.asEagerSingleton()
                }
            )
            return true
        }
        #expect(await Hunt5.wait(for: hold.entered))
        let shutdown = Task { await Hunt5.error { () async throws(ProvisionError) in try await injector.shutdown() } }
        #expect(await Hunt5.until { Self.shuttingDown(injector) })
        hold.release.signal()
        let installResult = await install.result()
        #expect(await shutdown.value == nil)
        #expect(installResult != nil)
        if let error = installResult?.hunt5Error { #expect(error.code == .shutDown, "\(error)") }
        #expect(hold.builds.value == 1)
        // The eager singleton was built by this injector: shutdown disposes it once, whether the install
        // kept its bindings or not.
        #expect(disposals.value == 1)
        // Nothing can be installed any more.
        let late = Hunt5.result { () throws(ProvisionError) in
            try injector.install(
                ClosureModule { binder in binder.bind(Hunt5Dependent.self).to(Hunt5Dependent.init(resource:)) })
        }
        #expect(late.hunt5Error?.code == .shutDown, "\(late)")
    }

    @Test("start() building a service's singleton when shutdown begins: start throws, nothing starts, disposed once")
    func shutdownWhileStartBuilds() async throws {
        let hold = Hunt5.Hold()
        let service = Hunt5Service()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt5Probe.self).to(Hunt5Probe.init)
                binder.bind(Hunt5Service.self).to { (_: Resolver) async throws -> Hunt5Service in
                    await hold.runAsync()
                    return service
                }.in(.singleton)
            }
        )
        let start = Task { await Hunt5.error { () async throws(ProvisionError) in try await injector.start() } }
        #expect(await Hunt5.wait(for: hold.entered))
        let shutdown = Task { await Hunt5.error { () async throws(ProvisionError) in try await injector.shutdown() } }
        #expect(await Hunt5.until { Self.shuttingDown(injector) })
        hold.release.signal()
        let startError = await start.value
        let shutdownError = await shutdown.value
        #expect(startError?.code == .shutDown, "\(String(describing: startError))")
        #expect(shutdownError == nil, "\(String(describing: shutdownError))")
        #expect(
            service.starts.value == service.stops.value,
            "started \(service.starts.value), stopped \(service.stops.value)")
        #expect(service.starts.value == 0)
        #expect(hold.builds.value == 1)
        #expect(service.disposals.value == 1)
    }

    @Test("a child created while its parent shuts down, its eager singleton waiting on the parent's build")
    func makeChildDuringParentShutdown() async throws {
        let hold = Hunt5.Hold()
        let disposals = Counter()
        let parent = try Injector(Self.module(hold, disposals))
        let building = Hunt5.Request { () throws(ProvisionError) in try parent.get(Hunt5Resource.self) }
        #expect(await Hunt5.wait(for: hold.entered))
        let child = Hunt5.Request { () throws(ProvisionError) in
            try parent.makeChild(
                ClosureModule { binder in
                    binder.bind(Hunt5Dependent.self).to(Hunt5Dependent.init(resource:)).asEagerSingleton()
                }
            )
        }
        let shutdown = Task { await Hunt5.error { () async throws(ProvisionError) in try await parent.shutdown() } }
        #expect(await Hunt5.until { Self.shuttingDown(parent) })
        hold.release.signal()
        let buildResult = await building.result()
        let childResult = await child.result()
        #expect(await shutdown.value == nil)
        #expect(buildResult != nil)
        #expect(childResult != nil, "makeChild hung")
        if let error = childResult?.hunt5Error { #expect(error.code == .shutDown, "\(error)") }
        #expect(hold.builds.value == 1)
        #expect(disposals.value == 1)
    }
}
