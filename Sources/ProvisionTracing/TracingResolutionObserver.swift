public import Provision
public import Tracing

/// Opens a swift-distributed-tracing span around each build of a singleton (and of a scoped instance),
/// and around an injector's ``Provision/Injector/start()``, ``Provision/Injector/shutdown()`` and each
/// service's start and stop hook, with the dependency path as attributes.
///
/// ```swift
/// import Provision
/// import ProvisionTracing
///
/// let injector = try Injector(
///     modules: [AppModule()],
///     configuration: Injector.Configuration(observer: TracingResolutionObserver())
/// )
/// try await injector.start()   // span "start", with a span "build Database" inside, ...
/// ```
///
/// A build's span is a child of the span current where the build runs (`ServiceContext.current`: the
/// request's span, or the span of the build that needs it), and it is current while the build runs, so
/// the spans of a build's dependencies are its children and the spans its factory opens are too. Each
/// span, named `build <key>` (`build any Database`), carries:
///
/// | Attribute | Value |
/// |---|---|
/// | `provision.binding` | the key, in Swift syntax: `any Database named "replica"` |
/// | `provision.scope` | `singleton`, `scoped` or `transient` |
/// | `provision.path` | the keys of the builds in progress, outermost first, ending with this one (`["App", "Store", "any Database"]`) |
/// | `provision.depth` | how many builds the path holds |
/// | `provision.error.code` | for a failed build, the ``Provision/ProvisionError/Code`` (`factory failed`) |
///
/// A failed build also records its error on the span and ends it with an error status. The path lists
/// every build in progress, traced or not: transient builds are part of it even when they get no span
/// of their own.
///
/// Lifecycle spans are named `start`, `shutdown`, `start service <key>` and `stop service <key>`; a
/// service's span carries `provision.binding`.
///
/// The observer costs what any observer costs (see ``Provision/ResolutionObserver``) plus a span per
/// traced build: transient builds, the most frequent by far, are only traced when asked for. A built
/// singleton served from its cell is not a build and opens no span. Waits for another thread's build
/// are counted by `ProvisionMetrics`.
public final class TracingResolutionObserver: ResolutionObserver {
    /// The scopes whose builds get a span of their own.
    public let tracedScopes: Set<Scope>

    private let explicitTracer: (any Tracer)?

    /// Creates an observer that traces builds of the given scopes and every lifecycle step.
    ///
    /// - Parameters:
    ///   - tracer: The tracer spans are started with; `nil` (the default) for the one bootstrapped in
    ///     `InstrumentationSystem`, read at each span (so the observer may be created before
    ///     bootstrapping).
    ///   - scopes: The scopes whose builds get a span; singletons and scoped instances by default. Add
    ///     ``Provision/Scope/transient`` to trace every build.
    public init(tracer: (any Tracer)? = nil, tracing scopes: Set<Scope> = [.singleton, .scoped]) {
        self.explicitTracer = tracer
        self.tracedScopes = scopes
    }

    private var tracer: any Tracer {
        explicitTracer ?? InstrumentationSystem.tracer
    }

    /// Runs a build inside a span of its own when its scope is traced, and on the dependency path either
    /// way.
    ///
    /// - Parameters:
    ///   - key: The binding being built.
    ///   - scope: Its scope.
    ///   - build: The build.
    /// - Returns: What `build` returns.
    /// - Throws: What `build` throws.
    public func observeBuild<T>(
        of key: BindingKey,
        scope: Scope,
        _ build: () throws(ProvisionError) -> T
    ) throws(ProvisionError) -> T {
        let path = BuildPath.current + [key]
        guard tracedScopes.contains(scope) else {
            return try BuildPath.$current.withValue(path) { BuildPath.run(build) }.get()
        }
        let span = tracer.startSpan("build \(key)", context: ServiceContext.current ?? .topLevel)
        Self.describe(span, key: key, scope: scope, path: path)
        let result = ServiceContext.withValue(span.context) {
            BuildPath.$current.withValue(path) { BuildPath.run(build) }
        }
        Self.finish(span, result.failure)
        return try result.get()
    }

    /// The counterpart of ``observeBuild(of:scope:_:)`` for a build that awaits.
    ///
    /// - Parameters:
    ///   - key: The binding being built.
    ///   - scope: Its scope.
    ///   - build: The build.
    /// - Returns: What `build` returns.
    /// - Throws: What `build` throws.
    public func observeAsyncBuild<T>(
        of key: BindingKey,
        scope: Scope,
        _ build: () async throws(ProvisionError) -> T
    ) async throws(ProvisionError) -> T {
        let path = BuildPath.current + [key]
        guard tracedScopes.contains(scope) else {
            return try await BuildPath.$current.withValue(path) { await BuildPath.runAsync(build) }.get()
        }
        let span = tracer.startSpan("build \(key)", context: ServiceContext.current ?? .topLevel)
        Self.describe(span, key: key, scope: scope, path: path)
        let result = await ServiceContext.withValue(span.context) {
            await BuildPath.$current.withValue(path) { await BuildPath.runAsync(build) }
        }
        Self.finish(span, result.failure)
        return try result.get()
    }

    /// Runs a lifecycle step inside a span of its own.
    ///
    /// - Parameters:
    ///   - operation: The step.
    ///   - body: The step itself.
    /// - Throws: What `body` throws.
    public func observeLifecycle(
        _ operation: LifecycleOperation,
        _ body: () async throws(ProvisionError) -> Void
    ) async throws(ProvisionError) {
        let span = tracer.startSpan(operation.description, context: ServiceContext.current ?? .topLevel)
        if let key = operation.key {
            span.attributes["provision.binding"] = key.description
        }
        let result = await ServiceContext.withValue(span.context) { await BuildPath.runAsync(body) }
        Self.finish(span, result.failure)
        try result.get()
    }

    private static func describe(_ span: any Span, key: BindingKey, scope: Scope, path: [BindingKey]) {
        span.updateAttributes { attributes in
            attributes["provision.binding"] = key.description
            attributes["provision.scope"] = scope.description
            attributes["provision.path"] = path.map(\.description)
            attributes["provision.depth"] = path.count
        }
    }

    private static func finish(_ span: any Span, _ failure: ProvisionError?) {
        if let failure {
            span.attributes["provision.error.code"] = failure.code.description
            span.recordError(failure)
            span.setStatus(SpanStatus(code: .error, message: failure.message))
        }
        span.end()
    }
}

/// The keys of the builds in progress in the current task (or thread), outermost first.
enum BuildPath {
    @TaskLocal static var current: [BindingKey] = []

    /// `body`'s outcome as a value, so that it crosses the task-local bindings' untyped `rethrows`.
    static func run<T>(_ body: () throws(ProvisionError) -> T) -> Result<T, ProvisionError> {
        Result { () throws(ProvisionError) in try body() }
    }

    /// `body`'s outcome as a value, like the synchronous form.
    static func runAsync<T>(_ body: () async throws(ProvisionError) -> T) async -> Result<T, ProvisionError> {
        do throws(ProvisionError) {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }
}

extension Result {
    /// The error of a failure; `nil` for a success.
    var failure: Failure? {
        guard case .failure(let error) = self else { return nil }
        return error
    }
}
