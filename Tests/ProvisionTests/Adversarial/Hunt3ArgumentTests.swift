import Dispatch
import Foundation
import Testing

@testable import Provision

/// Resolve-time arguments with singletons, scopes, handles and the singleton lifetime.
@Suite("Hunt3: arguments", .timeLimit(.minutes(1)))
struct Hunt3ArgumentTests {
    final class Pool: Sendable {}
    final class Unit: Disposable {
        let disposals = Counter()
        func dispose() { disposals.increment() }
    }
    final class Connection: Sendable {
        let pool: Pool
        let unit: Unit?
        let name: String
        init(pool: Pool, unit: Unit?, name: String) {
            self.pool = pool
            self.unit = unit
            self.name = name
        }
    }
    final class Client: Sendable {
        let connections: Provider<Connection>
        init(connections: Provider<Connection>) { self.connections = connections }
    }

    @Test("an argument binding on a singleton builds the singleton once, from 8 threads")
    func argumentBindingOnSingleton() throws {
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Pool.self).to { () -> Pool in
                    builds.increment()
                    return Pool()
                }.in(.singleton)
                binder.bind(Connection.self).withArguments(String.self).to { resolver, name in
                    Connection(pool: try resolver.get(Pool.self), unit: nil, name: name)
                }
            }
        )
        let pools = Locked<[ObjectIdentifier]>([])
        #expect(
            runThreads(8, timeout: 20) { index in
                if let connection = try? injector.get(Connection.self, arguments: "c\(index)") {
                    pools.withLock { $0.append(ObjectIdentifier(connection.pool)) }
                }
            })
        #expect(builds.value == 1)
        #expect(Set(pools.withLock { $0 }).count == 1 && pools.withLock { $0 }.count == 8)
    }

    @Test("an argument singleton is built once from the first request's arguments, by racing threads too")
    func argumentSingleton() throws {
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Pool.self).to { Pool() }.in(.singleton)
                binder.bind(Connection.self).withArguments(String.self).to { resolver, name in
                    builds.increment()
                    return Connection(pool: try resolver.get(Pool.self), unit: nil, name: name)
                }.in(.singleton)
            }
        )
        let names = Locked<[String]>([])
        #expect(
            runThreads(8, timeout: 20) { index in
                if let connection = try? injector.get(Connection.self, arguments: "c\(index)") {
                    names.withLock { $0.append(connection.name) }
                }
            })
        #expect(builds.value == 1)
        #expect(Set(names.withLock { $0 }).count == 1 && names.withLock { $0 }.count == 8)
        #expect(try injector.syncGet(Provider<Connection>.self).get(arguments: "late").name == names.withLock { $0 }[0])
    }

    @Test("an argument binding resolving a scoped binding, through a Provider made in the scope")
    func argumentBindingInScope() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Pool.self).to { Pool() }.in(.singleton)
                binder.bind(Unit.self).to { Unit() }.in(.scoped)
                binder.bind(Connection.self).withArguments(String.self).to { resolver, name in
                    Connection(pool: try resolver.get(Pool.self), unit: try resolver.get(Unit.self), name: name)
                }
                binder.bind(Client.self).to(Client.init(connections:)).in(.scoped)
            }
        )
        let scope = injector.makeScope()
        let client = try scope.syncGet(Client.self)
        let unit = try scope.syncGet(Unit.self)
        let first = try client.connections.get(arguments: "a")
        let second = try client.connections.get(arguments: "b")
        #expect(first.unit === unit && second.unit === unit)
        #expect(first.name == "a" && second.name == "b")
        let fromThread = Locked<Connection?>(nil)
        #expect(
            runThreads(1, timeout: 20) { _ in fromThread.withLock { $0 = try? client.connections.get(arguments: "t") } }
        )
        #expect(fromThread.withLock { $0 }?.unit === unit)
        try scope.syncClose()
        #expect(unit.disposals.value == 1)
        let after = #expect(throws: ProvisionError.self) { _ = try client.connections.get(arguments: "z") }
        #expect(after?.code == .outsideScope)
        let outside = #expect(throws: ProvisionError.self) { _ = try injector.get(Connection.self, arguments: "o") }
        #expect(outside?.code == .outsideScope, "\(String(describing: outside))")
    }

    @Test("an argument singleton resolving a scoped binding is a captive dependency")
    func argumentSingletonCaptive() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Pool.self).to { Pool() }.in(.singleton)
                binder.bind(Unit.self).to { Unit() }.in(.scoped)
                binder.bind(Connection.self).withArguments(String.self).to { resolver, name in
                    Connection(pool: try resolver.get(Pool.self), unit: try resolver.get(Unit.self), name: name)
                }.in(.singleton)
                binder.bind(Client.self).to(Client.init(connections:)).in(.scoped)
            }
        )
        let scope = injector.makeScope()
        defer { try? scope.syncClose() }
        let client = try scope.syncGet(Client.self)
        let error = #expect(throws: ProvisionError.self) { _ = try client.connections.get(arguments: "a") }
        #expect(error?.code == .captiveDependency, "\(String(describing: error))")
    }

    @Test("wrong argument types through a Provider name both argument lists")
    func providerWrongTypes() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Pool.self).to { Pool() }.in(.singleton)
                binder.bind(Connection.self).withArguments(String.self).to { resolver, name in
                    Connection(pool: try resolver.get(Pool.self), unit: nil, name: name)
                }
            }
        )
        let provider = try injector.syncGet(Provider<Connection>.self)
        let error = #expect(throws: ProvisionError.self) { _ = try provider.get(arguments: 3, "x") }
        #expect(error?.code == .argumentMismatch)
        let text = error?.description ?? ""
        #expect(text.contains("(Int, String)") && text.contains("String"), "\(text)")
        let lazyError = #expect(throws: ProvisionError.self) { _ = try provider.lazy(arguments: 3).value }
        #expect(lazyError?.code == .argumentMismatch)
    }
}
