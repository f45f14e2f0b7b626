import Foundation
import Synchronization
import Testing

@testable import Provision

/// A started service of the shutdown chain: records its start and stop.
final class Hunt26AService: Sendable {
    let index: Int
    init(_ index: Int) { self.index = index }
}

@Suite("Hunt 26A: tearing down and shutting down large graphs", .timeLimit(.minutes(5)))
struct Hunt26ATeardownTests {
    /// In a child process: runs `body` on a 512 KiB thread (the stack of a secondary thread on Darwin)
    /// and exits with its code, or 9 when it didn't end within 60 s. A crash (a stack overflow in a
    /// release that recurses once per level) fails the expectation instead of the test process.
    static func onSmallStack(_ body: @escaping @Sendable () throws -> Void) -> Never {
        let code = Hunt26A.onThread(stack: 512 << 10, timeout: 60) { () -> Int32 in
            do {
                try body()
                return 0
            } catch {
                Hunt26A.log("error: \(error)")
                return 3
            }
        }
        exit(code ?? 9)
    }

    /// A user expects the last reference to a chain of 10,000 nested children (each `makeChild` of
    /// the one before; an injector per request nesting for years in a daemon) to be dropped on any
    /// thread: freeing one injector must not release its parent from inside its own deinitialization,
    /// level after level. Passes in a debug build on a 512 KiB thread (0.4 s).
    @Test("dropping a chain of 10,000 nested children on a 512 KiB thread")
    func nestedChildren() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            Self.onSmallStack {
                var current = try Injector(ClosureModule { $0.bind(Hunt26AValue.self).to { Hunt26AValue(0) } })
                for _ in 0..<10_000 { current = try current.makeChild() }
                _ = try current.get(Hunt26AValue.self)
            }
        }
        Hunt26A.report(result)
    }

    /// The same for 150 chained `overriding` derivations, each replacing the binding of the one before,
    /// and for an injector holding 100,000 built singletons: dropped on a 512 KiB thread.
    @Test("dropping 150 chained overriding derivations, and 100,000 built singletons, on a 512 KiB thread")
    func derivationsAndSingletons() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            Self.onSmallStack {
                var current = try Injector(ClosureModule { $0.bind(Hunt26AValue.self).to { Hunt26AValue(0) } })
                for index in 1...150 {
                    current = try current.overriding(
                        ClosureModule { $0.bind(Hunt26AValue.self).to { Hunt26AValue(index) } })
                }
                guard try current.get(Hunt26AValue.self).index == 150 else { throw Hunt26AFailure() }
                let count = 100_000
                let wide = try Injector(
                    ClosureModule { binder in
                        for index in 0..<count {
                            binder.bind(Hunt26AValue.self, named: "\(index)").to { Hunt26AValue(index) }.in(.singleton)
                        }
                    })
                for index in 0..<count where try wide.get(Hunt26AValue.self, named: "\(index)").index != index {
                    throw Hunt26AFailure()
                }
            }
        }
        Hunt26A.report(result)
    }

    /// Starts and shuts down a chain of `count` singleton services, each declared to need the next
    /// (`to(dependencies:)`), with start and stop hooks; built bottom-up first so that no request nests
    /// deeply. Returns the time of `shutdown()` and whether the stops ran top first, each once.
    static func shutdownChain(_ count: Int) async throws -> (time: Duration, ordered: Bool, started: Int) {
        let stops = Locked<[Int]>([])
        let starts = Atomic(0)
        let module = ClosureModule { binder in
            for index in 0..<count {
                let below = index + 1 < count ? [BindingKey(Hunt26AService.self, named: "\(index + 1)")] : []
                binder.bind(Hunt26AService.self, named: "\(index)").to(dependencies: below) { resolver in
                    if index + 1 < count { _ = try resolver.get(Hunt26AService.self, named: "\(index + 1)") }
                    return Hunt26AService(index)
                }.in(.singleton)
                    .onStart { _ in starts.add(1, ordering: .relaxed) }
                    .onStop { service in stops.withLock { $0.append(service.index) } }
            }
        }
        let injector = try Injector(module)
        for index in (0..<count).reversed() { _ = try await injector.get(Hunt26AService.self, named: "\(index)") }
        try await injector.start()
        let clock = ContinuousClock()
        let begin = clock.now
        try await injector.shutdown()
        let time = clock.now - begin
        return (time, stops.withLock { $0 } == Array(0..<count), starts.load(ordering: .relaxed))
    }

    /// A user expects `shutdown()` of 8,000 started services in a chain to stop each once, the top
    /// first (a service stops before the services it depends on), in time linear in the number of
    /// services: four times the services, at most 8 times the time (plus 50 ms).
    @Test("shutdown() of a chain of 8,000 started services: each stopped once, top first, in linear time")
    func shutdownOfChain() async throws {
        let small = try await Self.shutdownChain(2_000)
        let large = try await Self.shutdownChain(8_000)
        #expect(small.ordered && large.ordered)
        #expect(small.started == 2_000 && large.started == 8_000)
        #expect(large.time <= small.time * 8 + .milliseconds(50), "2,000: \(small.time), 8,000: \(large.time)")
    }
}
