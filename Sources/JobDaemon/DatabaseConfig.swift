/// Where the database is: bound as an instance, read by the database's async factory.
struct DatabaseConfig: Sendable {
    /// The connection string.
    var url: String
    /// How long connecting takes, to make the async factory wait as a real one would.
    var connectLatency: Duration
}
