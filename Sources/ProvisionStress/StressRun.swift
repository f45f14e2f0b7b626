import Dispatch
import Foundation
import Provision
import Synchronization

/// A seeded generator (SplitMix64), so that a failing run can be replayed with its seed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

/// What the run checks, counted across all threads.
final class StressTally: Sendable {
    let operations = Atomic<Int>(0)
    let violations = Locked<[String]>([])
    let sharedClock = Atomic<Int>(0)
    let installs = Atomic<Int>(0)
    let children = Atomic<Int>(0)
    let derived = Atomic<Int>(0)
    let flakyInjectors = Atomic<Int>(0)
    let expectedFailures = Atomic<Int>(0)

    func violation(_ text: String) {
        violations.withLock { if $0.count < 20 { $0.append(text) } }
    }
}

struct StressRun {
    let threads: Int
    let seconds: Double
    let seed: UInt64
    let maxInstalls = 2_000

    /// Runs the mix on `threads` threads; returns the violations (empty when every invariant held).
    func run() throws -> [String] {
        let tally = StressTally()
        let runs = FactoryRuns()
        var shared: Injector? = try Injector(StressModule(runs: runs))
        let elapsed = try hammer(shared, tally, runs)
        guard let elapsed else { return ["HANG: the workers did not finish within 30 s of the deadline"] }

        // Derived injectors configure the same module again, so each builds its own Clock.
        let expectedClocks = 1 + tally.derived.load(ordering: .relaxed)
        if runs.clock.load(ordering: .relaxed) != expectedClocks {
            tally.violation(
                "Clock singleton factories ran \(runs.clock.load(ordering: .relaxed)) times for \(expectedClocks) injectors"
            )
        }
        if runs.pool.load(ordering: .relaxed) != 1 {
            tally.violation("the shared Pool singleton factory ran \(runs.pool.load(ordering: .relaxed)) times")
        }
        shared = nil
        let live = LiveObjects.count.load(ordering: .relaxed)
        if live != 0 {
            tally.violation("\(live) objects are still alive after every injector was dropped")
        }

        let operations = tally.operations.load(ordering: .relaxed)
        let installs = min(tally.installs.load(ordering: .relaxed), maxInstalls)
        print("threads: \(threads), seconds: \(String(format: "%.1f", elapsed)), seed: \(seed)")
        print("operations: \(operations), per second: \(Int(Double(operations) / elapsed))")
        print(
            "child injectors: \(tally.children.load(ordering: .relaxed)), "
                + "derived injectors: \(tally.derived.load(ordering: .relaxed)), "
                + "runtime installs: \(installs), "
                + "flaky injectors: \(tally.flakyInjectors.load(ordering: .relaxed)), "
                + "injected failures: \(tally.expectedFailures.load(ordering: .relaxed))"
        )
        print("objects created: \(LiveObjects.created.load(ordering: .relaxed)), alive at the end: \(live)")
        print(
            "singleton factory runs: Clock \(runs.clock.load(ordering: .relaxed)) for \(expectedClocks) injectors, "
                + "Pool \(runs.pool.load(ordering: .relaxed))"
        )
        return tally.violations.withLock { $0 }
    }

    /// Runs the workers against `shared` until the deadline; returns the elapsed seconds, or `nil` when
    /// the watchdog found them hung.
    private func hammer(_ shared: Injector?, _ tally: StressTally, _ runs: FactoryRuns) throws -> Double? {
        guard let injector = shared else { return 0 }
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        let group = DispatchGroup()
        let start = DispatchSemaphore(value: 0)
        for index in 0..<threads {
            group.enter()
            // Weak: a finished `Thread` may release its closure late, and a strong capture would keep
            // the injector (and its singletons) alive past the end-of-run check.
            let thread = Thread { [weak injector] in
                start.wait()
                work(injector, index, deadline, tally, runs)
                group.leave()
            }
            thread.stackSize = 1 << 21
            thread.start()
        }
        let began = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<threads { start.signal() }

        // Watchdog: the workers stop at the deadline; if they haven't all finished 30 s later, the run
        // is hung, and it fails instead of hanging CI.
        if group.wait(timeout: .now() + seconds + 30) == .timedOut {
            return nil
        }
        return Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9
    }

    /// One worker's loop; holds the injector strongly only while it runs.
    private func work(
        _ injector: Injector?, _ index: Int, _ deadline: UInt64, _ tally: StressTally, _ runs: FactoryRuns
    ) {
        guard let injector else { return }
        var random = SeededGenerator(seed: seed &+ UInt64(index) &* 0x1000_0001)
        while DispatchTime.now().uptimeNanoseconds < deadline {
            for _ in 0..<64 {
                step(injector, &random, tally, runs, thread: index)
            }
        }
    }

    /// One randomly chosen operation.
    private func step(
        _ injector: Injector,
        _ random: inout SeededGenerator,
        _ tally: StressTally,
        _ runs: FactoryRuns,
        thread: Int
    ) {
        tally.operations.add(1, ordering: .relaxed)
        let choice = Int(random.next() % 100)
        do {
            switch choice {
            case 0..<35:
                let handler = try injector.get(Handler.self)
                checkShared(handler.clock, tally)
            case 35..<55:
                checkShared(try injector.get(Clock.self), tally)
            case 55..<65:
                _ = try injector.get(Handler.self, named: "audit")
            case 65..<75:
                let job = try injector.get(Job.self, arguments: "job-\(thread)", choice)
                if job.priority != choice { tally.violation("a job was built with the wrong arguments") }
            case 75..<83:
                tally.children.add(1, ordering: .relaxed)
                let child = try injector.makeChild(SessionModule())
                let session = try child.get(Session.self)
                if try child.get(Session.self) !== session { tally.violation("a child singleton was built twice") }
                checkShared(session.clock, tally)
            case 83..<88:
                tally.derived.add(1, ordering: .relaxed)
                let derived = try injector.with(SessionModule())
                _ = try derived.get(Session.self)
            case 88..<93:
                let number = tally.installs.add(1, ordering: .relaxed).newValue
                guard number <= maxInstalls else { return }
                try injector.install(InstallModule(name: "plugin-\(number)"))
                _ = try injector.get(Handler.self, named: "plugin-\(number)")
            default:
                tally.flakyInjectors.add(1, ordering: .relaxed)
                let flakyRuns = FactoryRuns()
                let flaky = try Injector(FlakyModule(runs: flakyRuns, failures: Int(random.next() % 3)))
                var built: Flaky?
                for _ in 0..<4 where built == nil {
                    do {
                        built = try flaky.get(Flaky.self)
                    } catch  where error.code == .factoryFailed && error.cause is FlakyFailure {
                        tally.expectedFailures.add(1, ordering: .relaxed)
                    }
                }
                if built == nil { tally.violation("a flaky singleton never succeeded") }
                if try flaky.get(Flaky.self) !== built { tally.violation("a flaky singleton was built twice") }
                if flakyRuns.flakySuccesses.load(ordering: .relaxed) != 1 {
                    tally.violation(
                        "a flaky singleton factory succeeded \(flakyRuns.flakySuccesses.load(ordering: .relaxed)) times"
                    )
                }
            }
        } catch {
            tally.violation("operation \(choice) on thread \(thread) failed: \(error)")
        }
    }

    private func checkShared(_ clock: Clock, _ tally: StressTally) {
        let id = Int(bitPattern: UInt(bitPattern: ObjectIdentifier(clock)))
        let (exchanged, original) = tally.sharedClock.compareExchange(
            expected: 0,
            desired: id,
            ordering: .relaxed
        )
        if !exchanged && original != id { tally.violation("two different shared Clock instances were seen") }
    }
}

/// A plugin installed at run time: a named handler.
struct InstallModule: Module {
    let name: String

    func configure(_ binder: Binder) {
        binder.bind(Handler.self, named: name).to(Handler.init(store:clock:))
    }
}
