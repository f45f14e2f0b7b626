extension Injector {
    /// Returns the instance bound to `type`, optionally named, awaiting async factories.
    ///
    /// ```swift
    /// let database = try await injector.get(Database.self)
    /// ```
    ///
    /// Resolves every binding, synchronous or async. Bindings built by an `async` factory (and
    /// singletons that depend on one) can only be built this way; an async singleton is built exactly
    /// once, and concurrent callers suspend until it is built, without blocking a thread. Parts of the
    /// graph without async factories run synchronously, exactly as ``get(_:named:)-6n1xw`` runs them.
    ///
    /// - Parameters:
    ///   - type: The type to resolve; can be omitted where the context tells it.
    ///   - name: The binding's name; `nil` (the default) for the unnamed binding.
    /// - Returns: A new instance for a transient binding; the shared instance for a singleton.
    /// - Throws: What ``get(_:named:)-6n1xw`` throws.
    public func get<T>(_ type: T.Type = T.self, named name: String? = nil) async throws(ProvisionError) -> T {
        try await resolveAsync(BindingKey(type, named: name), as: type, context: .root)
    }

    /// Every element of the multibinding of `type`, in binding order, awaiting async factories. See
    /// ``getAll(_:named:)-1hwwa``.
    ///
    /// - Returns: The elements; empty when nothing is multibound for `type`.
    /// - Throws: ``ProvisionError`` from building an element.
    public func getAll<T>(_ type: T.Type, named name: String? = nil) async throws(ProvisionError) -> [T] {
        let key = BindingKey([T].self, named: name)
        // This injector's shutdown ends every request; an ancestor's only those that fall back to it.
        if lifecycle.isClosed { throw ProvisionError.shutDown(key) }
        guard let node = lookup(key, as: [T].self) else {
            // A shutdown that began since emptied the registries: then it throws too.
            if isShuttingDown { throw missing(key, path: [key]) }
            return []
        }
        return try await node.resolveAsync(.root)
    }

    /// Resolves `key` in an async request with `context`'s path and scope.
    func resolveAsync<T>(_ key: BindingKey, as type: T.Type, context: ResolutionContext) async throws(ProvisionError)
        -> T
    {
        guard let raw = lookup.node(for: key) else {
            return try await node(unbound: key, as: type, dependent: context.frame?.key).resolveAsync(context)
        }
        // Every node stored under a key for `T` is a `Node<T>` (see `Binder.setRecipe`).
        return try await unsafeDowncast(raw.takeUnretainedValue(), to: Node<T>.self).resolveAsync(context)
    }
}

extension Resolver {
    /// Resolves the binding for `type`, optionally named, awaiting async factories: for use inside an
    /// async closure binding.
    ///
    /// ```swift
    /// binder.bind(Database.self).to { resolver async throws in
    ///     try await Database.connect(settings: try await resolver.get(DatabaseSettings.self))
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to resolve; can be omitted where the context tells it.
    ///   - name: The binding's name; `nil` (the default) for the unnamed binding.
    /// - Returns: The instance the binding provides.
    /// - Throws: What ``Injector/get(_:named:)-6n1xw`` throws.
    public func get<T>(_ type: T.Type = T.self, named name: String? = nil) async throws(ProvisionError) -> T {
        #if DEBUG
            try declaration?.check(BindingKey(type, named: name))
        #endif
        return try await injector.resolveAsync(BindingKey(type, named: name), as: type, context: context)
    }
}
