/// A place in the user's source code, recorded where a binding was declared.
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
    /// The file, as `#fileID` spells it (`MyApp/AppModule.swift`).
    public let fileID: String
    /// The line in that file.
    public let line: Int

    /// Creates a source location.
    public init(fileID: String, line: Int) {
        self.fileID = fileID
        self.line = line
    }

    /// `File.swift:12`.
    public var description: String { "\(fileID):\(line)" }
}
