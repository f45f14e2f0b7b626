/// The order in which ``Injector/start()`` starts services: batches in dependency order, each batch's
/// services independent of each other.
///
/// A service depends on another when the other is reachable from its binding through the static
/// dependencies of the injector's bindings (constructor parameters, declared closure dependencies,
/// multibinding elements, and the properties injected into a built instance; not `Provider` or `Lazy`
/// handles, which resolve later). A binding whose
/// dependencies are only known when its closure runs could depend on anything built before it, so a
/// service that reaches one depends on every service created before it (creation order is a valid
/// dependency order: a dependency is always built before its dependent).
struct StartOrder {
    /// The services to start, batch by batch.
    private(set) var batches: [[LifecycleActions]] = []

    init(services: [LifecycleActions], injector: Injector) {
        let created = injector.lifecycle.recorder.creationOrder
        var creationIndex: [BindingKey: Int] = [:]
        for (index, key) in created.enumerated() where creationIndex[key] == nil {
            creationIndex[key] = index
        }
        let keys = Set(services.map(\.key))
        var dependencies: [BindingKey: Set<BindingKey>] = [:]
        for service in services {
            let (reached, isDynamic) = StartOrder.servicesReached(from: service.key, among: keys, in: injector)
            var set = reached
            if isDynamic {
                // Instance bindings are never recorded: they count as created first.
                let own = creationIndex[service.key] ?? -1
                for other in keys where (creationIndex[other] ?? -1) < own {
                    set.insert(other)
                }
            }
            set.remove(service.key)
            dependencies[service.key] = set
        }
        var started: Set<BindingKey> = []
        var remaining = services
        while !remaining.isEmpty {
            var batch = remaining.filter { dependencies[$0.key, default: []].isSubset(of: started) }
            // Unreachable (linking rejects static cycles, and the dynamic rule only looks backwards in
            // creation order), but a batch is never empty.
            if batch.isEmpty, let first = remaining.first { batch = [first] }
            let batchKeys = Set(batch.map(\.key))
            started.formUnion(batchKeys)
            remaining.removeAll { batchKeys.contains($0.key) }
            batches.append(batch)
        }
    }

    /// The services reachable from `key` (stopping at each), and whether the walk met a binding whose
    /// dependencies are dynamic.
    private static func servicesReached(
        from key: BindingKey,
        among services: Set<BindingKey>,
        in injector: Injector
    ) -> (Set<BindingKey>, Bool) {
        var reached: Set<BindingKey> = []
        var isDynamic = false
        var visited: Set<BindingKey> = [key]
        var pending = [key]
        while let current = pending.popLast() {
            // Only this injector's bindings: a parent's services are the parent's to start.
            guard let node = injector.registry.retainedNode(for: current) else { continue }
            guard let declared = node.dependencyKeys else {
                isDynamic = true
                continue
            }
            for dependency in declared + node.injectedPropertyKeys where visited.insert(dependency).inserted {
                if services.contains(dependency) {
                    reached.insert(dependency)
                } else {
                    pending.append(dependency)
                }
            }
        }
        return (reached, isDynamic)
    }
}
