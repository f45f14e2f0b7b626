/// A failure of the example daemon's simulated services.
struct DaemonError: Error, CustomStringConvertible {
    /// What went wrong.
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
