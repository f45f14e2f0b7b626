import Provision
import Synchronization

/// Counts live service objects across the run: every object's init adds one, its deinit removes one, so
/// after every injector is dropped the count must be back to zero.
enum LiveObjects {
    static let count = Atomic<Int>(0)
    static let created = Atomic<Int>(0)
}

/// The base of every service in the stress graph: tracks its own lifetime.
class Tracked: @unchecked Sendable {
    init() {
        LiveObjects.count.add(1, ordering: .relaxed)
        LiveObjects.created.add(1, ordering: .relaxed)
    }

    deinit {
        LiveObjects.count.subtract(1, ordering: .relaxed)
    }
}

final class Clock: Tracked, @unchecked Sendable {}
final class Pool: Tracked, @unchecked Sendable {}
final class Store: Tracked, @unchecked Sendable {
    let pool: Pool
    init(pool: Pool) {
        self.pool = pool
        super.init()
    }
}
final class Handler: Tracked, @unchecked Sendable {
    let store: Store
    let clock: Clock
    init(store: Store, clock: Clock) {
        self.store = store
        self.clock = clock
        super.init()
    }
}
final class Job: Tracked, @unchecked Sendable {
    let name: String
    let priority: Int
    let handler: Handler
    init(name: String, priority: Int, handler: Handler) {
        self.name = name
        self.priority = priority
        self.handler = handler
        super.init()
    }
}
final class Flaky: Tracked, @unchecked Sendable {}
final class Session: Tracked, @unchecked Sendable {
    let clock: Clock
    init(clock: Clock) {
        self.clock = clock
        super.init()
    }
}

struct FlakyFailure: Error {}

/// Counts singleton factory runs of one injector.
final class FactoryRuns: Sendable {
    let clock = Atomic<Int>(0)
    let pool = Atomic<Int>(0)
    let flakySuccesses = Atomic<Int>(0)
}

/// The shared graph: singletons (Clock, Pool), transients (Store, Handler), named and argument bindings.
struct StressModule: Module {
    let runs: FactoryRuns

    func configure(_ binder: Binder) {
        let runs = self.runs
        binder.bind(Clock.self).to { _ in
            runs.clock.add(1, ordering: .relaxed)
            return Clock()
        }.in(.singleton)
        binder.bind(Pool.self).to { _ in
            runs.pool.add(1, ordering: .relaxed)
            return Pool()
        }.in(.singleton)
        binder.bind(Store.self).to(Store.init(pool:))
        binder.bind(Handler.self).to(Handler.init(store:clock:))
        binder.bind(Handler.self, named: "audit").to(Handler.init(store:clock:))
        binder.bind(Job.self).withArguments(String.self, Int.self)
            .to { resolver, name, priority in Job(name: name, priority: priority, handler: try resolver.get()) }
    }
}

/// A per-child-injector module: a session singleton that depends on the parent's clock.
struct SessionModule: Module {
    func configure(_ binder: Binder) {
        binder.bind(Session.self).to(Session.init(clock:)).in(.singleton)
    }
}

/// A singleton whose factory fails on purpose, until it succeeds once.
struct FlakyModule: Module {
    let runs: FactoryRuns
    let failures: Int

    func configure(_ binder: Binder) {
        let runs = self.runs
        let box = FailureBox(failures: failures)
        binder.bind(Flaky.self).to { _ in
            if box.remaining.subtract(1, ordering: .relaxed).newValue >= 0 { throw FlakyFailure() }
            runs.flakySuccesses.add(1, ordering: .relaxed)
            return Flaky()
        }.in(.singleton)
    }
}

/// How many more times a flaky factory fails.
final class FailureBox: Sendable {
    let remaining: Atomic<Int>
    init(failures: Int) {
        remaining = Atomic(failures)
    }
}
