import ArgumentParser
import Provision

/// What `di-bench --graph` prints.
enum GraphFormat: String, CaseIterable, ExpressibleByArgument {
    /// Graphviz DOT text: `di-bench --graph dot | dot -Tsvg > graph.svg`.
    case dot
    /// A Mermaid flowchart.
    case mermaid
    /// The validation report: the validation error's text for a broken graph.
    case report
}

extension GraphExample: ExpressibleByArgument {}

enum GraphCommand {
    /// The example's graph in the given format. Builds the injector (which constructs nothing: no
    /// example binding is eager), never resolves from it. The injector is created without validation
    /// (on by default), which would refuse the broken example: drawing and reporting its problems is
    /// the point.
    static func render(_ format: GraphFormat, example: GraphExample) throws -> String {
        let injector = try Injector(
            modules: [example.module],
            configuration: Injector.Configuration(validatesOnCreation: false)
        )
        switch format {
        case .dot: return injector.graph().dot()
        case .mermaid: return injector.graph().mermaid()
        case .report: return injector.validationReport().description + "\n"
        }
    }
}
