/// Something an injector did while resolving: a binding built a value, a build failed, or a request
/// waited for another request's singleton build. Delivered to a ``ResolutionObserver``.
public struct ResolutionEvent: Sendable, CustomStringConvertible {
    /// What kind of event this is.
    ///
    /// Kinds are static members rather than enum cases so that new kinds can be added without breaking
    /// existing `switch` statements: switch with a `default` case.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case built
            case failed
            case waitedForSingleton
            case linkFailed
        }

        private let value: Value

        private init(_ value: Value) {
            self.value = value
        }

        /// A binding built a fresh value: a transient binding on every request, a singleton the one
        /// time it is built. The ``ResolutionEvent/duration`` includes building the binding's
        /// dependencies; a singleton served from its cell reports nothing.
        public static let built = Kind(.built)

        /// A binding's build threw: its factory, or the build of one of its dependencies (each binding
        /// on the failing path reports its own failure, innermost first). The
        /// ``ResolutionEvent/error`` holds the error.
        public static let failed = Kind(.failed)

        /// A request (a thread or a task) found a singleton, or a scoped instance of its scope, being
        /// built by another request and waited for it; the ``ResolutionEvent/duration`` is the time it
        /// waited. When the wait makes the request fail, the ``ResolutionEvent/error`` holds why: the
        /// failure of the build it waited for, which it inherits, or the wait's own end (`timedOut`,
        /// `cancelled`). A wait that would close a cycle never starts and reports nothing.
        public static let waitedForSingleton = Kind(.waitedForSingleton)

        /// A request failed while its binding was first linked, before anything was built: a binding
        /// it needs is missing, or the bindings form a cycle. The ``ResolutionEvent/error`` holds the
        /// error (its path and, for several missing bindings, each of them); the
        /// ``ResolutionEvent/duration`` is zero. Reported once per failing request, by the binding
        /// requested (which may be a dependency linked when a build first needed it, inside that
        /// build). An injector validated on creation rarely reports one: validation found such
        /// problems before it existed.
        public static let linkFailed = Kind(.linkFailed)

        /// The kind in words: `built`, `failed`, `waited for singleton`, `link failed`.
        public var description: String {
            switch value {
            case .built: "built"
            case .failed: "failed"
            case .waitedForSingleton: "waited for singleton"
            case .linkFailed: "link failed"
            }
        }
    }

    /// What happened.
    public let kind: Kind

    /// The binding the event is about.
    public let key: BindingKey

    /// The binding's scope.
    public let scope: Scope

    /// How long the build (including its dependencies) or the wait took.
    public let duration: Duration

    /// For a ``Kind-swift.struct/failed`` or ``Kind-swift.struct/linkFailed`` event, the error; for a
    /// ``Kind-swift.struct/waitedForSingleton`` event, the error the waiting request fails with because
    /// of the wait, if it does; `nil` otherwise.
    public let error: ProvisionError?

    /// Creates an event (for tests of observers; injectors create the events they report).
    ///
    /// - Parameters:
    ///   - kind: What happened.
    ///   - key: The binding it happened to.
    ///   - scope: The binding's scope.
    ///   - duration: How long it took.
    ///   - error: The error, for a failed build.
    public init(kind: Kind, key: BindingKey, scope: Scope, duration: Duration, error: ProvisionError? = nil) {
        self.kind = kind
        self.key = key
        self.scope = scope
        self.duration = duration
        self.error = error
    }

    /// One line: `built Car (transient) in 1.2 µs`, `failed Car (transient) after 3.0 µs: not bound`,
    /// `link failed Car (transient): cycle`, `waited for singleton Config (singleton) in 2.1 ms: factory
    /// failed`.
    public var description: String {
        let time = ResolutionEvent.describe(duration)
        switch kind {
        case .linkFailed:
            return "\(kind) \(key) (\(scope))\(error.map { ": \($0.code)" } ?? "")"
        case .failed:
            let code = error.map { ": \($0.code)" } ?? ""
            return "\(kind) \(key) (\(scope)) after \(time)\(code)"
        default:
            return "\(kind) \(key) (\(scope)) in \(time)\(error.map { ": \($0.code)" } ?? "")"
        }
    }

    /// A duration the way people read build times: `850 ns`, `3.2 µs`, `12.5 ms`, `1.5 s`.
    static func describe(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        func tenths(_ value: Int64, unit: String) -> String {
            "\(value / 10).\(value % 10) \(unit)"
        }
        switch nanoseconds {
        case ..<1_000: return "\(nanoseconds) ns"
        case ..<1_000_000: return tenths(nanoseconds / 100, unit: "µs")
        case ..<1_000_000_000: return tenths(nanoseconds / 100_000, unit: "ms")
        default: return tenths(nanoseconds / 100_000_000, unit: "s")
        }
    }
}
