/// The bindings one injector can reach, with every dependency resolved to a binding the way linking
/// resolves it: what validation checks and diagrams draw.
///
/// Made from the injector's registry, its ancestors' registries, and the just-in-time bindings they
/// would create, without creating any of them and without running any user code: no module is
/// configured again, no factory runs, nothing is installed. A dependency that no binding satisfies is
/// recorded as a ``Missing`` target instead.
struct BindingGraph {
    struct Vertex {
        let key: BindingKey
        let scope: Scope
        let lifetime: Lifetime
        let shape: BindingShape
        let location: SourceLocation?
        /// How many parents up the owning injector is: 0 for the injector the graph was made for.
        let depth: Int
        /// A binding the injector would create on first request (`Injectable`, `Provider`, `Lazy`).
        let isJustInTime: Bool
        /// The keys of the properties injected into the binding's instances (see
        /// ``PropertyInjectable``): dependencies like the initializer's, which the request resolves
        /// after building the instance.
        var propertyKeys: [BindingKey] = []
        /// The dependencies, in the order the binding declares them.
        var edges: [Edge] = []
    }

    struct Edge {
        enum Target: Hashable {
            case vertex(Int)
            case missing(Int)
        }

        enum Kind {
            /// Built as part of the dependent (a constructor parameter, a collection element).
            case construction
            /// Resolved by a closure that declared it: built as part of the dependent, too.
            case declared
            /// Resolved later through a handle: may close a cycle.
            case deferred
        }

        let target: Target
        let kind: Kind
    }

    /// A dependency that nothing binds, as seen from one injector of the chain.
    struct Missing {
        enum Reason {
            case notBound
            /// A `[T]` with no multibinding elements of `T`.
            case emptyMultibinding(element: any Any.Type)
            /// A single `T` requested where `T` only has multibinding elements; the collection's vertex.
            case onlyMultibound(collection: Int)
            /// An ``InjectableClass`` whose declaration is its superclass's: the error a request gets.
            case misdeclared(ProvisionError)
            /// The injector or an ancestor has begun shutting down: its tables were emptied, so nothing
            /// is bound through it (the injector's requests throw ``ProvisionError/Code/shutDown``).
            case shutDown
        }

        let key: BindingKey
        let reason: Reason
    }

    var vertices: [Vertex]
    var missing: [Missing]
    /// How many of the vertices are sealed ancestors' bindings whose dependencies were left out (see
    /// ``ValidationSeal``).
    var sealedCount = 0
}

extension BindingGraph {
    /// The graph of every binding `injector` can reach: its own, its ancestors', and the just-in-time
    /// bindings their dependencies would create.
    ///
    /// - Parameters:
    ///   - ancestorsReachedOnly: Whether to take only the ancestors' bindings that `injector`'s own
    ///     bindings (and `roots`) reach, rather than all of them: what validating a new child injector
    ///     needs, since its parent's graph was there before it (and was validated when it was created).
    ///   - trustingSealedAncestors: With `ancestorsReachedOnly`: whether to stop at the bindings of
    ///     ancestors whose ``ValidationSeal`` holds, leaving their dependencies out (they were validated
    ///     already, and a child can't change them). Only what validating a new child needs: the graph
    ///     then lacks what lies below those bindings.
    ///   - roots: Keys to look up from `injector` besides its own bindings' dependencies (eager keys),
    ///     so that their bindings are in the graph.
    /// - Complexity: O(*n* log *n* + *e*) for *n* bindings and *e* dependencies.
    init(
        injector: Injector,
        ancestorsReachedOnly: Bool = false,
        trustingSealedAncestors: Bool = false,
        roots: [BindingKey] = []
    ) {
        var builder = Builder(
            injector: injector,
            ancestorsReachedOnly: ancestorsReachedOnly,
            trustingSealedAncestors: ancestorsReachedOnly && trustingSealedAncestors
        )
        builder.addRegisteredBindings()
        builder.reach(roots)
        builder.resolveEdges()
        self.init(vertices: builder.vertices, missing: builder.missing)
        sealedCount = builder.sealedVertices.count
    }
}
