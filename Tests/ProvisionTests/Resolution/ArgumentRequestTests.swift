import Dispatch
import Provision
import Synchronization
import Testing

/// A request with resolve-time arguments takes a specialized path for the common case (a transient
/// binding of the injector itself, declared with exactly the given argument types) and the general
/// path for everything else. These tests pin that both decide the same way.
@Suite("Requests with arguments")
struct ArgumentRequestTests {
    final class Job: Sendable {
        let name: String
        let priority: Int
        let engine: Engine

        init(name: String, priority: Int, engine: Engine) {
            self.name = name
            self.priority = priority
            self.engine = engine
        }
    }

    static func jobModule() -> ClosureModule {
        ClosureModule { binder in
            binder.bind(Engine.self).to(Engine.init)
            binder.bind(Job.self).withArguments(String.self, Int.self).to { resolver, name, priority in
                Job(name: name, priority: priority, engine: try resolver.get())
            }
        }
    }

    @Test("a transient binding gets a new instance per request, built from that request's arguments")
    func transientPerRequest() throws {
        let injector = try Injector(Self.jobModule())
        let first = try injector.get(Job.self, arguments: "backup", 3)
        let second = try injector.get(Job.self, arguments: "report", 9)
        #expect(first.name == "backup" && first.priority == 3)
        #expect(second.name == "report" && second.priority == 9)
        #expect(first !== second)
        #expect(first.engine !== second.engine)
    }

    @Test("arguments of other types fail with argumentMismatch naming the declared and the given types")
    func mismatchedTypes() throws {
        let injector = try Injector(Self.jobModule())
        let error = #expect(throws: ProvisionError.self) { try injector.get(Job.self, arguments: 3, "backup") }
        #expect(error?.code == .argumentMismatch)
        #expect(error?.description.contains("(String, Int)") == true)
        #expect(error?.description.contains("(Int, String)") == true)
    }

    @Test("a child injector resolves its parent's binding with arguments")
    func throughChildInjector() throws {
        let parent = try Injector(Self.jobModule())
        let child = try parent.makeChild(ClosureModule { _ in })
        let job = try child.get(Job.self, arguments: "nightly", 1)
        #expect(job.name == "nightly" && job.priority == 1)
    }

    @Test("a singleton with arguments is built once, from the first request's arguments")
    func singletonIgnoresLaterArguments() throws {
        let calls = Atomic<Int>(0)
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Headlight.self).withArguments(String.self).to { _, brand in
                    calls.add(1, ordering: .relaxed)
                    return Headlight(brand: brand)
                }
                .in(.singleton)
            }
        )
        let first = try injector.get(Headlight.self, arguments: "Hella")
        let second = try injector.get(Headlight.self, arguments: "Bosch")
        #expect(first === second)
        #expect(first.brand == "Hella")
        #expect(calls.load(ordering: .relaxed) == 1)
    }

    @Test("a factory that throws fails the request as factoryFailed with the binding's key")
    func factoryFailure() throws {
        struct Broken: Error {}
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Headlight.self).withArguments(String.self).to { _, _ -> Headlight in throw Broken() }
            }
        )
        let error = #expect(throws: ProvisionError.self) { try injector.get(Headlight.self, arguments: "x") }
        #expect(error?.code == .factoryFailed)
        #expect(error?.key == BindingKey(Headlight.self))
    }

    @Test("a factory that resolves its own binding through its resolver gets a cycle error")
    func reentryIsACycle() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Headlight.self).withArguments(String.self).to { resolver, brand in
                    _ = try resolver.get(Headlight.self)
                    return Headlight(brand: brand)
                }
            }
        )
        let error = #expect(throws: ProvisionError.self) { try injector.get(Headlight.self, arguments: "x") }
        #expect(error?.code == .cycle)
    }

    @Test("every request with arguments, first or later, on any thread, reports a re-entry as a cycle from its key")
    func reentryIsACycleOnEveryRequest() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Headlight.self).withArguments(String.self).to { resolver, brand in
                    _ = try resolver.get(Headlight.self)
                    return Headlight(brand: brand)
                }
            }
        )
        // The first request makes the binding's root path frame; the later ones, here from 4 threads at
        // once, reuse it.
        let cycles = Atomic<Int>(0)
        let paths = Locked<Set<[BindingKey]>>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<250 {
                do throws(ProvisionError) {
                    _ = try injector.get(Headlight.self, arguments: "x")
                } catch {
                    guard error.code == .cycle else { continue }
                    cycles.add(1, ordering: .relaxed)
                    paths.withLock { _ = $0.insert(error.path) }
                }
            }
        }
        #expect(cycles.load(ordering: .relaxed) == 1_000)
        #expect(paths.withLock { $0 } == [[BindingKey(Headlight.self), BindingKey(Headlight.self)]])
    }

    @Test("after shutdown a request with arguments throws shutDown")
    func afterShutdown() async throws {
        let injector = try Injector(Self.jobModule())
        _ = try injector.get(Job.self, arguments: "before", 0)
        try await injector.shutdown()
        let error = #expect(throws: ProvisionError.self) { try injector.get(Job.self, arguments: "after", 0) }
        #expect(error?.code == .shutDown)
    }
}
