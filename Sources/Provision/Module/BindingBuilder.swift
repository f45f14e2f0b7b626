/// Finishes a binding started with ``Binder/bind(_:named:fileID:line:)``: says what the key is bound to.
///
/// - `to(Car.init(engine:brakes:))`: a constructor binding. The injector resolves each parameter's type
///   and calls the function; the parameter types are the binding's declared dependencies.
/// - `to { resolver in ... }`: a closure binding, for anything a constructor can't express.
/// - `toInstance(value)`: always the given value.
///
/// The first two return a ``ScopeBuilder`` to choose the scope.
public struct BindingBuilder<T> {
    @usableFromInline let binder: Binder
    @usableFromInline let index: Int

    /// Binds to a function (usually an initializer) whose parameters are resolved from the injector.
    ///
    /// ```swift
    /// binder.bind(Car.self).to(Car.init(engine:brakes:))
    /// binder.bind((any Store).self).to(SQLStore.init(pool:))
    /// ```
    ///
    /// Each parameter is resolved as the unnamed binding of its type, every time the binding builds a
    /// value. If `factory` throws, the request fails with ``ProvisionError/Code/factoryFailed``.
    ///
    /// - Parameter factory: Builds the value from its dependencies.
    /// - Returns: A builder to set the binding's scope (transient by default).
    @inlinable
    @discardableResult
    public func to<each Dependency>(
        _ factory: @escaping @Sendable (repeat consuming each Dependency) throws -> T
    ) -> ScopeBuilder<T> {
        binder.setRecipe(Recipe.constructor(factory), at: index)
        return ScopeBuilder(binder: binder, index: index)
    }

    // A function with no parameters takes the pack form with an empty pack: `Recipe.constructor` gives
    // it the parameterless constructor's recipe (a leaf, which a request may build directly).

    // Fixed-arity forms of `to(_:)` for constructors with up to twelve parameters are in
    // `BindingBuilder+Arity.swift` (generated): the same behaviour, faster resolution. Overload
    // resolution prefers them to the pack form, which takes every other arity.

    /// Binds to a closure that resolves what it needs through the given ``Resolver``.
    ///
    /// ```swift
    /// binder.bind(Clock.self).to { resolver in
    ///     SystemClock(timeZone: try resolver.get(TimeZoneSetting.self))
    /// }
    /// ```
    ///
    /// The closure's dependencies are only known when it runs, so they are checked then.
    ///
    /// - Parameter provider: Builds the value; runs with no lock held, on the requesting thread.
    /// - Returns: A builder to set the binding's scope (transient by default).
    @inlinable
    @discardableResult
    public func to(_ provider: @escaping @Sendable (Resolver) throws -> T) -> ScopeBuilder<T> {
        binder.setRecipe(Recipe.closure(provider), at: index)
        return ScopeBuilder(binder: binder, index: index)
    }

    /// Binds to an async closure: for services whose construction awaits, such as opening a
    /// connection.
    ///
    /// ```swift
    /// binder.bind(Database.self).to { resolver async throws in
    ///     try await Database.connect(to: try await resolver.get(DatabaseURL.self))
    /// }.in(.singleton)
    /// ```
    ///
    /// Resolve the binding, and anything that depends on it, with `try await injector.get(...)`: an async
    /// singleton is built exactly once, and concurrent callers suspend (no thread blocks) until it is
    /// built. Once built (for example by ``Injector/start()``), a singleton is also served to synchronous
    /// requests; before that, a synchronous request throws ``ProvisionError/Code/requiresAsync``.
    ///
    /// - Parameter provider: Builds the value; runs with no lock held.
    /// - Returns: A builder to set the binding's scope (transient by default).
    @inlinable
    @discardableResult
    public func to(_ provider: @escaping @Sendable (Resolver) async throws -> T) -> ScopeBuilder<T> {
        binder.setRecipe(Recipe.asyncClosure(provider), at: index)
        return ScopeBuilder(binder: binder, index: index)
    }

    /// Binds to an `async` function (usually an initializer) whose parameters are resolved from the
    /// injector: for services whose construction awaits, such as a connection pool that connects.
    ///
    /// ```swift
    /// final class Pool: Sendable {
    ///     init(config: DatabaseConfig) async throws { /* connects */ }
    /// }
    ///
    /// binder.bind(Pool.self).to(Pool.init(config:)).in(.singleton)
    /// ```
    ///
    /// As with a synchronous constructor binding, each parameter is resolved as the unnamed binding of
    /// its type, and the parameter types are the binding's declared dependencies: a missing one is
    /// reported by the first request, and by ``Injector/validate()``. As with an async closure binding,
    /// resolve it (and anything that depends on it) with `try await injector.get(...)`; a synchronous
    /// request throws ``ProvisionError/Code/requiresAsync`` until a singleton is built (for example by
    /// ``Injector/start()``). If `factory` throws, the request fails with
    /// ``ProvisionError/Code/factoryFailed``.
    ///
    /// A synchronous function takes the synchronous forms, which a synchronous request can build.
    ///
    /// - Parameter factory: Builds the value from its dependencies; runs with no lock held.
    /// - Returns: A builder to set the binding's scope (transient by default).
    @inlinable
    @discardableResult
    public func to<each Dependency>(
        _ factory: @escaping @Sendable (repeat consuming each Dependency) async throws -> T
    ) -> ScopeBuilder<T> {
        binder.setRecipe(Recipe.asyncConstructor(factory), at: index)
        return ScopeBuilder(binder: binder, index: index)
    }
}

extension BindingBuilder where T: Sendable {
    /// Binds to an existing value: every request returns `instance`.
    ///
    /// ```swift
    /// binder.bind(Config.self).toInstance(Config(port: 8080))
    /// ```
    ///
    /// An instance binding behaves as a singleton that is already built.
    ///
    /// - Parameter instance: The value to return. It is shared by every thread, so it must be
    ///   `Sendable`.
    @inlinable
    public func toInstance(_ instance: T) {
        binder.setRecipe(Recipe.instance(instance), at: index)
        binder.setScope(.singleton, at: index)
    }
}

/// Sets the scope of a binding.
public struct ScopeBuilder<T> {
    @usableFromInline let binder: Binder
    @usableFromInline let index: Int

    @usableFromInline
    init(binder: Binder, index: Int) {
        self.binder = binder
        self.index = index
    }
}

extension ScopeBuilder where T: Sendable {
    /// Sets how long the binding's instances live.
    ///
    /// ```swift
    /// binder.bind(Clock.self).to(SystemClock.init).in(.singleton)
    /// ```
    ///
    /// A singleton is shared by every thread, so singleton bindings need a `Sendable` type.
    ///
    /// - Parameter scope: ``Scope/transient`` (the default), ``Scope/singleton`` or ``Scope/scoped``.
    /// - Returns: A builder to declare start and stop hooks (singletons only).
    @discardableResult
    public func `in`(_ scope: Scope) -> LifecycleBuilder<T> {
        binder.setScope(scope, at: index)
        return LifecycleBuilder(binder: binder, index: index)
    }
}

// Builders are used on the configuring thread only, like the binder they write to.
@available(*, unavailable)
extension BindingBuilder: Sendable {}

@available(*, unavailable)
extension ScopeBuilder: Sendable {}

extension BindingBuilder where T: Injectable {
    /// Binds the type to its own ``Injectable`` declaration, in this injector: used to change the scope
    /// of a self-declared type for one injector (promote it to singleton or demote it to transient).
    ///
    /// ```swift
    /// binder.bind(Car.self).toSelf().in(.singleton)
    /// ```
    @discardableResult
    public func toSelf() -> ScopeBuilder<T> {
        let injection = T.injection
        binder.setRecipe(injection.recipe, at: index)
        binder.setScope(injection.scope, at: index)
        return ScopeBuilder(binder: binder, index: index)
    }
}

extension BindingBuilder where T: Sendable {
    /// Binds to a value whose type is only known at run time, checked when the module is configured.
    ///
    /// `toInstance(_:)` checks the type at compile time; use this variant for values from dynamic
    /// sources (plugins, configuration). A value that is not a `T` makes creating the injector throw
    /// ``ProvisionError/Code/typeMismatch``, naming both types.
    ///
    /// The value is `any Sendable`, not `Any`: every thread shares it. (A parameter of type `Any` also
    /// took a trailing closure, `toInstance { ... }`, meant for `toInstance(_:)` when the bound type is
    /// an `async` function type: the compiler preferred the synchronous closure as an `Any`, which
    /// then failed at run time. Found by hunt 26B.) A value held as `Any` converts with
    /// `value as? any Sendable`.
    ///
    /// - Parameter value: The value; it must be a `T`.
    public func toInstance(checking value: any Sendable) {
        guard let instance = value as? T else {
            binder.record(
                ProvisionError.typeMismatch(
                    binder.key(at: index),
                    value: TypeName.describe(type(of: value)),
                    at: binder.location(at: index)
                )
            )
            binder.setRecipe(Recipe<T>.failing, at: index)
            return
        }
        toInstance(instance)
    }
}

extension BindingBuilder {
    /// Binds to another binding, converting its value: `bind((any Store).self).to(binding: SQLStore.self)`.
    ///
    /// The target binding builds the value with its own scope and dependencies; this binding's scope
    /// applies on top. The conversion is checked each time the value is built (a dynamic cast); a
    /// value that does not convert throws ``ProvisionError/Code/typeMismatch``. Where the types are
    /// known, `to(SQLStore.init(pool:))` is checked at compile time and costs nothing.
    ///
    /// A request with arguments (``Injector/get(_:named:arguments:)``) passes them on to the target. A
    /// delegation made ``Scope/scoped`` can't be requested with arguments
    /// (``ProvisionError/Code/invalidLifecycle``): one instance per scope would ignore them.
    ///
    /// - Parameters:
    ///   - target: The type whose binding builds the value.
    ///   - name: The target binding's name.
    @discardableResult
    public func to<Target>(binding target: Target.Type, named name: String? = nil) -> ScopeBuilder<T> {
        binder.setRecipe(Recipe<T>.delegating(to: BindingKey(target, named: name), as: target), at: index)
        return ScopeBuilder(binder: binder, index: index)
    }
}

extension ScopeBuilder where T: Sendable {
    /// Makes the binding a singleton that is built when the injector is created (Guice's eager
    /// singleton), so that its failures surface at start-up.
    ///
    /// - Returns: A builder to declare start and stop hooks.
    @discardableResult
    public func asEagerSingleton() -> LifecycleBuilder<T> {
        binder.setScope(.singleton, at: index)
        binder.setEager(at: index)
        return LifecycleBuilder(binder: binder, index: index)
    }
}
