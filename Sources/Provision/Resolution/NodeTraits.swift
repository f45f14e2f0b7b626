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
    /// Building the node may go through a singleton's or scoped instance's gate (its own, or a
    /// dependency's that it builds), where a caller may have to wait for another request: an async
    /// request then resolves it through its async plan, which suspends there instead of blocking.
    static let hasGate = NodeTraits(rawValue: 4)
}
