extension BindingGraph {
    /// Collects vertices and resolves their dependencies, one injector chain at a time.
    struct Builder {
        /// The injector and the ancestors read so far, innermost first (see ``hasLevel(_:)``). The chain
        /// ends at a shut-down injector, as lookups do: what lies above it is reached through it.
        private(set) var chain: [Injector]
        /// Whether ``chain`` reaches the top, or a shut-down injector.
        private var chainIsComplete = false
        var vertices: [Vertex] = []
        var missing: [Missing] = []
        /// Each injector's own bindings, by key.
        var registered: [[BindingKey: Int]]
        /// Each injector's multibinding collections, by element type and collection name.
        var collections: [[ElementKey: Int]]
        /// Just-in-time bindings and missing keys found so far, by the depth they were looked up from.
        var resolved: [DepthKey: Edge.Target] = [:]
        /// Whether ancestors' bindings are added as they are reached (see `init(injector:...)`), rather
        /// than all at first.
        let ancestorsReachedOnly: Bool
        /// For each injector, whether its multibinding collections are all vertices (always, unless
        /// ancestors are added as reached).
        var collectionsComplete: [Bool]
        /// The ancestors (levels 1 and up) that bind each key, nearest first; `nil` while unknown.
        ///
        /// A key an ancestor binds would otherwise be looked for in every injector on the way up to it:
        /// with a chain hundreds of children deep, whose collections each inherit hundreds of elements,
        /// that made a graph's size times the chain's depth. Known from the start when every binding
        /// is a vertex; when ancestors are added as reached, made once the lookups that found nothing in
        /// an ancestor's registry outnumber twice the ancestors' bindings (see `noteAncestorMiss()`): a
        /// small child of a large parent never reads the parent whole, a chain of children that each
        /// reach their parent's binding costs one lookup per level as before, and a deep chain of small
        /// injectors whose keys are looked for far above is read once.
        var ancestorLevels: [BindingKey: [Int]]?
        /// Lookups in ancestors' registries that found nothing, when ancestors are added as reached.
        var ancestorMisses = 0
        /// The count of ``ancestorMisses`` at which they are next weighed against the ancestors' size.
        var nextWeighing = 64
        /// How many bindings the ancestors hold, counted at the first weighing.
        var ancestorBindingCount: Int?
        /// Whether the walk stops at sealed ancestors' bindings (see ``ValidationSeal``).
        let trustsSeals: Bool
        /// For each ancestor whose seal was looked up (when the walk first reached one of its
        /// bindings), its transients that reach a scoped binding, or `nil` when it has no current seal.
        var seals: [Int: Set<BindingKey>?] = [:]
        /// The vertices of sealed ancestors' bindings, whose dependencies are left out.
        var sealedVertices: Set<Int> = []

        struct ElementKey: Hashable {
            let type: ObjectIdentifier
            let name: String?
        }

        struct DepthKey: Hashable {
            let depth: Int
            let key: BindingKey
        }

        init(injector: Injector, ancestorsReachedOnly: Bool, trustingSealedAncestors: Bool) {
            chain = [injector]
            self.ancestorsReachedOnly = ancestorsReachedOnly
            trustsSeals = trustingSealedAncestors
            registered = [[:]]
            collections = [[:]]
            collectionsComplete = [true]
            // Every binding is a vertex: every ancestor is read. Otherwise ancestors are read as the
            // walk reaches them, so that a child far down a chain reads the few above it it needs.
            if !ancestorsReachedOnly { completeChain() }
        }

        /// Whether the chain has an injector at `level`, reading the ancestors up to it first if needed.
        mutating func hasLevel(_ level: Int) -> Bool {
            while level >= chain.count {
                guard !chainIsComplete, let last = chain.last, !last.lifecycle.isClosed, let parent = last.parent
                else {
                    chainIsComplete = true
                    return false
                }
                chain.append(parent)
                registered.append([:])
                collections.append([:])
                collectionsComplete.append(!ancestorsReachedOnly)
            }
            return true
        }

        /// Reads every ancestor into the chain.
        mutating func completeChain() {
            while hasLevel(chain.count) {}
        }

        /// Records that the ancestor at `level` binds `key`, in ``ancestorLevels``.
        private mutating func noteAncestorBinding(_ key: BindingKey, at level: Int) {
            ancestorLevels?[key, default: []].append(level)
        }

        /// Counts a lookup that found nothing in an ancestor's registry; once they outnumber twice the
        /// ancestors' bindings, reads the ancestors' registries whole into ``ancestorLevels``, so that
        /// later lookups skip the injectors that don't bind the key.
        private mutating func noteAncestorMiss() {
            ancestorMisses += 1
            // Counting the bindings reads every ancestor's stripes: only once the misses outnumber twice
            // the ancestors themselves, which each hold a binding or more.
            guard ancestorMisses >= nextWeighing else { return }
            completeChain()
            guard ancestorMisses > 2 * (chain.count - 1) else { return }
            nextWeighing *= 2
            let ancestors = chain.dropFirst()
            let size = ancestorBindingCount ?? ancestors.reduce(0) { $0 + $1.registry.count }
            ancestorBindingCount = size
            guard ancestorMisses > 2 * size else { return }
            ancestorLevels = [:]
            for level in ancestors.indices {
                for node in chain[level].registry.nodes {
                    noteAncestorBinding(node.key, at: level)
                }
            }
        }

        mutating func addRegisteredBindings() {
            var nodes: [(node: any DescribedNode, depth: Int)] = []
            if chain.count > 1, !ancestorsReachedOnly { ancestorLevels = [:] }
            for (depth, injector) in chain.enumerated() where depth == 0 || !ancestorsReachedOnly {
                let own = injector.registry.nodes
                nodes.reserveCapacity(nodes.count + own.count)
                registered[depth].reserveCapacity(own.count)
                for case let node as any DescribedNode in own {
                    nodes.append((node, depth))
                    if depth > 0 { noteAncestorBinding(node.key, at: depth) }
                }
            }
            nodes.sort { $0.node.declarationIndex < $1.node.declarationIndex }
            vertices.reserveCapacity(nodes.count)
            for (node, depth) in nodes {
                add(node, depth: depth)
            }
        }

        /// Adds the vertex of `node`, a binding of the injector at `depth`; returns its index. Inlined into
        /// the loop over every binding (a call per binding cost validation 5% of its time).
        @discardableResult @inline(__always)
        private mutating func add(_ node: any DescribedNode, depth: Int) -> Int {
            let shape = node.shape
            let index = vertices.count
            vertices.append(
                Vertex(
                    key: node.key,
                    scope: node.scope,
                    lifetime: Lifetime(node.scope),
                    shape: shape,
                    location: node.isJustInTime ? nil : node.location,
                    depth: depth,
                    isJustInTime: node.isJustInTime,
                    propertyKeys: node.propertyDependencies
                )
            )
            registered[depth][node.key] = index
            if shape.kind == .multibinding, let element = shape.keys.first {
                collections[depth][ElementKey(type: ObjectIdentifier(element.type), name: node.key.name)] = index
            }
            return index
        }

        /// The index of the vertex of the binding of `key` in the injector at `level`: the registered
        /// one, or, when ancestors are added as reached, the ancestor's binding, added now.
        @inline(__always)
        mutating func registeredIndex(of key: BindingKey, at level: Int) -> Int? {
            if let index = registered[level][key] { return index }
            guard ancestorsReachedOnly, level > 0 else { return nil }
            return addReachedAncestor(key, at: level)
        }

        /// Adds the vertex of the binding of `key` in the ancestor at `level`, if it has one.
        private mutating func addReachedAncestor(_ key: BindingKey, at level: Int) -> Int? {
            let registry = chain[level].registry
            guard let found = registry.node(for: key) ?? registry.lockedNode(for: key),
                let node = found.takeUnretainedValue() as? any DescribedNode
            else {
                noteAncestorMiss()
                return nil
            }
            let index = add(node, depth: level)
            if trustsSeals, let reachingScoped = seal(at: level),
                isSealable(vertices[index], reachingScoped: reachingScoped)
            {
                sealedVertices.insert(index)
            }
            return index
        }

        /// Adds the multibinding collections of the injector at `level`, when ancestors are added as
        /// reached: only needed to explain a missing key (see `reason(_:from:)`).
        private mutating func completeCollections(at level: Int) {
            guard !collectionsComplete[level] else { return }
            collectionsComplete[level] = true
            for case let node as any DescribedNode in chain[level].registry.nodes
            where node.shape.kind == .multibinding && registered[level][node.key] == nil {
                add(node, depth: level)
            }
        }

        /// Looks `keys` up from the injector itself, adding their bindings (an ancestor's, a just-in-time
        /// one) to the graph.
        mutating func reach(_ keys: [BindingKey]) {
            for key in keys {
                _ = target(of: key, from: 0, recordingMissing: false)
            }
        }

        /// Resolves every vertex's dependencies, including those of just-in-time vertices added on the
        /// way (they are appended, so the loop reaches them).
        mutating func resolveEdges() {
            var index = 0
            while index < vertices.count {
                // A sealed ancestor's binding: what lies below it was validated with its injector.
                if !sealedVertices.isEmpty, sealedVertices.contains(index) {
                    index += 1
                    continue
                }
                // Read field by field: a copy of the whole vertex was an outlined call per binding.
                let shape = vertices[index].shape
                let depth = vertices[index].depth
                if trustsSeals, depth == 0, shape.kind == .multibinding,
                    let edges = inheritedCollectionEdges(of: index, keys: shape.keys)
                {
                    vertices[index].edges = edges
                    index += 1
                    continue
                }
                let kind: Edge.Kind
                switch shape.dependencies {
                case .construction: kind = .construction
                case .declared: kind = .declared
                case .deferred: kind = .deferred
                case .unknown: kind = .construction
                }
                var edges: [Edge] = []
                edges.reserveCapacity(shape.keys.count)
                for key in shape.keys {
                    // An optional's wrapped key is an edge when something binds it, and never missing.
                    if shape.isOptional {
                        if let target = target(of: key, from: depth, recordingMissing: false) {
                            edges.append(Edge(target: target, kind: kind))
                        } else if chain[depth].isShuttingDown {
                            // Below a shut-down ancestor, whose emptied tables can't tell whether it bound
                            // the key, the request throws `shutDown` rather than give `nil`.
                            edges.append(Edge(target: target(of: key, from: depth), kind: kind))
                        }
                    } else {
                        edges.append(Edge(target: target(of: key, from: depth), kind: kind))
                    }
                }
                // Injected properties: resolved like constructor parameters, after the instance is built
                // (a missing binding, a captive scoped instance or a cycle through them is found too).
                for key in vertices[index].propertyKeys {
                    edges.append(Edge(target: target(of: key, from: depth), kind: .construction))
                }
                vertices[index].edges = edges
                index += 1
            }
        }

        /// What `key` resolves to for a binding of the injector at `depth`: the same order as
        /// `Injector.lookup` (own bindings, then each ancestor's, then a just-in-time binding in the
        /// injector at `depth`).
        @inline(__always)
        mutating func target(of key: BindingKey, from depth: Int) -> Edge.Target {
            // Recording a missing key, the target is never `nil`.
            target(of: key, from: depth, recordingMissing: true) ?? .missing(0)
        }

        /// What `key` resolves to for a binding of the injector at `depth`, or, when nothing binds it,
        /// a ``Missing`` target if `recordingMissing`, `nil` otherwise.
        private mutating func target(of key: BindingKey, from depth: Int, recordingMissing: Bool) -> Edge.Target? {
            var level = depth
            while hasLevel(level) {
                if level > 0, let ancestorLevels {
                    // Only the ancestors that bind the key.
                    guard let next = ancestorLevels[key]?.first(where: { $0 >= level }) else { break }
                    level = next
                }
                defer { level += 1 }
                guard let index = registeredIndex(of: key, at: level) else { continue }
                // An ancestor's just-in-time optional is not used: the injector makes its own (as
                // `Injector.lookup` does).
                if level > depth, vertices[index].isJustInTime, key.type is any OptionalType.Type { break }
                return .vertex(index)
            }
            let lookup = DepthKey(depth: depth, key: key)
            if let known = resolved[lookup] {
                if case .missing = known, !recordingMissing { return nil }
                return known
            }
            let target: Edge.Target
            // Below a shut-down ancestor, a just-in-time binding the lookup would leave to that ancestor
            // (or its original) is made nowhere: the request throws `shutDown`.
            let injector = chain[depth]
            let refused = injector.isShuttingDown && !injector.wouldMakeJustInTime(key)
            if !refused, let (shape, scope) = injector.justInTimeShape(for: key) {
                target = .vertex(vertices.count)
                vertices.append(
                    Vertex(
                        key: key,
                        scope: scope,
                        lifetime: Lifetime(scope),
                        shape: shape,
                        location: nil,
                        depth: depth,
                        isJustInTime: true,
                        propertyKeys: shape.kind == .constructor
                            ? PropertyInjector.requiredKeys(of: key.type, in: chain[depth]) : []
                    )
                )
            } else {
                guard recordingMissing else { return nil }
                target = .missing(missing.count)
                missing.append(Missing(key: key, reason: reason(key, from: depth)))
            }
            resolved[lookup] = target
            return target
        }

        /// Why nothing binds `key`: a multibinding explains it better than a plain missing binding, and an
        /// inherited class declaration better still.
        private mutating func reason(_ key: BindingKey, from depth: Int) -> Missing.Reason {
            // A shutdown emptied the tables the key was looked up in: that is why it is missing.
            if chain[depth].isShuttingDown { return .shutDown }
            if let array = key.type as? any ArrayType.Type {
                return .emptyMultibinding(element: array.elementType)
            }
            if key.name == nil, let declaring = key.type as? any InjectableClass.Type,
                let error = declaring.misdeclaration
            {
                return .misdeclared(error)
            }
            let element = ElementKey(type: ObjectIdentifier(key.type), name: key.name)
            completeChain()
            for level in depth..<chain.count {
                completeCollections(at: level)
                if let collection = collections[level][element] { return .onlyMultibound(collection: collection) }
            }
            return .notBound
        }
    }
}
