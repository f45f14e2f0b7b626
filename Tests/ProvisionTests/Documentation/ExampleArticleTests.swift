import Foundation
import Testing

/// The articles about the example executables show their code: every Swift block of an article must
/// still be in the example's sources, line for line (indentation aside), so that it compiles. The
/// README's "Serving HTTP" section shows the server's code the same way.
@Suite("Example articles")
struct ExampleArticleTests {
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// An article (or a part of one) and the folder of the code it shows.
    struct Case: Sendable, CustomTestStringConvertible {
        let document: String
        /// The heading of the only section checked, or `nil` for the whole document.
        let section: String?
        let sources: String
        let minimumBlocks: Int

        var testDescription: String { "\(document)\(section.map { " (\($0))" } ?? "") shows \(sources)" }
    }

    static let cases = [
        Case(
            document: "Sources/Provision/Provision.docc/WritingADaemonWithProvision.md", section: nil,
            sources: "Sources/JobDaemon", minimumBlocks: 6),
        Case(
            document: "Sources/Provision/Provision.docc/ServingHTTPWithProvision.md", section: nil,
            sources: "Sources/TodoServer", minimumBlocks: 6),
        Case(document: "README.md", section: "## Serving HTTP", sources: "Sources/TodoServer", minimumBlocks: 2),
    ]

    /// The lines of `text` without their indentation, blank lines dropped.
    private static func lines(_ text: some StringProtocol) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    /// The Swift code blocks of a Markdown text.
    private static func swiftBlocks(in markdown: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line.hasPrefix("```swift") {
                current = []
            } else if current != nil, line.hasPrefix("```") {
                blocks.append(lines(current?.joined(separator: "\n") ?? ""))
                current = nil
            } else {
                current?.append(String(line))
            }
        }
        return blocks
    }

    /// The section of `markdown` under `heading`, up to the next heading of the same level.
    private static func section(_ heading: String, of markdown: String) -> String {
        guard let start = markdown.range(of: "\n" + heading) else { return "" }
        let rest = markdown[start.upperBound...]
        let level = String(heading.prefix { $0 == "#" })
        guard let end = rest.range(of: "\n" + level + " ") else { return String(rest) }
        return String(rest[..<end.lowerBound])
    }

    /// Whether `block` is a run of consecutive lines of `source`.
    private static func source(_ source: [String], contains block: [String]) -> Bool {
        guard !block.isEmpty, source.count >= block.count else { return false }
        return (0...(source.count - block.count)).contains { Array(source[$0..<($0 + block.count)]) == block }
    }

    @Test("every Swift block is in the example's sources", arguments: cases)
    func blocksAreSourceCode(_ example: Case) throws {
        var text = try String(contentsOf: Self.root.appending(path: example.document), encoding: .utf8)
        if let heading = example.section { text = Self.section(heading, of: text) }
        let folder = Self.root.appending(path: example.sources)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path())
            .filter { $0.hasSuffix(".swift") }
        let sources = try files.map { try Self.lines(String(contentsOf: folder.appending(path: $0), encoding: .utf8)) }
        let blocks = Self.swiftBlocks(in: text)

        #expect(blocks.count >= example.minimumBlocks, "the text shows the example's code")
        for block in blocks {
            #expect(
                sources.contains { Self.source($0, contains: block) },
                "not in \(example.sources): \(block.first ?? "") ..."
            )
        }
    }
}
