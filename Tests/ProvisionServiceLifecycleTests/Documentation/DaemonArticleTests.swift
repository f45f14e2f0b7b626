import Foundation
import Testing

/// The article "Writing a daemon with Provision" shows the example daemon's code: every Swift block in
/// it must still be in `Sources/JobDaemon`, line for line (indentation aside), so that it compiles.
@Suite("Daemon article")
struct DaemonArticleTests {
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

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

    /// Whether `block` is a run of consecutive lines of `source`.
    private static func source(_ source: [String], contains block: [String]) -> Bool {
        guard !block.isEmpty, source.count >= block.count else { return false }
        return (0...(source.count - block.count)).contains { Array(source[$0..<($0 + block.count)]) == block }
    }

    @Test("every Swift block of the article is in the daemon's sources")
    func blocksAreSourceCode() throws {
        let article = try String(
            contentsOf: Self.root.appending(path: "Sources/Provision/Provision.docc/WritingADaemonWithProvision.md"),
            encoding: .utf8
        )
        let folder = Self.root.appending(path: "Sources/JobDaemon")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path())
            .filter { $0.hasSuffix(".swift") }
        let sources = try files.map { try Self.lines(String(contentsOf: folder.appending(path: $0), encoding: .utf8)) }
        let blocks = Self.swiftBlocks(in: article)

        #expect(blocks.count >= 6, "the article shows the daemon's code")
        for block in blocks {
            #expect(
                sources.contains { Self.source($0, contains: block) },
                "not in Sources/JobDaemon: \(block.first ?? "") ..."
            )
        }
    }
}
