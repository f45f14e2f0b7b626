import Testing

@testable import Provision

/// The close handshake of a scope, as a plain value.
@Suite("Scope close handshake")
struct ScopeBuildsTests {
    /// A closer that counts its wake-ups, identified by an object of its own.
    private final class Probe: Sendable {
        let wakes = Counter()

        func closer(exempt: UInt? = nil) -> ScopeBuilds.Closer {
            ScopeBuilds.Closer(id: ObjectIdentifier(self), exempt: exempt) { [wakes] in wakes.increment() }
        }
    }

    /// What `ServiceScope.close()` does: close, then register when builds are running (registering
    /// leaves out the closer's own builds).
    private static func close(_ builds: inout ScopeBuilds, _ closer: ScopeBuilds.Closer) -> Bool {
        builds.close() && builds.wait(closer)
    }

    private static func wake(_ closers: [@Sendable () -> Void]) {
        for wake in closers { wake() }
    }

    @Test("a close with no build running goes on at once, and no build begins after it")
    func closeWithNothingRunning() {
        var builds = ScopeBuilds()
        let began = builds.beginBuild(owner: 1)
        let woken = builds.endBuild(owner: 1)
        let waits = Self.close(&builds, Probe().closer())
        let beganAfterClose = builds.beginBuild(owner: 1)
        #expect(began)
        #expect(woken.isEmpty)
        #expect(!waits)
        #expect(builds.isClosed)
        #expect(!beganAfterClose)
    }

    @Test("a close waits until the last running build ends, and is woken exactly once")
    func closeWaitsForEveryBuild() {
        var builds = ScopeBuilds()
        let probe = Probe()
        // Two builds on one thread (one nested in the other) and one on another thread.
        let began = [builds.beginBuild(owner: 1), builds.beginBuild(owner: 1), builds.beginBuild(owner: 2)]
        let waits = Self.close(&builds, probe.closer())
        #expect(began == [true, true, true])
        #expect(waits)
        Self.wake(builds.endBuild(owner: 1))
        Self.wake(builds.endBuild(owner: 2))
        #expect(probe.wakes.value == 0, "one build of owner 1 still runs")
        Self.wake(builds.endBuild(owner: 1))
        #expect(probe.wakes.value == 1)
        let wokenAgain = builds.endBuild(owner: 1)
        #expect(wokenAgain.isEmpty, "woken once, then withdrawn")
    }

    @Test("a close leaves out the builds of its own thread")
    func closeExemptsItsOwnThread() {
        let probe = Probe()
        var builds = ScopeBuilds()
        _ = builds.beginBuild(owner: 7)
        let waitsForItself = Self.close(&builds, probe.closer(exempt: 7))
        #expect(!waitsForItself)

        var other = ScopeBuilds()
        _ = other.beginBuild(owner: 7)
        _ = other.beginBuild(owner: 8)
        let waits = Self.close(&other, probe.closer(exempt: 7))
        #expect(waits)
        Self.wake(other.endBuild(owner: 8))
        #expect(probe.wakes.value == 1, "only its own thread's build is left")
    }

    @Test("a closer that stopped waiting is never woken; the others still are")
    func stopWaiting() {
        var builds = ScopeBuilds()
        let gaveUp = Probe()
        let patient = Probe()
        _ = builds.beginBuild(owner: 1)
        let waits = [Self.close(&builds, gaveUp.closer()), Self.close(&builds, patient.closer())]
        #expect(waits == [true, true])
        builds.stopWaiting(ObjectIdentifier(gaveUp))
        Self.wake(builds.endBuild(owner: 1))
        #expect(gaveUp.wakes.value == 0)
        #expect(patient.wakes.value == 1)
    }

    @Test("a closer registering after the builds it found running ended goes on without waiting")
    func buildsEndingBetweenCloseAndWait() {
        var builds = ScopeBuilds()
        let probe = Probe()
        _ = builds.beginBuild(owner: 1)
        let mustWait = builds.close()
        Self.wake(builds.endBuild(owner: 1))
        let registered = builds.wait(probe.closer())
        #expect(mustWait)
        #expect(!registered)
        #expect(probe.wakes.value == 0)
    }

    @Test(
        "builds of one owner counted in both places (it began while another owner held the first slot) all end before a close goes on"
    )
    func ownerCountedInlineAndBeside() {
        var builds = ScopeBuilds()
        let probe = Probe()
        // Owner 1 takes the inline slot; owner 2 is counted beside it; owner 1's build ends, so owner 2's
        // next build takes the inline slot while its first is still counted beside it.
        _ = builds.beginBuild(owner: 1)
        _ = builds.beginBuild(owner: 2)
        Self.wake(builds.endBuild(owner: 1))
        _ = builds.beginBuild(owner: 2)
        _ = builds.beginBuild(owner: 3)
        let waits = Self.close(&builds, probe.closer())
        #expect(waits)
        Self.wake(builds.endBuild(owner: 2))
        Self.wake(builds.endBuild(owner: 3))
        #expect(probe.wakes.value == 0, "one build of owner 2 still runs")
        Self.wake(builds.endBuild(owner: 2))
        #expect(probe.wakes.value == 1)

        // Ending a build of an owner with none running changes nothing.
        var other = ScopeBuilds()
        _ = other.beginBuild(owner: 4)
        Self.wake(other.endBuild(owner: 5))
        let otherWaits = Self.close(&other, probe.closer(exempt: 5))
        #expect(otherWaits, "owner 4's build still runs")
    }
}
