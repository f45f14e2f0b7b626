import Testing

@testable import Provision

/// Found by the random-graph stress run (`Scripts/stress.sh --perturb`): when `start()` failed and was
/// stopping the services it had started, a `shutdown()` called meanwhile found no started service,
/// disposed their instances and returned while their stop hooks had still to run (a stop hook then ran
/// on a disposed instance, after shutdown returned). Shutdown now waits for the failed start's stops.
@Suite("Correctness: shutdown() during a failed start()", .timeLimit(.minutes(1)))
struct FailedStartShutdownTests {
    final class First: Disposable {
        let log: EventLog
        init(log: EventLog) { self.log = log }
        func dispose() { log.append("dispose First") }
    }
    final class Second: Sendable {
        init(first: First) {}
    }
    struct Refused: Error {}

    @Test("stopsBeforeDisposal: shutdown waits until a failed start() has stopped what it started")
    func stopsBeforeDisposal() async throws {
        let log = EventLog()
        let slot = Locked<Injector?>(nil)
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(First.self).to { _ in First(log: log) }.in(.singleton)
                    .onStart { _ in log.append("start First") }
                    .onStop { _ in
                        log.append("stop First")
                        // Holds until shutdown waits for this stop (fixed) or disposed First (the
                        // defect): both are observed states, no timing.
                        while !log.all.contains("dispose First"),
                            slot.withLock({ $0 })?.lifecycle.state.withLock({ $0.startDrainWaiter == nil }) ?? true
                        {
                            await Task.yield()
                        }
                        log.append("stopped First")
                    }
                binder.bind(Second.self).to(Second.init(first:)).in(.singleton)
                    .onStart { _ in throw Refused() }
            }
        )
        slot.withLock { $0 = injector }
        let starting = Task { () -> ProvisionError.Code? in
            do throws(ProvisionError) {
                try await injector.start()
                return nil
            } catch {
                return error.code
            }
        }
        while !log.all.contains("stop First") { await Task.yield() }
        try await injector.shutdown()
        log.append("shutdown returned")

        #expect(await starting.value == .startFailed)
        #expect(log.all == ["start First", "stop First", "stopped First", "dispose First", "shutdown returned"])
        #expect(injector.startedServices.count == 1)
    }
}
