import Foundation
import Provision
import Testing

/// Where Graphviz's `dot` is, if it is installed (Scripts/test.sh installs it when run as root).
let graphvizDot: String? = {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").map { "\($0)/dot" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}()

@Suite("Dependency graphs")
struct DependencyGraphTests {
    private func daemonGraph() throws -> DependencyGraph {
        try Injector.unvalidated(
            GraphDaemonModule(),
            ClosureModule { binder in
                binder.bind(GraphLazyHolder.self).to(GraphLazyHolder.init(clock:))
                binder.bind(GraphPluginHost.self).to(GraphPluginHost.init(plugins:))
                binder.multibind((any GraphPlugin).self).to(GraphPluginA.init)
                binder.multibind((any GraphPlugin).self).toInstance(GraphPluginB())
                binder.bind(GraphService.self, named: "audit").to { _ in
                    GraphService(store: GraphStore(logger: GraphLogger()))
                }
            }
        ).graph()
    }

    private func brokenGraph() throws -> DependencyGraph {
        try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(GraphStore.self).to(GraphStore.init(logger:))
                binder.bind(GraphLoopA.self).to(GraphLoopA.init(b:))
                binder.bind(GraphLoopB.self).to(GraphLoopB.init(a:))
                binder.bind(GraphClock.self).to(GraphClock.init)
            }
        ).graph()
    }

    @Test("vertices are the bindings in declaration order, labelled with type, name, scope and kind")
    func vertices() throws {
        let graph = try daemonGraph()
        #expect(
            graph.vertices.map(\.label) == [
                "GraphLogger\nsingleton, constructor",
                "GraphStore\ntransient, constructor",
                "GraphService\ntransient, constructor",
                "GraphClock\nsingleton, instance",
                "GraphApp\nsingleton, constructor",
                "GraphLazyHolder\ntransient, constructor",
                "GraphPluginHost\ntransient, constructor",
                "any GraphPlugin\nelement 1 of [any GraphPlugin]\ntransient, constructor",
                "any GraphPlugin\nelement 2 of [any GraphPlugin]\nsingleton, instance",
                "GraphService\nnamed \"audit\"\ntransient, closure, not checked",
                "[any GraphPlugin]\ntransient, multibinding",
            ]
        )
        #expect(graph.vertices.map(\.id) == Array(0..<11))
        #expect(graph.vertices.allSatisfy { !$0.hasProblem })
        #expect(graph.report.isValid)
    }

    @Test("edges follow dependencies; an edge through a Lazy goes to its target, marked deferred")
    func edges() throws {
        let graph = try daemonGraph()
        let described = graph.edges.map { "\($0.from)->\($0.to) \($0.kind)\($0.handle.map { " " + $0 } ?? "")" }
        #expect(
            described == [
                "1->0 construction", "2->1 construction", "4->2 construction", "4->3 construction",
                "5->3 deferred Lazy", "6->10 construction", "10->7 construction", "10->8 construction",
            ]
        )
    }

    @Test("the DOT text declares every vertex and edge, dashes handles and reddens problems")
    func dot() throws {
        let text = try brokenGraph().dot()
        #expect(text.hasPrefix("digraph Provision {\n  rankdir=LR;\n"))
        #expect(text.hasSuffix("}\n"))
        #expect(text.contains("  n0 [label=\"GraphStore\\ntransient, constructor\", color=\"#d62728\""))
        #expect(text.contains("  n4 [label=\"GraphLogger\\nmissing\", style=\"rounded,dashed\", color=\"#d62728\""))
        #expect(text.contains("  n0 -> n4 [color=\"#d62728\", penwidth=2];"))
        #expect(text.contains("  n1 -> n2 [color=\"#d62728\", penwidth=2];"))
        #expect(text.contains("  n3 [label=\"GraphClock\\ntransient, constructor\"];"))
        let lazy = try daemonGraph().dot()
        #expect(lazy.contains("  n5 -> n3 [style=dashed, label=\"Lazy\"];"))
        #expect(lazy.contains("  n0 [label=\"GraphLogger\\nsingleton, constructor\", style=\"rounded,filled\""))
        #expect(
            lazy.contains(
                "n9 [label=\"GraphService\\nnamed \\\"audit\\\"\\ntransient, closure, not checked\", style=\"rounded,dotted\"]"
            ))
        #expect(!lazy.contains("#d62728"))
    }

    @Test("the Mermaid text declares every vertex and edge, escapes labels and styles problems")
    func mermaid() throws {
        let text = try brokenGraph().mermaid()
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first == "flowchart LR")
        #expect(lines.contains("  n0(\"GraphStore<br/>transient, constructor\")"))
        #expect(lines.contains("  n4{{\"GraphLogger<br/>missing\"}}"))
        #expect(lines.contains("  n0 --> n4"))
        #expect(lines.contains("  class n0,n1,n2,n4 problem"))
        #expect(lines.contains("  linkStyle 0,1,2 stroke:#d62728,stroke-width:2px"))
        let daemon = try daemonGraph().mermaid()
        #expect(daemon.contains("  n5 -. Lazy .-> n3\n"))
        #expect(
            daemon.contains("  n9(\"GraphService<br/>named #quot;audit#quot;<br/>transient, closure, not checked\")"))
        #expect(daemon.contains("  class n0,n3,n4,n8 singleton\n"))
        #expect(daemon.contains("  class n9 unchecked\n"))
        #expect(!daemon.contains("linkStyle"))
    }

    @Test("a child's graph includes the parent's bindings, marked inherited")
    func childGraph() throws {
        let parent = try Injector.unvalidated(
            ClosureModule { $0.bind(GraphLogger.self).to(GraphLogger.init).in(.singleton) })
        let child = try parent.makeChild(ClosureModule { $0.bind(GraphStore.self).to(GraphStore.init(logger:)) })
        let graph = child.graph()
        #expect(graph.vertices.map(\.isInherited) == [true, false])
        #expect(graph.vertices.first?.label == "GraphLogger\nsingleton, constructor, from parent")
        #expect(graph.edges.map { [$0.from, $0.to] } == [[1, 0]])
    }

    @Test(
        "Graphviz renders the DOT text of a valid and of a broken graph without errors",
        .enabled(if: graphvizDot != nil, "Graphviz `dot` is not on PATH: install graphviz (Scripts/test.sh does)")
    )
    func rendersWithGraphviz() throws {
        for text in [try daemonGraph().dot(), try brokenGraph().dot()] {
            let (status, output, errors) = try run(graphvizDot ?? "dot", ["-Tsvg"], input: text)
            #expect(status == 0)
            #expect(errors.isEmpty, "dot wrote to stderr: \(errors)")
            #expect(output.contains("<svg"))
            #expect(output.contains("GraphLogger"))
        }
    }

    private func run(_ path: String, _ arguments: [String], input: String) throws -> (Int32, String, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self)
        )
    }
}
