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
    @inlinable
    public func get<T>(_ type: T.Type = T.self, named name: String? = nil) throws(ProvisionError) -> T {
        try resolve(BindingKey(type, named: name), as: type, context: .root)
    }

    /// Resolves `key` with `context`'s resolution path. Inlinable, like ``get(_:named:)-6n1xw``, so that the
    /// caller's specialization reaches the plan call: a linked binding costs a lookup and a closure call.
    @inlinable
    func resolve<T>(_ key: BindingKey, as type: T.Type, context: ResolutionContext) throws(ProvisionError) -> T {
        guard let raw = lookup.node(for: key) else {
            return try resolveUnbound(key, as: type, context: context)
        }
        // Every node stored under a key for `T` is a `Node<T>` (see `node(for:as:)`). The registry keeps
        // it alive, so it is used without retaining it.
        let node = Unmanaged<Node<T>>.fromOpaque(raw.toOpaque())
        // A built singleton (or an instance binding) is served straight from its cell.
        if let value = node._withUnsafeGuaranteedRef({ $0.cell?.value }) {
            return value
        }
        // A plain transient leaf: its initializer, called directly (see `Node.isDirect`).
        let direct = node._withUnsafeGuaranteedRef { node in
            Result { () throws(ProvisionError) in try node.makeDirectly(context) }
        }
        if let value = try direct.get() {
            return value
        }
        guard let plan = node._withUnsafeGuaranteedRef({ AtomicReference.load($0.linkedPlan, as: Plan<T>.self) }) else {
            return try node.takeUnretainedValue().linkAndMake(context)
        }
        return try PlanReference(plan).make(context)
    }
}
