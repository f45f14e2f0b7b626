/// A singleton service with a start and a stop: a server that listens, a worker that polls.
///
/// ``Injector/start()`` calls ``start()`` on every singleton that conforms, in dependency order (a
/// service starts after the services it depends on; independent services start concurrently), and
/// ``Injector/shutdown()`` calls ``stop()`` on exactly those that started, in reverse order. Both
/// requirements have default implementations that do nothing, so a service implements only what it
/// needs.
///
/// ```swift
/// final class MetricsReporter: ManagedService {
///     func start() async throws { try await connect() }
///     func stop() async throws { await flush() }
/// }
/// ```
///
/// To manage a type you don't own, or to keep lifecycle code out of a type, declare hooks on its
/// binding instead: `.in(.singleton).onStart { ... }.onStop { ... }` (see ``LifecycleBuilder``). Hooks
/// on a binding replace the conformance for that binding.
public protocol ManagedService: Sendable {
    /// Starts the service. Called once, after every service it depends on started.
    func start() async throws

    /// Stops the service. Called once, only if ``start()`` returned normally, before the services it
    /// depends on stop.
    func stop() async throws
}

extension ManagedService {
    /// Does nothing.
    public func start() async throws {}

    /// Does nothing.
    public func stop() async throws {}
}
