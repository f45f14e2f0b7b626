import Provision
import Swinject
import Synchronization

/// Counts the builds it wraps: the cheapest useful observer, for the observer-on scenario. (An observer
/// that only implements `receive(_:)` gets the default build hook, which reads the clock twice per
/// build to time it.)
final class CountingObserver: ResolutionObserver {
    let events = Atomic<Int>(0)

    func observeBuild<T>(
        of key: BindingKey,
        scope: Scope,
        _ build: () throws(ProvisionError) -> T
    ) throws(ProvisionError) -> T {
        events.add(1, ordering: .relaxed)
        return try build()
    }
}

extension Scenarios {
    // MARK: Validation and diagnostics

    static var diagnostics: [Scenario] {
        [
            Scenario(
                name: "mixed daemon graph (\(MixedGraph.serviceCount) services), observer on",
                provision: {
                    let observer = CountingObserver()
                    let injector = try Injector(
                        modules: [MixedGraphModule()],
                        configuration: Injector.Configuration(observer: observer)
                    )
                    return { count in
                        var sink: UInt = 0
                        for _ in 0..<count { sink ^= try MixedGraph.resolveRoots(injector) }
                        return sink ^ UInt(observer.events.load(ordering: .relaxed) & 1)
                    }
                },
                // Neither hand-wired code nor Swinject 2.10 has a resolution observer: these two columns
                // are the plain "mixed daemon graph" scenario, so the Provision column's cost of
                // observing shows against the same baselines.
                handWired: mixedHandWired,
                swinject: .setup(mixedSwinject),
                swiftDependencies: .unsupported("n/a: no observer")
            ),
            Scenario(
                name: "validate, 10k bindings",
                provision: {
                    let injector = try Injector(ValidationGraph.ProvisionModule(graph: ValidationGraph()))
                    return { count in
                        var sink: UInt = 0
                        for _ in 0..<count {
                            let report = injector.validationReport()
                            precondition(report.isValid, "di-bench: the validation graph is broken")
                            sink ^= UInt(report.bindingCount)
                        }
                        return sink
                    }
                },
                // The closest hand-written work: a depth-first walk over a [key: [key]] table that
                // checks every dependency exists and that no walk comes back onto its stack.
                handWired: {
                    let graph = ValidationGraph()
                    let table = graph.table
                    let order = graph.names.map { HandKey(BenchLeaf.self, $0) }
                    return { count in
                        var sink: UInt = 0
                        for _ in 0..<count { sink ^= UInt(ValidationGraph.check(table, order: order)) }
                        return sink
                    }
                },
                // Swinject has no validation: the closest it has is resolving every registration once,
                // which fails at the first missing one. Each operation empties the container scope and
                // resolves all 10,000 (building each object once).
                swinject: .setup {
                    let graph = ValidationGraph()
                    let container = graph.container()
                    return { count in
                        var sink: UInt = 0
                        for _ in 0..<count {
                            container.resetObjectScope(.container)
                            for name in graph.names {
                                sink ^= identity(resolved(container, BenchLeaf.self, named: name))
                            }
                        }
                        return sink
                    }
                },
                // A missing key is a compile-time error (a type that doesn't exist), and nothing
                // records which keys a live value reads: there is nothing to walk.
                swiftDependencies: .unsupported("n/a: no validation")
            ),
        ]
    }
}
