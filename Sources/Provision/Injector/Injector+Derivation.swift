extension Injector {
    /// A new injector made of this injector's modules (those it was created with, then those installed
    /// since with ``install(_:)``) followed by `modules`.
    ///
    /// The new injector configures every module again and shares nothing with this one: its singletons
    /// (eager ones included) are built anew. This injector is unchanged. Use ``makeChild(_:)`` to share
    /// singletons instead, or ``overriding(_:)-(Module...)`` to replace some bindings and share every
    /// singleton that doesn't depend on them.
    ///
    /// The modules are added as if the injector were created with all of them: one of them replaces a
    /// binding of this injector's modules only with ``Binder/override(_:named:fileID:line:)``.
    ///
    /// ```swift
    /// let testing = try injector.with(FakePaymentsModule())   // which declares binder.override(...)
    /// ```
    ///
    /// - Throws: What ``init(modules:configuration:)`` throws, and ``ProvisionError/Code/shutDown`` when
    ///   the injector it would be made under has begun shutting down.
    public func with(_ modules: any Module...) throws(ProvisionError) -> Injector {
        let (own, overriding) = modulesWithInstalled
        return try Injector(
            modules: own + modules,
            overridingModules: overriding + modules.map { _ in false },
            configuration: configuration,
            parent: moduleParent
        )
    }

    /// The modules this injector was created with, then those installed into it since (see
    /// ``install(_:)``), with whether each one overrides: what a derived injector configures again.
    ///
    /// An injector made by ``overriding(_:)-(Module...)`` was created with its original's creation modules and
    /// the overrides, and resolves the modules installed into its original through it: those come
    /// between the two, as they would have had they been installed before the derivation. (Found by
    /// hunt 19: `with` and `without` of such an injector dropped them.)
    private var modulesWithInstalled: (modules: [any Module], overriding: [Bool]) {
        var (own, overriding) = (modules, overridingModules)
        if let derivation {
            let original = derivation.original.modulesWithInstalled
            own = original.modules + derivation.overrides
            overriding = original.overriding + derivation.overrides.map { _ in true }
        }
        let installed = installedModules.withLock { $0 }
        return (own + installed, overriding + installed.map { _ in false })
    }

    /// A new injector made of this injector's modules (installed ones included) except those of the given
    /// types (and their subclasses).
    ///
    /// Like ``with(_:)``, the new injector configures its modules again and builds its own singletons;
    /// this injector is unchanged.
    ///
    /// ```swift
    /// let offline = try injector.without(NetworkModule.self, SyncModule.self)
    /// ```
    ///
    /// - Throws: What ``init(modules:configuration:)`` throws, and ``ProvisionError/Code/shutDown`` when
    ///   the injector it would be made under has begun shutting down.
    public func without<each M>(_ types: repeat (each M).Type) throws(ProvisionError) -> Injector {
        let (own, overriding) = modulesWithInstalled
        var kept = Array(zip(own, overriding))
        for type in repeat each types {
            kept.removeAll { Injector.module($0.0, isA: type) }
        }
        return try Injector(
            modules: kept.map(\.0),
            overridingModules: kept.map(\.1),
            configuration: configuration,
            parent: moduleParent
        )
    }

    private static func module<M>(_ module: any Module, isA type: M.Type) -> Bool {
        module is M
    }

    /// A child injector: its own bindings come first, and every other request falls back to this
    /// injector, sharing its singletons.
    ///
    /// ```swift
    /// let requestInjector = try appInjector.makeChild(RequestModule(request: request))
    /// ```
    ///
    /// A child may bind a key its parent binds too; the child's binding wins for requests made through
    /// the child. Bindings of the parent always resolve their dependencies in the parent (a parent
    /// never sees its children's bindings). Dropping the child frees its own singletons only.
    ///
    /// A type that declares itself (``Injectable``, ``InjectableClass``) and is first asked of a child
    /// gets its just-in-time binding in the highest ancestor whose bindings build it the same way, as in
    /// Guice: an `Injectable` singleton is then shared by the parent and every child, unless it depends,
    /// even indirectly, on something the child binds, in which case each child has its own.
    ///
    /// - Throws: What ``init(modules:configuration:)`` throws, and ``ProvisionError/Code/shutDown`` when
    ///   the injector it would be made under has begun shutting down.
    public func makeChild(_ modules: any Module...) throws(ProvisionError) -> Injector {
        try Injector(modules: modules, configuration: configuration, parent: self)
    }

    /// Resolves `type` (the unnamed binding); the same as ``get(_:named:)-6n1xw``.
    ///
    /// ```swift
    /// let car = try injector[Car.self]
    /// ```
    public subscript<T>(_ type: T.Type) -> T {
        get throws(ProvisionError) { try get(type) }
    }

    /// Resolves `type` named `name`; the same as ``get(_:named:)-6n1xw``.
    public subscript<T>(_ type: T.Type, named name: String) -> T {
        get throws(ProvisionError) { try get(type, named: name) }
    }
}
