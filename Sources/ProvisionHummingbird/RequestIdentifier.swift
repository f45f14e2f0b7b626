/// The identifier Hummingbird gives a request (its logger's `hb.request.id`), as a type a request's
/// services can depend on: ``RequestScopeMiddleware`` seeds it into every request's scope.
///
/// ```swift
/// final class AuditLog: Sendable {
///     init(requestID: RequestIdentifier) { ... }
/// }
/// ```
public struct RequestIdentifier: Hashable, Sendable, CustomStringConvertible {
    /// The identifier as Hummingbird logs it.
    public let value: String

    /// Creates an identifier.
    ///
    /// - Parameter value: The identifier's text.
    public init(_ value: String) {
        self.value = value
    }

    /// The identifier's text.
    public var description: String { value }
}
