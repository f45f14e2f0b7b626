extension Injector {
    /// Returns an instance of `type` built from the given arguments.
    ///
    /// ```swift
    /// let car = try injector.get(ConfigurableCar.self, arguments: "VW", "Passat")
    /// ```
    ///
    /// The binding must be declared with ``BindingBuilder/withArguments(_:)`` and matching argument
    /// types, or delegate with ``BindingBuilder/to(binding:named:)`` to such a binding, which then
    /// receives the arguments. For a singleton that is already built, the arguments are ignored.
    ///
    /// - Parameters:
    ///   - type: The type to resolve.
    ///   - name: The binding's name; `nil` (the default) for the unnamed binding.
    ///   - arguments: The arguments, in the declared order.
    /// - Throws: ``ProvisionError`` with ``ProvisionError/Code/argumentMismatch`` (wrong count or
    ///   types, or a binding without arguments), or any error resolving the type throws.
    @inlinable
    public func get<T, each Argument>(
        _ type: T.Type = T.self,
        named name: String? = nil,
        arguments: repeat each Argument
    ) throws(ProvisionError) -> T {
        let key = BindingKey(type, named: name)
        // The common request, specialized where it is made: a transient binding of this injector,
        // declared with exactly these argument types. Comparing the factory's class with the one these
        // types name, and calling its closure, then instantiates no metadata at run time (unspecialized,
        // the pack's metadata was looked up several times per request). Everything else, and every
        // error, takes the general path below, which decides the same way.
        if let raw = lookup.node(for: key) {
            // Read without retaining anything: the registry keeps the node, the node its options, and
            // the options the factory, for as long as the injector this request runs on.
            let node = Unmanaged<Node<T>>.fromOpaque(raw.toOpaque())
            let (bits, frame) = node._withUnsafeGuaranteedRef { node -> (UInt, PathFrame?) in
                guard node.cell == nil, let options = node.options, options.argumentFactoryBits != 0 else {
                    return (0, nil)
                }
                return (options.argumentFactoryBits, options.rootFrame(for: key))
            }
            // The factory's class, read from its first word, is the one these argument types name.
            if let factory = UnsafeRawPointer(bitPattern: bits), let frame,
                factory.load(as: UnsafeRawPointer.self)
                    == unsafeBitCast(ArgumentFactory<T, repeat each Argument>.self, to: UnsafeRawPointer.self)
            {
                try StackGuard.check(key)
                unowned(unsafe) let typed = Unmanaged<ArgumentFactory<T, repeat each Argument>>.fromOpaque(factory)
                    .takeUnretainedValue()
                return try Recipe.build(
                    key, typed, Resolver(injector: self, context: ResolutionContext(frame: frame)),
                    repeat each arguments)
            }
        }
        return try resolve(key, as: type, arguments: repeat each arguments)
    }

    /// Builds a new instance of a transient binding with arguments for a top-level request: its factory
    /// runs with a resolver whose path starts at `key`. Both paths of ``get(_:named:arguments:)`` end here.
    ///
    /// The path's root frame is the binding's own, made by its first request (see
    /// `RecipeOptions.rootFrame(for:)`): a request allocates nothing beyond what its factory builds.
    @inlinable
    func buildTransient<T, each Argument>(
        _ key: BindingKey,
        _ factory: ArgumentFactory<T, repeat each Argument>,
        _ options: RecipeOptions,
        _ arguments: repeat each Argument
    ) throws(ProvisionError) -> T {
        try Recipe.build(
            key,
            factory,
            Resolver(injector: self, context: ResolutionContext(frame: options.rootFrame(for: key))),
            repeat each arguments
        )
    }

    /// ``get(_:named:arguments:)`` for every request: through parent injectors and just-in-time
    /// bindings, singletons, delegations, and the errors of mismatched arguments.
    @usableFromInline
    func resolve<T, each Argument>(
        _ key: BindingKey,
        as type: T.Type,
        arguments: repeat each Argument
    ) throws(ProvisionError) -> T {
        guard let node = lookup(key, as: type) else {
            throw missing(key, path: [key])
        }
        if let value = node.cell?.value { return value }
        // A request with arguments recurses through forwarding and its factory's resolver, not through
        // linked plans: check the stack at each level.
        try StackGuard.check(key)
        // Built only for an error: formatting type names costs microseconds.
        var given: String { ArgumentFactory<T, repeat each Argument>.signature }
        guard let options = node.options, let info = options.arguments else {
            if let forwarding = node.options?.forwarding {
                // Linking the delegation checks its chain of targets for a cycle (which forwarding the
                // arguments from one target to the next would otherwise follow forever).
                if !node.isLinked { _ = try Linker().link(node) }
                let call = ForwardingCall<T, repeat each Argument>(
                    key: key,
                    injector: node.injector,
                    forwarding: forwarding,
                    arguments: repeat each arguments
                )
                guard let cell = node.cell else { return try call.run() }
                return try cell.build(.root) { _ throws(ProvisionError) in try call.run() }
            }
            throw ProvisionError.argumentMismatch(
                key,
                expected: "()",
                given: given,
                reason: "its binding takes no arguments"
            )
        }
        // An identity comparison of the factory's class instead of a dynamic cast (`as?` on a generic
        // class with a pack goes through the runtime's conformance and cast machinery, ~1 µs).
        guard Swift.type(of: info.factory) == ArgumentFactory<T, repeat each Argument>.self else {
            throw ProvisionError.argumentMismatch(
                key,
                expected: info.signature,
                given: given,
                reason: "the arguments don't match the declared ones"
            )
        }
        let factory = unsafeDowncast(info.factory, to: ArgumentFactory<T, repeat each Argument>.self)
        guard let cell = node.cell else { return try buildTransient(key, factory, options, repeat each arguments) }
        // The gate runs the closure on this thread, before `build` returns. The call is prepared outside
        // the closure: Swift 6.3's compiler crashes on pack operations inside a closure here.
        let call = ArgumentCall(key: key, factory: factory, arguments: repeat each arguments)
        return try cell.build(.root) { context throws(ProvisionError) in
            try call.run(Resolver(injector: self, context: context))
        }
    }
}
