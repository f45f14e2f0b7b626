/// What linking found about a node's static subgraph, published with its plan.
@usableFromInline
struct NodeTraits: OptionSet, Sendable {
    @usableFromInline let rawValue: UInt8

    @inlinable
    init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// Building the node awaits an async factory (its own, or a dependency's that it builds).
    static let needsAsync = NodeTraits(rawValue: 1)
    /// Building the node builds a scoped instance: it can only be built inside a scope.
    static let needsScope = NodeTraits(rawValue: 2)
    /// Building the node may build a singleton (its own instance, or a dependency's that it builds),
    /// whose build another request may be running: an async request settles those first (see
    /// ``AsyncLinker``), suspending instead of blocking.
    static let buildsSingleton = NodeTraits(rawValue: 4)
}
