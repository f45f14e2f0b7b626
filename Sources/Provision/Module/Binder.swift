import Synchronization

/// Records the bindings a ``Module`` declares.
///
/// A binder is handed to ``Module/configure(_:)`` and is valid only during that call. Start each
/// binding with ``bind(_:named:fileID:line:)`` and finish it with `to(...)` or `toInstance(_:)`:
///
/// ```swift
/// func configure(_ binder: Binder) {
///     binder.bind(Engine.self).to(Engine.init)
///     binder.bind(Car.self).to(Car.init(engine:brakes:))
///     binder.bind(Headlight.self, named: "left").to(HalogenHeadlight.init).in(.singleton)
///     binder.multibind((any Plugin).self).to(MetricsPlugin.init)
///     binder.eager(Car.self)
/// }
/// ```
///
/// Binding the same key twice in one module is an error (``ProvisionError/Code/duplicateBinding``),
/// reported when the injector is created. Across modules, a later module replaces an earlier module's
/// binding only when it says so with ``override(_:named:fileID:line:)``; an unmarked second binding of a
/// key is a ``ProvisionError/Code/duplicateBinding`` error naming both declarations. Multibinding
/// elements accumulate instead.
public final class Binder {
    struct Record {
        let key: BindingKey
        let location: SourceLocation
        /// Whether the binding replaces an earlier module's binding of its key on purpose (see
        /// ``Binder/override(_:named:fileID:line:)``).
        var isOverride = false
        var scope: Scope = .transient
        /// The binding's node, made by `to(...)` or `toInstance(_:)` and completed with ``scope`` and
        /// ``hooks`` when the injector installs it; `nil` until the binding gets a target, and in a
        /// binder that only records keys (see ``hasTarget``).
        var node: (any AnyNode)?
        /// Whether the binding got a target.
        var hasTarget = false
        /// Start and stop hooks declared on the binding (a `LifecycleHooks<T>`).
        var hooks: AnyLifecycleHooks?
        /// For bindings with arguments, the factory, so that `defaults(...)` can extend it.
        var argumentFactory: (any Sendable & AnyObject)?
        /// Built when the injector is created (`asEagerSingleton()`).
        var isEager = false
        /// For multibinding elements: the collection they belong to.
        var multibinding: Multibinding?
    }

    /// A multibinding element's collection: its key (of type `[T]`) and how to make its node from the
    /// element keys. A class, so that the few records that have one keep every record small: a module's
    /// records are an array that grows by copying, binding by binding.
    final class Multibinding {
        let collectionKey: BindingKey
        let makeCollection: ([BindingKey], SourceLocation, Injector) -> any AnyNode

        init(
            collectionKey: BindingKey, makeCollection: @escaping ([BindingKey], SourceLocation, Injector) -> any AnyNode
        ) {
            self.collectionKey = collectionKey
            self.makeCollection = makeCollection
        }
    }

    // The binder's state is used by the configuring thread only (a binder is not `Sendable`), so the
    // run-time exclusivity checks of class properties, a call per access, are turned off: every
    // binding writes its record several times (`bind`, `to`, `in`, hooks).
    @exclusivity(unchecked) private(set) var records: [Record] = []
    /// A key marked eager: where it was marked, and how an injector finds its node.
    struct EagerKey {
        let key: BindingKey
        let location: SourceLocation
        /// The node bound to the key in `injector`: a module binding, or the just-in-time binding of an
        /// ``Injectable`` type.
        let node: (_ injector: Injector) -> (any AnyNode)?
    }

    /// Keys marked eager with ``eager(_:named:fileID:line:)``.
    @exclusivity(unchecked) private(set) var eagerKeys: [EagerKey] = []
    /// Errors found while recording (for example an instance of the wrong type), reported when the
    /// module is installed.
    @exclusivity(unchecked) private var errors: [ProvisionError] = []
    /// Numbers multibinding elements across all binders, so that elements of one collection declared in
    /// different modules never share a key (a later module would replace an earlier one's element).
    private static let elementCounter = Atomic<Int>(0)

    /// The injector the bindings' nodes are made for; `nil` for a binder that only records the keys a
    /// module binds (see `Module.hasBinding(for:named:)`). Unowned and unchecked: the injector creates
    /// the binder while it configures its modules, and outlives it.
    @usableFromInline unowned(unsafe) let injector: Injector?

    /// Whether every binding replaces an earlier one of its key (the modules of
    /// `Injector.overriding(_:)`), as if declared with ``override(_:named:fileID:line:)``.
    let overridesByDefault: Bool

    init(injector: Injector?, overridesByDefault: Bool = false) {
        self.injector = injector
        self.overridesByDefault = overridesByDefault
    }

    /// Starts a binding for `type`, optionally named.
    ///
    /// - Parameters:
    ///   - type: The type requests will ask for: a concrete type (`Car.self`) or an existential
    ///     (`(any Store).self`).
    ///   - name: A name that distinguishes several bindings of one type; a named request never falls
    ///     back to the unnamed binding.
    ///   - fileID: Recorded for error messages; leave the default.
    ///   - line: Recorded for error messages; leave the default.
    /// - Returns: A builder; finish it with `to(...)` or `toInstance(_:)`.
    public func bind<T>(
        _ type: T.Type,
        named name: String? = nil,
        fileID: String = #fileID,
        line: Int = #line
    ) -> BindingBuilder<T> {
        let index = start(
            BindingKey(type, named: name), at: SourceLocation(fileID: fileID, line: line),
            isOverride: overridesByDefault)
        return BindingBuilder(binder: self, index: index)
    }

    /// Records a new binding of `key`, declared at `location`; returns its index. Not generic: a
    /// binding's record is the same whatever its type.
    private func start(_ key: BindingKey, at location: SourceLocation, isOverride: Bool) -> Int {
        records.append(Record(key: key, location: location, isOverride: isOverride))
        return records.count - 1
    }

    /// Starts a binding that replaces an earlier module's binding of the same key: the explicit way to
    /// swap an implementation (a fake for tests, a platform variant) across modules.
    ///
    /// ```swift
    /// struct FakePaymentsModule: Module {
    ///     func configure(_ binder: Binder) {
    ///         binder.override((any PaymentGateway).self).to(FakeGateway.init)
    ///     }
    /// }
    ///
    /// let injector = try Injector(AppModule(), FakePaymentsModule())
    /// ```
    ///
    /// Without it, a key bound by two modules is a ``ProvisionError/Code/duplicateBinding`` error that
    /// names both declarations, so a binding can't be replaced by accident. An override replaces the
    /// binding of any earlier module of the injector; one that replaces nothing is simply a binding.
    /// Within one module a key is still bound once. To replace bindings of a running injector for a
    /// test, derive one with `Injector.overriding(_:)` instead.
    ///
    /// - Parameters:
    ///   - type: The type whose binding to replace.
    ///   - name: The binding's name; `nil` (the default) for the unnamed binding.
    ///   - fileID: Recorded for error messages; leave the default.
    ///   - line: Recorded for error messages; leave the default.
    /// - Returns: A builder; finish it with `to(...)` or `toInstance(_:)`.
    public func override<T>(
        _ type: T.Type,
        named name: String? = nil,
        fileID: String = #fileID,
        line: Int = #line
    ) -> BindingBuilder<T> {
        let index = start(
            BindingKey(type, named: name), at: SourceLocation(fileID: fileID, line: line), isOverride: true)
        return BindingBuilder(binder: self, index: index)
    }

    /// Adds one element to the collection of `type`, resolved as `[T]` with
    /// ``Injector/getAll(_:named:)-1hwwa`` or injected as a `[T]` parameter.
    ///
    /// ```swift
    /// binder.multibind((any Plugin).self).to(MetricsPlugin.init)
    /// binder.multibind((any Plugin).self).toInstance(AuditPlugin())
    /// let plugins = try injector.getAll((any Plugin).self)   // in binding order
    /// ```
    ///
    /// Elements accumulate across the modules of an injector, in module order and then binding order.
    /// Each element has its own target and scope. A child injector's elements add to its parent's
    /// collection: in the child, the collection has the parent's elements first (the same instances,
    /// for singletons) and then the child's; the parent's collection doesn't change.
    ///
    /// - Parameters:
    ///   - type: The element type.
    ///   - name: Distinguishes several collections of one element type.
    ///   - fileID: Recorded for error messages; leave the default.
    ///   - line: Recorded for error messages; leave the default.
    /// - Returns: A builder for the element; finish it with `to(...)` or `toInstance(_:)`.
    public func multibind<T>(
        _ type: T.Type,
        named name: String? = nil,
        fileID: String = #fileID,
        line: Int = #line
    ) -> BindingBuilder<T> {
        let index = Binder.elementCounter.add(1, ordering: .relaxed).newValue
        let elementName = Binder.elementName(collection: name, index: index)
        var record = Record(
            key: BindingKey(type, named: elementName),
            location: SourceLocation(fileID: fileID, line: line)
        )
        record.multibinding = Multibinding(
            collectionKey: BindingKey([T].self, named: name),
            makeCollection: { elements, location, injector in
                Node(
                    key: BindingKey([T].self, named: name),
                    scope: .transient,
                    location: location,
                    recipe: .collection(of: T.self, elements: elements),
                    injector: injector
                )
            }
        )
        records.append(record)
        return BindingBuilder(binder: self, index: records.count - 1)
    }

    /// Marks a binding to be built when the injector is created: Objection's eager singletons.
    ///
    /// ```swift
    /// binder.eager(Scheduler.self)   // bound as a singleton here, elsewhere, or declared Injectable
    /// ```
    ///
    /// The key must be a singleton (or an instance) in the injector: bound so by any of its modules, or
    /// an ``Injectable`` type whose declaration is a singleton. Eager keys of all modules are built in
    /// module order, after every module is configured.
    ///
    /// - Parameters:
    ///   - type: The bound type.
    ///   - name: The binding's name; `nil` for the unnamed binding.
    ///   - fileID: Recorded for error messages; leave the default.
    ///   - line: Recorded for error messages; leave the default.
    /// - Note: Creating the injector throws ``ProvisionError/Code/eagerNotSingleton`` (naming the key)
    ///   when the key is bound in another scope, and ``ProvisionError/Code/notBound`` when nothing
    ///   provides it at all.
    public func eager<T>(_ type: T.Type, named name: String? = nil, fileID: String = #fileID, line: Int = #line) {
        let key = BindingKey(type, named: name)
        eagerKeys.append(
            EagerKey(key: key, location: SourceLocation(fileID: fileID, line: line)) { injector in
                injector.lookup(key, as: T.self)
            }
        )
    }

    /// The start of every multibinding element's hidden name.
    static let elementNamePrefix = "\u{E000}element "

    /// The hidden name of a multibinding element: unique per binder, never a name a user would write.
    static func elementName(collection name: String?, index: Int) -> String {
        "\(elementNamePrefix)\(index) of \(name ?? "")"
    }

    /// Whether `key` is a multibinding element's (see ``elementName(collection:index:)``).
    static func isElementKey(_ key: BindingKey) -> Bool {
        key.name?.hasPrefix(elementNamePrefix) == true
    }

    /// Gives the binding at `index` its recipe: makes its node.
    ///
    /// Inlinable so that the node is made by code specialized where the binding is declared: creating
    /// the injector then allocates each `Node<T>` without a run-time generic-metadata lookup, and
    /// without a closure per binding to make it later.
    @inlinable
    func setRecipe<T>(_ recipe: Recipe<T>, at index: Int) {
        var node: (any AnyNode)?
        if let injector {
            node = Node(key: key(at: index), location: location(at: index), recipe: recipe, injector: injector)
        }
        setTarget(at: index, node: node, argumentFactory: recipe.options?.arguments?.factory)
    }

    @usableFromInline
    func setTarget(at index: Int, node: (any AnyNode)?, argumentFactory: (any Sendable & AnyObject)?) {
        records[index].argumentFactory = argumentFactory
        records[index].node = node
        records[index].hasTarget = true
    }

    /// The argument factory recorded at `index`, if the binding there has one of that type.
    func argumentFactory<F>(at index: Int, as type: F.Type) -> F? {
        records[index].argumentFactory as? F
    }

    @usableFromInline
    func setScope(_ scope: Scope, at index: Int) {
        records[index].scope = scope
    }

    /// Changes the lifecycle hooks of the binding at `index`, whose type is `T`.
    func updateHooks<T>(at index: Int, as type: T.Type, _ change: (inout LifecycleHooks<T>) -> Void) {
        var hooks = records[index].hooks?.hooks as? LifecycleHooks<T> ?? LifecycleHooks()
        change(&hooks)
        records[index].hooks = AnyLifecycleHooks(hooks)
    }

    func setEager(at index: Int) {
        records[index].isEager = true
    }

    func record(_ error: ProvisionError) {
        errors.append(error)
    }

    @usableFromInline
    func location(at index: Int) -> SourceLocation {
        records[index].location
    }

    @usableFromInline
    func key(at index: Int) -> BindingKey {
        records[index].key
    }

    /// The finished bindings, checked: every `bind` got a target and, when `checkingDuplicates`, no key
    /// is bound twice. (The registry finds a key bound twice when it installs the bindings of one
    /// module; an injector of several modules, where a later module replaces an earlier one's keys,
    /// checks here.)
    func finishedRecords(checkingDuplicates: Bool) throws(ProvisionError) -> [Record] {
        if let error = errors.first { throw error }
        var seen: [BindingKey: SourceLocation] = [:]
        if checkingDuplicates { seen.reserveCapacity(records.count) }
        // Indexed, not iterated: reading a field doesn't copy the whole record.
        // The key and location are read only where they are used: most records need neither.
        for index in records.indices {
            guard records[index].hasTarget else {
                throw ProvisionError.incompleteBinding(records[index].key, at: records[index].location)
            }
            if checkingDuplicates {
                // A binding with arguments is counted by its key and argument list (see ArgumentVariants).
                var slot = records[index].key
                if records[index].argumentFactory != nil, let node = records[index].node {
                    slot = ArgumentVariants.slot(of: node)
                }
                let location = records[index].location
                if let first = seen.updateValue(location, forKey: slot) {
                    throw ProvisionError.duplicateBinding(
                        slot,
                        at: location,
                        reason: "the same module binds it at \(first) and at \(location)"
                    )
                }
            }
            if records[index].hooks != nil, !records[index].scope.isSingleton {
                throw ProvisionError.hooksNotSingleton(
                    records[index].key, scope: records[index].scope, at: records[index].location)
            }
        }
        return records
    }
}

// A binder collects one module's bindings on the thread that configures it.
@available(*, unavailable)
extension Binder: Sendable {}
