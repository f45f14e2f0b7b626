import Hummingbird
import Logging
public import Provision

/// Declares what ``RequestScopeMiddleware`` seeds every request's scope with: the `Request`, the
/// request's `Logger` (with its `hb.request.id` metadata) and its ``RequestIdentifier``.
///
/// ```swift
/// let injector = try Injector(RequestSeedsModule(), AppModule())
/// ```
///
/// Scoped services then depend on them like on any binding: `to(AuditLog.init(request:logger:))`. The
/// unnamed `Logger` becomes the request's: give loggers that singletons use a name
/// (`binder.bind(Logger.self, named: "app")`). Install only the seeds you want by declaring them
/// yourself instead (`binder.bind(Request.self).toSeed()`): the middleware provides the ones declared.
public struct RequestSeedsModule: Module {
    /// Creates the module.
    public init() {}

    /// Declares `Request`, `Logger` and ``RequestIdentifier`` as seeds.
    ///
    /// - Parameter binder: The binder to declare them with.
    public func configure(_ binder: Binder) {
        binder.bind(Request.self).toSeed()
        binder.bind(Logger.self).toSeed()
        binder.bind(RequestIdentifier.self).toSeed()
    }
}
