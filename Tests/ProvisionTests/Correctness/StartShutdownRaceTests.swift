import Synchronization
import Testing

@testable import Provision

/// Defect 3 of the correctness issue: `shutdown()` called while `start()` ran a slow start hook returned,
/// and then `start()` went on and started the next service, which was never stopped (and used
/// singletons already disposed).
@Suite("Correctness: start() racing shutdown()")
struct StartShutdownRaceTests {
    final class First: Sendable {}
    final class Second: Sendable {
        init(first: First) {}
    }
    final class Third: Sendable {
        init(second: Second) {}
    }

    /// First, Second and Third start in that order (each depends on the one before). The start hook
    /// that `held` names runs until shutdown has begun (an observed state, not a sleep).
    private func makeInjector(log: EventLog, held: String, injector slot: Locked<Injector?>) throws -> Injector {
        @Sendable func hold(_ name: String) async {
            guard name == held else { return }
            // Released once shutdown has begun: the phase left `starting`.
            while slot.withLock({ $0 })?.lifecycle.state.withLock({ $0.phase == .starting }) ?? true {
                await Task.yield()
            }
        }
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(First.self).to(First.init).in(.singleton)
                    .onStart { _ in
                        log.append("start First")
                        await hold("First")
                    }
                    .onStop { _ in log.append("stop First") }
                binder.bind(Second.self).to(Second.init(first:)).in(.singleton)
                    .onStart { _ in
                        log.append("start Second")
                        await hold("Second")
                    }
                    .onStop { _ in log.append("stop Second") }
                binder.bind(Third.self).to(Third.init(second:)).in(.singleton)
                    .onStart { _ in
                        log.append("start Third")
                        await hold("Third")
                    }
                    .onStop { _ in log.append("stop Third") }
            }
        )
        slot.withLock { $0 = injector }
        return injector
    }

    @Test(
        "startRacingShutdown: no service starts after shutdown began; each started one stops exactly once",
        arguments: ["First", "Second", "Third"]
    )
    func startRacingShutdown(held: String) async throws {
        for _ in 0..<stressRounds(50) {
            let log = EventLog()
            let slot = Locked<Injector?>(nil)
            let injector = try makeInjector(log: log, held: held, injector: slot)
            let starting = Task { () -> ProvisionError? in
                do {
                    try await injector.start()
                    return nil
                } catch let error as ProvisionError {
                    return error
                } catch {
                    return nil
                }
            }
            // Shut down while the held hook runs.
            while !log.all.contains("start \(held)") { await Task.yield() }
            try await injector.shutdown()
            let afterShutdown = log.all
            let startError = await starting.value

            #expect(startError?.code == .shutDown, "start() throws shutDown, not \(String(describing: startError))")
            let started = log.with("start ")
            let stopped = log.with("stop ")
            // Nothing started after the held one (its dependents wait for it).
            #expect(started.last == held)
            // Every service whose start hook ran is stopped exactly once, in reverse order, before
            // shutdown returned.
            #expect(stopped == started.reversed())
            #expect(log.all == afterShutdown, "nothing happened after shutdown returned")
            #expect(injector.startedServices.count == started.count)
        }
    }

    @Test("shutdown before start() begins: start() throws shutDown and starts nothing")
    func shutdownBeforeStart() async throws {
        let log = EventLog()
        let injector = try makeInjector(log: log, held: "none", injector: Locked(nil))
        try await injector.shutdown()
        await #expect(throws: ProvisionError.self) { try await injector.start() }
        #expect(log.all.isEmpty)
    }

    @Test("randomized: shutdown at any moment of start() leaves no service running")
    func shutdownAtAnyMoment() async throws {
        for round in 0..<stressRounds(300) {
            let log = EventLog()
            let injector = try makeInjector(log: log, held: "none", injector: Locked(nil))
            let starting = Task { try? await injector.start() }
            for _ in 0..<(round % 12) { await Task.yield() }
            try await injector.shutdown()
            let afterShutdown = log.all
            await starting.value
            let started = log.with("start ")
            #expect(log.with("stop ") == started.reversed())
            #expect(log.all == afterShutdown)
        }
    }
}
