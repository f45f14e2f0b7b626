/// A step of an injector's lifecycle that a ``ResolutionObserver`` can wrap (see
/// ``ResolutionObserver/observeLifecycle(_:_:)``): ``Injector/start()``, ``Injector/shutdown()``, and the
/// start or stop hook of each service they run.
public struct LifecycleOperation: Hashable, Sendable, CustomStringConvertible {
    /// What kind of step this is.
    ///
    /// Kinds are static members rather than enum cases so that new kinds can be added without breaking
    /// existing `switch` statements: switch with a `default` case.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case start
            case shutdown
            case startService
            case stopService
        }

        private let value: Value

        private init(_ value: Value) {
            self.value = value
        }

        /// ``Injector/start()``: validating, building the singletons and starting the services.
        public static let start = Kind(.start)

        /// ``Injector/shutdown()``: stopping the services and disposing the singletons.
        public static let shutdown = Kind(.shutdown)

        /// One service's start hook, inside ``start``.
        public static let startService = Kind(.startService)

        /// One service's stop hook, inside ``shutdown`` (or a failed ``start``).
        public static let stopService = Kind(.stopService)

        /// The kind in words: `start`, `shutdown`, `start service`, `stop service`.
        public var description: String {
            switch value {
            case .start: "start"
            case .shutdown: "shutdown"
            case .startService: "start service"
            case .stopService: "stop service"
            }
        }
    }

    /// What kind of step this is.
    public let kind: Kind

    /// The service, for ``Kind/startService`` and ``Kind/stopService``; `nil` otherwise.
    public let key: BindingKey?

    private init(kind: Kind, key: BindingKey?) {
        self.kind = kind
        self.key = key
    }

    /// ``Injector/start()``.
    public static let start = LifecycleOperation(kind: .start, key: nil)

    /// ``Injector/shutdown()``.
    public static let shutdown = LifecycleOperation(kind: .shutdown, key: nil)

    /// The start hook of the service bound to `key`.
    public static func startService(_ key: BindingKey) -> LifecycleOperation {
        LifecycleOperation(kind: .startService, key: key)
    }

    /// The stop hook of the service bound to `key`.
    public static func stopService(_ key: BindingKey) -> LifecycleOperation {
        LifecycleOperation(kind: .stopService, key: key)
    }

    /// The step in words: `start`, `shutdown`, `start service Database`.
    public var description: String {
        key.map { "\(kind) \($0)" } ?? "\(kind)"
    }
}
