/// What an async request does before it runs a synchronous closure binding that declared its
/// dependencies (`to(dependencies:_:)`, an `Injectable` declaration with dependencies): it builds,
/// awaiting them, the instances the closure's synchronous requests could not build themselves.
///
/// The closure is synchronous, so its requests can't await an async factory. Before it runs, the
/// declared keys are followed through the bindings that the closure's requests would build on the way
/// (transients: constructors, closures that declare theirs, optionals, multibinding lists, bindings with
/// arguments) down to the first singleton or scoped binding on each path. These are the *anchors*: each
/// request resolves them asynchronously (awaiting an async factory, or one below) in its
/// own context (a scoped anchor in the request's scope, every time), then runs the closure, whose
/// requests find them built. (Found by hunt 16; hunt 19 found the cases an earlier, settle-based form
/// missed: constructors and scoped keys below the declared ones, a second scope, optionals, lists.)
///
/// The walk is made once, when the closure's async plan is linked. It stops at handles (`Provider`,
/// `Lazy`: resolved later, on demand), at closures that declare nothing (their requests are unknown)
/// and at transient async factories (which a synchronous request can't build in any case).
///
/// An anchor that can't be resolved here for a reason of the request's context (outside a scope, a
/// seed not provided, a captive scoped binding) is skipped: the closure's own request reports it, as a
/// synchronous request would. Any other failure (the anchor's factory threw, shutdown) fails the request,
/// with the path from the closure down to the anchor.
final class DeclaredPreparation: Sendable {
    /// One binding to resolve before the closure runs.
    struct Anchor: Sendable {
        /// The keys from the closure's declared key down to the anchor's (the anchor's last).
        let path: [BindingKey]
        let resolve: @Sendable (ResolutionContext) async throws(ProvisionError) -> Void
    }

    private let key: BindingKey
    private let anchors: [Anchor]

    private init(key: BindingKey, anchors: [Anchor]) {
        self.key = key
        self.anchors = anchors
    }

    /// The preparation of `node`, a closure that declared `keys`; `nil` when nothing below needs it.
    static func make<T>(for node: Node<T>, declared keys: [BindingKey]) -> DeclaredPreparation? {
        var walk = Walk(root: ObjectIdentifier(node))
        for key in keys.reversed() {
            walk.pending.append((key, node.injector, [key]))
        }
        while let (key, injector, path) = walk.pending.popLast() {
            func visit<D>(_ type: D.Type) {
                guard let found = injector.lookup(key, as: type) else { return }
                walk.visit(found, path: path)
            }
            visit(key.type)
        }
        return walk.anchors.isEmpty ? nil : DeclaredPreparation(key: node.key, anchors: walk.anchors)
    }

    /// Resolves every anchor in `context` (see the type's documentation for the errors it skips).
    func run(_ context: ResolutionContext) async throws(ProvisionError) {
        for anchor in anchors {
            do throws(ProvisionError) {
                try await anchor.resolve(context)
            } catch {
                if Self.isContextual(error) { continue }
                var error = error
                for key in anchor.path.dropLast().reversed() { error = error.prepending(key) }
                throw error.prepending(key)
            }
        }
    }

    /// Whether `error` is one the closure's synchronous request for the anchor would report on its own,
    /// with its own path: the request's scope or seeds don't allow the anchor here.
    private static func isContextual(_ error: ProvisionError) -> Bool {
        switch error.code {
        case .outsideScope, .notSeeded, .captiveDependency, .requiresAsync: true
        default: false
        }
    }

    /// The walk from the declared keys to the anchors.
    private struct Walk {
        var pending: [(key: BindingKey, injector: Injector, path: [BindingKey])] = []
        var anchors: [Anchor] = []
        private var visited: Set<ObjectIdentifier>

        init(root: ObjectIdentifier) {
            visited = [root]
        }

        mutating func visit<D>(_ node: Node<D>, path: [BindingKey]) {
            guard visited.insert(ObjectIdentifier(node)).inserted else { return }
            if node.plan == nil {
                // Linked to learn its traits; a binding that doesn't link is reported by the closure's
                // request.
                guard (try? node.linkReportingFailure()) != nil else { return }
            }
            if node.scope.kind != .transient {
                // Built by its async plan, which awaits or prepares what lies below it (a synchronous
                // singleton whose subgraph has a declaring closure, say). One that is built already costs
                // a read. The registry keeps the node for as long as the injector that holds this plan
                // (the node's own, or a child of it).
                anchors.append(
                    Anchor(path: path) { [unowned node] context throws(ProvisionError) in
                        _ = try await node.resolveAsync(context)
                    })
                return
            }
            // A transient async factory can't be built by a synchronous request in any case.
            if node.isAsync { return }
            for key in (node.dependencyKeys ?? []).reversed() {
                pending.append((key, node.injector, path + [key]))
            }
        }
    }
}
