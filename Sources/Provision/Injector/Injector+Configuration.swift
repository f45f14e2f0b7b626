extension Injector {
    /// Tunes an injector's internals. The defaults suit most services.
    ///
    /// ```swift
    /// var configuration = Injector.Configuration()
    /// configuration.stripeCount = 64
    /// let injector = try Injector(modules: [AppModule()], configuration: configuration)
    /// ```
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
        /// timeout. Set it to bound how long a request can hang behind a slow or stuck factory.
        public var singletonWaitTimeout: Duration?

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - stripeCount: The number of registry stripes; 16 by default.
        ///   - singletonWaitTimeout: The longest wait for another thread's singleton build; no limit by
        ///     default.
        public init(stripeCount: Int = 16, singletonWaitTimeout: Duration? = nil) {
            self.stripeCount = stripeCount
            self.singletonWaitTimeout = singletonWaitTimeout
        }
    }
}
