import Provision

// Services of the validation, diagram and diagnostics tests: a small daemon (app, service, store,
// logger, clock), a plugin multibinding, constructor cycles, and a cycle broken by a provider.

final class GraphLogger: Sendable {}

final class GraphStore: Sendable {
    init(logger: GraphLogger) {}
}

final class GraphService: Sendable {
    init(store: GraphStore) {}
}

final class GraphClock: Sendable {}

final class GraphApp: Sendable {
    init(service: GraphService, clock: GraphClock) {}
}

protocol GraphPlugin: Sendable {}

final class GraphPluginA: GraphPlugin {}

final class GraphPluginB: GraphPlugin {}

final class GraphPluginHost: Sendable {
    let plugins: [any GraphPlugin]
    init(plugins: [any GraphPlugin]) { self.plugins = plugins }
}

final class GraphSinglePluginUser: Sendable {
    init(plugin: any GraphPlugin) {}
}

final class GraphLoopA: Sendable {
    init(b: GraphLoopB) {}
}

final class GraphLoopB: Sendable {
    init(a: GraphLoopA) {}
}

final class GraphLoopRoot: Sendable {
    init(a: GraphLoopA) {}
}

final class GraphDeferredA: Sendable {
    init(b: GraphDeferredB) {}
}

final class GraphDeferredB: Sendable {
    let a: Provider<GraphDeferredA>
    init(a: Provider<GraphDeferredA>) { self.a = a }
}

final class GraphLazyHolder: Sendable {
    let clock: Lazy<GraphClock>
    init(clock: Lazy<GraphClock>) { self.clock = clock }
}

/// Self-declared, so that validation finds it just in time.
final class GraphSelfDeclared: Injectable, Sendable {
    static let injection = Injection(GraphSelfDeclared.init(logger:)).in(.singleton)
    init(logger: GraphLogger) {}
}

final class GraphUsesSelfDeclared: Sendable {
    init(declared: GraphSelfDeclared) {}
}

/// The daemon's bindings, all satisfied.
struct GraphDaemonModule: Module {
    func configure(_ binder: Binder) {
        binder.bind(GraphLogger.self).to(GraphLogger.init).in(.singleton)
        binder.bind(GraphStore.self).to(GraphStore.init(logger:))
        binder.bind(GraphService.self).to(GraphService.init(store:))
        binder.bind(GraphClock.self).toInstance(GraphClock())
        binder.bind(GraphApp.self).to(GraphApp.init(service:clock:)).in(.singleton)
    }
}
