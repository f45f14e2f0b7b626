import Foundation

/// Small path and text helpers for the documentation tests.
enum URLPath {
    /// The package root: the directory above `Tests/` in `filePath`.
    static func packageRoot(from filePath: String) -> String {
        guard let range = filePath.range(of: "/Tests/") else { return "." }
        return String(filePath[..<range.lowerBound])
    }

    /// The text between two markers, or `nil` when either is missing.
    static func between(_ start: String, _ end: String, in text: String) -> String? {
        guard let lower = text.range(of: start),
            let upper = text.range(of: end, range: lower.upperBound..<text.endIndex)
        else { return nil }
        return String(text[lower.upperBound..<upper.lowerBound])
    }
}
