/// Teaches an injector to start and stop singletons of types it doesn't know: a `Service` of
/// swift-service-lifecycle, a framework's own server type.
///
/// ``Injector/start()`` asks the configuration's adapters (``Injector/Configuration/lifecycleAdapters``),
/// in order, about every built singleton that has neither hooks on its binding nor a
/// ``ManagedService`` conformance; the first ``AdaptedLifecycle`` returned is the singleton's start and
/// stop, ordered like every other service's: it starts after the services it depends on, and stops
/// before them. Provision itself depends on nothing, so integrations provide the adapters:
/// `ProvisionServiceLifecycle`'s `ServiceLifecycleAdapter` runs every singleton that is a `Service`.
///
/// ```swift
/// struct TimerAdapter: LifecycleAdapter {
///     func lifecycle(of instance: Any) -> AdaptedLifecycle? {
///         guard let timer = instance as? RepeatingTimer else { return nil }
///         return AdaptedLifecycle(start: { timer.resume() }, stop: { await timer.cancelAndWait() })
///     }
/// }
/// ```
public protocol LifecycleAdapter: Sendable {
    /// How to start and stop `instance`, a built singleton, or `nil` when this adapter doesn't manage
    /// its type.
    ///
    /// Called once per singleton, by ``Injector/start()``, after every singleton was built.
    ///
    /// - Parameter instance: The singleton (its type is `Sendable`, as every singleton's is).
    /// - Returns: The start and stop of `instance`, or `nil`.
    func lifecycle(of instance: Any) -> AdaptedLifecycle?
}

/// The start and stop a ``LifecycleAdapter`` gives one singleton.
///
/// Each runs once at most, bounded by ``Injector/Configuration/lifecycleHookTimeout`` like a start or
/// stop hook: `stop` only after `start` returned normally.
public struct AdaptedLifecycle: Sendable {
    /// Starts the singleton; a throw makes ``Injector/start()`` fail and stop what had started.
    public var start: @Sendable () async throws -> Void
    /// Stops the singleton; a throw is collected by ``Injector/shutdown()``, which still stops the others.
    public var stop: @Sendable () async throws -> Void

    /// Creates the lifecycle of one singleton.
    ///
    /// - Parameters:
    ///   - start: Starts the singleton; returns once it runs.
    ///   - stop: Stops the singleton; returns once it has stopped.
    public init(start: @escaping @Sendable () async throws -> Void, stop: @escaping @Sendable () async throws -> Void) {
        self.start = start
        self.stop = stop
    }
}

extension Injector {
    /// The lifecycle the configuration's adapters give `instance`, the singleton of `key`, if any.
    func adaptedLifecycle(of instance: Any, key: BindingKey) -> LifecycleActions? {
        for adapter in configuration.lifecycleAdapters {
            if let adapted = adapter.lifecycle(of: instance) {
                return LifecycleActions(key: key, start: adapted.start, stop: adapted.stop)
            }
        }
        return nil
    }
}
