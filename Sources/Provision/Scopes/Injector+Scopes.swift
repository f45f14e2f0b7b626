extension Injector {
    /// A new scope for a unit of work (a request, a job): its ``Scope/scoped`` bindings get their own
    /// instances. Close it with ``ServiceScope/close()-5abpd`` when the work is done, or use
    /// ``withScope(isolation:_:)``.
    ///
    /// ```swift
    /// let scope = injector.makeScope()
    /// defer { try? scope.close() }
    /// let context = try scope.get(RequestContext.self)
    /// ```
    public func makeScope() -> ServiceScope {
        ServiceScope(injector: self)
    }

    /// A new scope opened with values its services can depend on: the request it serves, its logger,
    /// its identifier (see ``ScopeSeed``).
    ///
    /// ```swift
    /// let scope = try injector.makeScope { seed in
    ///     seed.provide(request)
    ///     seed.provide(requestID, named: "request-id")
    /// }
    /// defer { try? scope.close() }
    /// let handler = try scope.get(OrderHandler.self)   // its scoped dependencies see this request
    /// ```
    ///
    /// Each key provided must be declared with ``BindingBuilder/toSeed()`` in this injector or an
    /// ancestor.
    ///
    /// - Parameter seeding: Provides the scope's values; runs once, before this method returns.
    /// - Returns: The open scope; close it like any other.
    /// - Throws: ``ProvisionError/Code/notSeeded`` when `seeding` provided a key that no seed binding
    ///   declares (no scope is made).
    /// - Complexity: One lookup per value provided.
    public func makeScope(seeding: (inout ScopeSeed) throws(ProvisionError) -> Void) throws(ProvisionError)
        -> ServiceScope
    {
        var seed = ScopeSeed(injector: self)
        try seeding(&seed)
        if let undeclared = seed.undeclared {
            // A shutdown emptied the registries the declarations are looked up in: that is the error.
            throw isShuttingDown ? ProvisionError.shutDown(undeclared) : ProvisionError.undeclaredSeed(undeclared)
        }
        return ServiceScope(injector: self, seeds: seed.entries)
    }

    /// Runs `body` with a new scope and closes the scope when `body` returns or throws, disposing its
    /// instances (awaiting async disposals).
    ///
    /// ```swift
    /// let receipt = try await injector.withScope { scope in
    ///     try await scope.get(CheckoutHandler.self).handle(order)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - isolation: The actor `body` runs on; inferred from the caller.
    ///   - body: The work, given the scope.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws (after the scope was closed), or ``ProvisionError/Code/stopFailed``
    ///   when only closing failed.
    public func withScope<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (ServiceScope) async throws -> Result
    ) async throws -> Result {
        try await closing(makeScope(), after: body)
    }

    /// Runs `body` with a new scope opened with the values `seeding` provides (see
    /// ``makeScope(seeding:)``), and closes the scope when `body` returns or throws.
    ///
    /// ```swift
    /// let receipt = try await injector.withScope { seed in
    ///     seed.provide(order)
    /// } body: { scope in
    ///     try await scope.get(CheckoutHandler.self).run()
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - isolation: The actor `body` runs on; inferred from the caller.
    ///   - seeding: Provides the scope's values.
    ///   - body: The work, given the scope.
    /// - Returns: What `body` returns.
    /// - Throws: ``ProvisionError/Code/notSeeded`` when `seeding` provided an undeclared key (`body`
    ///   doesn't run); what `body` throws (after the scope was closed), or
    ///   ``ProvisionError/Code/stopFailed`` when only closing failed.
    public func withScope<Result>(
        isolation: isolated (any Actor)? = #isolation,
        seeding: (inout ScopeSeed) throws(ProvisionError) -> Void,
        body: (ServiceScope) async throws -> Result
    ) async throws -> Result {
        try await closing(makeScope(seeding: seeding), after: body)
    }

    /// Runs `body` with `scope`, then closes the scope.
    private func closing<Result>(
        _ scope: ServiceScope,
        isolation: isolated (any Actor)? = #isolation,
        after body: (ServiceScope) async throws -> Result
    ) async throws -> Result {
        let result: Swift.Result<Result, any Error>
        do {
            result = .success(try await body(scope))
        } catch {
            result = .failure(error)
        }
        do {
            try await scope.close()
        } catch {
            // The body's own error matters more than a disposal failure after it.
            if case .success = result { throw error }
        }
        return try result.get()
    }
}
