/// Declares start and stop hooks on a singleton binding: returned by ``ScopeBuilder/in(_:)`` and
/// ``ScopeBuilder/asEagerSingleton()``.
///
/// ```swift
/// binder.bind(HTTPServer.self).to(HTTPServer.init(router:)).in(.singleton)
///     .onStart { server in try await server.listen() }
///     .onStop { server in await server.drain() }
/// ```
///
/// ``Injector/start()`` runs the start hooks in dependency order and ``Injector/shutdown()`` the stop
/// hooks of the services that started, in reverse order. Hooks are only allowed on singletons: creating
/// an injector whose module declares them on another scope throws
/// ``ProvisionError/Code/invalidLifecycle``. Hooks on a binding replace the bound type's
/// ``ManagedService`` conformance.
public struct LifecycleBuilder<T: Sendable> {
    @usableFromInline let binder: Binder
    @usableFromInline let index: Int

    /// Runs `hook` with the instance when the injector starts, after the services it depends on
    /// started.
    ///
    /// - Parameter hook: Starts the service; a throw (or a timeout) makes ``Injector/start()`` fail and
    ///   stop the services that had started.
    /// - Returns: This builder, to add a stop hook.
    @discardableResult
    public func onStart(_ hook: @escaping @Sendable (T) async throws -> Void) -> LifecycleBuilder<T> {
        binder.updateHooks(at: index, as: T.self) { $0.start = hook }
        return self
    }

    /// Runs `hook` with the instance when the injector shuts down, if the service started, before the
    /// services it depends on stop.
    ///
    /// - Parameter hook: Stops the service; a throw (or a timeout) is collected, and every other service
    ///   is still stopped.
    /// - Returns: This builder, to add a start hook.
    @discardableResult
    public func onStop(_ hook: @escaping @Sendable (T) async throws -> Void) -> LifecycleBuilder<T> {
        binder.updateHooks(at: index, as: T.self) { $0.stop = hook }
        return self
    }
}

// Used on the configuring thread only, like the binder it writes to.
@available(*, unavailable)
extension LifecycleBuilder: Sendable {}
