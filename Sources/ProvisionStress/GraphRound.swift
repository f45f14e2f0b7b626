import Dispatch
import Provision
import Synchronization

/// Whether an injector's `shutdown()` was called, and whether it returned.
final class LifecycleFlags: Sendable {
    let shutdownCalled = Atomic<Bool>(false)
    let shutdownReturned = Atomic<Bool>(false)
    /// When shutdown() returned, in nanoseconds of uptime.
    let returnedAt = Atomic<UInt64>(0)

    var called: Bool { shutdownCalled.load(ordering: .sequentiallyConsistent) }
    var returned: Bool { shutdownReturned.load(ordering: .sequentiallyConsistent) }
}

/// What one binding's factory and instances did in a round.
final class FactoryCounters: Sendable {
    let label: String
    let lifetime: NodeLifetime
    /// The flags of the injector that owns the binding.
    let flags: LifecycleFlags
    /// Whether the binding is the round's injector's (not a child's).
    let isParent: Bool
    /// Whether the factory fails a third of its runs.
    let fails: Bool
    let hasHooks: Bool
    let salt: UInt64
    let runs = Atomic<Int>(0)
    let inFlight = Atomic<Int>(0)
    let completes = Atomic<Int>(0)
    let disposals = Atomic<Int>(0)
    /// The identity of the singleton instance, once seen.
    let canonical = Atomic<Int>(0)
    let startRuns = Atomic<Int>(0)
    let startCompleted = Atomic<Bool>(false)
    let stopRuns = Atomic<Int>(0)

    init(
        _ label: String,
        _ lifetime: NodeLifetime,
        flags: LifecycleFlags,
        isParent: Bool,
        fails: Bool = false,
        hasHooks: Bool = false
    ) {
        self.label = label
        self.lifetime = lifetime
        self.flags = flags
        self.isParent = isParent
        self.fails = fails
        self.hasHooks = hasHooks
        var hasher = Hasher()
        hasher.combine(label)
        salt = UInt64(bitPattern: Int64(hasher.finalize()))
    }

    /// Whether `object` is the one singleton instance (the first one seen is).
    func isCanonical(_ object: AnyObject) -> Bool {
        let id = Int(bitPattern: ObjectIdentifier(object))
        let (exchanged, original) = canonical.compareExchange(expected: 0, desired: id, ordering: .relaxed)
        return exchanged || original == id
    }
}

/// A key to request, with what requesting it may run into.
struct Root: Sendable {
    let ref: any GraphKeyRef
    let reach: Reach
    let label: String
}

/// A scope in use by the round's workers.
final class ScopeBox: Sendable {
    let scope: ServiceScope
    /// Set just before the scope is closed.
    let closing = Atomic<Bool>(false)
    /// The scoped instance of each binding in this scope, once seen.
    private let instances = Locked<[ObjectIdentifier: ObjectIdentifier]>([:])

    init(_ scope: ServiceScope) {
        self.scope = scope
    }

    var isClosing: Bool { closing.load(ordering: .sequentiallyConsistent) }

    /// Whether `object` is this scope's one instance of its binding.
    func isCanonical(_ object: GraphObject) -> Bool {
        instances.withLock { instances in
            let id = ObjectIdentifier(object)
            if let known = instances[ObjectIdentifier(object.counters)] { return known == id }
            instances[ObjectIdentifier(object.counters)] = id
            return true
        }
    }
}

/// A child injector's bindings: what they depend on in the parent, and their counters.
final class ChildBox: Sendable {
    let flags = LifecycleFlags()
    let singletonCounters: FactoryCounters
    let transientCounters: FactoryCounters
    let singletonDependencies: [Root]
    let transientDependency: Root
    let singletonReach: Reach
    let transientReach: Reach

    init(number: Int, singletonDependencies: [Root], transientDependency: Root) {
        singletonCounters = FactoryCounters("child \(number) singleton", .singleton, flags: flags, isParent: false)
        transientCounters = FactoryCounters("child \(number) transient", .transient, flags: flags, isParent: false)
        self.singletonDependencies = singletonDependencies
        self.transientDependency = transientDependency
        singletonReach = Reach.of(
            lifetime: .singleton, recipe: .closure, fails: false,
            edges: singletonDependencies.map { (reach: $0.reach, syncOnly: true) })
        transientReach = Reach.of(
            lifetime: .transient, recipe: .constructor, fails: false,
            edges: [(reach: transientDependency.reach, syncOnly: false)])
    }
}

/// A plugin to install.
struct PluginSpec: Sendable {
    let name: String
    let counters: FactoryCounters
    let dependency: Root
    let isSingleton: Bool

    var reach: Reach {
        Reach.of(
            lifetime: isSingleton ? .singleton : .transient, recipe: isSingleton ? .closure : .constructor,
            fails: false, edges: [(reach: dependency.reach, syncOnly: isSingleton)])
    }
}

/// Where a request is made.
enum Via: Sendable {
    case injector(Injector)
    case scope(ScopeBox)
    case child(ChildBox, Injector)

    var scopeBox: ScopeBox? {
        if case .scope(let box) = self { box } else { nil }
    }

    var child: ChildBox? {
        if case .child(let box, _) = self { box } else { nil }
    }

    var name: String {
        switch self {
        case .injector: "the injector"
        case .scope: "a scope"
        case .child: "a child injector"
        }
    }
}

/// Everything one round counts and checks, shared by its workers, factories, hooks and instances.
final class RoundState: Sendable {
    let spec: GraphSpec
    let number: Int
    let flags = LifecycleFlags()
    let counters: [FactoryCounters]
    let cycleCounters: [FactoryCounters]
    let roots: [Root]
    /// Per node, the services below it; per node, the services above it.
    let servicesBelow: [[Int]]
    let servicesAbove: [[Int]]
    let pluginCounters = Locked<[FactoryCounters]>([])

    let violations = Locked<[String]>([])
    let errorCounts = Locked<[String: Int]>([:])
    let requests = Atomic<Int>(0)
    let factoryRuns = Atomic<Int>(0)
    let parentFactoryRuns = Atomic<Int>(0)
    /// Transient factories that ran after shutdown() returned, in requests begun before (allowed).
    let lateTransientRuns = Atomic<Int>(0)
    let disposed = Atomic<Int>(0)
    let startLog = Locked<[Int]>([])
    let stopLog = Locked<[Int]>([])
    let children = Atomic<Int>(0)
    let scopesOpened = Atomic<Int>(0)
    let installs = Atomic<Int>(0)
    let startOutcome = Locked<String>("not called")

    init(spec: GraphSpec, number: Int) {
        self.spec = spec
        self.number = number
        let flags = self.flags
        counters = spec.nodes.map { node in
            FactoryCounters(
                RoundState.describe(node), node.lifetime, flags: flags, isParent: true, fails: node.fails,
                hasHooks: node.hooks)
        }
        cycleCounters = ["cyclic singleton A", "cyclic singleton B"].map {
            FactoryCounters($0, .singleton, flags: flags, isParent: true)
        }
        var roots = spec.nodes.map { node in
            Root(ref: nodeRefs[node.index].key, reach: spec.reach[node.index], label: RoundState.describe(node))
        }
        roots += spec.ports.enumerated().map { port, target in
            Root(ref: portRefs[port], reach: spec.reach[target], label: "any Port\(port) (to node \(target))")
        }
        if spec.cyclic {
            roots += ["A", "B"].enumerated().map { index, name in
                Root(ref: cycleRefs[index], reach: .cyclicPair, label: "cyclic singleton \(name)")
            }
        }
        self.roots = roots
        let services = Set(spec.services)
        servicesBelow = spec.below.map { $0.filter(services.contains).sorted() }
        servicesAbove = spec.nodes.indices.map { node in
            spec.services.filter { spec.below[$0].contains(node) }
        }
    }

    static func describe(_ node: NodeSpec) -> String {
        "node \(node.index) (\(node.lifetime) \(node.recipe)\(node.fails ? ", failing" : "")"
            + "\(node.hooks ? ", service" : ""))"
    }

    /// The key an edge requests.
    func keyRef(_ edge: Edge) -> any GraphKeyRef {
        switch edge {
        case .node(let index): nodeRefs[index].key
        case .port(let port): portRefs[port]
        }
    }

    func violation(_ text: String) {
        violations.withLock { if $0.count < 30 { $0.append(text) } }
    }

    var hasViolations: Bool { violations.withLock { !$0.isEmpty } }

    // MARK: Factories and instances

    /// Runs a factory of `counters`' binding: counts it, fails it when chosen to, checks that a singleton
    /// factory never runs twice at once nor again after its instance was built.
    func build<N: GraphObject>(_ counters: FactoryCounters, marksComplete: Bool, _ make: () -> N) throws -> N {
        let run = counters.runs.add(1, ordering: .relaxed).newValue
        factoryRuns.add(1, ordering: .relaxed)
        if counters.isParent { parentFactoryRuns.add(1, ordering: .sequentiallyConsistent) }
        if counters.flags.returned {
            if counters.lifetime == .transient {
                lateTransientRuns.add(1, ordering: .relaxed)
            } else {
                let after =
                    (DispatchTime.now().uptimeNanoseconds &- counters.flags.returnedAt.load(ordering: .relaxed)) / 1_000
                let context = withUnsafeCurrentTask { $0 == nil ? "on a thread" : "in a task" }
                violation(
                    "the factory of \(counters.label) ran after its injector's shutdown() returned "
                        + "(\(after) µs after, \(context), run \(run))")
            }
        }
        if counters.lifetime == .singleton {
            if counters.inFlight.add(1, ordering: .acquiringAndReleasing).newValue > 1 {
                violation("two runs of the singleton factory of \(counters.label) at once")
            }
            if counters.completes.load(ordering: .acquiring) > 0 {
                violation("the singleton factory of \(counters.label) ran again after its instance was built")
            }
        }
        defer {
            if counters.lifetime == .singleton { counters.inFlight.subtract(1, ordering: .acquiringAndReleasing) }
        }
        var random = SeededGenerator(seed: spec.seed ^ counters.salt ^ UInt64(run))
        if counters.fails && random.next() % 3 == 0 { throw InjectedFailure(label: counters.label) }
        let object = make()
        if marksComplete { completed(object) }
        return object
    }

    /// The instance's construction finished.
    func completed(_ object: GraphObject) {
        if object.markComplete() {
            violation("an instance of \(object.counters.label) was completed twice (properties injected twice?)")
        }
        if object.lifetime == .singleton
            && object.counters.completes.add(1, ordering: .acquiringAndReleasing).newValue > 1
        {
            violation("the singleton \(object.counters.label) was built twice")
        }
        if object.lifetime == .scoped { object.counters.completes.add(1, ordering: .acquiringAndReleasing) }
    }

    /// The injector injected a graph node's properties (constructor nodes only).
    func injected(_ object: GraphObject, node index: Int) {
        if spec.nodes[index].recipe != .constructor {
            violation("the injector injected the properties of a closure's result (\(object.counters.label))")
        }
        completed(object)
    }

    /// `object` is being disposed: checks that it is disposed once, in its time and order.
    func disposing(_ object: GraphObject) {
        disposed.add(1, ordering: .relaxed)
        let label = object.counters.label
        if object.disposalCount > 0 { violation("\(label) was disposed twice") }
        guard object.isComplete else {
            // Its initializer ran but its property injection failed: the build fails, and the injector
            // disposes the instance at once (a singleton's or scoped instance's; never a transient's).
            if object.lifetime == .transient {
                violation("the transient \(label), whose property injection failed, was disposed")
            }
            return
        }
        // Counted against the binding's completed builds (see `checkShutdownReturned`); an incomplete
        // instance's one disposal is checked when it is freed (see `ended`).
        object.counters.disposals.add(1, ordering: .relaxed)
        switch object.lifetime {
        case .transient:
            violation("the transient \(label) was disposed")
        case .singleton:
            if !object.counters.flags.called { violation("the singleton \(label) was disposed before shutdown()") }
            if object.counters.startCompleted.load(ordering: .acquiring)
                && object.counters.stopRuns.load(ordering: .acquiring) == 0
            {
                violation("the service \(label) was disposed before its stop hook ran")
            }
        case .scoped:
            break
        }
        // Disposal is in reverse creation order: what this instance holds (directly or through
        // transients) of its own lifetime and injector is disposed after it.
        var pending = object.held
        var seen: Set<ObjectIdentifier> = []
        while let next = pending.popLast() {
            guard let held = next as? GraphObject, seen.insert(ObjectIdentifier(held)).inserted else { continue }
            if held.lifetime == .transient {
                pending += held.held
            } else if held.lifetime == object.lifetime && held.counters.flags === object.counters.flags
                && held.disposalCount > 0
            {
                violation("\(label) was disposed after \(held.counters.label), which it holds")
            }
        }
    }

    /// An instance of `counters`' binding was freed: checks it was disposed as often as its lifetime says.
    func ended(_ counters: FactoryCounters, complete: Bool, disposals: Int) {
        switch counters.lifetime {
        case .transient:
            if disposals != 0 { violation("a transient \(counters.label) was disposed \(disposals) times") }
        case .singleton, .scoped:
            // Built, or constructed with a failed property injection (disposed by the injector when its
            // build failed): disposed exactly once either way.
            if disposals != 1 {
                let kind = complete ? "an" : "an incomplete"
                violation("\(kind) instance of \(counters.label) was freed, disposed \(disposals) times")
            }
        }
    }

    // MARK: Services

    func startHook(_ node: Int, _ instance: GraphObject) async throws {
        let counters = self.counters[node]
        if flags.returned { violation("the start hook of \(counters.label) ran after shutdown() returned") }
        if counters.startRuns.add(1, ordering: .acquiringAndReleasing).newValue > 1 {
            violation("the start hook of \(counters.label) ran twice")
        }
        if !counters.isCanonical(instance) { violation("the start hook of \(counters.label) got another instance") }
        if instance.disposalCount > 0 { violation("the start hook of \(counters.label) got a disposed instance") }
        for dependency in servicesBelow[node] where !self.counters[dependency].startCompleted.load(ordering: .acquiring)
        {
            let how =
                spec.declaredBelow[node].contains(dependency)
                ? "through declared dependencies"
                : spec.requestedBelow[node].contains(dependency)
                    ? "through a closure's request" : "only through an injected property"
            violation(
                "the start hook of \(counters.label) began before its dependency \(self.counters[dependency].label) "
                    + "had started (reached \(how))")
        }
        await Task.yield()
        if spec.nodes[node].startHookFails { throw InjectedFailure(label: "start hook of \(counters.label)") }
        counters.startCompleted.store(true, ordering: .releasing)
        startLog.withLock { $0.append(node) }
    }

    func stopHook(_ node: Int, _ instance: GraphObject) async throws {
        let counters = self.counters[node]
        if counters.stopRuns.add(1, ordering: .acquiringAndReleasing).newValue > 1 {
            violation("the stop hook of \(counters.label) ran twice")
        }
        if !counters.startCompleted.load(ordering: .acquiring) {
            violation("the stop hook of \(counters.label) ran though its start hook never returned")
        }
        if instance.disposalCount > 0 {
            violation("the stop hook of \(counters.label) ran after its instance was disposed")
        }
        for dependent in servicesAbove[node] {
            let above = self.counters[dependent]
            if above.startCompleted.load(ordering: .acquiring) && above.stopRuns.load(ordering: .acquiring) == 0 {
                violation("\(counters.label) was stopped before \(above.label), which depends on it")
            }
        }
        stopLog.withLock { $0.append(node) }
        await Task.yield()
        if spec.nodes[node].stopHookFails { throw InjectedFailure(label: "stop hook of \(counters.label)") }
    }

    /// Right after a `shutdown()` call returned: every service that started is stopped, every singleton
    /// built is disposed.
    func checkShutdownReturned() {
        for counters in counters where counters.startCompleted.load(ordering: .acquiring) {
            let stops = counters.stopRuns.load(ordering: .acquiring)
            if stops != 1 {
                violation("shutdown() returned with the started service \(counters.label) stopped \(stops) times")
            }
        }
        for counters in counters + cycleCounters + pluginCounters.withLock({ $0 })
        where counters.lifetime == .singleton {
            let built = counters.completes.load(ordering: .acquiring)
            let disposals = counters.disposals.load(ordering: .acquiring)
            if built != disposals {
                violation("shutdown() returned with \(counters.label) built \(built) times, disposed \(disposals)")
            }
        }
    }

    /// At the end of the round: the services stopped are exactly those that started, in reverse order.
    func checkServices(startedServices: [BindingKey]) {
        var indexOfKey: [BindingKey: Int] = [:]
        for node in spec.nodes { indexOfKey[nodeRefs[node.index].key.bindingKey] = node.index }
        let started = startedServices.compactMap { indexOfKey[$0] }
        if started.count != startedServices.count {
            violation("startedServices lists keys that are not services: \(startedServices)")
        }
        let completed = startLog.withLock { $0 }
        let stopped = stopLog.withLock { $0 }
        if Set(started).count != started.count { violation("startedServices lists a service twice: \(started)") }
        if Set(started) != Set(completed) {
            violation("startedServices \(started) differs from the start hooks that returned \(completed)")
        }
        if stopped != started.reversed() {
            violation("services stopped in the order \(stopped), started in the order \(started)")
        }
    }

    // MARK: Requests

    /// Checks a request's outcome: an instance whose singletons and scoped instances are the shared ones,
    /// or an error that is legitimate for the key and the moment.
    ///
    /// - Parameters:
    ///   - strict: The request began after `shutdown()` returned (of the injector it must fail with).
    ///   - cancelled: The request's task was cancelled.
    func check(
        _ result: Result<AnyObject, ProvisionError>,
        _ root: Root,
        via: Via,
        sync: Bool,
        strict: Bool,
        cancelled: Bool = false
    ) {
        requests.add(1, ordering: .relaxed)
        let what =
            "\(sync ? "a synchronous" : "an async") request for \(root.label) through \(via.name) "
            + "[\(moment(via))]"
        switch result {
        case .success(let object):
            count("instance")
            if strict { violation("\(what), begun after shutdown() returned, got an instance") }
            if root.reach.needsScope && via.scopeBox == nil {
                violation("\(what) got an instance, though a scoped binding is below it")
            }
            walk(object, via: via, what: what)
        case .failure(let error):
            count(error.code.description)
            let legit: Bool
            switch error.code {
            case .shutDown:
                legit = flags.called || via.child?.flags.called == true
            case .outsideScope:
                legit = root.reach.needsScope && (via.scopeBox?.isClosing ?? true)
            case .factoryFailed:
                legit = root.reach.mayFail && error.cause is InjectedFailure
            case .cycle:
                legit = root.reach.reachesCycle
            case .requiresAsync:
                legit = sync ? root.reach.syncHazard : root.reach.asyncHazard
            case .cancelled:
                legit = cancelled
            default:
                legit = false
            }
            if strict && error.code != .shutDown {
                violation("\(what), begun after shutdown() returned, threw \(error.code), not shutDown: \(error)")
            } else if !legit {
                let detail = error.code == .cycle && !spec.cyclic ? " (a false cycle: the graph is acyclic)" : ""
                violation("\(what) threw \(error.code)\(detail): \(error)")
            }
        }
    }

    /// Where the lifecycles stood when a request ended, for a report.
    private func moment(_ via: Via) -> String {
        func phase(_ flags: LifecycleFlags) -> String {
            flags.returned ? "returned" : flags.called ? "called" : "not called"
        }
        var parts = ["shutdown \(phase(flags))"]
        if let child = via.child { parts.append("child shutdown \(phase(child.flags))") }
        if let box = via.scopeBox { parts.append(box.isClosing ? "scope closing" : "scope open") }
        return parts.joined(separator: ", ")
    }

    private func count(_ outcome: String) {
        errorCounts.withLock { $0[outcome, default: 0] += 1 }
    }

    /// Checks every object a request got: complete, the one singleton (or scoped instance of the scope),
    /// not disposed while still in service.
    private func walk(_ root: AnyObject, via: Via, what: String) {
        var pending = [root]
        var seen: Set<ObjectIdentifier> = []
        while let next = pending.popLast() {
            guard let object = next as? GraphObject, seen.insert(ObjectIdentifier(object)).inserted else { continue }
            let label = object.counters.label
            if !object.isComplete { violation("\(what) got an incomplete \(label) (properties not injected)") }
            switch object.lifetime {
            case .singleton:
                if !object.counters.isCanonical(object) { violation("\(what) got a second instance of \(label)") }
                if object.disposalCount > 0 && !object.counters.flags.called {
                    violation("\(what) got \(label) disposed before shutdown()")
                }
            case .scoped:
                if let box = via.scopeBox {
                    if !box.isCanonical(object) { violation("\(what) got a second instance of \(label) in one scope") }
                    if object.disposalCount > 0 && !box.isClosing {
                        violation("\(what) got \(label) disposed before its scope closed")
                    }
                } else {
                    violation("\(what) got the scoped \(label) outside any scope")
                }
            case .transient:
                break
            }
            pending += object.held
        }
    }
}
