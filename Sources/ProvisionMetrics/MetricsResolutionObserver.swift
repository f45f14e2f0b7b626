public import CoreMetrics
public import Provision

/// Reports an injector's builds, failures, waits and cycle errors as swift-metrics counters and timers.
///
/// ```swift
/// import Provision
/// import ProvisionMetrics
///
/// let injector = try Injector(
///     modules: [AppModule()],
///     configuration: Injector.Configuration(observer: MetricsResolutionObserver())
/// )
/// ```
///
/// | Metric | Kind | Dimensions | Counts |
/// |---|---|---|---|
/// | `provision_builds_total` | counter | `binding`, `scope` | every value a binding built |
/// | `provision_build_duration` | timer | `binding`, `scope` | how long each build took, its dependencies included |
/// | `provision_build_failures_total` | counter | `binding`, `code` | every failed request, once, by the binding where it failed (a build whose factory threw, a missing binding found when linking, a cycle, a singleton whose build it waited for failed or the wait timed out), not by every binding it failed through |
/// | `provision_cycle_errors_total` | counter | `binding` | the failures among those whose code is ``Provision/ProvisionError/Code/cycle`` |
/// | `provision_singleton_wait_duration` | timer | `binding` | each wait of a thread or task for another one's build of a singleton (or scoped instance) |
///
/// The labels start with the prefix given to ``init(labelPrefix:factory:)`` (`provision` by default).
/// A binding's dimension is its key in Swift syntax (`any Database named "replica"`): one series per
/// binding, which an injector has a known, bounded number of. Metric objects are made once per label and
/// dimensions and kept; every event after the first is a dictionary lookup under a lock and an increment.
///
/// The observer wraps each build (see ``Provision/ResolutionObserver/observeBuild(of:scope:_:)``) to time
/// it and to tell where a failure started: the failing build that none of its nested builds failed
/// before. It costs what any observer costs plus that bookkeeping; a built singleton served from its
/// cell is not a build and costs nothing.
public final class MetricsResolutionObserver: ResolutionObserver {
    /// What starts every label.
    public let labelPrefix: String

    private let factory: (any MetricsFactory)?
    private let builds: String
    private let buildDurations: String
    private let failures: String
    private let cycles: String
    private let waits: String

    /// The metric objects made so far, by label and dimensions. Held to look one up or add it; metrics
    /// are incremented and recorded after the lock is released.
    private let metrics = Locked<[MetricKey: any AnyObject & Sendable]>([:])

    /// Creates an observer reporting to `factory`.
    ///
    /// - Parameters:
    ///   - labelPrefix: What every label starts with; `provision` by default.
    ///   - factory: The metrics backend; `nil` (the default) for the one bootstrapped in `MetricsSystem`.
    public init(labelPrefix: String = "provision", factory: (any MetricsFactory)? = nil) {
        self.labelPrefix = labelPrefix
        self.factory = factory
        builds = "\(labelPrefix)_builds_total"
        buildDurations = "\(labelPrefix)_build_duration"
        failures = "\(labelPrefix)_build_failures_total"
        cycles = "\(labelPrefix)_cycle_errors_total"
        waits = "\(labelPrefix)_singleton_wait_duration"
    }

    /// Counts and times a build, and counts its failure where it started.
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
        let enclosing = BuildFrame.current
        let frame = BuildFrame()
        let started = ContinuousClock.now
        let result = BuildFrame.$current.withValue(frame) { Result { () throws(ProvisionError) in try build() } }
        record(result.map { _ in () }, of: key, scope: scope, since: started, frame: frame, enclosing: enclosing)
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
        let enclosing = BuildFrame.current
        let frame = BuildFrame()
        let started = ContinuousClock.now
        let result = await BuildFrame.$current.withValue(frame) { () async -> Result<T, ProvisionError> in
            do throws(ProvisionError) {
                return .success(try await build())
            } catch {
                return .failure(error)
            }
        }
        record(result.map { _ in () }, of: key, scope: scope, since: started, frame: frame, enclosing: enclosing)
        return try result.get()
    }

    /// Times waits for another build of a singleton, and counts a request that failed because of such
    /// a wait or while its binding was linked.
    ///
    /// - Parameter event: What the injector reports besides builds.
    public func receive(_ event: ResolutionEvent) {
        switch event.kind {
        case .waitedForSingleton:
            timer(waits, [("binding", event.key.description)]).recordNanoseconds(Self.nanoseconds(event.duration))
            guard let error = event.error else { return }
            // The request fails here, at the singleton it waited for, though it ran no build of it.
            countFailure(error, of: event.key)
            BuildFrame.current?.markCounted(error)
        case .linkFailed:
            guard let error = event.error else { return }
            // The request failed here; a build it ran inside fails because of it.
            countFailure(error, of: event.key)
            BuildFrame.current?.markCounted(error)
        default:
            break
        }
    }

    /// Records one build's outcome: a success counted and timed, a failure counted when it started in
    /// this build (no build inside it, and no link, counted that same failure already: a failure the
    /// build's factory recovered from, before failing for a reason of its own, doesn't hide that
    /// reason; found by hunt 27A).
    private func record(
        _ result: Result<Void, ProvisionError>,
        of key: BindingKey,
        scope: Scope,
        since started: ContinuousClock.Instant,
        frame: BuildFrame,
        enclosing: BuildFrame?
    ) {
        let dimensions = [("binding", key.description), ("scope", scope.description)]
        timer(buildDurations, dimensions).recordNanoseconds(Self.nanoseconds(started.duration(to: .now)))
        switch result {
        case .success:
            counter(builds, dimensions).increment()
        case .failure(let error):
            if !frame.counted(error) { countFailure(error, of: key) }
            enclosing?.markCounted(error)
        }
    }

    private func countFailure(_ error: ProvisionError, of key: BindingKey) {
        counter(failures, [("binding", key.description), ("code", error.code.description)]).increment()
        if error.code == .cycle {
            counter(cycles, [("binding", key.description)]).increment()
        }
    }

    private func counter(_ label: String, _ dimensions: [(String, String)]) -> Counter {
        metric(MetricKey(label: label, dimensions: dimensions)) { key in
            if let factory { return Counter(label: key.label, dimensions: dimensions, factory: factory) }
            return Counter(label: key.label, dimensions: dimensions)
        }
    }

    private func timer(_ label: String, _ dimensions: [(String, String)]) -> CoreMetrics.Timer {
        metric(MetricKey(label: label, dimensions: dimensions)) { key in
            if let factory { return CoreMetrics.Timer(label: key.label, dimensions: dimensions, factory: factory) }
            return CoreMetrics.Timer(label: key.label, dimensions: dimensions)
        }
    }

    /// The metric of `key`, made by `make` the first time (outside the lock: a factory may take locks of
    /// its own). Two threads making the same metric at once keep the first one stored.
    private func metric<M: AnyObject & Sendable>(_ key: MetricKey, make: (MetricKey) -> M) -> M {
        if let known = metrics.withLock({ $0[key] }) as? M { return known }
        let made = make(key)
        return metrics.withLock { metrics in
            if let stored = metrics[key] as? M { return stored }
            metrics[key] = made
            return made
        }
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

/// Identifies a metric: its label and dimensions.
private struct MetricKey: Hashable, Sendable {
    let label: String
    let dimensions: [String]

    init(label: String, dimensions: [(String, String)]) {
        self.label = label
        self.dimensions = dimensions.flatMap { [$0.0, $0.1] }
    }
}

/// One build in progress in the current task (or thread): the failures inside it counted already, by
/// a nested build, a wait or a link. A failure is known by where it started: its key and code, which a
/// failure keeps as it propagates (each level adds its key to the path only).
private final class BuildFrame: Sendable {
    @TaskLocal static var current: BuildFrame?

    private struct Origin: Equatable {
        let key: BindingKey?
        let code: ProvisionError.Code
    }

    /// Protects the origins; held for one append or scan, with no other lock taken under it.
    private let origins = Locked<[Origin]>([])

    /// Whether `error` is a failure counted already inside this build.
    func counted(_ error: ProvisionError) -> Bool {
        let origin = Origin(key: error.key, code: error.code)
        return origins.withLock { $0.contains(origin) }
    }

    /// Records that `error`, which this build may pass on, was counted.
    func markCounted(_ error: ProvisionError) {
        let origin = Origin(key: error.key, code: error.code)
        origins.withLock { if !$0.contains(origin) { $0.append(origin) } }
    }
}
