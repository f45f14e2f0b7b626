/// What validation and diagrams know about a binding without knowing its type: what kind of binding it
/// is, and which keys it depends on and how.
struct BindingShape: Sendable {
    /// A binding's dependencies, as its recipe records them.
    enum Dependencies: Sendable {
        /// Built from these keys' values (a constructor's parameters, a multibinding's elements).
        case construction([BindingKey])
        /// A closure that declared the keys it resolves.
        case declared([BindingKey])
        /// A handle (`Provider`, `Lazy`) that resolves these keys later, on demand.
        case deferred([BindingKey])
        /// A closure whose dependencies are only known when it runs: not statically checked.
        case unknown
    }

    let kind: DependencyGraph.Vertex.Kind
    let dependencies: Dependencies
    /// Whether the binding is a just-in-time optional (`Dog?`): built from its one construction key's
    /// binding when one exists, `nil` otherwise, so that key is never missing. A flag rather than a case
    /// of ``Dependencies``: a fourth case with a payload makes the enum, and every vertex, copy through an
    /// outlined call (validation of 10k bindings took 2% longer).
    var isOptional = false

    init(kind: DependencyGraph.Vertex.Kind, dependencies: Dependencies, isOptional: Bool = false) {
        self.kind = kind
        self.dependencies = dependencies
        self.isOptional = isOptional
    }

    /// The keys, whatever their kind; empty for `.unknown`.
    var keys: [BindingKey] {
        switch dependencies {
        case .construction(let keys), .declared(let keys), .deferred(let keys): keys
        case .unknown: []
        }
    }
}

/// A recipe whose type is not known statically (a just-in-time recipe, returned as `Any`).
protocol ShapedRecipe {
    var shape: BindingShape { get }
}

extension Recipe: ShapedRecipe {
    var shape: BindingShape {
        BindingShape(
            dependencies: dependencies, isInstance: instance != nil, hasArguments: options?.arguments != nil,
            isSeed: options?.isSeed == true)
    }
}

extension BindingShape {
    /// The shape of a recipe with these parts.
    init(dependencies: RecipeDependencies, isInstance: Bool, hasArguments: Bool, isSeed: Bool = false) {
        self =
            isSeed
            ? BindingShape(kind: .seed, dependencies: .construction([]))
            : BindingShape.of(dependencies: dependencies, isInstance: isInstance, hasArguments: hasArguments)
    }

    private static func of(dependencies: RecipeDependencies, isInstance: Bool, hasArguments: Bool) -> BindingShape {
        if isInstance {
            return BindingShape(kind: .instance, dependencies: .construction([]))
        }
        let closureKind: DependencyGraph.Vertex.Kind = hasArguments ? .arguments : .closure
        switch dependencies {
        case .known(let keys):
            let isCollection = !keys.isEmpty && keys.allSatisfy(Binder.isElementKey)
            return BindingShape(kind: isCollection ? .multibinding : .constructor, dependencies: .construction(keys))
        case .declared(let keys):
            return BindingShape(kind: closureKind, dependencies: .declared(keys))
        case .dynamic:
            return BindingShape(kind: closureKind, dependencies: .unknown)
        case .deferred(let keys):
            return BindingShape(kind: .handle, dependencies: .deferred(keys))
        case .optional(let keys):
            return BindingShape(kind: .constructor, dependencies: .construction(keys), isOptional: true)
        }
    }
}

/// A node as validation reads it. Every node is a `Node<T>`; the protocol reads it without `T`.
protocol DescribedNode: AnyNode {
    var shape: BindingShape { get }
    /// The keys of the properties the binding injects into its instances (see
    /// `BindingGraph.Vertex.propertyKeys`).
    var propertyDependencies: [BindingKey] { get }
}

extension Node: DescribedNode {
    /// The properties `T` declares, as this node's injector injects them, and those of the subclasses
    /// its instances turned out to be (known once it built one); none for a binding whose plan doesn't
    /// inject properties.
    var propertyDependencies: [BindingKey] {
        guard injectsProperties else { return [] }
        // Linked: the plan's own record, `T`'s requirements and those of the classes it injected since
        // (no dynamic cast of a built instance, no conformance check: validation reads every binding).
        if let injection = AtomicReference.load(propertyInjection, as: PropertyInjection.self) {
            var keys: [BindingKey] = []
            for key in injection.takeUnretainedValue().injectedKeys where !keys.contains(key) { keys.append(key) }
            return keys
        }
        return PropertyInjector.requiredKeys(of: T.self, in: injector)
    }

    var shape: BindingShape {
        BindingShape(
            dependencies: dependencies, isInstance: cell?.isPrebuilt == true, hasArguments: options?.arguments != nil,
            isSeed: isSeed)
    }
}

/// An ``Injection`` whose type is not known statically (found through an `Injectable` metatype).
protocol ShapedInjection {
    var shape: BindingShape { get }
    var defaultScope: Scope { get }
}

extension Injection: ShapedInjection {
    var shape: BindingShape { recipe.shape }
}

extension Node {
    /// Whether every value of the binding is an instance it built: a constructor binding's (an
    /// `Injectable` declaration's too). An instance, a closure's result, a delegation's, a collection and
    /// a binding with arguments may be instances someone else owns.
    var buildsNewInstances: Bool {
        guard case .known = dependencies, cell?.isPrebuilt != true else { return false }
        guard let options else { return true }
        return options.forwarding == nil && options.arguments == nil && !options.isSeed
    }

    /// Whether this binding's plan injects properties into what it builds: exactly the bindings that
    /// build their instances (see ``buildsNewInstances``); everything else is handed out as it is (a
    /// delegation's target's binding injects).
    var injectsProperties: Bool { buildsNewInstances }
}
