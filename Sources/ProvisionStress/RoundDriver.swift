import Dispatch
import Foundation
import Provision
import Synchronization

/// Runs one round's workers against its injector.
final class RoundDriver: Sendable {
    let state: RoundState
    let syncWorkers: Int
    let asyncWorkers: Int
    let operationsPerWorker: Int
    /// Whether scopes are closed while the workers use them (or only once they finished).
    let racesScopeCloses: Bool
    /// Whether a thread installs plugins.
    let installs: Bool
    /// The scopes open for the workers to use.
    let scopes = Locked<[ScopeBox]>([])
    let plugins = Locked<[Root]>([])
    let operations = Atomic<Int>(0)
    /// Request workers (threads, tasks, the installer) still running.
    let workersRunning = Atomic<Int>(0)

    init(
        state: RoundState,
        syncWorkers: Int,
        asyncWorkers: Int,
        operationsPerWorker: Int,
        racesScopeCloses: Bool,
        installs: Bool
    ) {
        self.state = state
        self.syncWorkers = syncWorkers
        self.asyncWorkers = asyncWorkers
        self.operationsPerWorker = operationsPerWorker
        self.racesScopeCloses = racesScopeCloses
        self.installs = installs
    }

    /// All workers' operations together.
    var budget: Int { (syncWorkers + asyncWorkers) * operationsPerWorker }

    private func generator(_ worker: UInt64) -> SeededGenerator {
        SeededGenerator(seed: state.spec.seed ^ (worker &* 0x9E37_79B9_7F4A_7C15))
    }

    /// Runs the workers, then the end-of-round checks; exits the process when they hang.
    func run(_ injector: Injector?) {
        guard let shared = injector else { return }
        let group = DispatchGroup()
        let go = DispatchSemaphore(value: 0)
        workersRunning.store(syncWorkers + asyncWorkers + 1, ordering: .sequentiallyConsistent)
        for index in 0..<syncWorkers {
            startThread(group, go, shared) { driver, injector in driver.syncWorker(injector, index) }
        }
        startThread(group, go, shared) { driver, injector in driver.installer(injector) }
        for index in 0..<asyncWorkers {
            startTask(group, shared) { driver, injector in
                await driver.asyncWorker(injector, index)
                driver.workersRunning.subtract(1, ordering: .sequentiallyConsistent)
            }
        }
        startTask(group, shared) { driver, injector in await driver.scopeManager(injector) }
        startTask(group, shared) { driver, injector in await driver.lifecycle(injector) }
        for _ in 0...syncWorkers { go.signal() }
        if group.wait(timeout: .now() + 60) == .timedOut { hang("the workers did not finish within 60 s") }

        let done = DispatchSemaphore(value: 0)
        Task.detached { [self] in
            await self.afterWorkers(shared)
            done.signal()
        }
        if done.wait(timeout: .now() + 60) == .timedOut { hang("the end-of-round checks did not finish within 60 s") }
    }

    private func startThread(
        _ group: DispatchGroup,
        _ go: DispatchSemaphore,
        _ injector: Injector,
        _ body: @escaping @Sendable (RoundDriver, Injector) -> Void
    ) {
        group.enter()
        // Weak: a finished `Thread` may release its closure late, and a strong capture would keep the
        // injector (and its singletons) alive past the end-of-round check.
        let thread = Thread { [weak injector, self] in
            go.wait()
            if let injector { body(self, injector) }
            self.workersRunning.subtract(1, ordering: .sequentiallyConsistent)
            group.leave()
        }
        thread.stackSize = 1 << 21
        thread.start()
    }

    private func startTask(
        _ group: DispatchGroup,
        _ injector: Injector,
        _ body: @escaping @Sendable (RoundDriver, Injector) async -> Void
    ) {
        group.enter()
        Task.detached { [weak injector, self] in
            if let injector { await body(self, injector) }
            group.leave()
        }
    }

    private func hang(_ what: String) -> Never {
        print("HANG in round \(state.number) (graph: \(state.spec.summary)): \(what)")
        print(
            "operations: \(operations.load(ordering: .relaxed)) of \(budget), workers running: "
                + "\(workersRunning.load(ordering: .relaxed)), shutdown called: \(state.flags.called), "
                + "returned: \(state.flags.returned), start: \(state.startOutcome.withLock { $0 })")
        for violation in state.violations.withLock({ $0 }) { print("  - \(violation)") }
        print("invariants: violated (hang)")
        exit(2)
    }

    // MARK: Requests

    private func pick(_ random: inout SeededGenerator, where include: (Root) -> Bool = { _ in true }) -> Root? {
        let candidates = state.roots.filter(include)
        guard !candidates.isEmpty else { return nil }
        return candidates[Int(random.next() % UInt64(candidates.count))]
    }

    private func anyRoot(_ random: inout SeededGenerator) -> Root {
        state.roots[Int(random.next() % UInt64(state.roots.count))]
    }

    private func openScope(_ random: inout SeededGenerator) -> ScopeBox? {
        let choice = random.next()
        return scopes.withLock { $0.isEmpty ? nil : $0[Int(choice % UInt64($0.count))] }
    }

    func syncResult(_ root: Root, _ via: Via) -> Result<AnyObject, ProvisionError> {
        Result { () throws(ProvisionError) -> AnyObject in
            switch via {
            case .injector(let injector): try root.ref.get(from: injector)
            case .scope(let box): try root.ref.get(from: box.scope)
            case .child(_, let child): try root.ref.get(from: child)
            }
        }
    }

    func asyncResult(_ root: Root, _ via: Via) async -> Result<AnyObject, ProvisionError> {
        do throws(ProvisionError) {
            switch via {
            case .injector(let injector): return .success(try await root.ref.get(from: injector))
            case .scope(let box): return .success(try await root.ref.get(from: box.scope))
            case .child(_, let child): return .success(try await root.ref.get(from: child))
            }
        } catch {
            return .failure(error)
        }
    }

    /// A thread's requests: synchronous, through the injector or an open scope.
    func syncWorker(_ injector: Injector, _ index: Int) {
        var random = generator(UInt64(index + 1))
        for _ in 0..<operationsPerWorker {
            operations.add(1, ordering: .relaxed)
            let root = anyRoot(&random)
            let via: Via =
                random.next() % 3 == 0 ? openScope(&random).map(Via.scope) ?? .injector(injector) : .injector(injector)
            let strict = state.flags.returned
            state.check(syncResult(root, via), root, via: via, sync: true, strict: strict)
        }
    }

    /// A task's requests: async, through the injector or an open scope, cancelled ones, child injectors
    /// and `withScope`.
    func asyncWorker(_ injector: Injector, _ index: Int) async {
        var random = generator(UInt64(100 + index))
        for _ in 0..<operationsPerWorker {
            operations.add(1, ordering: .relaxed)
            let root = anyRoot(&random)
            switch random.next() % 20 {
            case 0..<9:
                let strict = state.flags.returned
                let via = Via.injector(injector)
                state.check(await asyncResult(root, via), root, via: via, sync: false, strict: strict)
            case 9..<13:
                let via = openScope(&random).map(Via.scope) ?? .injector(injector)
                let strict = state.flags.returned
                state.check(await asyncResult(root, via), root, via: via, sync: false, strict: strict)
            case 13..<16:
                let via =
                    random.next() % 2 == 0
                    ? openScope(&random).map(Via.scope) ?? .injector(injector) : .injector(injector)
                await cancellable(root, via, cancel: random.next() % 2 == 0)
            case 16..<18:
                await childSession(injector, &random)
            default:
                await scopeSession(injector, &random)
            }
        }
    }

    /// A request in a task of its own, cancelled right after it started when `cancel`.
    private func cancellable(_ root: Root, _ via: Via, cancel: Bool) async {
        let task = Task { [self] () -> Outcome in
            let strict = state.flags.returned
            let result = await asyncResult(root, via)
            return Outcome(result: result, strict: strict, cancelled: Task.isCancelled)
        }
        if cancel {
            await Task.yield()
            task.cancel()
        }
        let outcome = await task.value
        state.check(outcome.result, root, via: via, sync: false, strict: outcome.strict, cancelled: outcome.cancelled)
    }

    /// `withScope` around a few async requests.
    private func scopeSession(_ injector: Injector, _ random: inout SeededGenerator) async {
        state.scopesOpened.add(1, ordering: .relaxed)
        let roots = (0..<3).map { _ in anyRoot(&random) }
        do {
            try await injector.withScope { scope in
                let box = ScopeBox(scope)
                for root in roots {
                    let strict = state.flags.returned
                    state.check(
                        await asyncResult(root, .scope(box)), root, via: .scope(box), sync: false, strict: strict)
                }
                box.closing.store(true, ordering: .sequentiallyConsistent)
            }
        } catch {
            state.violation("withScope threw \(error)")
        }
    }

    /// A child injector with bindings of its own: a few requests through it, then its shutdown.
    private func childSession(_ injector: Injector, _ random: inout SeededGenerator) async {
        let number = state.children.add(1, ordering: .relaxed).newValue
        var singletonDependencies: [Root] = []
        for _ in 0..<(1 + random.next() % 2) {
            if let root = pick(&random, where: { !$0.reach.needsScope && !$0.reach.needsAsync }) {
                singletonDependencies.append(root)
            }
        }
        let box = ChildBox(
            number: number, singletonDependencies: singletonDependencies, transientDependency: anyRoot(&random))
        let child: Injector
        do {
            child = try injector.makeChild(ChildModule(round: state, child: box))
        } catch {
            if error.code != .shutDown || !state.flags.called { state.violation("makeChild threw \(error)") }
            return
        }
        let own = [
            Root(ref: KeyRef<ChildService>(name: "singleton"), reach: box.singletonReach, label: "a child's singleton"),
            Root(ref: KeyRef<ChildService>(name: "transient"), reach: box.transientReach, label: "a child's transient"),
        ]
        let via = Via.child(box, child)
        for _ in 0..<(2 + random.next() % 4) {
            let isOwn = random.next() % 2 == 0
            let root = isOwn ? own[Int(random.next() % 2)] : anyRoot(&random)
            let sync = random.next() % 3 == 0
            // The parent's keys fail once the parent shut down; the child's own built singleton doesn't.
            let strict = !isOwn && state.flags.returned
            let result = sync ? syncResult(root, via) : await asyncResult(root, via)
            state.check(result, root, via: via, sync: sync, strict: strict)
        }
        box.flags.shutdownCalled.store(true, ordering: .sequentiallyConsistent)
        do {
            try await child.shutdown()
        } catch {
            state.violation("a child injector's shutdown() threw \(error)")
        }
        box.flags.shutdownReturned.store(true, ordering: .sequentiallyConsistent)
        let counters = box.singletonCounters
        let built = counters.completes.load(ordering: .acquiring)
        let disposals = counters.disposals.load(ordering: .acquiring)
        if built != disposals {
            state.violation(
                "a child's shutdown() returned with its singleton built \(built) times, disposed \(disposals)")
        }
        state.check(await asyncResult(own[0], via), own[0], via: via, sync: false, strict: true)
    }

    // MARK: Scopes, plugins, lifecycle

    /// Opens and closes scopes while the workers run, then closes the rest.
    func scopeManager(_ injector: Injector) async {
        var random = generator(200)
        while workersRunning.load(ordering: .sequentiallyConsistent) > 0 {
            let open = scopes.withLock { $0.count }
            let choice = random.next()
            if open < 2 || (open < 6 && random.next() % 2 == 0) {
                let box = ScopeBox(injector.makeScope())
                scopes.withLock { $0.append(box) }
                state.scopesOpened.add(1, ordering: .relaxed)
            } else if racesScopeCloses {
                let box = scopes.withLock { $0.remove(at: Int(choice % UInt64($0.count))) }
                await close(box, synchronously: random.next() % 2 == 0)
            }
            try? await Task.sleep(for: .microseconds(Int(50 + random.next() % 300)))
        }
        let rest = scopes.withLock { scopes in
            defer { scopes = [] }
            return scopes
        }
        for box in rest { await close(box, synchronously: false) }
    }

    private func close(_ box: ScopeBox, synchronously: Bool) async {
        box.closing.store(true, ordering: .sequentiallyConsistent)
        do throws(ProvisionError) {
            if synchronously {
                try closeSynchronously(box.scope)
            } else {
                try await box.scope.close()
            }
        } catch {
            state.violation("closing a scope threw \(error)")
        }
    }

    /// Installs a few plugins at moments spread over the round, each resolved at once.
    func installer(_ injector: Injector) {
        var random = generator(300)
        let count = installs ? 3 + Int(random.next() % 4) : 0
        for index in 0..<count {
            let threshold = budget * (index + 1) / (count + 1)
            while operations.load(ordering: .relaxed) < threshold && workersRunning.load(ordering: .relaxed) > 1 {
                usleep(100)
            }
            let isSingleton = random.next() % 2 == 0
            let dependency =
                isSingleton
                ? pick(&random, where: { !$0.reach.needsScope && !$0.reach.needsAsync }) : anyRoot(&random)
            guard let dependency else { continue }
            let name = "plugin-\(index)"
            let counters = FactoryCounters(
                "plugin \(index) (\(isSingleton ? "singleton" : "transient"))", isSingleton ? .singleton : .transient,
                flags: state.flags, isParent: true)
            let plugin = PluginSpec(name: name, counters: counters, dependency: dependency, isSingleton: isSingleton)
            state.pluginCounters.withLock { $0.append(counters) }
            let strict = state.flags.returned
            do {
                try injector.install(PluginModule(round: state, plugin: plugin))
            } catch {
                if error.code != .shutDown || !state.flags.called { state.violation("install() threw \(error)") }
                continue
            }
            state.installs.add(1, ordering: .relaxed)
            if strict { state.violation("install() succeeded after shutdown() returned") }
            let root = Root(ref: KeyRef<Plugin>(name: name), reach: plugin.reach, label: counters.label)
            plugins.withLock { $0.append(root) }
            let strictRequest = state.flags.returned
            let via = Via.injector(injector)
            state.check(syncResult(root, via), root, via: via, sync: true, strict: strictRequest)
        }
    }

    private func waitForOperations(_ count: Int) async {
        while operations.load(ordering: .relaxed) < count && workersRunning.load(ordering: .sequentiallyConsistent) > 0
        {
            try? await Task.sleep(for: .microseconds(200))
        }
    }

    /// `start()` at a random moment (not in every round), `shutdown()` at a later one (sometimes right
    /// after `start()` began, sometimes from two tasks at once).
    func lifecycle(_ injector: Injector) async {
        var random = generator(400)
        let starts = random.next() % 100 < 85
        let startAt = Int(random.next() % UInt64(budget * 6 / 10))
        let racing = random.next() % 4 == 0
        let shutdownAt = budget * Int(3 + random.next() % 8) / 10
        let twice = random.next() % 3 == 0
        var start: Task<Void, Never>?
        if starts {
            await waitForOperations(startAt)
            start = Task { [self] in await runStart(injector) }
        }
        if starts && racing {
            await Task.yield()
        } else {
            await waitForOperations(shutdownAt)
        }
        await runShutdown(injector, twice: twice)
        await start?.value
    }

    private func runStart(_ injector: Injector) async {
        do throws(ProvisionError) {
            try await injector.start()
            state.startOutcome.withLock { $0 = "started" }
            for node in state.spec.services {
                let counters = state.counters[node]
                if !counters.startCompleted.load(ordering: .acquiring)
                    || counters.startRuns.load(ordering: .acquiring) != 1
                {
                    state.violation("start() returned, but the service \(counters.label) did not start exactly once")
                }
            }
        } catch {
            switch error.code {
            case .startFailed:
                state.startOutcome.withLock { $0 = "failed" }
                for failure in error.underlyingErrors where !isLegitimateStartFailure(failure) {
                    state.violation("start() failed with \(failure.code): \(failure)")
                }
            case .shutDown:
                state.startOutcome.withLock { $0 = "refused (shut down)" }
                if !state.flags.called { state.violation("start() threw shutDown before shutdown(): \(error)") }
            default:
                state.violation("start() threw \(error.code): \(error)")
            }
        }
    }

    private func isLegitimateStartFailure(_ failure: ProvisionError) -> Bool {
        switch failure.code {
        case .factoryFailed: failure.cause is InjectedFailure
        case .cycle: state.spec.cyclic
        case .requiresAsync:
            state.spec.cyclic || state.spec.reach.contains(where: \.asyncHazard)
                || state.pluginCounters.withLock { !$0.isEmpty }
        case .shutDown: state.flags.called
        default: false
        }
    }

    private func runShutdown(_ injector: Injector, twice: Bool) async {
        state.flags.shutdownCalled.store(true, ordering: .sequentiallyConsistent)
        if twice {
            async let first: Void = shutdownOnce(injector)
            async let second: Void = shutdownOnce(injector)
            _ = await (first, second)
        } else {
            await shutdownOnce(injector)
        }
    }

    private func shutdownOnce(_ injector: Injector) async {
        let clock = ContinuousClock()
        let began = clock.now
        do throws(ProvisionError) {
            try await injector.shutdown()
        } catch {
            let stopHooks = error.underlyingErrors.allSatisfy {
                $0.code == .factoryFailed && $0.cause is InjectedFailure
            }
            if error.code != .stopFailed || !stopHooks { state.violation("shutdown() threw \(error)") }
        }
        state.flags.returnedAt.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
        state.flags.shutdownReturned.store(true, ordering: .sequentiallyConsistent)
        let took = began.duration(to: clock.now)
        if took > .seconds(5) { state.violation("shutdown() took \(took) (a lost wake-up?)") }
        state.checkShutdownReturned()
    }

    /// After the workers: shutdown done, every request fails with shutDown and runs no factory, the
    /// services stopped as they started.
    private func afterWorkers(_ injector: Injector) async {
        if !state.flags.returned { await runShutdown(injector, twice: false) }
        let before = state.parentFactoryRuns.load(ordering: .sequentiallyConsistent)
        let box = ScopeBox(injector.makeScope())
        for root in state.roots + plugins.withLock({ $0 }) {
            for via in [Via.injector(injector), .scope(box)] {
                state.check(syncResult(root, via), root, via: via, sync: true, strict: true)
                state.check(await asyncResult(root, via), root, via: via, sync: false, strict: true)
            }
        }
        await close(box, synchronously: false)
        do {
            try injector.install(PluginModule(round: state, plugin: afterShutdownPlugin()))
            state.violation("install() succeeded after shutdown() returned")
        } catch {
            if error.code != .shutDown { state.violation("install() after shutdown() threw \(error.code): \(error)") }
        }
        do throws(ProvisionError) {
            try await injector.start()
            state.violation("start() succeeded after shutdown() returned")
        } catch {
            if error.code != .shutDown {
                state.violation("start() after shutdown() threw \(error.code): \(error)")
            }
        }
        let ran = state.parentFactoryRuns.load(ordering: .sequentiallyConsistent) - before
        if ran != 0 { state.violation("\(ran) factories ran for requests made after shutdown() returned") }
        state.checkServices(startedServices: injector.startedServices)
    }

    private func afterShutdownPlugin() -> PluginSpec {
        let counters = FactoryCounters("plugin after shutdown", .transient, flags: state.flags, isParent: true)
        return PluginSpec(name: "late", counters: counters, dependency: state.roots[0], isSingleton: false)
    }
}

/// A request's outcome, handed back from the task that made it: the instance is only inspected.
private struct Outcome: @unchecked Sendable {
    let result: Result<AnyObject, ProvisionError>
    let strict: Bool
    let cancelled: Bool
}

/// Closes a scope without awaiting (the synchronous overload).
private func closeSynchronously(_ scope: ServiceScope) throws(ProvisionError) {
    try scope.close()
}
