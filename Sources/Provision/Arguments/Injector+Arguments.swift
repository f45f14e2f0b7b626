extension Injector {
    /// Returns an instance of `type` built from the given arguments.
    ///
    /// ```swift
    /// let car = try injector.get(ConfigurableCar.self, arguments: "VW", "Passat")
    /// ```
    ///
    /// The binding must be declared with ``BindingBuilder/withArguments(_:)`` and matching argument
    /// types (or types the arguments convert to: a value where an optional is declared, a subclass, a
    /// conforming value), or delegate with ``BindingBuilder/to(binding:named:)`` to such a binding, which
    /// then receives the arguments. A type bound with several argument lists is built by the binding of
    /// the arguments' types (see ``ArgumentBindingBuilder``). For a singleton that is already built, the
    /// arguments' values are ignored, not their types: a binding that takes no arguments, or others, is
    /// an ``ProvisionError/Code/argumentMismatch`` before and after its instance is built. A scoped
    /// delegation can't be requested with arguments (``ProvisionError/Code/invalidLifecycle``): one
    /// instance per scope would ignore every request's arguments but the first.
    ///
    /// - Parameters:
    ///   - type: The type to resolve.
    ///   - name: The binding's name; `nil` (the default) for the unnamed binding.
    ///   - arguments: The arguments, in the declared order.
    /// - Throws: ``ProvisionError`` with ``ProvisionError/Code/argumentMismatch`` (wrong count or
    ///   types, or a binding without arguments; the message lists the argument lists the type is bound
    ///   with), or any error resolving the type throws.
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
                guard node.cell == nil, !Injector.checksDeclaration(of: node), let options = node.options,
                    options.argumentFactoryBits != 0
                else {
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

    /// ``get(_:named:arguments:)`` for every request: through parent injectors and just-in-time
    /// bindings, singletons, delegations, the variants of a key bound with several argument lists,
    /// arguments converted to the declared types, and the errors of mismatched arguments.
    @usableFromInline
    func resolve<T, each Argument>(
        _ key: BindingKey,
        as type: T.Type,
        arguments: repeat each Argument
    ) throws(ProvisionError) -> T {
        try resolve(key, as: type, in: nil, arguments: repeat each arguments)
    }

    /// ``resolve(_:as:arguments:)`` for a request made in `request`'s scope (a handle created in a
    /// ``ServiceScope``), or outside any scope when it is `nil`.
    func resolve<T, each Argument>(
        _ key: BindingKey,
        as type: T.Type,
        in scope: ServiceScope?,
        arguments: repeat each Argument
    ) throws(ProvisionError) -> T {
        typealias Factory = ArgumentFactory<T, repeat each Argument>
        let node = try argumentNode(key, as: type, Factory.self)
        // A built instance answers a request that gives no arguments, or the arguments its binding takes
        // (a singleton with arguments); other arguments are checked below, and a binding that takes
        // none, or others, is an `argumentMismatch` whether or not its instance is built. (Found by hunt
        // 20A: a built singleton and an instance binding answered any arguments.)
        if let value = node.cell?.value, Factory.arity == 0 || Injector.takes(node, Factory.self) { return value }
        // A request with arguments recurses through forwarding and its factory's resolver, not through
        // linked plans: check the stack at each level.
        try StackGuard.check(key)
        guard let options = node.options, let info = options.arguments else {
            if let forwarding = node.options?.forwarding {
                // Linking the delegation checks its chain of targets for a cycle (which forwarding the
                // arguments from one target to the next would otherwise follow forever).
                if !node.isLinked { _ = try Linker().link(node) }
                if Factory.arity > 0 {
                    // One instance per scope would ignore every request's arguments but the first.
                    if node.scope.isScoped { throw ProvisionError.scopedDelegationWithArguments(key) }
                    // A built singleton answers without forwarding: its target still checks the
                    // arguments' types, as it does before the build. (Found by hunt 21A.)
                    if node.cell?.value != nil,
                        let failure = forwarding.argumentFailure(in: node.injector, arguments: repeat each arguments)
                    {
                        throw failure.prepending(key)
                    }
                }
                let call = ForwardingCall<T, repeat each Argument>(
                    key: key,
                    injector: node.injector,
                    forwarding: forwarding,
                    arguments: repeat each arguments
                )
                guard let cell = node.cell else { return try call.run() }
                return try cell.build(.root, reportsWaits: false) { _ throws(ProvisionError) in try call.run() }
            }
            // No arguments given to a binding that takes none: an ordinary request.
            if Factory.arity == 0 { return try node.resolve(ResolutionContext(frame: nil, scope: scope)) }
            return try converting(key, as: type, in: scope, Factory.self, arguments: repeat each arguments)
        }
        // An identity comparison of the factory's class instead of a dynamic cast (`as?` on a generic
        // class with a pack goes through the runtime's conformance and cast machinery, ~1 µs).
        guard Swift.type(of: info.factory) == Factory.self else {
            return try converting(key, as: type, in: scope, Factory.self, arguments: repeat each arguments)
        }
        return try build(
            node, unsafeDowncast(info.factory, to: Factory.self), options, in: scope, repeat each arguments)
    }

    /// Whether requests for `node` check its factory's declared dependencies (debug builds, a factory
    /// that declared them): they take the general path, which gives the factory a checking resolver.
    @inlinable @inline(__always)
    static func checksDeclaration<T>(of node: Node<T>) -> Bool {
        #if DEBUG
            if case .declared = node.dependencies { return true }
        #endif
        return false
    }

    /// Whether `node`'s binding takes exactly the arguments of `factory`.
    private static func takes<T, Factory>(_ node: Node<T>, _ factory: Factory.Type) -> Bool {
        guard let info = node.options?.arguments else { return false }
        return ObjectIdentifier(Swift.type(of: info.factory)) == ObjectIdentifier(factory)
    }

    /// Builds `node`'s value (a binding with arguments, whose factory is `factory`) from `arguments`: a
    /// new instance of a transient binding, or a singleton's, built once.
    func build<T, each Argument>(
        _ node: Node<T>,
        _ factory: ArgumentFactory<T, repeat each Argument>,
        _ options: RecipeOptions,
        in scope: ServiceScope?,
        _ arguments: repeat each Argument
    ) throws(ProvisionError) -> T {
        let key = node.key
        guard let cell = node.cell else {
            let root = ResolutionContext(frame: options.rootFrame(for: key), scope: scope)
            return try Recipe.build(key, factory, resolver(for: node, in: root), repeat each arguments)
        }
        // The gate runs the closure on this thread, before `build` returns. The call is prepared outside
        // the closure: Swift 6.3's compiler crashes on pack operations inside a closure here.
        let call = ArgumentCall(key: key, factory: factory, arguments: repeat each arguments)
        return try cell.build(.root, reportsWaits: false) { context throws(ProvisionError) in
            try call.run(self.resolver(for: node, in: context))
        }
    }

    /// The resolver of a factory of `node` running in `context`: in `node`'s own injector, which may be
    /// an ancestor of this one (a binding of a parent resolves its dependencies in the parent, whoever
    /// asks: found by hunt 24B, a child's request built its parent's binding from the child's bindings,
    /// and a singleton so built was the parent's for good); in a debug build, one that checks its requests
    /// against the dependencies the factory declared (see ``DependencyDeclaration``).
    func resolver<T>(for node: Node<T>, in context: ResolutionContext) -> Resolver {
        #if DEBUG
            Resolver(injector: node.injector, context: context, declaration: node.dependencyDeclaration)
        #else
            Resolver(injector: node.injector, context: context)
        #endif
    }

    /// A request whose arguments are not exactly those of any binding of `key`: built by the one binding
    /// whose declared types they convert to, as they would at a call (a value where an optional is
    /// declared, an instance of a subclass, a value of a type where a protocol is declared).
    ///
    /// - Throws: `argumentMismatch` listing every argument list `key` is bound with, when none or several
    ///   of them take the arguments.
    private func converting<T, each Argument>(
        _ key: BindingKey,
        as type: T.Type,
        in scope: ServiceScope?,
        _ factory: ArgumentFactory<T, repeat each Argument>.Type,
        arguments: repeat each Argument
    ) throws(ProvisionError) -> T {
        let values = ArgumentValues(repeat each arguments)
        let matches = convertingMatches(of: key, as: type, values)
        guard matches.count == 1, let (node, candidate) = matches.first else {
            throw mismatch(key, factory, matchCount: matches.count)
        }
        if let value = node.cell?.value { return value }
        guard let built = try candidate.build(converting: values, node: node, in: scope) as? T else {
            throw ProvisionError.typeMismatch(key, value: "another type", at: nil)
        }
        return built
    }

    /// The bindings of `key` with arguments whose declared list `values` convert to.
    private func convertingMatches<T>(of key: BindingKey, as type: T.Type, _ values: ArgumentValues)
        -> [(node: Node<T>, factory: any ConvertingArgumentFactory)]
    {
        var matches: [(node: Node<T>, factory: any ConvertingArgumentFactory)] = []
        for node in argumentBindings(of: key, as: type) {
            if let candidate = node.options?.arguments?.factory as? any ConvertingArgumentFactory,
                candidate.accepts(values)
            {
                matches.append((node, candidate))
            }
        }
        return matches
    }

    /// The `argumentMismatch` of a request for `key` with `factory`'s argument types, which convert to
    /// `matchCount` of the key's declared lists (not exactly one).
    private func mismatch<T, each Argument>(
        _ key: BindingKey,
        _ factory: ArgumentFactory<T, repeat each Argument>.Type,
        matchCount: Int
    ) -> ProvisionError {
        let lists = ArgumentVariants.signatures(of: key, in: self)
        let reason: String
        if lists == ["()"] {
            reason = "its binding takes no arguments"
        } else if matchCount == 0 {
            reason =
                (lists.count == 1
                    ? "the arguments don't match the declared ones, nor convert to them"
                    : "the arguments are none of the declared lists, nor convert to one")
                + Self.literalNote(given: factory.signature)
        } else {
            reason = "the arguments convert to \(matchCount) of the declared lists; pass them as one list's types"
        }
        return ProvisionError.argumentMismatch(
            key, expected: Injector.alternatives(lists), given: factory.signature, reason: reason)
    }

    /// What a mismatch says when the given types include a literal's default type: the request's
    /// arguments have no declared types to give a literal, so `7` is an `Int` even where `Double` is
    /// declared. (Found by hunt 27B.)
    static func literalNote(given signature: String) -> String {
        let words = signature.split { !($0.isLetter || $0.isNumber || $0 == "_" || $0 == ".") }
        let literalTypes: Set<Substring> = ["Int", "Double", "String", "Bool"]
        guard words.contains(where: literalTypes.contains) else { return "" }
        return " (a literal argument takes its default type, as in `let x = 7`: 7 is an Int, 7.5 a Double, "
            + "\"a\" a String; write 7 as Double, or 7.0, where another type is declared)"
    }

    /// The binding a request for `key` with `factory`'s argument types goes to: the key's primary
    /// binding, or the variant of the key that takes them (see ArgumentVariants).
    private func argumentNode<T, each Argument>(
        _ key: BindingKey,
        as type: T.Type,
        _ factory: ArgumentFactory<T, repeat each Argument>.Type
    ) throws(ProvisionError) -> Node<T> {
        guard let primary = lookup(key, as: type) else {
            throw missing(key, path: [key])
        }
        if !Injector.takes(primary, factory),
            let variant = lookup(ArgumentVariants.key(key, requestedWith: factory) { factory.signature }, as: type)
        {
            return variant
        }
        return primary
    }

    /// What a request for `type` named `name` with these arguments would fail with because of the
    /// arguments (`argumentMismatch`, or what finding its binding throws), without building anything;
    /// `nil` when the binding takes them. For a built singleton that delegates: its cell answers without
    /// forwarding, so the target is asked here.
    func argumentFailure<T, each Argument>(
        _ type: T.Type,
        named name: String?,
        arguments: repeat each Argument
    ) -> ProvisionError? {
        typealias Factory = ArgumentFactory<T, repeat each Argument>
        let key = BindingKey(type, named: name)
        let node: Node<T>
        do {
            node = try argumentNode(key, as: type, Factory.self)
        } catch {
            return error
        }
        if Factory.arity == 0 || Injector.takes(node, Factory.self) { return nil }
        if node.options?.arguments == nil, let forwarding = node.options?.forwarding {
            return forwarding.argumentFailure(in: node.injector, arguments: repeat each arguments)?.prepending(key)
        }
        let matches = convertingMatches(of: key, as: type, ArgumentValues(repeat each arguments))
        return matches.count == 1 ? nil : mismatch(key, Factory.self, matchCount: matches.count)
    }

    /// `a`, `a or b`, `a, b or c`.
    private static func alternatives(_ items: [String]) -> String {
        guard let last = items.last, items.count > 1 else { return items.first ?? "()" }
        return items.dropLast().joined(separator: ", ") + " or " + last
    }

    /// The binding of `key` a request without arguments takes when its primary binding takes arguments
    /// and declares no defaults: the first one declared with defaults, as this injector finds the key's
    /// bindings (see `ArgumentVariants`); `nil` when none declares defaults.
    func defaultedArgumentBinding<T>(of key: BindingKey, as type: T.Type) -> Node<T>? {
        argumentBindings(of: key, as: type)
            .filter { $0.options?.arguments?.hasDefaults == true }
            .min { $0.declarationIndex < $1.declarationIndex }
    }

    /// The nodes of `key`'s bindings with arguments: its primary binding, if it takes arguments, and each
    /// variant (see ArgumentVariants), as this injector finds them.
    private func argumentBindings<T>(of key: BindingKey, as type: T.Type) -> [Node<T>] {
        var nodes: [Node<T>] = []
        if let primary = lookup(key, as: type), primary.options?.arguments != nil { nodes.append(primary) }
        var current: Injector? = self
        var seen: Set<BindingKey> = []
        while let owner = current {
            for node in owner.registry.nodes where node.key.id == key.id {
                if node.key == key {
                    // An ancestor's first argument list, stored under the plain key, which a descendant's
                    // binding of the key hides from lookups. (Found by hunt 15: a child reached its
                    // parent's second list but not its first.)
                    if owner !== self, let ancestral = node as? Node<T>, ancestral.options?.arguments != nil,
                        !nodes.contains(where: { $0 === ancestral })
                    {
                        nodes.append(ancestral)
                    }
                    continue
                }
                guard seen.insert(node.key).inserted else { continue }
                if let (_, name) = ArgumentVariants.parts(of: node.key), name == key.name,
                    let variant = lookup(node.key, as: type)
                {
                    nodes.append(variant)
                }
            }
            current = owner.parent
        }
        return nodes
    }
}

/// An ``ArgumentFactory`` seen without its types: for a request whose arguments must be converted.
protocol ConvertingArgumentFactory: AnyObject, Sendable {
    /// Whether `values` convert to the declared argument types, in order, as a call's would.
    func accepts(_ values: ArgumentValues) -> Bool

    /// Builds `node`'s value (a `Node<T>` of this factory) from `values`, converted.
    func build(converting values: ArgumentValues, node: any AnyNode, in scope: ServiceScope?)
        throws(ProvisionError) -> Any
}

extension ArgumentFactory: ConvertingArgumentFactory {
    func accepts(_ values: ArgumentValues) -> Bool {
        converted(values) != nil
    }

    func build(converting values: ArgumentValues, node: any AnyNode, in scope: ServiceScope?)
        throws(ProvisionError) -> Any
    {
        guard let node = node as? Node<T>, let arguments = converted(values), let options = node.options else {
            throw ProvisionError.typeMismatch(node.key, value: "another binding", at: nil)
        }
        return try node.injector.build(node, self, options, in: scope, repeat each arguments)
    }

    /// `values` converted to the declared argument types, or `nil` when one of them doesn't convert as a
    /// call's argument would (see ``ArgumentConversion``), or their count differs.
    func converted(_ values: ArgumentValues) -> (repeat each Argument)? {
        guard values.count == Self.arity else { return nil }
        var index = 0
        func next<A>(_ type: A.Type) throws(ConversionFailure) -> A {
            defer { index += 1 }
            guard ArgumentConversion.converts(values.types[index], to: A.self), let value = values.values[index] as? A
            else {
                throw ConversionFailure()
            }
            return value
        }
        do throws(ConversionFailure) {
            return (repeat try next((each Argument).self))
        } catch {
            return nil
        }
    }
}

/// An argument that doesn't convert to its declared type.
private struct ConversionFailure: Error {}
