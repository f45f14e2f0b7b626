import Provision
import ServiceLifecycle

/// Where the fixtures fail on purpose: the names of the steps that throw.
struct Faults: Sendable {
    var failingSteps: Set<String> = []
}

/// The error a fixture throws at a step named in ``Faults``.
struct InjectedFailure: Error, Equatable {
    let step: String
}

/// Records `step`, or throws ``InjectedFailure`` if `faults` names it.
private func perform(_ step: String, log: EventLog, faults: Faults) throws {
    if faults.failingSteps.contains(step) { throw InjectedFailure(step: step) }
    log.record(step)
}

/// The first singleton of the chain, a `ManagedService`. Its stop hook suspends before it records,
/// as a real one would while it closes connections.
final class ChainDatabase: ManagedService {
    let log: EventLog
    let faults: Faults

    init(log: EventLog, faults: Faults) {
        self.log = log
        self.faults = faults
    }

    func start() async throws { try perform("start Database", log: log, faults: faults) }

    func stop() async throws {
        try await Task.sleep(for: .milliseconds(1))
        try perform("stop Database", log: log, faults: faults)
    }
}

/// The second singleton, a `ManagedService` that depends on the database.
final class ChainStore: ManagedService {
    let log: EventLog
    let faults: Faults

    init(database: ChainDatabase, log: EventLog, faults: Faults) {
        self.log = log
        self.faults = faults
    }

    func start() async throws { try perform("start Store", log: log, faults: faults) }
    func stop() async throws { try perform("stop Store", log: log, faults: faults) }
}

/// The third singleton, started and stopped by the hooks of its binding rather than by a protocol.
final class ChainQueue: Sendable {
    let log: EventLog
    let faults: Faults

    init(store: ChainStore, log: EventLog, faults: Faults) {
        self.log = log
        self.faults = faults
    }

    func open() throws { try perform("start Queue", log: log, faults: faults) }
    func close() throws { try perform("stop Queue", log: log, faults: faults) }
}

/// Database <- Store <- Queue, all singletons with start and stop hooks.
func chainModule(log: EventLog, faults: Faults = Faults()) -> ClosureModule {
    ClosureModule { binder in
        binder.bind(EventLog.self).toInstance(log)
        binder.bind(Faults.self).toInstance(faults)
        binder.bind(ChainDatabase.self).to(ChainDatabase.init(log:faults:)).in(.singleton)
        binder.bind(ChainStore.self).to(ChainStore.init(database:log:faults:)).in(.singleton)
        binder.bind(ChainQueue.self).to(ChainQueue.init(store:log:faults:)).in(.singleton)
            .onStart { queue in try queue.open() }
            .onStop { queue in try queue.close() }
    }
}

/// The starts and the stops of the chain, in dependency order and in reverse.
let chainStarts = ["start Database", "start Store", "start Queue"]
let chainStops = ["stop Queue", "stop Store", "stop Database"]

/// A service that records when it runs and when it returns, opens `running` once it runs, and
/// returns on graceful shutdown (or throws on cancellation); it throws at once if `fails`.
struct ProbeService: Service {
    let name: String
    let log: EventLog
    let running = Latch()
    var fails = false

    init(_ name: String, log: EventLog, fails: Bool = false) {
        self.name = name
        self.log = log
        self.fails = fails
    }

    func run() async throws {
        log.record("run \(name)")
        running.open()
        if fails { throw InjectedFailure(step: "run \(name)") }
        do {
            try await gracefulShutdown()
            log.record("end \(name)")
        } catch {
            log.record("cancel \(name)")
            throw error
        }
    }
}
