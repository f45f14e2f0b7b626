/// A snapshot of an injector's bindings and their dependencies, with the problems validation found:
/// render it with ``dot()`` (Graphviz) or ``mermaid()``.
///
/// ```swift
/// let graph = injector.graph()
/// try graph.dot().write(toFile: "services.dot", atomically: true, encoding: .utf8)
/// // dot -Tpng services.dot -o services.png
/// ```
///
/// Each vertex is a binding (labelled with its type, name, scope and kind) or a dependency nothing
/// binds; each edge points from a binding to a dependency. Edges through a ``Provider`` or ``Lazy``
/// handle go straight to the handle's target and are drawn dashed; the handle itself is not a vertex.
/// Bindings and edges involved in a problem are drawn in red.
///
/// The graph is computed like ``Injector/validate()``: nothing is built and the injector is not
/// changed. It is a value: later changes to the injector (installed modules) don't affect it.
public struct DependencyGraph: Sendable {
    /// The bindings and missing dependencies, bindings in declaration order (the order the modules
    /// declare them), then missing dependencies in the order they were found.
    public let vertices: [Vertex]

    /// The dependencies, grouped by dependent in vertex order, each dependent's in declaration order.
    public let edges: [Edge]

    /// What validating the same graph found.
    public let report: ValidationReport
}

extension Injector {
    /// The graph of every binding this injector can reach, for diagrams: Graphviz (``DependencyGraph/dot()``)
    /// or Mermaid (``DependencyGraph/mermaid()``) text, with the problems ``validate()`` would report
    /// highlighted.
    ///
    /// ```swift
    /// print(injector.graph().mermaid())
    /// ```
    ///
    /// Like ``validate()``, it constructs nothing and doesn't change the injector.
    ///
    /// - Returns: The bindings, their dependencies and the validation report.
    /// - Complexity: Linear in the number of bindings and dependencies, after sorting the bindings.
    public func graph() -> DependencyGraph {
        let (graph, findings, report) = analyzeGraph(eager: [])
        return DependencyGraph(graph, findings: findings, report: report)
    }
}
