import Dispatch
import Foundation
import Testing

@testable import Provision

final class Hunt2Car: PropertyInjectable, @unchecked Sendable {
    // Written once, by the injection, before the car is handed to anyone.
    var engine: Hunt2HandleTests.Engine?
    init() {}
    static var injectedProperties: [InjectedProperty] { [.inject(\Hunt2Car.engine)] }
}

/// Handles, multibindings, optionals and injected properties over singletons, through the async API.
@Suite("Hunt2: handles and collections over singletons, async", .timeLimit(.minutes(1)))
struct Hunt2HandleTests {
    final class Engine: Sendable {}
    final class Later: Sendable {
        let engine: Provider<Engine>
        let lazy: Lazy<Engine>
        init(engine: Provider<Engine>, lazy: Lazy<Engine>) {
            self.engine = engine
            self.lazy = lazy
        }
    }
    final class Parent: Sendable {
        let child: Child
        init(child: Child) { self.child = child }
    }
    final class Child: Sendable {
        let parent: Provider<Parent>
        init(parent: Provider<Parent>) { self.parent = parent }
    }
    protocol Plugin: Sendable {}
    struct Boom: Error {}

    @Test(
        "a Provider or Lazy parameter builds nothing when an async request builds its holder",
        arguments: [Scope.transient, .singleton])
    func handlesStayLazy(scope: Scope) async throws {
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Engine.self).to { _ -> Engine in
                    builds.increment()
                    return Engine()
                }.in(.singleton)
                binder.bind(Later.self).to(Later.init(engine:lazy:)).in(scope)
            }
        )
        let later = try await injector.get(Later.self)
        #expect(builds.value == 0, "the async request built the singleton behind a handle")
        _ = try later.engine.get()
        #expect(builds.value == 1)
    }

    @Test("a cycle broken by a Provider resolves through the async API", arguments: [Scope.transient, .singleton])
    func providerBreaksCycle(scope: Scope) async throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Parent.self).to(Parent.init(child:)).in(.singleton)
                binder.bind(Child.self).to(Child.init(parent:)).in(scope)
            }
        )
        let child = try await injector.get(Child.self)
        let parent = try await injector.get(Parent.self)
        #expect(try child.parent.get() === parent)
    }

    // Injected properties are resolved after construction, by synchronous code that settling can't see
    // (ThreadSafety.md lists the case): the task waits at the gate as a thread, for the run of the
    // thread's factory, and gets the one instance.
    @Test("an injected property's singleton being built by a thread: the async request waits for it")
    func injectedPropertyWaits() async throws {
        let hold = Hunt2.Hold()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Engine.self).to { _ -> Engine in
                    hold.run()
                    return Engine()
                }.in(.singleton)
                binder.bind(Hunt2Car.self).to(Hunt2Car.init)
            }
        )
        Hunt2.onThread { _ = try? injector.syncGet(Engine.self) }
        #expect(await Hunt2.wait(for: hold.entered))
        let task = Task.detached { try await injector.get(Hunt2Car.self) }
        let seen = await Hunt2.thread { () -> (threads: Int, tasks: Int)? in
            _ = waitUntil { (injector.gateWaiters(of: Engine.self).map { $0.threads + $0.tasks } ?? 0) >= 1 }
            return injector.gateWaiters(of: Engine.self)
        }
        hold.release.signal()
        let car = try await task.value
        #expect(car.engine === (try injector.syncGet(Engine.self)))
        #expect(seen.map { $0.threads + $0.tasks } == 1, "the task waited at the gate: \(String(describing: seen))")
    }

    // Found by this hunt: settling built a singleton element before an earlier transient element failed.
    @Test("a multibinding's elements: the async request reports the synchronous request's error")
    func multibindingFirstError() async throws {
        func module(_ builds: Counter) -> ClosureModule {
            ClosureModule { binder in
                binder.multibind((any Plugin).self).to { _ -> any Plugin in throw Boom() }
                binder.multibind((any Plugin).self).to { _ -> any Plugin in
                    builds.increment()
                    throw Boom()
                }.in(.singleton)
            }
        }
        let syncBuilds = Counter()
        let asyncBuilds = Counter()
        let s: ProvisionError?
        do {
            _ = try Injector(module(syncBuilds)).syncGet([any Plugin].self)
            s = nil
        } catch { s = error }
        let a: ProvisionError?
        do {
            _ = try await Injector(module(asyncBuilds)).get([any Plugin].self)
            a = nil
        } catch { a = error }
        #expect(s != nil)
        #expect(a?.description == s?.description)
        #expect(asyncBuilds.value == syncBuilds.value)
    }

    @Test("get(Engine?.self) and get([Engine].self) from tasks while a thread builds the singleton")
    func optionalAndCollection() async throws {
        let hold = Hunt2.Hold()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Engine.self).to { _ -> Engine in
                    hold.run()
                    return Engine()
                }.in(.singleton)
                binder.multibind(Engine.self).to(binding: Engine.self)
            }
        )
        Hunt2.onThread { _ = try? injector.syncGet(Engine.self) }
        #expect(await Hunt2.wait(for: hold.entered))
        let optional = Task.detached { try await injector.get(Engine?.self) }
        let all = Task.detached { try await injector.get([Engine].self) }
        let provider = Task.detached { try await injector.get(Provider<Engine>.self) }
        #expect(await Hunt2.until { injector.gateWaiters(of: Engine.self)?.tasks == 2 })
        hold.release.signal()
        let engine = try injector.syncGet(Engine.self)
        #expect(try await optional.value === engine)
        #expect(try await all.value.first === engine)
        #expect(try await provider.value.get() === engine)
        #expect(hold.builds.value == 1)
    }
}
