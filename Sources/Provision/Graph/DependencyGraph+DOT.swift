extension DependencyGraph {
    /// The graph in Graphviz's DOT language, for `dot -Tsvg` or `dot -Tpng`.
    ///
    /// ```
    /// digraph Provision {
    ///   rankdir=LR;
    ///   ...
    ///   n0 [label="App\nsingleton, constructor", style="rounded,filled", fillcolor="#dbe8fb"];
    ///   n1 [label="Store\ntransient, constructor"];
    ///   n0 -> n1;
    /// }
    /// ```
    ///
    /// Bindings are rounded boxes (singletons filled blue, closures that declared no dependencies
    /// with a dotted border), missing dependencies dashed boxes; edges through a ``Provider`` or
    /// ``Lazy`` are dashed and labelled with the handle; everything involved in a validation problem
    /// is red.
    ///
    /// - Returns: The DOT text, one statement per line, ending with a newline.
    public func dot() -> String {
        var lines = [
            "digraph Provision {",
            "  rankdir=LR;",
            "  node [shape=box, style=rounded, fontname=\"Helvetica\", fontsize=11];",
            "  edge [fontname=\"Helvetica\", fontsize=9];",
        ]
        for vertex in vertices {
            var attributes = ["label=\(DependencyGraph.dotString(vertex.label))"]
            var style = ["rounded"]
            if vertex.kind == .missing {
                style.append("dashed")
            } else if !vertex.isStaticallyChecked {
                style.append("dotted")
            }
            if vertex.scope == .singleton {
                style.append("filled")
                attributes.append("fillcolor=\"\(DependencyGraph.singletonFill)\"")
            }
            if style != ["rounded"] { attributes.insert("style=\"\(style.joined(separator: ","))\"", at: 1) }
            if vertex.hasProblem {
                attributes.append(
                    "color=\"\(DependencyGraph.problemColor)\", fontcolor=\"\(DependencyGraph.problemColor)\", penwidth=2"
                )
            }
            lines.append("  n\(vertex.id) [\(attributes.joined(separator: ", "))];")
        }
        for edge in edges {
            var attributes: [String] = []
            switch edge.kind {
            case .deferred:
                attributes.append("style=dashed")
                if let handle = edge.handle { attributes.append("label=\(DependencyGraph.dotString(handle))") }
            case .declared:
                attributes.append("label=\"declared\"")
            default:
                break
            }
            if edge.hasProblem {
                attributes.append("color=\"\(DependencyGraph.problemColor)\", penwidth=2")
            }
            let suffix = attributes.isEmpty ? "" : " [\(attributes.joined(separator: ", "))]"
            lines.append("  n\(edge.from) -> n\(edge.to)\(suffix);")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The red of problems, in both diagram formats.
    static let problemColor = "#d62728"
    /// The fill of singletons, in both diagram formats.
    static let singletonFill = "#dbe8fb"

    /// A quoted DOT string: quotes and backslashes escaped, lines separated by `\n`.
    static func dotString(_ text: String) -> String {
        var result = "\""
        for character in text {
            switch character {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            default: result.append(character)
            }
        }
        return result + "\""
    }
}
