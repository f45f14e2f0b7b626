/// The nodes an injector is created with, in declaration order, where a later module's binding for a
/// key replaces an earlier module's when it is declared as an override.
///
/// Positions are tracked only when a key can be bound again (several modules); one module's keys are
/// distinct already. Either way each node is stored once, so creating a large injector retains each
/// node once instead of once per intermediate table.
struct ModuleNodes {
    private(set) var nodes: [any AnyNode] = []
    private var positions: [BindingKey: Int] = [:]
    /// For each node, when positions are tracked: the index of the module that declared it.
    private var modules: [Int] = []
    private var tracksPositions: Bool

    init(capacity: Int, replacesKeys: Bool) {
        nodes.reserveCapacity(capacity)
        tracksPositions = replacesKeys
        if replacesKeys {
            positions.reserveCapacity(capacity)
            modules.reserveCapacity(capacity)
        }
    }

    /// Adds `node`, declared by the module at index `module`. An earlier module's node for the same slot
    /// is replaced when `replacing` (the binding is an override), and returned otherwise: the caller
    /// reports the duplicate.
    ///
    /// - Parameter slot: What a binding is counted under: its key, or for a binding with arguments its key
    ///   and argument list (see ``ArgumentVariants/slot(of:)``); the node's key by default.
    /// - Returns: The earlier node and its module's index, when the slot is taken already and `replacing`
    ///   is `false`; `nil` when the node was added.
    mutating func add(
        _ node: any AnyNode,
        slot: BindingKey? = nil,
        module: Int,
        replacing: Bool
    ) -> (node: any AnyNode, module: Int)? {
        guard tracksPositions else {
            nodes.append(node)
            return nil
        }
        let slot = slot ?? node.key
        if let earlier = positions[slot] {
            guard replacing else { return (nodes[earlier], modules[earlier]) }
            nodes[earlier] = node
            modules[earlier] = module
        } else {
            positions[slot] = nodes.count
            nodes.append(node)
            modules.append(module)
        }
        return nil
    }

    /// Adds `node` unless its key is present; returns whether it was added.
    mutating func addNew(_ node: any AnyNode) -> Bool {
        if !tracksPositions {
            tracksPositions = true
            positions.reserveCapacity(nodes.count)
            for (index, existing) in nodes.enumerated() {
                positions[existing.key] = index
            }
            modules = Array(repeating: -1, count: nodes.count)
        }
        guard positions[node.key] == nil else { return false }
        positions[node.key] = nodes.count
        nodes.append(node)
        modules.append(-1)
        return true
    }
}
