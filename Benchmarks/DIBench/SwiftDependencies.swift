import Dependencies

// The swift-dependencies column, written the way its documentation registers and reads dependencies:
// a `DependencyKey` per service with a `liveValue`, a property of `DependencyValues` per key, and
// `@Dependency(\.property)` to read it. swift-dependencies builds each live value once and caches it,
// so a key whose value is the service itself is a singleton. A transient service is a generator, as
// `\.uuid` is for UUIDs: its key's value is a `TransientFactory` that builds a new instance per call.
// The factory reads the instance's own dependencies with `@Dependency` when it runs, so an override
// installed with `withDependencies` reaches every level of the graph, as it does in an application.
// The keys of the generated graphs are in Generated/.

/// A swift-dependencies generator of a transient service: a new instance per call.
struct TransientFactory<Service>: Sendable {
    private let build: @Sendable () -> Service

    init(_ build: @escaping @Sendable () -> Service) {
        self.build = build
    }

    func callAsFunction() -> Service { build() }
}

/// A generator with arguments: the analogue of a binding resolved with arguments is a client endpoint
/// that takes them.
struct JobFactory: Sendable {
    var make: @Sendable (_ name: String, _ priority: Int) -> BenchJob
}

enum BenchSingletonKey: DependencyKey {
    static let liveValue = BenchSingleton()
}

enum BenchLeafKey: DependencyKey {
    static let liveValue = TransientFactory { BenchLeaf() }
}

enum BenchJobKey: DependencyKey {
    static let liveValue = JobFactory { name, priority in
        @Dependency(\.benchLeaf) var leaf
        return BenchJob(name: name, priority: priority, leaf: leaf())
    }
}

extension DependencyValues {
    var benchSingleton: BenchSingleton {
        get { self[BenchSingletonKey.self] }
        set { self[BenchSingletonKey.self] = newValue }
    }

    var benchLeaf: TransientFactory<BenchLeaf> {
        get { self[BenchLeafKey.self] }
        set { self[BenchLeafKey.self] = newValue }
    }

    var benchJob: JobFactory {
        get { self[BenchJobKey.self] }
        set { self[BenchJobKey.self] = newValue }
    }
}

/// A feature that holds its dependency across calls, as swift-dependencies' models do: `@Dependency`
/// stored once, read at each use. The analogue of keeping a `Provider<T>`.
struct LeafFeature: Sendable {
    @Dependency(\.benchLeaf) var makeLeaf
}

/// swift-dependencies' workload: each operation declares `@Dependency` and reads it, as a function
/// that needs a service does, then hands the value to `operation` (a transient's factory is called
/// there).
func readingDependency<Value>(
    _ keyPath: any KeyPath<DependencyValues, Value> & Sendable,
    _ operation: @escaping (Value) -> AnyObject
) -> Sampler.Workload {
    { count in
        var sink: UInt = 0
        for _ in 0..<count {
            @Dependency(keyPath) var value
            fold(operation(value), into: &sink)
        }
        return sink
    }
}
