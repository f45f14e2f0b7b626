/// A service that releases resources when its lifetime ends: closes a connection, flushes a buffer.
///
/// The injector calls ``dispose()`` exactly once for every instance it built whose type conforms:
/// scoped instances when their ``ServiceScope`` closes, singletons when the injector shuts down
/// (``Injector/shutdown()``), in reverse creation order (an instance is disposed before the instances it
/// was built from); when an injector's creation fails on an eager singleton, the instances it built
/// before the failure are disposed then. Instances given with `toInstance(_:)` and transient instances belong to the caller
/// and are never disposed by the injector.
///
/// ```swift
/// final class RequestLog: Disposable {
///     func dispose() throws { try flush() }
/// }
/// ```
///
/// Use ``AsyncDisposable`` when disposing needs to `await`.
public protocol Disposable: Sendable {
    /// Releases the instance's resources. An error is collected and reported once every other instance
    /// was disposed too.
    func dispose() throws
}

/// A service that releases resources asynchronously when its lifetime ends. See ``Disposable``.
///
/// ```swift
/// actor ConnectionPool: AsyncDisposable {
///     func dispose() async throws { try await drain() }
/// }
/// ```
///
/// A scope that holds async-disposable instances must be closed with `await scope.close()`; each call is
/// bounded by ``Injector/Configuration/lifecycleHookTimeout``.
public protocol AsyncDisposable: Sendable {
    /// Releases the instance's resources.
    func dispose() async throws
}
