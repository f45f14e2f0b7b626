import Synchronization
import Testing

@testable import Provision

/// The request a scope serves: what seeded scopes are for.
private struct Request: Sendable, Equatable {
    let path: String
}

private protocol Session: Sendable {
    var user: String { get }
}

private struct UserSession: Session {
    let user: String
}

/// A per-request service built from the seed.
private final class RequestLog: Disposable {
    let request: Request
    let disposed: Counter

    init(request: Request, disposed: Counter) {
        self.request = request
        self.disposed = disposed
    }

    func dispose() {
        disposed.increment()
    }
}

/// A transient that reaches the seed through a scoped service.
private final class Handler: Sendable {
    let log: RequestLog
    let request: Request

    init(log: RequestLog, request: Request) {
        self.log = log
        self.request = request
    }
}

/// A singleton that must not depend on a seed.
private final class Cache: Sendable {
    let handler: Handler

    init(handler: Handler) {
        self.handler = handler
    }
}

/// A seed whose type is `Disposable`: the scope must not dispose it (it belongs to whoever seeded it).
private final class Connection: Disposable {
    let disposed = Counter()

    func dispose() {
        disposed.increment()
    }
}

@Suite("Seeded scopes")
struct SeededScopeTests {
    private static func module(disposed: Counter = Counter()) -> ClosureModule {
        ClosureModule { binder in
            binder.bind(Request.self).toSeed()
            binder.bind(Counter.self).toInstance(disposed)
            binder.bind(RequestLog.self).to(RequestLog.init(request:disposed:)).in(.scoped)
            binder.bind(Handler.self).to(Handler.init(log:request:))
        }
    }

    @Test("a scoped service and a transient built in a scope receive that scope's seed")
    func seedReachesScopedAndTransient() throws {
        let injector = try Injector(Self.module())
        let first = try injector.makeScope { seed in seed.provide(Request(path: "/a")) }
        let second = try injector.makeScope { seed in seed.provide(Request(path: "/b")) }
        let handlerA = try first.syncGet(Handler.self)
        let handlerB = try second.syncGet(Handler.self)
        #expect(handlerA.request.path == "/a")
        #expect(handlerA.log.request.path == "/a")
        #expect(handlerB.log.request.path == "/b")
        // One scoped instance per scope, shared by every request of the scope.
        #expect(try first.syncGet(Handler.self).log === handlerA.log)
        #expect(try first.syncGet(Request.self) == Request(path: "/a"))
        try first.syncClose()
        try second.syncClose()
    }

    @Test("a seed requested outside any scope throws outsideScope, through a dependent too")
    func seedOutsideScope() throws {
        let injector = try Injector(Self.module())
        let direct = #expect(throws: ProvisionError.self) { try injector.syncGet(Request.self) }
        #expect(direct?.code == .outsideScope)
        let nested = #expect(throws: ProvisionError.self) { try injector.syncGet(Handler.self) }
        #expect(nested?.code == .outsideScope)
    }

    @Test("a scope opened without a declared seed throws notSeeded naming the key and the fix")
    func scopeWithoutSeed() throws {
        let injector = try Injector(Self.module())
        let scope = injector.makeScope()
        let error = #expect(throws: ProvisionError.self) { try scope.syncGet(Handler.self) }
        #expect(error?.code == .notSeeded)
        #expect(error?.key == BindingKey(Request.self))
        #expect(error?.description.contains("seed.provide") == true)
        #expect(error?.pathDescription.contains("Handler") == true)
    }

    @Test("seeding a key that no seed binding declares throws notSeeded, and makes no scope")
    func undeclaredSeed() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Request.self).toSeed()
                binder.bind(Config.self).toInstance(Config(port: 1))
            }
        )
        let unbound = #expect(throws: ProvisionError.self) {
            try injector.makeScope { seed in seed.provide(Engine()) }
        }
        #expect(unbound?.code == .notSeeded)
        #expect(unbound?.key == BindingKey(Engine.self))
        #expect(unbound?.hint.contains("binder.bind(Engine.self).toSeed()") == true)
        // Bound, but not as a seed.
        let notASeed = #expect(throws: ProvisionError.self) {
            try injector.makeScope { seed in seed.provide(Config(port: 2)) }
        }
        #expect(notASeed?.code == .notSeeded)
        // A named seed is a different key from the unnamed one.
        let named = #expect(throws: ProvisionError.self) {
            try injector.makeScope { seed in seed.provide(Request(path: "/"), named: "other") }
        }
        #expect(named?.hint.contains("named: \"other\"") == true)
    }

    @Test("named seeds and existential seeds are separate keys")
    func namedAndExistentialSeeds() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Request.self).toSeed()
                binder.bind(Request.self, named: "parent").toSeed()
                binder.bind((any Session).self).toSeed()
            }
        )
        let scope = try injector.makeScope { seed in
            seed.provide(Request(path: "/child"))
            seed.provide(Request(path: "/parent"), named: "parent")
            seed.provide(UserSession(user: "ada"), as: (any Session).self)
            // Providing a key again keeps the last value.
            seed.provide(Request(path: "/child2"))
        }
        #expect(try scope.syncGet(Request.self).path == "/child2")
        #expect(try scope.syncGet(Request.self, named: "parent").path == "/parent")
        #expect(try scope.syncGet((any Session).self).user == "ada")
    }

    @Test("seeds are read through the async API and withScope(seeding:body:)")
    func asyncSeeds() async throws {
        let disposed = Counter()
        let injector = try Injector(Self.module(disposed: disposed))
        let path = try await injector.withScope { seed in
            seed.provide(Request(path: "/async"))
        } body: { scope in
            try await scope.get(Handler.self).log.request.path
        }
        #expect(path == "/async")
        #expect(disposed.value == 1)
    }

    @Test("a closed scope refuses its seeds with outsideScope")
    func closedScope() throws {
        let injector = try Injector(Self.module())
        let scope = try injector.makeScope { seed in seed.provide(Request(path: "/")) }
        try scope.syncClose()
        let error = #expect(throws: ProvisionError.self) { try scope.syncGet(Request.self) }
        #expect(error?.code == .outsideScope)
    }

    @Test("a seed is never disposed by its scope: it belongs to the code that seeded it")
    func seedsAreNotDisposed() throws {
        let injector = try Injector(ClosureModule { binder in binder.bind(Connection.self).toSeed() })
        let connection = Connection()
        let scope = try injector.makeScope { seed in seed.provide(connection) }
        #expect(try scope.syncGet(Connection.self) === connection)
        try scope.syncClose()
        #expect(connection.disposed.value == 0)
    }

    @Test("a child injector's scopes are seeded with its parent's seed bindings")
    func childInjector() throws {
        let parent = try Injector(Self.module())
        let child = try parent.makeChild(ClosureModule { binder in binder.bind(Headlight.self).to { Headlight() } })
        #expect(child.hasSeed(Request.self))
        #expect(!child.hasSeed(Headlight.self))
        let scope = try child.makeScope { seed in seed.provide(Request(path: "/child")) }
        #expect(try scope.syncGet(Handler.self).request.path == "/child")
    }

    @Test("validation reports a singleton that needs a seed, with the path, and lists the seeded keys")
    func validation() throws {
        let captive = ClosureModule { binder in
            binder.bind(Request.self).toSeed()
            binder.bind(Counter.self).toInstance(Counter())
            binder.bind(RequestLog.self).to(RequestLog.init(request:disposed:)).in(.scoped)
            binder.bind(Handler.self).to(Handler.init(log:request:))
            binder.bind(Cache.self).to(Cache.init(handler:)).in(.singleton)
        }
        // Creation validates by default, and refuses the graph for the same problem.
        let refusal = #expect(throws: ProvisionError.self) { try Injector(captive) }
        #expect(refusal?.code == .validationFailed)
        #expect(refusal?.description.contains("Cache -> Handler -> RequestLog") == true)
        let injector = try Injector(modules: [captive], configuration: .unvalidated)
        let report = injector.validationReport()
        #expect(report.seededKeys == [BindingKey(Request.self)])
        let problem = try #require(report.problems.first)
        #expect(report.problems.count == 1)
        #expect(problem.code == .captiveDependency)
        #expect(problem.pathDescription == "Cache -> Handler -> RequestLog")
        // A singleton that needs the seed directly (through a transient) names the seed.
        let direct = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Request.self).toSeed()
                    binder.bind(Counter.self).toInstance(Counter())
                    binder.bind(RequestLog.self).to(RequestLog.init(request:disposed:)).in(.singleton)
                }
            ],
            configuration: .unvalidated
        )
        let seedProblem = try #require(direct.validationReport().problems.first)
        #expect(seedProblem.code == .captiveDependency)
        #expect(seedProblem.pathDescription == "RequestLog -> Request")
        #expect(seedProblem.description.contains("each scope is opened with"))
        // The graph draws the seed as a vertex of its own kind.
        #expect(direct.graph().vertices.contains { $0.key == BindingKey(Request.self) && $0.kind == .seed })
    }

    @Test("8 threads x 500 scopes: every scope's services see exactly its own seed, each disposed once")
    func concurrentScopes() async throws {
        let disposed = Counter()
        let injector = try Injector(Self.module(disposed: disposed))
        let mismatches = Atomic(0)
        let finished = try await offPool {
            runThreads(8) { thread in
                for index in 0..<500 {
                    let path = "/\(thread)/\(index)"
                    do {
                        let scope = try injector.makeScope { seed in seed.provide(Request(path: path)) }
                        let handler = try scope.get(Handler.self)
                        if handler.log.request.path != path || handler.request.path != path {
                            mismatches.add(1, ordering: .relaxed)
                        }
                        try scope.close()
                    } catch {
                        mismatches.add(1, ordering: .relaxed)
                    }
                }
            }
        }
        #expect(finished)
        #expect(mismatches.load(ordering: .relaxed) == 0)
        #expect(disposed.value == 8 * 500)
    }
}
