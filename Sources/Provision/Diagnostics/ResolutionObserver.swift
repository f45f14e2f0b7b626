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
/// it quick, and make it thread-safe, because several threads report at once.
///
/// What is reported: every value a binding's plan builds (constructors, closures, multibinding
/// collections, bindings with arguments resolved with their defaults), in the injector whose binding
/// builds it. Instance bindings and handles (`Provider`, `Lazy`, `ObjectFactory`) build nothing and
/// report nothing; a request that passes resolve-time arguments (``Injector/get(_:named:arguments:)``)
/// is not reported either.
///
/// Cost: an injector without an observer runs exactly the code it would without this feature (whether
/// to observe is decided once, when a binding is first linked). With an observer, every build of a
/// value reads the clock twice and calls ``receive(_:)`` once; a built singleton served from its cell
/// reports nothing. The di-bench scenario "mixed daemon graph, observer on" measures it.
///
/// An observer is compared by identity (it is a class), so that ``Injector/Configuration`` stays
/// `Hashable`.
public protocol ResolutionObserver: AnyObject, Sendable {
    /// Handles one event. Called on the resolving thread, after the event happened.
    ///
    /// - Parameter event: What happened, to which binding, and how long it took.
    func receive(_ event: ResolutionEvent)
}
