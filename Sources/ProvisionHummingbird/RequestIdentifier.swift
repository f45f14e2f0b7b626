public import Logging

/// The identifier Hummingbird gives a request (its logger's `hb.request.id`), as a type a request's
/// services can depend on: ``RequestScopeMiddleware`` seeds it into every request's scope.
///
/// ```swift
/// final class AuditLog: Sendable {
///     init(requestID: RequestIdentifier) { ... }
/// }
/// ```
///
/// The text is made when it is first read, not for every request.
public struct RequestIdentifier: Hashable, Sendable, CustomStringConvertible {
    private let metadata: Logger.MetadataValue?

    /// Creates an identifier.
    ///
    /// - Parameter value: The identifier's text.
    public init(_ value: String) {
        metadata = .string(value)
    }

    /// The identifier a request's logger carries as `hb.request.id` metadata.
    ///
    /// - Parameter logger: The request's logger.
    public init(logger: Logger) {
        metadata = logger[metadataKey: "hb.request.id"]
    }

    /// The identifier as Hummingbird logs it; `unidentified` when the request's logger had none.
    public var value: String {
        metadata?.description ?? "unidentified"
    }

    /// The identifier's text.
    public var description: String { value }

    /// Whether two identifiers have the same text.
    public static func == (lhs: RequestIdentifier, rhs: RequestIdentifier) -> Bool {
        lhs.value == rhs.value
    }

    /// Hashes the text.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(value)
    }
}
