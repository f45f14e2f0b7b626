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

        /// Creates a configuration.
        ///
        /// - Parameter stripeCount: The number of registry stripes; 16 by default.
        public init(stripeCount: Int = 16) {
            self.stripeCount = stripeCount
        }
    }
}
