extension DependencyGraph {
    /// The graph as a Mermaid flowchart, for Markdown renderers that support Mermaid (GitHub, GitLab,
    /// DocC-adjacent tooling) or the Mermaid live editor.
    ///
    /// ```
    /// flowchart LR
    ///   n0["App<br/>singleton, constructor"]
    ///   n1["Store<br/>transient, constructor"]
    ///   n0 --> n1
    ///   classDef singleton fill:#dbe8fb
    ///   class n0 singleton
    /// ```
    ///
    /// Bindings are rounded boxes, missing dependencies hexagons; edges through a ``Provider`` or
    /// ``Lazy`` are dotted and labelled with the handle; everything involved in a validation problem
    /// is red (class `problem` and a `linkStyle` per edge).
    ///
    /// - Returns: The Mermaid text, one statement per line, ending with a newline.
    public func mermaid() -> String {
        var lines = ["flowchart LR"]
        for vertex in vertices {
            let label = DependencyGraph.mermaidString(vertex.label)
            if vertex.kind == .missing {
                lines.append("  n\(vertex.id){{\(label)}}")
            } else {
                lines.append("  n\(vertex.id)(\(label))")
            }
        }
        var problemLinks: [Int] = []
        for (index, edge) in edges.enumerated() {
            let arrow: String
            switch edge.kind {
            case .deferred:
                arrow = edge.handle.map { "-. \($0) .->" } ?? "-.->"
            case .declared:
                arrow = "-- declared -->"
            default:
                arrow = "-->"
            }
            lines.append("  n\(edge.from) \(arrow) n\(edge.to)")
            if edge.hasProblem { problemLinks.append(index) }
        }
        lines.append("  classDef singleton fill:\(DependencyGraph.singletonFill)")
        lines.append("  classDef unchecked stroke-dasharray:2 2")
        lines.append(
            "  classDef problem stroke:\(DependencyGraph.problemColor),stroke-width:2px,color:\(DependencyGraph.problemColor)"
        )
        let classes: [(String, (Vertex) -> Bool)] = [
            ("singleton", { $0.scope == .singleton && !$0.hasProblem }),
            ("unchecked", { !$0.isStaticallyChecked && !$0.hasProblem }),
            ("problem", { $0.hasProblem }),
        ]
        for (name, applies) in classes {
            let members = vertices.filter(applies).map { "n\($0.id)" }
            if !members.isEmpty { lines.append("  class \(members.joined(separator: ",")) \(name)") }
        }
        if !problemLinks.isEmpty {
            let indices = problemLinks.map(String.init).joined(separator: ",")
            lines.append("  linkStyle \(indices) stroke:\(DependencyGraph.problemColor),stroke-width:2px")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A quoted Mermaid label: lines separated by `<br/>`, characters Mermaid would read as syntax or
    /// HTML written as entity codes.
    static func mermaidString(_ text: String) -> String {
        var result = "\""
        for character in text {
            switch character {
            case "\"": result += "#quot;"
            case "<": result += "#lt;"
            case ">": result += "#gt;"
            case "#": result += "#35;"
            case "\n": result += "<br/>"
            default: result.append(character)
            }
        }
        return result + "\""
    }
}
