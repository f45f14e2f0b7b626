/// Resolves dependencies inside a closure binding, keeping track of the resolution path.
///
/// A closure binding receives a `Resolver` and asks it for what it needs:
///
/// ```swift
/// binder.bind(Clock.self).to { resolver in
///     SystemClock(timeZone: try resolver.get(TimeZoneSetting.self))
/// }
/// ```
///
/// Resolve through the resolver, not through the injector, so that a cycle through the closure is
/// reported with its path instead of running until the stack is exhausted. A resolver is only valid while the closure
/// that received it runs: don't store it or send it to another thread (inject a handle such as a
/// factory closure instead).
public struct Resolver {
    /// The injector the closure resolves in. Not retained: every resolver is made for one call of a
    /// closure, by code that holds the injector for the call's duration, and is valid only during that
    /// call. Retaining it cost a retain and a release of the injector per closure call, on its shared
    /// reference count (through its side table, once anything refers to it weakly, as every ``Provider``
    /// and ``Lazy`` does).
    @usableFromInline unowned(unsafe) let injector: Injector
    @usableFromInline let context: ResolutionContext
    #if DEBUG
        /// In a debug build, for a closure that declared its dependencies: the declaration each request is
        /// checked against (see ``DependencyDeclaration``).
        @usableFromInline let declaration: DependencyDeclaration?
    #endif

    @usableFromInline
    init(injector: Injector, context: ResolutionContext) {
        self.injector = injector
        self.context = context
        #if DEBUG
            self.declaration = nil
        #endif
    }

    #if DEBUG
        /// A resolver whose requests are checked against `declaration`.
        @usableFromInline
        init(injector: Injector, context: ResolutionContext, declaration: DependencyDeclaration?) {
            self.injector = injector
            self.context = context
            self.declaration = declaration
        }

        /// This resolver without its declaration: for work done on behalf of the closure's result (its
        /// injected properties) rather than by the closure itself.
        var undeclared: Resolver {
            Resolver(injector: injector, context: context)
        }
    #else
        var undeclared: Resolver { self }
    #endif

    /// Resolves the binding for `type`, optionally named.
    ///
    /// - Parameters:
    ///   - type: The type to resolve; can be omitted where the context tells it.
    ///   - name: The binding's name; `nil` (the default) for the unnamed binding.
    /// - Returns: The instance the binding provides.
    /// - Throws: ``ProvisionError`` with ``ProvisionError/Code/notBound``,
    ///   ``ProvisionError/Code/cycle``, ``ProvisionError/Code/factoryFailed`` or
    ///   ``ProvisionError/Code/depthExceeded``; in a debug build,
    ///   ``ProvisionError/Code/undeclaredDependency`` when the closure declared its dependencies and
    ///   `type` is not one of them.
    @inlinable
    public func get<T>(_ type: T.Type = T.self, named name: String? = nil) throws(ProvisionError) -> T {
        #if DEBUG
            let key = BindingKey(type, named: name)
            try declaration?.check(key)
            // Called directly: a debug build doesn't inline the closures below, and a chain of closure
            // bindings would take two more frames per link of the thread's stack.
            return try injector.resolve(key, as: type, context: context)
        #else
            // Borrowed, not copied: a strong copy of the injector would retain and release it.
            let result = Unmanaged.passUnretained(injector)._withUnsafeGuaranteedRef { injector in
                Result { () throws(ProvisionError) in
                    try injector.resolve(BindingKey(type, named: name), as: type, context: context)
                }
            }
            return try result.get()
        #endif
    }
}

// A resolver carries one thread's resolution path and is valid only while its closure runs.
@available(*, unavailable)
extension Resolver: Sendable {}
