/// A unit of work with its own instances of the ``Scope/scoped`` bindings: a request, a job, a session.
///
/// Create one per unit of work with ``Injector/makeScope()``, or let ``Injector/withScope(isolation:_:)``
/// create and close it around a closure:
///
/// ```swift
/// try await injector.withScope { scope in
///     let handler = try scope.get(JobHandler.self)   // its scoped dependencies belong to this scope
///     try await handler.run(job)
/// }   // the scope's Disposable instances are disposed here, newest first
/// ```
///
/// Requests made through a scope resolve like requests made through its injector, except that each
/// scoped binding is built once per scope (exactly once, even when several threads use the scope at the
/// same moment) and shared by every request of the scope. Singletons stay shared by all scopes; a
/// singleton never receives a scoped instance (that would be a captive dependency, and throws
/// ``ProvisionError/Code/captiveDependency``).
///
/// Closing the scope disposes the ``Disposable`` and ``AsyncDisposable`` instances it built, in reverse
/// creation order, exactly once; requests for scoped bindings through a closed scope throw
/// ``ProvisionError/Code/outsideScope``. A scope is cheap: one object with a lock and a table, no
/// thread, no task.
public final class ServiceScope: Sendable {
    /// The injector the scope resolves through.
    public let injector: Injector

    private struct State: Sendable {
        /// The cell of each scoped binding built (or being built) in this scope, by node: always an
        /// `InstanceCell<T>` for the `T` of the node it is stored under (see `cell(for:)`).
        var cells: [ObjectIdentifier: any AnyObject & Sendable] = [:]
        var isClosed = false
    }

    /// Protects the cell table and the closed flag; held for a table lookup or insert only, never while
    /// an instance is built or disposed.
    private let state = Locked(State())

    /// The scoped instances built here, for disposal.
    let recorder = InstanceRecorder(recordsAll: false)

    init(injector: Injector) {
        self.injector = injector
    }

    /// Resolves `type` (optionally named) in this scope.
    ///
    /// - Parameters:
    ///   - type: The type to resolve; can be omitted where the context tells it.
    ///   - name: The binding's name; `nil` (the default) for the unnamed binding.
    /// - Returns: This scope's instance for a scoped binding; what the injector returns otherwise.
    /// - Throws: What ``Injector/get(_:named:)-6n1xw`` throws, and ``ProvisionError/Code/outsideScope`` when the
    ///   scope was closed.
    public func get<T>(_ type: T.Type = T.self, named name: String? = nil) throws(ProvisionError) -> T {
        try injector.resolve(
            BindingKey(type, named: name),
            as: type,
            context: ResolutionContext(frame: nil, request: ResolutionRequest(scope: self))
        )
    }

    /// Resolves `type` (optionally named) in this scope, awaiting async factories.
    ///
    /// - Parameters:
    ///   - type: The type to resolve; can be omitted where the context tells it.
    ///   - name: The binding's name; `nil` (the default) for the unnamed binding.
    /// - Returns: This scope's instance for a scoped binding; what the injector returns otherwise.
    /// - Throws: What ``Injector/get(_:named:)-6n1xw`` throws, and ``ProvisionError/Code/outsideScope`` when the
    ///   scope was closed.
    public func get<T>(_ type: T.Type = T.self, named name: String? = nil) async throws(ProvisionError) -> T {
        try await injector.resolveAsync(
            BindingKey(type, named: name),
            as: type,
            context: ResolutionContext(frame: nil, request: ResolutionRequest(scope: self))
        )
    }

    /// Closes the scope: disposes the instances it built, newest first, awaiting ``AsyncDisposable``
    /// ones (each bounded by ``Injector/Configuration/lifecycleHookTimeout``). Closing twice does
    /// nothing the second time.
    ///
    /// - Throws: ``ProvisionError/Code/stopFailed`` listing every disposal that threw or timed out; every
    ///   other instance was still disposed.
    public func close() async throws(ProvisionError) {
        state.withLock { $0.isClosed = true }
        let failures = await Disposer.dispose(recorder.drain(), timeout: injector.configuration.lifecycleHookTimeout)
        if !failures.isEmpty {
            throw ProvisionError.stopFailed(failures, while: "closing a scope")
        }
    }

    /// Closes the scope without awaiting: disposes the ``Disposable`` instances it built, newest first.
    ///
    /// - Throws: ``ProvisionError/Code/stopFailed`` listing every disposal that threw, and every
    ///   ``AsyncDisposable`` instance, which only `await scope.close()` can dispose (they are left
    ///   undisposed).
    public func close() throws(ProvisionError) {
        state.withLock { $0.isClosed = true }
        let failures = Disposer.disposeSynchronously(recorder.drain())
        if !failures.isEmpty {
            throw ProvisionError.stopFailed(failures, while: "closing a scope")
        }
    }

    /// The cell of the scoped binding `id` (a node of type `T`) in the scope of `context`.
    ///
    /// - Throws: `captiveDependency` when the request has no scope because a singleton is being built
    ///   above it, `outsideScope` when it was made outside any scope or through a closed one.
    static func cell<T>(
        in context: ResolutionContext,
        for id: ObjectIdentifier,
        key: BindingKey,
        injector: Injector,
        as type: T.Type
    ) throws(ProvisionError) -> InstanceCell<T> {
        guard let scope = context.scope else {
            if let singleton = context.enclosingSingleton {
                throw ProvisionError.captiveDependency(
                    holder: singleton,
                    holderLifetime: .singleton,
                    captive: key,
                    captiveLifetime: .scoped,
                    path: [key]
                )
            }
            throw ProvisionError.outsideScope(key, closed: false)
        }
        return try scope.cell(for: id, key: key, injector: injector, as: type)
    }

    private func cell<T>(
        for id: ObjectIdentifier,
        key: BindingKey,
        injector: Injector,
        as type: T.Type
    ) throws(ProvisionError) -> InstanceCell<T> {
        let found = state.withLock { state -> AnyObject? in
            guard !state.isClosed else { return nil }
            if let existing = state.cells[id] { return existing }
            let cell = InstanceCell<T>(key: key, injector: injector, recorder: recorder, isScoped: true)
            state.cells[id] = cell
            return cell
        }
        guard let found else { throw ProvisionError.outsideScope(key, closed: true) }
        // Every cell stored under a node's identity was made above for that node's `T`.
        return unsafeDowncast(found, to: InstanceCell<T>.self)
    }
}

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
        let scope = makeScope()
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
