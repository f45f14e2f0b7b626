public import Logging
public import Provision

/// Writes an injector's resolution events to a swift-log `Logger`: which binding was built and how
/// long it took, which thread waited for another thread's singleton, which builds failed.
///
/// ```swift
/// import Logging
/// import Provision
/// import ProvisionLogging
///
/// var logger = Logger(label: "app.injector")
/// logger.logLevel = .debug
/// let injector = try Injector(
///     modules: [AppModule()],
///     configuration: Injector.Configuration(
///         observer: LoggingResolutionObserver(logger: logger, slowBuildThreshold: .milliseconds(20))
///     )
/// )
/// ```
///
/// Each event is one log message, its ``ResolutionEvent/description`` (`built Store (singleton) in
/// 1.2 ms`), with metadata `provision.event`, `provision.key`, `provision.scope` and
/// `provision.duration_ns`; a failure also carries its error. By default builds log at `trace`, waits
/// and failures at `debug`, and a build slower than `slowBuildThreshold` at `notice`, so a service
/// logging at `info` sees only slow builds. A failure is logged by every binding on the failing path,
/// innermost first; the error reaches the caller anyway, so it is not logged as an error.
///
/// The logger's level is checked before a message is built, so events below it cost a comparison.
public final class LoggingResolutionObserver: ResolutionObserver {
    /// The logger events are written to.
    public let logger: Logger

    /// The level of a build that took less than ``slowBuildThreshold``.
    public let buildLevel: Logger.Level

    /// The level of a wait for another thread's singleton build.
    public let waitLevel: Logger.Level

    /// The level of a failed build.
    public let failureLevel: Logger.Level

    /// Builds that take at least this long are logged at ``slowBuildLevel``; `nil` for no threshold.
    public let slowBuildThreshold: Duration?

    /// The level of a build that took at least ``slowBuildThreshold``.
    public let slowBuildLevel: Logger.Level

    /// Creates an observer that writes to `logger`.
    ///
    /// - Parameters:
    ///   - logger: Where events go; its level filters them.
    ///   - buildLevel: The level of builds; `trace` by default.
    ///   - waitLevel: The level of singleton waits; `debug` by default.
    ///   - failureLevel: The level of failed builds; `debug` by default.
    ///   - slowBuildThreshold: Builds at least this long are logged at `slowBuildLevel`; none by
    ///     default.
    ///   - slowBuildLevel: The level of slow builds; `notice` by default.
    public init(
        logger: Logger,
        buildLevel: Logger.Level = .trace,
        waitLevel: Logger.Level = .debug,
        failureLevel: Logger.Level = .debug,
        slowBuildThreshold: Duration? = nil,
        slowBuildLevel: Logger.Level = .notice
    ) {
        self.logger = logger
        self.buildLevel = buildLevel
        self.waitLevel = waitLevel
        self.failureLevel = failureLevel
        self.slowBuildThreshold = slowBuildThreshold
        self.slowBuildLevel = slowBuildLevel
    }

    /// Logs `event` at the level its kind is configured for.
    ///
    /// - Parameter event: The event the injector reports.
    public func receive(_ event: ResolutionEvent) {
        let level: Logger.Level
        switch event.kind {
        case .built:
            if let slowBuildThreshold, event.duration >= slowBuildThreshold {
                level = slowBuildLevel
            } else {
                level = buildLevel
            }
        case .waitedForSingleton:
            level = waitLevel
        default:
            level = failureLevel
        }
        logger.log(
            level: level,
            "\(event.description)",
            error: event.error,
            metadata: LoggingResolutionObserver.metadata(of: event)
        )
    }

    /// The event's fields as log metadata.
    static func metadata(of event: ResolutionEvent) -> Logger.Metadata {
        let (seconds, attoseconds) = event.duration.components
        return [
            "provision.event": "\(event.kind)",
            "provision.key": "\(event.key)",
            "provision.scope": "\(event.scope)",
            "provision.duration_ns": "\(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)",
        ]
    }
}
