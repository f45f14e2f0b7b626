extension DependencyGraph {
    /// Draws a binding graph: handle vertices become dashed edges to their targets, missing
    /// dependencies become vertices of their own, and the findings' vertices and edges are marked.
    init(_ graph: BindingGraph, findings: [ValidationFinding], report: ValidationReport) {
        var problemVertices: Set<Int> = []
        var problemEdges: Set<ValidationFinding.EdgeID> = []
        for finding in findings {
            problemVertices.formUnion(finding.vertices)
            problemEdges.formUnion(finding.edges)
        }

        // Elements are labelled by their position in their collection.
        var elementPosition: [Int: (collection: Int, position: Int)] = [:]
        for (index, vertex) in graph.vertices.enumerated() where vertex.shape.kind == .multibinding {
            for (position, edge) in vertex.edges.enumerated() {
                if case .vertex(let element) = edge.target { elementPosition[element] = (index, position + 1) }
            }
        }

        var ids = [Int?](repeating: nil, count: graph.vertices.count)
        var vertices: [Vertex] = []
        for (index, vertex) in graph.vertices.enumerated() where vertex.shape.kind != .handle {
            ids[index] = vertices.count
            var subtitle = vertex.key.name.map { "named \"\($0)\"" }
            if let (collection, position) = elementPosition[index] {
                subtitle = "element \(position) of \(DependencyGraph.title(of: graph.vertices[collection]))"
            }
            // One of several bindings of a type, by its argument list (see ArgumentVariants).
            if let (signature, name) = ArgumentVariants.parts(of: vertex.key) {
                subtitle = "arguments \(signature)" + (name.map { ", named \"\($0)\"" } ?? "")
            }
            var notes: [String] = []
            if vertex.isJustInTime { notes.append("just-in-time") }
            if vertex.depth > 0 { notes.append("from parent") }
            let isChecked: Bool
            if case .unknown = vertex.shape.dependencies { isChecked = false } else { isChecked = true }
            if !isChecked { notes.append("not checked") }
            vertices.append(
                Vertex(
                    id: vertices.count,
                    key: vertex.key,
                    kind: vertex.shape.kind,
                    scope: vertex.scope,
                    isJustInTime: vertex.isJustInTime,
                    isInherited: vertex.depth > 0,
                    isStaticallyChecked: isChecked,
                    hasProblem: problemVertices.contains(index),
                    label: Vertex.labelLines(
                        title: DependencyGraph.title(of: vertex),
                        subtitle: subtitle,
                        scope: vertex.scope,
                        kind: vertex.shape.kind,
                        notes: notes
                    ).joined(separator: "\n")
                )
            )
        }

        var missingIDs = [Int?](repeating: nil, count: graph.missing.count)
        var missingVertices: [Vertex] = []
        let firstMissingID = vertices.count
        func id(of target: BindingGraph.Edge.Target) -> Int? {
            switch target {
            case .vertex(let index):
                return ids[index]
            case .missing(let index):
                if let id = missingIDs[index] { return id }
                let missing = graph.missing[index]
                let id = firstMissingID + missingVertices.count
                missingIDs[index] = id
                let reason: String
                switch missing.reason {
                case .notBound: reason = "missing"
                case .emptyMultibinding: reason = "missing: nothing multibound"
                case .onlyMultibound: reason = "missing: only multibound"
                case .misdeclared: reason = "missing: inherits its superclass's declaration"
                case .shutDown: reason = "missing: the injector was shut down"
                }
                missingVertices.append(
                    Vertex(
                        id: id,
                        key: missing.key,
                        kind: .missing,
                        scope: nil,
                        isJustInTime: false,
                        isInherited: false,
                        isStaticallyChecked: true,
                        hasProblem: true,
                        label: Vertex.labelLines(
                            title: DependencyGraph.title(of: missing.key.type),
                            subtitle: missing.key.name.map { "named \"\($0)\"" },
                            scope: nil,
                            kind: .missing,
                            notes: [reason]
                        ).joined(separator: "\n")
                    )
                )
                return id
            }
        }

        var edges: [Edge] = []
        for (index, vertex) in graph.vertices.enumerated() {
            guard let from = ids[index] else { continue }
            for (position, edge) in vertex.edges.enumerated() {
                let isProblem = problemEdges.contains(ValidationFinding.EdgeID(vertex: index, index: position))
                if case .vertex(let target) = edge.target, graph.vertices[target].shape.kind == .handle {
                    let handle = graph.vertices[target]
                    let name = TypeName.describe(handle.key.type).prefix { $0 != "<" }
                    for (handlePosition, deferred) in handle.edges.enumerated() {
                        guard let to = id(of: deferred.target) else { continue }
                        let throughHandle = ValidationFinding.EdgeID(vertex: target, index: handlePosition)
                        edges.append(
                            Edge(
                                from: from,
                                to: to,
                                kind: .deferred,
                                handle: String(name),
                                hasProblem: isProblem || problemEdges.contains(throughHandle)
                            )
                        )
                    }
                    continue
                }
                guard let to = id(of: edge.target) else { continue }
                let kind: Edge.Kind
                switch edge.kind {
                case .construction: kind = .construction
                case .declared: kind = .declared
                case .deferred: kind = .deferred
                }
                edges.append(Edge(from: from, to: to, kind: kind, handle: nil, hasProblem: isProblem))
            }
        }
        self.init(vertices: vertices + missingVertices, edges: edges, report: report)
    }

    /// A binding's type as a diagram shows it: a multibinding as `[any Plugin]`.
    static func title(of vertex: BindingGraph.Vertex) -> String {
        title(of: vertex.key.type)
    }

    /// A type as a diagram shows it: arrays (multibindings) as `[any Plugin]`.
    static func title(of type: any Any.Type) -> String {
        if let array = type as? any ArrayType.Type {
            return "[\(TypeName.describe(array.elementType))]"
        }
        return TypeName.describe(type)
    }
}
