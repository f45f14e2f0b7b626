import Testing

@testable import Provision

/// Found by the random-graph stress run under schedule perturbation (`Scripts/stress.sh --perturb`): a
/// builder that took the count of builds in flight to zero woke shutdown's wait a moment later, after
/// checking the closed flag; in that moment a build that had begun before the injector closed added to
/// the count again. Shutdown went on while that build ran: it returned, and the singleton was built
/// after it and never disposed. A wake now finds the count at zero, or leaves the waiter to the last
/// build's end.
@Suite("Correctness: shutdown waits for every build in flight", .timeLimit(.minutes(1)))
struct LateDrainWakeTests {
    @Test("lateWake: a builder's late wake doesn't end shutdown's wait while another build runs")
    func lateWake() async {
        let lifecycle = InjectorLifecycle()
        #expect(lifecycle.beginBuild(), "a build that began before the injector closed")
        lifecycle.close()
        let drained = Task { await lifecycle.waitForBuildsToDrain() }
        while lifecycle.drainWaiterCount == 0 { await Task.yield() }

        // The late wake of a builder that took the count to zero before that build began.
        lifecycle.wakeDrainWaiters()
        #expect(lifecycle.drainWaiterCount == 1, "shutdown still waits for the build in flight")

        lifecycle.endBuild()
        await drained.value
        #expect(lifecycle.drainWaiterCount == 0, "the build's end woke shutdown")
    }

    @Test("givingUp: a timed-out wait ends with builds still in flight")
    func givingUp() async {
        let lifecycle = InjectorLifecycle()
        #expect(lifecycle.beginBuild())
        lifecycle.close()
        let drained = Task { await lifecycle.waitForBuildsToDrain() }
        while lifecycle.drainWaiterCount == 0 { await Task.yield() }
        lifecycle.wakeDrainWaiters(givingUp: true)
        await drained.value
        #expect(lifecycle.hasBuildsInFlight)
        lifecycle.endBuild()
    }

    @Test("refusedBuild: a build refused after close takes the count to zero and wakes the waiter")
    func refusedBuild() async {
        let lifecycle = InjectorLifecycle()
        #expect(lifecycle.beginBuild())
        lifecycle.close()
        let drained = Task { await lifecycle.waitForBuildsToDrain() }
        while lifecycle.drainWaiterCount == 0 { await Task.yield() }
        #expect(!lifecycle.beginBuild(), "refused: the injector closed")
        #expect(lifecycle.drainWaiterCount == 1, "the refused build's own decrement doesn't end the wait")
        lifecycle.endBuild()
        await drained.value
        #expect(!lifecycle.hasBuildsInFlight)
    }
}
