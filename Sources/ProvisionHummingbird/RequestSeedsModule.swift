import Hummingbird
import Logging
public import Provision

/// Declares what ``RequestScopeMiddleware`` seeds every request's scope with: the `Request`, the
/// request's `Logger` (with its `hb.request.id` metadata) and its ``RequestIdentifier``, or only those
/// you name.
///
/// ```swift
/// let injector = try Injector(RequestSeedsModule(), AppModule())
/// ```
///
/// Scoped services then depend on them like on any binding: `to(AuditLog.init(request:logger:))`. The
/// unnamed `Logger` becomes the request's: give loggers that singletons use a name
/// (`binder.bind(Logger.self, named: "app")`).
///
/// The middleware provides each seed that is declared, and only those: a seed costs a copy of its value
/// into every request's scope. When your services depend on the logger alone, declare that one:
///
/// ```swift
/// let injector = try Injector(RequestSeedsModule(.logger), AppModule())
/// ```
public struct RequestSeedsModule: Module {
    /// The request's values the module declares as seeds.
    public struct Seeds: OptionSet, Sendable {
        /// The bits of the seeds in the set.
        public let rawValue: UInt8

        /// Creates a set from its raw value.
        ///
        /// - Parameter rawValue: The bits of the seeds in the set.
        public init(rawValue: UInt8) {
            self.rawValue = rawValue
        }

        /// The `Request`.
        public static let request = Seeds(rawValue: 1 << 0)
        /// The request's `Logger`, with the `hb.request.id` metadata.
        public static let logger = Seeds(rawValue: 1 << 1)
        /// The request's ``RequestIdentifier``.
        public static let identifier = Seeds(rawValue: 1 << 2)
        /// All three.
        public static let all: Seeds = [.request, .logger, .identifier]
    }

    /// The seeds the module declares.
    public let seeds: Seeds

    /// Creates the module.
    ///
    /// - Parameter seeds: The seeds to declare; all three by default.
    public init(_ seeds: Seeds = .all) {
        self.seeds = seeds
    }

    /// Declares the chosen seeds: `Request`, `Logger` and ``RequestIdentifier``.
    ///
    /// - Parameter binder: The binder to declare them with.
    public func configure(_ binder: Binder) {
        if seeds.contains(.request) { binder.bind(Request.self).toSeed() }
        if seeds.contains(.logger) { binder.bind(Logger.self).toSeed() }
        if seeds.contains(.identifier) { binder.bind(RequestIdentifier.self).toSeed() }
    }
}
