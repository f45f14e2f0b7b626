extension Injector {
    /// Tunes an injector's internals. The defaults suit most services.
    ///
    /// ```swift
    /// var configuration = Injector.Configuration()
    /// configuration.stripeCount = 64
    /// configuration.singletonWaitTimeout = .seconds(5)
    /// let injector = try Injector(modules: [AppModule()], configuration: configuration)
    /// ```
    ///
    /// A configuration is fixed when the injector is created; child injectors
    /// (``Injector/makeChild(_:)``) and derived ones (``Injector/with(_:)``) inherit it. Two
    /// configurations are equal when their settings are equal, they hold the same observer object
    /// (or none) and lifecycle adapters of the same types.
    public struct Configuration: Sendable, Hashable {
        /// How many stripes the registry is split into (rounded up to a power of two, at most 1024).
        ///
        /// Stripes only matter for writes: installing bindings into a running injector and building
        /// singletons for the first time lock one stripe each. Reads never lock. More stripes make it
        /// rarer for two threads to meet on one lock, at a small memory cost per stripe.
        public var stripeCount: Int

        /// How long a thread waits for another thread's build of a singleton before it gives up with
        /// ``ProvisionError/Code/timedOut``; `nil` (the default) waits as long as the build takes.
        ///
        /// A last resort: cycles of waits between threads are detected and reported without any
        /// timeout. Set it to bound how long a request can hang behind a slow or stuck factory. It
        /// bounds async requests too: a task suspended on another request's build of a singleton or
        /// scoped instance resumes with ``ProvisionError/Code/timedOut`` when the time is up. It also
        /// bounds a ``Lazy`` read waiting for another thread's read of the same handle.
        public var singletonWaitTimeout: Duration?

        /// Whether creating the injector validates its graph first (see ``Injector/validate()``), before
        /// any eager singleton is built; `true` by default.
        ///
        /// An injector with a missing binding, a construction cycle, a non-singleton eager binding or
        /// another problem is then never created: the initializer throws one
        /// ``ProvisionError/Code/validationFailed`` error listing every problem, so a broken graph fails at
        /// start-up instead of at its first request in production. Nothing is constructed to find them.
        /// A child injector (``Injector/makeChild(_:)``, ``Injector/overriding(_:)-(Module...)``)
        /// checks its own bindings and the parent's bindings they reach. Modules installed later with
        /// ``Injector/install(_:)`` are not validated automatically; call ``Injector/validate()`` after
        /// installing. ``Injector/start()`` validates the whole graph again, whatever this says.
        ///
        /// Validation costs about a millisecond per thousand bindings (the di-bench scenario "validate,
        /// 10k bindings"). Set it to `false` only where that matters more than the check, for example
        /// for many short-lived injectors made from a graph validated once.
        public var validatesOnCreation: Bool

        /// Receives an event for every binding the injector builds, every wait for another thread's
        /// singleton build, and every failed build; `nil` (the default) for none.
        ///
        /// Observation is decided when a binding is first linked, so an injector without an observer
        /// resolves exactly as fast as if the feature did not exist. See ``ResolutionObserver``.
        public var observer: (any ResolutionObserver)?

        /// The longest a lifecycle hook may run: each start or stop hook (``Injector/start()``,
        /// ``Injector/shutdown()``) and each async disposal; 30 seconds by default. It also bounds how
        /// long shutting down waits for the builds in flight, and how long closing a ``ServiceScope``
        /// waits for the scoped instances still being built.
        ///
        /// A hook that takes longer is reported as ``ProvisionError/Code/timedOut`` (its task is cancelled
        /// and left to finish on its own), so one stuck service can't hang a daemon's shutdown.
        public var lifecycleHookTimeout: Duration

        /// Start and stop singletons of types Provision doesn't know (see ``LifecycleAdapter``); none by
        /// default.
        ///
        /// `ProvisionServiceLifecycle`'s `ServiceLifecycleAdapter` makes ``Injector/start()`` run every
        /// singleton that is a swift-service-lifecycle `Service`, in dependency order, and
        /// ``Injector/shutdown()`` shut each down gracefully, in reverse order. Hooks on a binding and a
        /// ``ManagedService`` conformance come first; the first adapter that knows a type wins.
        public var lifecycleAdapters: [any LifecycleAdapter]

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - stripeCount: The number of registry stripes; 16 by default.
        ///   - singletonWaitTimeout: The longest wait for another thread's singleton build; no limit by
        ///     default.
        ///   - validatesOnCreation: Whether creating the injector validates its graph; `true` by
        ///     default.
        ///   - observer: Receives resolution events; none by default.
        ///   - lifecycleHookTimeout: The longest a start or stop hook or an async disposal may run; 30
        ///     seconds by default.
        ///   - lifecycleAdapters: Start and stop singletons of types Provision doesn't know; none by
        ///     default.
        public init(
            stripeCount: Int = 16,
            singletonWaitTimeout: Duration? = nil,
            validatesOnCreation: Bool = true,
            observer: (any ResolutionObserver)? = nil,
            lifecycleHookTimeout: Duration = .seconds(30),
            lifecycleAdapters: [any LifecycleAdapter] = []
        ) {
            self.lifecycleAdapters = lifecycleAdapters
            self.lifecycleHookTimeout = lifecycleHookTimeout
            self.stripeCount = stripeCount
            self.singletonWaitTimeout = singletonWaitTimeout
            self.validatesOnCreation = validatesOnCreation
            self.observer = observer
        }

        /// Whether two configurations have the same settings, the same observer object (or none) and
        /// lifecycle adapters of the same types.
        public static func == (lhs: Configuration, rhs: Configuration) -> Bool {
            lhs.stripeCount == rhs.stripeCount && lhs.singletonWaitTimeout == rhs.singletonWaitTimeout
                && lhs.validatesOnCreation == rhs.validatesOnCreation
                && lhs.lifecycleHookTimeout == rhs.lifecycleHookTimeout
                && lhs.observer.map(ObjectIdentifier.init) == rhs.observer.map(ObjectIdentifier.init)
                && lhs.adapterTypes == rhs.adapterTypes
        }

        /// The types of the lifecycle adapters, in order: what equality compares of them.
        private var adapterTypes: [ObjectIdentifier] {
            lifecycleAdapters.map { ObjectIdentifier(type(of: $0)) }
        }

        /// Hashes the settings, the observer's identity and the adapters' types.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(stripeCount)
            hasher.combine(singletonWaitTimeout)
            hasher.combine(validatesOnCreation)
            hasher.combine(lifecycleHookTimeout)
            hasher.combine(observer.map(ObjectIdentifier.init))
            hasher.combine(adapterTypes)
        }
    }
}
