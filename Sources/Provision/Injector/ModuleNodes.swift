/// The nodes an injector is created with, in declaration order, where a later module's binding for a
/// key replaces an earlier module's.
///
/// Positions are tracked only when a key can be bound again (several modules); one module's keys are
/// distinct already. Either way each node is stored once, so creating a large injector retains each
/// node once instead of once per intermediate table.
struct ModuleNodes {
    private(set) var nodes: [any AnyNode] = []
    private var positions: [BindingKey: Int] = [:]
    private var tracksPositions: Bool

    init(capacity: Int, replacesKeys: Bool) {
        nodes.reserveCapacity(capacity)
        tracksPositions = replacesKeys
        if replacesKeys { positions.reserveCapacity(capacity) }
    }

    /// Adds `node`, replacing the node of an earlier module with the same key.
    mutating func add(_ node: any AnyNode) {
        guard tracksPositions else {
            nodes.append(node)
            return
        }
        if let earlier = positions.updateValue(nodes.count, forKey: node.key) {
            positions[node.key] = earlier
            nodes[earlier] = node
        } else {
            nodes.append(node)
        }
    }

    /// Adds `node` unless its key is present; returns whether it was added.
    mutating func addNew(_ node: any AnyNode) -> Bool {
        if !tracksPositions {
            tracksPositions = true
            positions.reserveCapacity(nodes.count)
            for (index, existing) in nodes.enumerated() {
                positions[existing.key] = index
            }
        }
        guard positions[node.key] == nil else { return false }
        positions[node.key] = nodes.count
        nodes.append(node)
        return true
    }
}
