public import Hummingbird
public import Provision

/// A Hummingbird request context that carries the request's ``Provision/ServiceScope``, opened by
/// ``RequestScopeMiddleware``: handlers resolve their services through it with one call.
///
/// ```swift
/// struct AppRequestContext: ScopedRequestContext {
///     var coreContext: CoreRequestContextStorage
///     var serviceScope: ServiceScope?
///
///     init(source: Source) {
///         coreContext = CoreRequestContextStorage(source: source)
///     }
/// }
///
/// router.get("/todos/:id") { request, context in
///     try await context.get(TodoRepository.self).find(context.parameters.require("id"))
/// }
/// ```
///
/// ``BasicScopedRequestContext`` is a ready-made one.
public protocol ScopedRequestContext: RequestContext {
    /// The request's scope: set by ``RequestScopeMiddleware`` before the handler runs, `nil` before.
    var serviceScope: ServiceScope? { get set }
}

extension ScopedRequestContext {
    /// Resolves `type` (optionally named) in the request's scope: a scoped service is this request's
    /// instance, a singleton is the injector's.
    ///
    /// - Parameters:
    ///   - type: The type to resolve; can be omitted where the context tells it.
    ///   - name: The binding's name; `nil` (the default) for the unnamed binding.
    /// - Returns: The instance, as `ServiceScope.get(_:named:)` returns it.
    /// - Throws: ``Provision/ProvisionError`` with code `outsideScope` when no ``RequestScopeMiddleware``
    ///   opened a scope for the request; otherwise what the scope's `get` throws.
    @inlinable
    public func get<T>(_ type: T.Type = T.self, named name: String? = nil) throws(ProvisionError) -> T {
        guard let serviceScope else { throw Self.noScope(BindingKey(type, named: name)) }
        return try serviceScope.get(type, named: name)
    }

    /// Resolves `type` (optionally named) in the request's scope, awaiting async factories.
    ///
    /// - Parameters:
    ///   - type: The type to resolve; can be omitted where the context tells it.
    ///   - name: The binding's name; `nil` (the default) for the unnamed binding.
    /// - Returns: The instance, as `ServiceScope.get(_:named:)` returns it.
    /// - Throws: ``Provision/ProvisionError`` with code `outsideScope` when no ``RequestScopeMiddleware``
    ///   opened a scope for the request; otherwise what the scope's `get` throws.
    @inlinable
    public func get<T>(_ type: T.Type = T.self, named name: String? = nil) async throws(ProvisionError) -> T {
        guard let serviceScope else { throw Self.noScope(BindingKey(type, named: name)) }
        return try await serviceScope.get(type, named: name)
    }
}

extension ScopedRequestContext {
    /// The error of a request resolved before any ``RequestScopeMiddleware`` opened its scope.
    @usableFromInline
    static func noScope(_ key: BindingKey) -> ProvisionError {
        ProvisionError.outsideScope(
            key,
            hint: "add RequestScopeMiddleware(injector:) to the router (router.add(middleware:)) before the "
                + "routes that resolve services through the request context"
        )
    }
}
