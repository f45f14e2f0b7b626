import Synchronization

/// The property injection of the instances one binding builds: the rule of ``PropertyInjectable``,
/// applied where a constructor's plan returns.
///
/// **The rule.** An object gets its injected properties, and its
/// ``PropertyInjectable/didInjectDependencies()`` call, exactly once: when a constructor binding (`to(_:)`
/// with an initializer or function, an ``Injection`` declaration's factory) builds it. What decides is
/// the object's own class, whatever the key: `bind((any Person).self).to { PetOwner() }` injects a
/// `PetOwner` as `bind(PetOwner.self).to(PetOwner.init)` does. Values the injector didn't construct
/// are returned as they are: instances (`toInstance`), the results of closures, providers and argument
/// factories (that code built the object, and asks for injection with
/// ``Resolver/injectDependencies(into:onlyIfNil:)`` when it wants it), and a delegation's value
/// (`to(binding:)`), which the target binding built and injected under this same rule.
///
/// **Where it is decided.** When `T` declares injected properties, the plan injects every instance
/// (``ConstructionInjection/declared``). When `T` can't hold an object that declares them (a struct, an
/// enum, a tuple, a function), nothing is checked. Otherwise — a protocol, `Any`, an optional, a class
/// whose subclasses may declare properties it doesn't — each built instance is checked
/// (``ConstructionInjection/dynamic``): for a class key only an instance of a subclass is (the check
/// compares the instance's class with `T`), for other keys every instance, with the last class found to
/// declare nothing remembered, so that the common case costs a load and a comparison.
@usableFromInline
final class PropertyInjection: Sendable {
    let key: BindingKey
    /// Unowned: the injector owns the plans that hold this (through its nodes).
    unowned let injector: Injector
    /// Whether the injection checks the path for `key` and pushes it (see ``inject(_:_:)``).
    let tracksPath: Bool
    /// Whether every value of the key's type is one reference to an object (a class): a plan then
    /// compares the instance's class with the key's before anything else (see ``finish(_:_:key:_:)``).
    @usableFromInline let instancesAreObjects: Bool
    /// The last dynamic type found not to declare injected properties (its `ObjectIdentifier`'s bits),
    /// or 0.
    private let lastUndeclared = Atomic<UInt>(0)
    /// The class the key declares, when it declares injected properties, and its requirements.
    private let declaring: (type: ObjectIdentifier, requirements: [InjectedProperty])?
    /// The requirements of each other declaring class this binding built an instance of (a subclass,
    /// or a class behind a protocol key), read once per class.
    private let requirements = Locked<[ObjectIdentifier: [InjectedProperty]]>([:])

    /// - Parameter declaring: The key's class and its requirements, when it declares injected
    ///   properties.
    init(
        key: BindingKey,
        injector: Injector,
        scope: Scope,
        declaring: (type: any PropertyInjectable.Type, requirements: [InjectedProperty])? = nil
    ) {
        self.key = key
        self.injector = injector
        // A singleton's or scoped instance's build pushed the key already (see InstanceCell.build); a
        // request for the key from one of its properties finds it there.
        self.tracksPath = scope.kind == .transient
        self.instancesAreObjects = TypeShape.isReference(key.type)
        self.declaring = declaring.map { (ObjectIdentifier($0.type), $0.requirements) }
    }

    /// Injects `value` when its dynamic class declares injected properties: the check of
    /// ``ConstructionInjection/dynamic``, after a quick look at the instance (see ``finish(_:_:_:)``).
    ///
    /// Not generic: the plans call it on their cold path (an instance that isn't exactly its key's
    /// class), and a generic call there would make every plan need its type's metadata, which is what
    /// keeps the optimizer from sharing one body between the plans of different types without a
    /// forwarding thunk.
    @usableFromInline
    func injectIfDeclared(_ value: Any, _ context: ResolutionContext) throws(ProvisionError) {
        guard let object = declaringObject(value) else { return }
        try inject(object, context)
    }

    /// `value` as an object whose class declares injected properties; `nil` when it is not one (and the
    /// last such type is remembered, so that the next instance of it is turned away without a cast).
    private func declaringObject(_ value: Any) -> (any PropertyInjectable)? {
        let dynamicType: any Any.Type = type(of: value)
        let id = UInt(bitPattern: ObjectIdentifier(dynamicType))
        if lastUndeclared.load(ordering: .relaxed) == id { return nil }
        guard let object = value as? any PropertyInjectable else {
            // An optional's type says nothing about whether its next value is an object that declares
            // properties; any other type's instances never do if this one doesn't.
            if dynamicType is AnyObject.Type || TypeShape.holdsOnlyItself(dynamicType) {
                lastUndeclared.store(id, ordering: .relaxed)
            }
            return nil
        }
        return object
    }

    /// Sets the properties of a freshly built `object` and calls its hook.
    ///
    /// The properties resolve on the path below this binding: a property that needs the binding again,
    /// directly or through other bindings, is a cycle (checked here for a transient binding; a
    /// singleton's or scoped instance's own build checks it), and each injection is a level of
    /// recursion whose stack is checked.
    func inject(_ object: any PropertyInjectable, _ context: ResolutionContext) throws(ProvisionError) {
        let inner = try context.enteringClosure(key, tracksPath: tracksPath)
        try StackGuard.check(key)
        do throws(ProvisionError) {
            try PropertyInjector.inject(
                object,
                requirements: requirements(of: type(of: object)),
                resolver: Resolver(injector: injector, context: inner),
                onlyIfNil: false
            )
        } catch {
            disposeUninjected(object)
            throw error.prepending(key)
        }
    }

    /// Disposes an instance of a singleton or scoped binding whose injection failed: its build fails, so
    /// no owner will ever dispose it, though its initializer ran (and may have opened what `dispose()`
    /// closes). A transient's instances are never the injector's to dispose; neither is an instance it
    /// holds elsewhere (a closure binding's handing on). (Found by hunt 18: it was dropped undisposed.)
    private func disposeUninjected(_ object: any PropertyInjectable) {
        guard !tracksPath, let disposal = InstanceRecorder.Disposal(of: object as Any) else { return }
        if let identity = InstanceIdentity.of(object), injector.holdsInChain(identity) { return }
        _ = Disposer.disposeOrphan(disposal, key: key, timeout: injector.configuration.lifecycleHookTimeout)
    }

    /// ``inject(_:_:)`` in an async request: the properties' bindings are resolved by the async path.
    func injectAsync(_ object: any PropertyInjectable, _ context: ResolutionContext) async throws(ProvisionError) {
        let inner = try context.enteringClosure(key, tracksPath: tracksPath)
        try StackGuard.check(key)
        do throws(ProvisionError) {
            try await PropertyInjector.injectAsync(
                object, requirements: requirements(of: type(of: object)), injector: injector, context: inner)
        } catch {
            disposeUninjected(object)
            throw error.prepending(key)
        }
    }

    /// ``injectIfDeclared(_:_:)`` in an async request.
    func injectIfDeclaredAsync(_ value: Any, _ context: ResolutionContext) async throws(ProvisionError) {
        guard let object = declaringObject(value) else { return }
        try await injectAsync(object, context)
    }

    /// The keys of the properties this binding's instances were given: those its key's class declares,
    /// and those of every other declaring class it built an instance of so far. Read by
    /// ``Injector/start()`` after building every singleton, to order services by what their
    /// construction really injected (see `StartOrder`).
    var injectedKeys: [BindingKey] {
        var keys = declaring?.requirements.map(\.key) ?? []
        for found in requirements.withLock({ Array($0.values) }) {
            keys += found.map(\.key)
        }
        return keys
    }

    /// The requirements of `type`, read once per class (the user's `injectedProperties` runs outside
    /// the lock; two threads seeing a class first may both read it, and store the same requirements).
    private func requirements(of type: any PropertyInjectable.Type) -> [InjectedProperty] {
        let id = ObjectIdentifier(type)
        if let declaring, declaring.type == id { return declaring.requirements }
        if let known = requirements.withLock({ $0[id] }) { return known }
        let read = PropertyInjector.requirements(of: type, in: injector)
        requirements.withLock { $0[id] = read }
        // The binding now depends on these keys too (see `Node.propertyDependencies`).
        if !read.isEmpty { ValidationSeal.noteLearnedDependencies() }
        return read
    }
}

extension PropertyInjection {
    /// Returns a value a constructor built, after injecting its properties if ``ConstructionInjection``
    /// says this instance may need it: the check every constructor plan runs on its value.
    ///
    /// Inlined into the plan, where `T` is concrete: for a class key an instance of exactly that class
    /// returns after one comparison (the plan's ``ConstructionInjection/declared`` wrapper injects it if
    /// the class declares properties), and for a key whose instances can't declare any, `injection` is
    /// `nil`.
    ///
    /// - Parameter key: The binding's key, whose `id` is `T`'s: the plan reads it from its step, where
    ///   it lies beside the plan's other fields.
    ///
    /// Names no metadata of `T` (whether `T` is a class is the injection's ``instancesAreObjects``):
    /// where the optimizer merged the plans of several types into one function, asking `T.self` anything
    /// was a call of `T`'s metadata accessor, through a pointer the merged function takes, on every
    /// build: an indirect call to another target at each level of a chain, which the processor mostly
    /// mispredicted.
    @inlinable @inline(__always)
    static func finish<T>(_ value: T, _ injection: PropertyInjection?, key: BindingKey, _ context: ResolutionContext)
        throws(ProvisionError) -> T
    {
        guard let injection else { return value }
        if MemoryLayout<T>.size == MemoryLayout<AnyObject>.size, injection.instancesAreObjects {
            // The instance's class, read from its first word: an instance of exactly the key's class
            // needs no check (the plan's `declared` wrapper injects one whose class declares properties).
            if TypeShape.classWord(of: value) == UInt(bitPattern: key.id) { return value }
            try injection.injectIfDeclared(unsafeBitCast(value, to: AnyObject.self), context)
            return value
        }
        try injection.injectIfDeclared(value, context)
        return value
    }
}

/// What a constructor binding's plan does about property injection, decided once when it is linked
/// (see ``PropertyInjection``).
@usableFromInline
struct ConstructionInjection {
    /// For a key whose type declares injected properties: the plan injects every instance it builds.
    @usableFromInline let declared: PropertyInjection?
    /// For a key whose instances may declare injected properties its type doesn't (a protocol, `Any`,
    /// an optional, a class): the plan checks each instance it builds.
    @usableFromInline let dynamic: PropertyInjection?
}

extension Node {
    /// Decides how this constructor binding's plan injects properties, and with a `linker`, links the
    /// bindings of the properties `T` declares (so that a cycle through them, or a missing binding, is
    /// found before anything is built). `T`'s requirements are read once per plan, here.
    @usableFromInline
    func constructionInjection(linker: Linker? = nil) throws(ProvisionError) -> ConstructionInjection {
        if let declaring = T.self as? any PropertyInjectable.Type {
            let requirements = PropertyInjector.requirements(of: declaring, in: injector)
            if let linker {
                for property in requirements {
                    try property.link(linker, injector)
                }
            }
            let injection = published(
                PropertyInjection(key: key, injector: injector, scope: scope, declaring: (declaring, requirements))
            )
            return ConstructionInjection(declared: injection, dynamic: nil)
        }
        if TypeShape.holdsOnlyItself(T.self) {
            return ConstructionInjection(declared: nil, dynamic: nil)
        }
        let injection = published(PropertyInjection(key: key, injector: injector, scope: scope))
        return ConstructionInjection(declared: nil, dynamic: injection)
    }

    /// The node's ``propertyInjection``: `candidate`, unless a link of the node (its other plan, or
    /// another thread's link) published one first. One object per node, so that it sees every instance
    /// the node's plans build.
    private func published(_ candidate: PropertyInjection) -> PropertyInjection {
        let retained = Unmanaged.passRetained(candidate)
        let (published, current) = AtomicReference.publishOnce(propertyInjection, retained)
        if !published { retained.release() }
        return current.takeUnretainedValue()
    }

    /// The plan of a constructor binding: property injection (see ``ConstructionInjection``), then the
    /// scope.
    ///
    /// A `programmable` recipe (one with an instruction form, see ``Program``) whose plan ends up being
    /// its construction alone — a transient binding, without declared injected properties or an
    /// observer — lets top-level requests build the node with a program.
    @inlinable
    func scopedConstruction(_ inner: Plan<T>, _ injection: ConstructionInjection, programmable: Bool = false)
        -> Plan<T>
    {
        guard let declared = injection.declared else {
            let plan = scoped(inner)
            if programmable, plan === inner { allowPrograms() }
            return plan
        }
        return scoped(injectingProperties(inner, declared))
    }

    /// Wraps a constructor plan so that its instances (of a `T` that declares injected properties) get
    /// their properties and hook before anyone sees them (before a singleton is published).
    @usableFromInline
    func injectingProperties(_ plan: Plan<T>, _ injection: PropertyInjection) -> Plan<T> {
        Plan { context throws(ProvisionError) in
            let value = try plan.make(context)
            if let object = value as? any PropertyInjectable {
                try injection.inject(object, context)
            }
            return value
        }
    }

    /// The async counterpart of ``scopedConstruction(_:_:)`` without the scope: the properties are
    /// resolved by the async path once the value was built (a property bound to an async factory is
    /// awaited).
    func injectingPropertiesAsync(_ plan: AsyncPlan<T>, _ injection: ConstructionInjection) -> AsyncPlan<T> {
        if let declared = injection.declared {
            return AsyncPlan { context throws(ProvisionError) in
                let value = try await plan.make(context)
                if let object = value as? any PropertyInjectable {
                    try await declared.injectAsync(object, context)
                }
                return value
            }
        }
        guard let dynamic = injection.dynamic else { return plan }
        let key = self.key
        return AsyncPlan { context throws(ProvisionError) in
            let value = try await plan.make(context)
            if TypeShape.isReference(T.self), TypeShape.classWord(of: value) == UInt(bitPattern: key.id) {
                return value
            }
            try await dynamic.injectIfDeclaredAsync(value, context)
            return value
        }
    }
}

/// What a type's values can be, from the kind of its run-time metadata (the Swift ABI's
/// `MetadataKind`, docs/ABI/TypeMetadata.rst in the Swift repository).
@usableFromInline
enum TypeShape {
    /// Whether every value of `type` is one strong reference to an object: a class, or `AnyObject`.
    /// Known at compile time where `T` is concrete.
    @inlinable @inline(__always)
    static func isReference<T>(_ type: T.Type) -> Bool {
        type is AnyObject.Type && MemoryLayout<T>.size == MemoryLayout<UnsafeRawPointer>.size
    }

    /// The address of the class metadata of the object `value` refers to (a Swift object's first
    /// word), for a `T` that ``isReference(_:)``: `ObjectIdentifier(type(of: value))`'s bits, read
    /// without `T`'s metadata.
    @inlinable @inline(__always)
    static func classWord<T>(of value: T) -> UInt {
        unsafeBitCast(value, to: UnsafeRawPointer.self).load(as: UInt.self)
    }

    /// Whether every value of `type` has exactly that type and is not an object: a struct, an enum
    /// other than `Optional`, a tuple, a function or a metatype. Such a value never declares injected
    /// properties. Classes, protocols and `Any` (existentials), optionals and every other kind answer
    /// `false`.
    static func holdsOnlyItself(_ type: any Any.Type) -> Bool {
        if type is AnyObject.Type { return false }
        let kind = unsafeBitCast(type, to: UnsafeRawPointer.self).load(as: UInt.self)
        switch kind {
        case 0x200, // struct
            0x201, // enum
            0x301, // tuple
            0x302, // function
            0x304, // metatype
            0x306: // existential metatype
            return true
        default:
            return false
        }
    }
}
