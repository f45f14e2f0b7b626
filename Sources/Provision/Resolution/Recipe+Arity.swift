// Fixed-arity constructor recipes. The parameter-pack recipe (`Recipe.constructor`) handles any
// arity, but the optimizer does not fully specialize a pack expansion inside a stored closure: on a
// chain of ten single-dependency services it cost about 250 instructions per node more than these
// (measured with callgrind). Constructors with up to four parameters — almost all of them — use these.
// Each plan captures one ``ConstructorStep0``…``ConstructorStep4`` object rather than its key, plans and
// initializer one by one (see `ConstructorStep.swift` for why).

extension Recipe {
    /// Calls a user factory, reporting what it throws as `factoryFailed` for `key`.
    @inlinable
    static func invoke(_ key: BindingKey, _ body: () throws -> T) throws(ProvisionError) -> T {
        do {
            return try body()
        } catch {
            throw ProvisionError.thrown(by: key, error)
        }
    }

    @inlinable
    static func constructor(_ f: @escaping @Sendable () throws -> T) -> Recipe {
        var recipe = Recipe(
            dependencies: .known([]),
            link: { linker, node throws(ProvisionError) in
                let injection = try node.constructionInjection(linker: linker)
                let step = ConstructorStep0(key: node.key, f: f, injection: injection.dynamic)
                let construction = Plan { [step] context throws(ProvisionError) in
                    try PropertyInjection.finish(
                        try invoke(step.key) { try step.f() }, step.injection, key: step.key, context)
                }
                let plan = node.scopedConstruction(construction, injection)
                // Nothing wrapped the construction (a transient, without property injection or an
                // observer): a request may call the initializer directly.
                if plan === construction { node.enableDirectConstruction(injection.dynamic) }
                return plan
            },
            instance: nil
        )
        recipe.directFactory = f
        return recipe
    }

    @inlinable
    static func constructor<A>(_ f: @escaping @Sendable (consuming A) throws -> T) -> Recipe {
        Recipe(
            dependencies: .known([BindingKey(A.self)]),
            link: { linker, node throws(ProvisionError) in
                let injection = try node.constructionInjection(linker: linker)
                let step = ConstructorStep1(
                    key: node.key,
                    a: try linker.plan(for: A.self, below: node),
                    f: f,
                    injection: injection.dynamic
                )
                return node.scopedConstruction(
                    Plan { [step] context throws(ProvisionError) in
                        let va = try step.a.make(context, for: step.key)
                        let value: T
                        do {
                            value = try step.f(consume va)
                        } catch {
                            throw ProvisionError.thrown(by: step.key, error)
                        }
                        return try PropertyInjection.finish(value, step.injection, key: step.key, context)
                    },
                    injection
                )
            },
            instance: nil
        )
    }

    @inlinable
    static func constructor<A, B>(_ f: @escaping @Sendable (consuming A, consuming B) throws -> T) -> Recipe {
        Recipe(
            dependencies: .known([BindingKey(A.self), BindingKey(B.self)]),
            link: { linker, node throws(ProvisionError) in
                let injection = try node.constructionInjection(linker: linker)
                let step = ConstructorStep2(
                    key: node.key,
                    a: try linker.plan(for: A.self, below: node),
                    b: try linker.plan(for: B.self, below: node),
                    f: f,
                    injection: injection.dynamic
                )
                return node.scopedConstruction(
                    Plan { [step] context throws(ProvisionError) in
                        let va = try step.a.make(context, for: step.key)
                        let vb = try step.b.make(context, for: step.key)
                        let value: T
                        do {
                            value = try step.f(consume va, consume vb)
                        } catch {
                            throw ProvisionError.thrown(by: step.key, error)
                        }
                        return try PropertyInjection.finish(value, step.injection, key: step.key, context)
                    },
                    injection
                )
            },
            instance: nil
        )
    }

    @inlinable
    static func constructor<A, B, C>(_ f: @escaping @Sendable (consuming A, consuming B, consuming C) throws -> T)
        -> Recipe
    {
        Recipe(
            dependencies: .known([BindingKey(A.self), BindingKey(B.self), BindingKey(C.self)]),
            link: { linker, node throws(ProvisionError) in
                let injection = try node.constructionInjection(linker: linker)
                let step = ConstructorStep3(
                    key: node.key,
                    a: try linker.plan(for: A.self, below: node),
                    b: try linker.plan(for: B.self, below: node),
                    c: try linker.plan(for: C.self, below: node),
                    f: f,
                    injection: injection.dynamic
                )
                return node.scopedConstruction(
                    Plan { [step] context throws(ProvisionError) in
                        let va = try step.a.make(context, for: step.key)
                        let vb = try step.b.make(context, for: step.key)
                        let vc = try step.c.make(context, for: step.key)
                        let value: T
                        do {
                            value = try step.f(consume va, consume vb, consume vc)
                        } catch {
                            throw ProvisionError.thrown(by: step.key, error)
                        }
                        return try PropertyInjection.finish(value, step.injection, key: step.key, context)
                    },
                    injection
                )
            },
            instance: nil
        )
    }

    @inlinable
    static func constructor<A, B, C, D>(
        _ f: @escaping @Sendable (consuming A, consuming B, consuming C, consuming D) throws -> T
    ) -> Recipe {
        Recipe(
            dependencies: .known([BindingKey(A.self), BindingKey(B.self), BindingKey(C.self), BindingKey(D.self)]),
            link: { linker, node throws(ProvisionError) in
                let injection = try node.constructionInjection(linker: linker)
                let step = ConstructorStep4(
                    key: node.key,
                    a: try linker.plan(for: A.self, below: node),
                    b: try linker.plan(for: B.self, below: node),
                    c: try linker.plan(for: C.self, below: node),
                    d: try linker.plan(for: D.self, below: node),
                    f: f,
                    injection: injection.dynamic
                )
                return node.scopedConstruction(
                    Plan { [step] context throws(ProvisionError) in
                        let va = try step.a.make(context, for: step.key)
                        let vb = try step.b.make(context, for: step.key)
                        let vc = try step.c.make(context, for: step.key)
                        let vd = try step.d.make(context, for: step.key)
                        let value: T
                        do {
                            value = try step.f(consume va, consume vb, consume vc, consume vd)
                        } catch {
                            throw ProvisionError.thrown(by: step.key, error)
                        }
                        return try PropertyInjection.finish(value, step.injection, key: step.key, context)
                    },
                    injection
                )
            },
            instance: nil
        )
    }
}
