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

    /// Puts each service in the batch after the last of its dependencies' (longest-path layering):
    /// a batch holds every service whose dependencies are all in earlier batches, in `services` order.
    ///
    /// Linear in the services and their dependencies: a service whose dependencies are dynamic is
    /// placed after the latest batch of the services created before it (a running maximum over
    /// creation order), never compared with each of them.
    init(services: [LifecycleActions], injector: Injector) {
        let created = injector.lifecycle.recorder.creationOrder
        var creationIndex: [BindingKey: Int] = [:]
        for (index, key) in created.enumerated() where creationIndex[key] == nil {
            creationIndex[key] = index
        }
        var position: [BindingKey: Int] = [:]
        for (index, service) in services.enumerated() where position[service.key] == nil {
            position[service.key] = index
        }
        let keys = Set(position.keys)
        var dependencies: [[Int]] = []
        var isDynamic: [Bool] = []
        dependencies.reserveCapacity(services.count)
        isDynamic.reserveCapacity(services.count)
        for service in services {
            let (reached, dynamic) = StartOrder.servicesReached(from: service.key, among: keys, in: injector)
            dependencies.append(reached.compactMap { $0 == service.key ? nil : position[$0] })
            isDynamic.append(dynamic)
        }
        // Instance bindings are never recorded: they count as created first.
        let rank = services.map { creationIndex[$0.key] ?? -1 }
        let order = services.indices.sorted { (rank[$0], $0) < (rank[$1], $1) }
        // -1: not placed yet; -2: being placed (a dependency back to it closes a cycle, which linking
        // rejects for static edges; the edge is then ignored rather than looping).
        var level = [Int](repeating: -1, count: services.count)
        // The latest batch of the services created strictly before the current rank.
        var latestBefore = -1
        var latestOfRank = -1
        var currentRank = Int.min

        func place(_ service: Int) -> Int {
            if level[service] != -1 { return level[service] }
            level[service] = -2
            var after = -1
            if isDynamic[service] {
                // Placed in creation order, every service created before it is placed already.
                after = rank[service] == currentRank ? latestBefore : max(latestBefore, latestOfRank)
            }
            for dependency in dependencies[service] {
                after = max(after, place(dependency))
            }
            level[service] = after + 1
            return after + 1
        }

        for service in order {
            if rank[service] != currentRank {
                latestBefore = max(latestBefore, latestOfRank)
                latestOfRank = -1
                currentRank = rank[service]
            }
            latestOfRank = max(latestOfRank, place(service))
        }
        let batchCount = (level.max() ?? -1) + 1
        var batches = [[LifecycleActions]](repeating: [], count: batchCount)
        for (index, service) in services.enumerated() {
            batches[level[index]].append(service)
        }
        self.batches = batches
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
