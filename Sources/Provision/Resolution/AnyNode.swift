/// A binding inside one injector: its key, scope and recipe, the plan linked from it, and for a
/// singleton the published instance.
///
/// Nodes are created when a module's bindings are installed and never change afterwards except through
/// two write-once atomic slots: ``plan`` (set when the binding is first linked) and the singleton
/// instance in ``cell`` (set when the singleton is first built). Both are read with one acquiring load.
@usableFromInline
protocol AnyNode: AnyObject, Sendable {
    var key: BindingKey { get }
    var scope: Scope { get }
    var location: SourceLocation { get }
    var isLinked: Bool { get }
    /// Whether the binding takes arguments and declares no defaults: only a request that brings its
    /// arguments can build it (``Injector/start()`` leaves such a singleton to that request).
    var awaitsArguments: Bool { get }
    /// Whether the node's binding is a transient constructor whose plan is only its construction, so
    /// that a ``Program`` can build it with an instruction (see ``Node/allowPrograms()``).
    var isProgrammable: Bool { get }
    /// When the node was created, relative to every other node: declaration order.
    var declarationIndex: Int { get }

    /// What linking found about the node's static subgraph (see ``NodeTraits``); empty until linked.
    var traits: NodeTraits { get }

    /// The keys the node depends on when it builds, or `nil` when a closure resolves them at run time.
    var dependencyKeys: [BindingKey]? { get }

    /// The nodes of this injector that the node's plan links as its static dependencies (those
    /// already bound here; not those made just in time or found in a parent injector).
    func staticDependencies() -> [any AnyNode]

    /// Links the node with `linker`, ignoring any error (see ``Linker/prelink(_:)``).
    func prelink(with linker: Linker)

    /// The keys of the properties injected into the node's instances: the built instance's (a
    /// singleton's or an instance binding's), by its class, and those its constructor plans injected so
    /// far into the instances they built (see ``PropertyInjection/injectedKeys``); empty when none.
    var injectedPropertyKeys: [BindingKey] { get }

    /// Resolves the node once, discarding the value: builds an eager singleton.
    func build() throws(ProvisionError)

    /// Resolves the node once through the async path, discarding the value.
    func buildAsync() async throws(ProvisionError)

    /// How to start and stop the built singleton, if it has hooks or is a ``ManagedService``; `nil` when
    /// it has neither or is not built.
    func lifecycleActions() -> LifecycleActions?

    /// Completes the node with its binding's scope and hooks, before it is installed (see
    /// ``Node/attach(scope:hooks:)``).
    func attach(scope: Scope, hooks: AnyLifecycleHooks?)
}
