import Testing

@testable import Provision

/// The captive-dependency rule. Today's scopes can't produce a captive dependency (a singleton may
/// depend on a transient: see `Lifetime`), so the failing graphs give a binding the `scoped` lifetime
/// a future per-request scope will have, feeding the validator a graph directly.
@Suite("Captive dependencies")
struct CaptiveDependencyTests {
    private func vertex(
        _ key: BindingKey,
        _ lifetime: Lifetime,
        _ edges: [(Int, BindingGraph.Edge.Kind)] = []
    ) -> BindingGraph.Vertex {
        BindingGraph.Vertex(
            key: key,
            scope: lifetime == .singleton ? .singleton : .transient,
            lifetime: lifetime,
            shape: BindingShape(kind: .constructor, dependencies: .construction([])),
            location: nil,
            depth: 0,
            isJustInTime: false,
            edges: edges.map { BindingGraph.Edge(target: .vertex($0.0), kind: $0.1) }
        )
    }

    private func findings(_ vertices: [BindingGraph.Vertex]) -> [ProvisionError] {
        GraphValidator(BindingGraph(vertices: vertices, missing: [])).findings().map(\.error)
    }

    @Test("a singleton that reaches a scoped binding through a transient is captive")
    func singletonCapturesScoped() {
        let problems = findings([
            vertex(BindingKey(GraphApp.self), .singleton, [(1, .construction)]),
            vertex(BindingKey(GraphService.self), .transient, [(2, .construction)]),
            vertex(BindingKey(GraphStore.self), .scoped),
        ])
        #expect(problems.map(\.code) == [.captiveDependency])
        #expect(problems.first?.pathDescription == "GraphApp -> GraphService -> GraphStore")
        #expect(problems.first?.key == BindingKey(GraphStore.self))
        #expect(
            problems.first?.message
                == "GraphApp (singleton) depends on GraphStore (scoped), which lives shorter: "
                + "it would keep one GraphStore for its whole life"
        )
        #expect(problems.first?.hint.contains("scope.get(GraphStore.self)") == true)
    }

    @Test("a scoped binding may depend on a singleton, and anything on a transient")
    func longerLivedDependencies() {
        let problems = findings([
            vertex(BindingKey(GraphApp.self), .scoped, [(1, .construction), (2, .declared)]),
            vertex(BindingKey(GraphService.self), .singleton, [(2, .construction)]),
            vertex(BindingKey(GraphStore.self), .transient),
        ])
        #expect(problems.isEmpty)
    }

    @Test("a singleton's Provider of a scoped binding is captive: a singleton's handles belong to no scope")
    func throughProvider() throws {
        final class Holder: Sendable {
            init(store: Provider<GraphStore>) {}
        }
        let report = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(GraphLogger.self).to(GraphLogger.init)
                    binder.bind(GraphStore.self).to(GraphStore.init(logger:)).in(.scoped)
                    binder.bind(Holder.self).to(Holder.init(store:)).in(.singleton)
                }
            ],
            configuration: Injector.Configuration(validatesOnCreation: false)
        ).validationReport()
        #expect(report.problems.map(\.code) == [.captiveDependency])
    }

    @Test("a singleton depending on a transient is not captive in a real injector")
    func singletonOnTransient() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(GraphLogger.self).to(GraphLogger.init)
                binder.bind(GraphStore.self).to(GraphStore.init(logger:)).in(.singleton)
            }
        )
        #expect(try injector.validate().isValid)
    }
}
