import Provision
import Swinject
import Synchronization

// The request scope: what a server does once per request (see ProvisionHummingbird's
// RequestScopeMiddleware). Open a scope seeded with the request, resolve the request's handler (a
// transient that depends on a scoped unit of work, a singleton and the seeded request), close the scope,
// which disposes the unit of work.

/// The seeded value: what a request carries.
struct BenchRequest: Sendable {
    let path: String
    let id: Int
}

/// The scoped service, disposed when its request's scope closes.
final class BenchUnitOfWork: Disposable {
    let disposed = Atomic(false)

    func dispose() {
        disposed.store(true, ordering: .relaxed)
    }
}

/// The transient service a request resolves.
final class BenchRequestHandler: Sendable {
    let unit: BenchUnitOfWork
    let singleton: BenchSingleton
    let request: BenchRequest

    init(unit: BenchUnitOfWork, singleton: BenchSingleton, request: BenchRequest) {
        self.unit = unit
        self.singleton = singleton
        self.request = request
    }
}

struct RequestScopeModule: Module {
    func configure(_ binder: Binder) {
        binder.bind(BenchSingleton.self).to(BenchSingleton.init).in(.singleton)
        binder.bind(BenchRequest.self).toSeed()
        binder.bind(BenchUnitOfWork.self).to(BenchUnitOfWork.init).in(.scoped)
        binder.bind(BenchRequestHandler.self).to(BenchRequestHandler.init(unit:singleton:request:))
    }
}

extension Scenarios {
    static var scopes: [Scenario] {
        [
            Scenario(
                name: "request scope (seed, scoped + transient, close)",
                provision: {
                    let injector = try Injector(RequestScopeModule())
                    let request = BenchRequest(path: "/todos", id: 7)
                    return { count in
                        try inlinedLoop(count) {
                            let scope = try injector.makeScope { (seed: inout ScopeSeed) throws(ProvisionError) in
                                seed.provide(request)
                            }
                            let handler = try scope.get(BenchRequestHandler.self)
                            try scope.close()
                            return handler
                        }
                    }
                },
                // Floor: the unit of work and the handler made by nested initializer calls, the unit
                // disposed by a direct call.
                handWired: {
                    let singleton = BenchSingleton()
                    let request = BenchRequest(path: "/todos", id: 7)
                    return { count in
                        inlinedLoop(count) {
                            let unit = BenchUnitOfWork()
                            let handler = BenchRequestHandler(unit: unit, singleton: singleton, request: request)
                            unit.dispose()
                            return handler
                        }
                    }
                },
                // Swinject has no scope with disposal: a child container per request, with the request
                // and its unit of work registered in it, and the unit disposed by hand.
                swinject: .setup {
                    let parent = Container()
                    parent.register(BenchSingleton.self) { _ in BenchSingleton() }.inObjectScope(.container)
                    let request = BenchRequest(path: "/todos", id: 7)
                    return { count in
                        inlinedLoop(count) {
                            let child = Container(parent: parent)
                            child.register(BenchRequest.self) { _ in request }
                            child.register(BenchUnitOfWork.self) { _ in BenchUnitOfWork() }.inObjectScope(.container)
                            child.register(BenchRequestHandler.self) { r in
                                BenchRequestHandler(
                                    unit: resolved(r, BenchUnitOfWork.self),
                                    singleton: resolved(r, BenchSingleton.self),
                                    request: resolved(r, BenchRequest.self)
                                )
                            }
                            let handler = resolved(child, BenchRequestHandler.self)
                            handler.unit.dispose()
                            return handler
                        }
                    }
                },
                swiftDependencies: .unsupported("n/a: no scope with disposal")
            )
        ]
    }
}
