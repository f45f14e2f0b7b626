public import Hummingbird
public import Provision

/// A request context with a ``Provision/ServiceScope`` and nothing else: Hummingbird's
/// `BasicRequestContext`, scoped.
///
/// ```swift
/// let router = Router(context: BasicScopedRequestContext.self)
/// router.add(middleware: RequestScopeMiddleware(injector: injector))
/// ```
public struct BasicScopedRequestContext: ScopedRequestContext {
    /// Hummingbird's storage: the logger, the route's parameters.
    public var coreContext: CoreRequestContextStorage
    /// The request's scope, set by ``RequestScopeMiddleware``.
    public var serviceScope: ServiceScope?

    /// Creates the context of a new request, with no scope yet.
    ///
    /// - Parameter source: What Hummingbird creates the context from.
    public init(source: Source) {
        coreContext = CoreRequestContextStorage(source: source)
    }
}
