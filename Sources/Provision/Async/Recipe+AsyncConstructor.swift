extension Recipe {
    /// A constructor binding whose function is `async`: `to(Pool.init(config:))` for an
    /// `init(config:) async throws`.
    ///
    /// Like a constructor binding, its parameter types are its declared dependencies: the synchronous pass
    /// links them, so a missing binding or a cycle below it is found by the first request (or by
    /// validation), and the graph and reports show its edges. Like an async closure binding, only the
    /// async path builds it: its synchronous plan throws `requiresAsync`, and the linker gives a singleton
    /// or scoped one a plan that serves the instance once the async path built it.
    @inlinable
    static func asyncConstructor<each D>(_ f: @escaping @Sendable (repeat consuming each D) async throws -> T)
        -> Recipe
    {
        var keys: [BindingKey] = []
        for type in repeat (each D).self {
            keys.append(BindingKey(type))
        }
        var recipe = Recipe(
            dependencies: .known(keys),
            link: { pass, node throws(ProvisionError) in
                switch pass {
                case .sync(let linker):
                    return try linkingAsyncConstructor(of: (repeat (each D).self), linker, node)
                case .async(let linker):
                    return try constructingAwaiting(f, linker, node)
                case .program:
                    return .noForm
                }
            },
            instance: nil
        )
        recipe.isAsync = true
        return recipe
    }

    /// The synchronous pass of an async constructor binding: links its dependencies and the properties
    /// it injects (finding what is missing and any cycle), and answers with a plan that throws
    /// `requiresAsync`, since no synchronous request can build it.
    @usableFromInline
    static func linkingAsyncConstructor<each D>(
        of types: (repeat (each D).Type),
        _ linker: Linker,
        _ node: Node<T>
    ) throws(ProvisionError) -> LinkedPlan<T> {
        _ = try node.constructionInjection(linker: linker)
        for type in repeat each types {
            _ = try linker.plan(for: type, below: node)
        }
        let key = node.key
        return .sync(
            Plan { _ throws(ProvisionError) in
                throw ProvisionError.requiresAsync(key, dependency: key, path: [key])
            }
        )
    }

    /// The async plan of an async constructor binding: each dependency through its async plan, in the
    /// order of the parameters, then `f`, awaited; then the properties it injects. Not inlinable, like
    /// ``constructingAsynchronously(_:_:_:)``: the async path is the rare one.
    @usableFromInline
    static func constructingAwaiting<each D>(
        _ f: @escaping @Sendable (repeat consuming each D) async throws -> T,
        _ linker: AsyncLinker,
        _ node: Node<T>
    ) throws(ProvisionError) -> LinkedPlan<T> {
        let key = node.key
        let plans = (repeat try linker.plan(for: (each D).self, below: node))
        // The synchronous linker linked the node first, and the properties' bindings with it.
        let injection = try node.constructionInjection()
        return .async(
            node.scopedAsync(
                node.injectingPropertiesAsync(
                    AsyncPlan { context throws(ProvisionError) in
                        let values = (repeat try await (each plans).make(context, for: key))
                        // The function may resolve synchronous plans on this thread's stack.
                        try StackGuard.check(key)
                        do {
                            return try await f(repeat each values)
                        } catch {
                            throw ProvisionError.thrown(by: key, consume error)
                        }
                    },
                    injection
                )
            )
        )
    }
}
