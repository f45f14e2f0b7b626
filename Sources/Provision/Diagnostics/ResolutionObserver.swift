/// Receives an event for every binding an injector builds, every wait for another thread's singleton
/// build, and every failed build: the hook for logging, metrics and tracing.
///
/// Set an observer in the injector's ``Injector/Configuration`` when you create it:
///
/// ```swift
/// final class SlowBuildReporter: ResolutionObserver {
///     func receive(_ event: ResolutionEvent) {
///         if event.kind == .built, event.duration > .milliseconds(50) {
///             print("slow: \(event.key) took \(event.duration)")
///         }
///     }
/// }
///
/// let injector = try Injector(
///     modules: [AppModule()],
///     configuration: Injector.Configuration(observer: SlowBuildReporter())
/// )
/// ```
///
/// The `ProvisionLogging` library has an observer that writes the events to a swift-log `Logger`.
///
/// Events are delivered synchronously, on the thread that resolves, with no Provision lock held, so an
/// observer may resolve from the injector, but it runs inside the request that caused the event: keep
/// it quick, and make it thread-safe, because several threads report at once. A singleton is served
/// from the moment its build returns inside the hook, so an observer that reports to a singleton of the
/// same injector (an exporter) may resolve it in any event, the exporter's own `built` event included.
/// Before that moment, inside the hook's call of the build, resolving the binding being built is a
/// re-entry, reported as a ``ProvisionError/Code/cycle``.
///
/// What is reported: every value a binding's plan builds (constructors, closures, multibinding
/// collections, bindings with arguments resolved with their defaults), in the injector whose binding
/// builds it; every request that fails while its binding is first linked, before anything is built
/// (``ResolutionEvent/Kind-swift.struct/linkFailed``); and, through
/// ``observeLifecycle(_:_:)``, the injector's start, shutdown and each service's hooks. Instance bindings and handles (`Provider`, `Lazy`, `ObjectFactory`) build nothing and
/// report nothing; a request that passes resolve-time arguments (``Injector/get(_:named:arguments:)``)
/// is not reported either, nor its wait for another thread's build of the same singleton.
///
/// To act around a build rather than after it (a tracer opening a span for it, a metric timing it
/// with a clock of its own), implement ``observeBuild(of:scope:_:)`` (and
/// ``observeAsyncBuild(of:scope:_:)`` for bindings whose construction awaits): the injector calls it
/// with the build as a closure, which the observer runs exactly once. Builds nest: a build's
/// dependencies are built inside its closure, on the same thread (or task).
///
/// ```swift
/// final class BuildCounter: ResolutionObserver {
///     let builds = Atomic<Int>(0)
///
///     func observeBuild<T>(
///         of key: BindingKey, scope: Scope, _ build: () throws(ProvisionError) -> T
///     ) throws(ProvisionError) -> T {
///         builds.add(1, ordering: .relaxed)
///         return try build()
///     }
/// }
/// ```
///
/// The default implementations of the two build hooks time the build and then deliver a
/// ``ResolutionEvent/Kind-swift.struct/built`` or ``ResolutionEvent/Kind-swift.struct/failed`` event to
/// ``receive(_:)``; the default ``receive(_:)`` does nothing. An observer implements either or both.
///
/// Cost: an injector without an observer runs exactly the code it would without this feature (whether
/// to observe is decided once, when a binding is first linked). With an observer, every build of a
/// value is one call of the build hook; the default hooks add two clock reads and the event. A built
/// singleton served from its cell reports nothing. The di-bench scenario "mixed daemon graph, observer
/// on" measures an observer that counts builds in the hook.
///
/// An observer is compared by identity (it is a class), so that ``Injector/Configuration`` stays
/// `Hashable`.
public protocol ResolutionObserver: AnyObject, Sendable {
    /// Handles one event. Called on the resolving thread, after the event happened.
    ///
    /// The default implementation does nothing.
    ///
    /// - Parameter event: What happened, to which binding, and how long it took.
    func receive(_ event: ResolutionEvent)

    /// Runs one build of a value for the binding `key`: the observer calls `build` exactly once, on the
    /// calling thread, and returns what it returns or throws what it throws.
    ///
    /// The default implementation times the build and delivers a `built` or `failed` event to
    /// ``receive(_:)``.
    ///
    /// - Parameters:
    ///   - key: The binding being built.
    ///   - scope: The binding's scope.
    ///   - build: The build itself; it builds the value's dependencies inside it.
    /// - Returns: The value `build` returns.
    /// - Throws: The error `build` throws. An observer must not throw errors of its own: the request
    ///   would fail with them.
    func observeBuild<T>(
        of key: BindingKey,
        scope: Scope,
        _ build: () throws(ProvisionError) -> T
    ) throws(ProvisionError) -> T

    /// The counterpart of ``observeBuild(of:scope:_:)`` for a build that awaits (a binding with an async
    /// factory, or one built through its async plan).
    ///
    /// The default implementation times the build and delivers a `built` or `failed` event to
    /// ``receive(_:)``.
    func observeAsyncBuild<T>(
        of key: BindingKey,
        scope: Scope,
        _ build: () async throws(ProvisionError) -> T
    ) async throws(ProvisionError) -> T

    /// Runs one step of the injector's lifecycle: ``Injector/start()``, ``Injector/shutdown()``, or one
    /// service's start or stop hook inside them. The observer calls `body` exactly once and throws what
    /// it throws: a tracer opens a span around it.
    ///
    /// The default implementation runs `body`.
    ///
    /// - Parameters:
    ///   - operation: The step; its ``LifecycleOperation/key`` names the service of a service's hook.
    ///   - body: The step itself. A service's hook runs inside its injector's `start` or `shutdown`, so
    ///     the calls nest.
    /// - Throws: The error `body` throws: ``Injector/start()``'s and ``Injector/shutdown()``'s own
    ///   errors, or a service's hook failure (``ProvisionError/Code/startFailed`` and
    ///   ``ProvisionError/Code/stopFailed`` collect those afterwards).
    func observeLifecycle(
        _ operation: LifecycleOperation,
        _ body: () async throws(ProvisionError) -> Void
    ) async throws(ProvisionError)
}

extension ResolutionObserver {
    /// Does nothing.
    public func receive(_ event: ResolutionEvent) {}

    /// Runs `body`.
    public func observeLifecycle(
        _ operation: LifecycleOperation,
        _ body: () async throws(ProvisionError) -> Void
    ) async throws(ProvisionError) {
        try await body()
    }

    /// Runs `build`, then delivers a `built` or `failed` event with its duration to ``receive(_:)``.
    public func observeBuild<T>(
        of key: BindingKey,
        scope: Scope,
        _ build: () throws(ProvisionError) -> T
    ) throws(ProvisionError) -> T {
        let started = ContinuousClock.now
        do throws(ProvisionError) {
            let value = try build()
            receive(ResolutionEvent.build(of: key, scope: scope, since: started, failure: nil))
            return value
        } catch {
            receive(ResolutionEvent.build(of: key, scope: scope, since: started, failure: error))
            throw error
        }
    }

    /// Runs `build`, then delivers a `built` or `failed` event with its duration to ``receive(_:)``.
    public func observeAsyncBuild<T>(
        of key: BindingKey,
        scope: Scope,
        _ build: () async throws(ProvisionError) -> T
    ) async throws(ProvisionError) -> T {
        let started = ContinuousClock.now
        do throws(ProvisionError) {
            let value = try await build()
            receive(ResolutionEvent.build(of: key, scope: scope, since: started, failure: nil))
            return value
        } catch {
            receive(ResolutionEvent.build(of: key, scope: scope, since: started, failure: error))
            throw error
        }
    }
}
