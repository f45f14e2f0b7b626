import Synchronization

extension Injector {
    /// Returns the instance bound to `type`, optionally named.
    ///
    /// ```swift
    /// let car = try injector.get(Car.self)
    /// let left = try injector.get(Headlight.self, named: "left")
    /// let store: any Store = try injector.get()
    /// ```
    ///
    /// The first request for a binding links it and every binding it depends on (checking that they
    /// exist and form no cycle) before anything is built; later requests run the linked plan directly.
    ///
    /// Ask for an optional to get `nil` instead of an error when nothing binds the type (Swinject's
    /// `resolve`): `try injector.get(Dog?.self)` is a binding of `Dog?` itself when a module declares
    /// one, otherwise `Dog`'s instance, or `nil` when nothing binds `Dog`. A binding that exists and
    /// fails still throws. Optional constructor parameters (`init(dog: Dog?)`) resolve the same way.
    ///
    /// - Parameters:
    ///   - type: The type to resolve; can be omitted where the context tells it.
    ///   - name: The binding's name; `nil` (the default) for the unnamed binding. A named request
    ///     never falls back to the unnamed binding.
    /// - Returns: A new instance for a transient binding; the shared instance for a singleton.
    /// - Throws: ``ProvisionError`` with ``ProvisionError/Code/notBound`` (the key or a dependency has
    ///   no binding), ``ProvisionError/Code/cycle`` (the service depends on itself), or
    ///   ``ProvisionError/Code/factoryFailed`` (a factory threw), or ``ProvisionError/Code/depthExceeded``
    ///   (the graph nests deeper than this thread's stack holds). The error's path shows the chain of
    ///   requests that led to it.
    /// - Complexity: After the first request, one lock-free table lookup plus the work of the
    ///   factories; a built singleton costs one atomic load.
    @inlinable @inline(__always)
    public func get<T>(_ type: T.Type = T.self, named name: String? = nil) throws(ProvisionError) -> T {
        try resolve(BindingKey(type, named: name), as: type, context: .root)
    }

    /// Resolves `key` with `context`'s resolution path.
    ///
    /// Always inlined, with only the first step in it: the lookup, and for a built singleton (or an
    /// instance binding) the read of its published instance. A singleton hit then costs the caller a
    /// table probe, two loads and the retain of the instance it returns, with no call; everything else
    /// (a transient's build, the first request's linking, a miss) is one call, specialized for `T`
    /// (`Node.resolveUnpublished(_:)`, or for a miss ``resolveUnbound(_:as:context:)``).
    @inlinable @inline(__always)
    func resolve<T>(_ key: BindingKey, as type: T.Type, context: ResolutionContext) throws(ProvisionError) -> T {
        guard let raw = lookup.node(for: key) else {
            return try resolveUnbound(key, as: type, context: context)
        }
        // Every node stored under a key for `T` is a `Node<T>` (see `node(for:as:)`). The registry keeps
        // it alive, so it is used without retaining it.
        #if DEBUG
            // Called directly: a debug build doesn't inline the closures below, and every request nested
            // in a closure binding's resolver would take three more frames of the thread's stack. The
            // instance is read from its word, without an optional of `T`, which unspecialized code keeps
            // in a buffer on the stack (a chain of closure bindings has this frame at every link).
            let node = Unmanaged<Node<T>>.fromOpaque(raw.toOpaque()).takeUnretainedValue()
            let word = node.publishedWord
            if word != 0 { return PublishedValue<T>.value(at: UnsafeRawPointer(bitPattern: word).unsafelyUnwrapped) }
            return try node.resolveUnpublished(context)
        #else
            let node = Unmanaged<Node<T>>.fromOpaque(raw.toOpaque())
            if let value = node._withUnsafeGuaranteedRef({ PublishedValue<T>.load($0.instance) }) {
                return value
            }
            let rest = node._withUnsafeGuaranteedRef { node in
                Result { () throws(ProvisionError) in try node.resolveUnpublished(context) }
            }
            return try rest.get()
        #endif
    }
}
