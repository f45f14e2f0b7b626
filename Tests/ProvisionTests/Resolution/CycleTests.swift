import Provision
import Testing

// Constructor cycles of length 1, 2 and 3: found when the plans are linked, before anything is built.
final class SelfLoop: Sendable {
    init(me: SelfLoop) {}
}

final class PairA: Sendable {
    init(b: PairB) {}
}

final class PairB: Sendable {
    init(a: PairA) {}
}

final class TriA: Sendable {
    init(b: TriB) {}
}

final class TriB: Sendable {
    init(c: TriC) {}
}

final class TriC: Sendable {
    init(a: TriA) {}
}

final class TriRoot: Sendable {
    init(a: TriA) {}
}

@Suite("Cycles")
struct CycleTests {
    private func cycleError(_ body: () throws -> Void) -> ProvisionError? {
        let error = #expect(throws: ProvisionError.self) { try body() }
        #expect(error?.code == .cycle)
        return error
    }

    @Test("a service that needs itself is a cycle of length 1")
    func lengthOne() throws {
        let injector = try Injector.unvalidated(ClosureModule { $0.bind(SelfLoop.self).to(SelfLoop.init(me:)) })
        let error = cycleError { _ = try injector.get(SelfLoop.self) }
        #expect(error?.pathDescription == "SelfLoop -> SelfLoop")
    }

    @Test("a cycle of length 2 lists its path in order")
    func lengthTwo() throws {
        let injector = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(PairA.self).to(PairA.init(b:))
                binder.bind(PairB.self).to(PairB.init(a:))
            }
        )
        #expect(cycleError { _ = try injector.get(PairA.self) }?.pathDescription == "PairA -> PairB -> PairA")
        #expect(cycleError { _ = try injector.get(PairB.self) }?.pathDescription == "PairB -> PairA -> PairB")
    }

    @Test("a cycle of length 3 below a root lists the whole path in order")
    func lengthThree() throws {
        let injector = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(TriRoot.self).to(TriRoot.init(a:))
                binder.bind(TriA.self).to(TriA.init(b:))
                binder.bind(TriB.self).to(TriB.init(c:))
                binder.bind(TriC.self).to(TriC.init(a:))
            }
        )
        let error = cycleError { _ = try injector.get(TriRoot.self) }
        #expect(error?.pathDescription == "TriRoot -> TriA -> TriB -> TriC -> TriA")
        #expect(error?.description.contains("cycle: TriA -> TriB -> TriC -> TriA") == true)
        #expect(error?.key == BindingKey(TriA.self))
    }

    @Test("a cycle through singletons is an error, every time it is asked for")
    func throughSingletons() throws {
        let injector = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(PairA.self).to(PairA.init(b:)).in(.singleton)
                binder.bind(PairB.self).to(PairB.init(a:)).in(.singleton)
            }
        )
        for _ in 0..<3 {
            #expect(cycleError { _ = try injector.get(PairA.self) }?.pathDescription == "PairA -> PairB -> PairA")
        }
    }

    @Test("a cycle through a closure is found when it runs, with the path in order")
    func throughClosure() throws {
        let injector = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(TriA.self).to(TriA.init(b:))
                binder.bind(TriB.self).to { resolver in
                    _ = try resolver.get(TriC.self)
                    throw ExpectedFailure()
                }
                binder.bind(TriC.self).to(TriC.init(a:))
                binder.bind(TriRoot.self).to(TriRoot.init(a:))
            }
        )
        // The loop is closed where the closure is re-entered: its frame is the dynamic one.
        let error = cycleError { _ = try injector.get(TriRoot.self) }
        #expect(error?.pathDescription == "TriRoot -> TriA -> TriB -> TriC -> TriA -> TriB")
        #expect(error?.description.contains("cycle: TriB -> TriC -> TriA -> TriB") == true)
    }

    @Test("a closure that resolves its own key is a cycle of length 1")
    func closureSelfLoop() throws {
        let injector = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(Engine.self).to { resolver in try resolver.get(Engine.self) }
            }
        )
        #expect(cycleError { _ = try injector.get(Engine.self) }?.pathDescription == "Engine -> Engine")
    }

    @Test("a singleton re-entered through a closure while it is built is a cycle, not a deadlock")
    func singletonReentered() throws {
        let injector = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(PairA.self).to(PairA.init(b:)).in(.singleton)
                binder.bind(PairB.self).to { resolver in PairB(a: try resolver.get(PairA.self)) }
            }
        )
        let error = cycleError { _ = try injector.get(PairA.self) }
        #expect(error?.pathDescription == "PairA -> PairB -> PairA")
        // Nothing half-built was cached: the next request fails the same way.
        #expect(cycleError { _ = try injector.get(PairA.self) }?.pathDescription == "PairA -> PairB -> PairA")
    }

    @Test("a closure singleton resolving itself is a cycle")
    func closureSingletonSelfLoop() throws {
        let injector = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(Engine.self).to { resolver in try resolver.get(Engine.self) }.in(.singleton)
            }
        )
        #expect(cycleError { _ = try injector.get(Engine.self) }?.pathDescription == "Engine -> Engine")
    }

    @Test("a diamond is not a cycle")
    func diamondIsFine() throws {
        struct Left: Sendable { init(engine: Engine) {} }
        struct Right: Sendable { init(engine: Engine) {} }
        struct Top: Sendable { init(left: Left, right: Right) {} }
        let injector = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(Engine.self).to(Engine.init)
                binder.bind(Left.self).to(Left.init(engine:))
                binder.bind(Right.self).to(Right.init(engine:))
                binder.bind(Top.self).to(Top.init(left:right:))
            }
        )
        _ = try injector.get(Top.self)
        _ = try injector.get(Top.self)
    }
}
