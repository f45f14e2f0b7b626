extension Recipe {
    /// A binding with resolve-time arguments. Resolved without arguments (or as a dependency), it uses
    /// the declared defaults.
    static func arguments<each Argument>(_ factory: ArgumentFactory<T, repeat each Argument>) -> Recipe {
        let signature = ArgumentFactory<T, repeat each Argument>.signature
        var recipe = Recipe(
            dependencies: factory.dependencies.map(Dependencies.declared) ?? .dynamic,
            link: { pass, node in
                guard case .sync = pass else { return .noForm }
                let key = node.key
                let injector = node.injector
                // As for a closure binding: a singleton's build pushed the key already.
                let tracksPath = node.scope.kind == .transient
                guard let defaults = factory.defaults else {
                    // Never built from this binding without arguments: a request without any, and a
                    // dependency, take the first binding of the key that declares defaults (an argument
                    // list installed after this one, see `ArgumentVariants`), resolved as itself (in its
                    // own cell, for a singleton), or fail. Asked at each request, not when linked: an
                    // install may add one later.
                    return .sync(
                        Plan { [unowned injector] context throws(ProvisionError) in
                            // A factory requesting its own key without arguments is a cycle, as it is for
                            // a binding with defaults. The key isn't pushed: the binding taking the request
                            // may be an ancestor's binding of the same key, which pushes it. (Found by hunt
                            // 25B: a child's hand-off to its parent's binding was taken for a cycle.)
                            if context.contains(key) { throw ProvisionError.cycle(key, path: [key]) }
                            guard let defaulted = injector.defaultedArgumentBinding(of: key, as: T.self) else {
                                throw ProvisionError.argumentMismatch(
                                    key,
                                    expected: signature,
                                    given: "()",
                                    reason: "it was requested without arguments and declares no defaults"
                                )
                            }
                            return try defaulted.resolve(context)
                        })
                }
                #if DEBUG
                    // Debug builds check the factory's requests against its declaration, if any.
                    let declaration = node.dependencyDeclaration
                #endif
                // Unowned: the injector owns this plan (through its node); a strong capture would be a cycle.
                let plan = node.scoped(
                    Plan { [unowned injector] context throws(ProvisionError) in
                        // The factory resolves through its resolver, like a closure binding: check
                        // that it isn't re-entering itself and that the stack holds another level.
                        let inner = try context.enteringClosure(key, tracksPath: tracksPath)
                        try StackGuard.check(key)
                        let values = defaults()
                        #if DEBUG
                            let resolver = Resolver(injector: injector, context: inner, declaration: declaration)
                        #else
                            let resolver = Resolver(injector: injector, context: inner)
                        #endif
                        return try Recipe.build(key, factory, resolver, repeat each values)
                    }
                )
                return .sync(plan)
            },
            instance: nil
        )
        recipe.options = RecipeOptions(
            arguments: ArgumentInfo(factory: factory, signature: signature, hasDefaults: factory.defaults != nil)
        )
        return recipe
    }

    /// Runs an argument factory, reporting failures like every other factory. Inlinable, like
    /// ``ArgumentFactory/call(_:_:)``.
    @inlinable
    static func build<each Argument>(
        _ key: BindingKey,
        _ factory: ArgumentFactory<T, repeat each Argument>,
        _ resolver: Resolver,
        _ arguments: repeat each Argument
    ) throws(ProvisionError) -> T {
        do {
            return try factory.call(resolver, repeat each arguments)
        } catch let error as ProvisionError {
            throw error.prepending(key)
        } catch {
            throw ProvisionError.factoryFailed(key, cause: error)
        }
    }
}
