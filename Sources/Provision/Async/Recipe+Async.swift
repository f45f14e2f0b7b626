import Synchronization

extension Recipe {
    /// An async closure binding: the closure awaits what it needs through the ``Resolver`` it is given.
    ///
    /// Its synchronous plan can't build a value: a transient one throws `requiresAsync`, and the linker
    /// gives a singleton or scoped one a plan that serves the instance once the async path built it.
    @inlinable
    static func asyncClosure(_ body: @escaping @Sendable (Resolver) async throws -> T) -> Recipe {
        var recipe = Recipe(
            dependencies: .dynamic,
            link: { pass, node throws(ProvisionError) in
                guard case .sync = pass else {
                    guard case .async = pass else { return .noForm }
                    return closingAsynchronously(body, node)
                }
                let key = node.key
                return .sync(
                    Plan { _ throws(ProvisionError) in
                        throw ProvisionError.requiresAsync(key, dependency: key, path: [key])
                    }
                )
            },
            instance: nil
        )
        recipe.isAsync = true
        return recipe
    }

    /// The async plan of an async closure binding (the async pass of its link): the closure runs with a
    /// ``Resolver`` for the binding's path, and a request for the binding's singleton or scoped instance
    /// suspends while another request builds it. Not inlinable, like
    /// ``constructingAsynchronously(_:_:_:)``.
    @usableFromInline
    static func closingAsynchronously(_ body: @escaping @Sendable (Resolver) async throws -> T, _ node: Node<T>)
        -> LinkedPlan<T>
    {
        let key = node.key
        let injector = node.injector
        // A singleton's or scoped instance's build pushes its key itself (see InstanceCell.buildAsync).
        let tracksPath = node.scope.kind == .transient
        #if DEBUG
            // Debug builds check the closure's requests against its declaration, if any.
            let declaration = node.dependencyDeclaration
        #endif
        // Unowned: the injector owns this plan (through its node); a strong capture would be a cycle.
        return .async(
            node.scopedAsync(
                AsyncPlan { [unowned injector] context throws(ProvisionError) in
                    let inner = try context.enteringClosure(key, tracksPath: tracksPath)
                    // The closure may resolve synchronous plans on this thread's stack.
                    try StackGuard.check(key)
                    #if DEBUG
                        let resolver = Resolver(injector: injector, context: inner, declaration: declaration)
                    #else
                        let resolver = Resolver(injector: injector, context: inner)
                    #endif
                    do {
                        return try await body(resolver)
                    } catch {
                        throw ProvisionError.thrown(by: key, consume error)
                    }
                }
            )
        )
    }

    /// The async plan of a constructor binding (the async pass of its link, when a dependency it builds
    /// has an async factory): the dependencies through their async plans, then `f`. Not
    /// inlinable on purpose: the async path is the rare one, and specializing it at every binding would
    /// double the code each `to(...)` generates.
    @usableFromInline
    static func constructingAsynchronously<each D>(
        _ f: @escaping @Sendable (repeat consuming each D) throws -> T,
        _ pass: LinkPass,
        _ node: Node<T>
    ) throws(ProvisionError) -> LinkedPlan<T> {
        guard case .async(let linker) = pass else { return .noForm }
        let key = node.key
        let plans = (repeat try linker.plan(for: (each D).self, below: node))
        guard node.traits.contains(.needsAsync) else {
            // Built synchronously once the singletons below are (see AsyncLinker).
            var settles: [AsyncSettle] = []
            for plan in repeat each plans { settles.append(plan.settle) }
            return node.settlingAsync(settles)
        }
        // The synchronous linker linked the node first, and the properties' bindings with it.
        let injection = try node.constructionInjection()
        return .async(
            node.scopedAsync(
                node.injectingPropertiesAsync(
                    AsyncPlan { context throws(ProvisionError) in
                        let values = (repeat try await (each plans).make(context, for: key))
                        return try Recipe.invoke(key) { try f(repeat each values) }
                    },
                    injection
                )
            )
        )
    }
}

extension Recipe {
    /// The async pass of a multibinding collection: each element through its own async plan.
    static func collectingAsynchronously<Element>(
        _ elements: [BindingKey],
        of type: Element.Type,
        _ linker: AsyncLinker,
        _ node: Node<T>
    ) throws(ProvisionError) -> LinkedPlan<T> where T == [Element] {
        let key = node.key
        var plans: [AsyncPlan<Element>] = []
        for element in elements {
            plans.append(try linker.plan(for: element, as: Element.self, below: node))
        }
        guard node.traits.contains(.needsAsync) else { return node.settlingAsync(plans.map(\.settle)) }
        let linked = plans
        return .async(
            node.scopedAsync(
                AsyncPlan { context throws(ProvisionError) in
                    var values: [Element] = []
                    values.reserveCapacity(linked.count)
                    for plan in linked {
                        values.append(try await plan.make(context, for: key))
                    }
                    return values
                }
            ))
    }

    /// The async pass of a delegating binding: the target through its async plan, then the conversion.
    static func delegatingAsynchronously<Target>(
        to target: BindingKey,
        as type: Target.Type,
        _ linker: AsyncLinker,
        _ node: Node<T>
    ) throws(ProvisionError) -> LinkedPlan<T> {
        let key = node.key
        let plan = try linker.plan(for: target, as: type, below: node)
        markSharing(node, target: target, as: type)
        guard node.traits.contains(.needsAsync) else { return node.settlingAsync([plan.settle]) }
        return .async(
            node.scopedAsync(
                AsyncPlan { context throws(ProvisionError) in
                    try converted(try await plan.make(context, for: key), key: key)
                }
            )
        )
    }
}
