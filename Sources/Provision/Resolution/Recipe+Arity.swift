// Fixed-arity constructor recipes. The parameter-pack recipe (`Recipe.constructor`) handles any
// arity, but the optimizer does not fully specialize a pack expansion inside a stored closure: on a
// chain of ten single-dependency services it cost about 250 instructions per node more than these
// (measured with callgrind). Constructors with up to four parameters — almost all of them — use these.

extension Recipe {
    /// Calls a user factory, reporting what it throws as `factoryFailed` for `key`.
    @inlinable
    static func invoke(_ key: BindingKey, _ body: () throws -> T) throws(ProvisionError) -> T {
        do {
            return try body()
        } catch {
            throw ProvisionError.factoryFailed(key, cause: error)
        }
    }

    @inlinable
    static func constructor(_ f: @escaping @Sendable () throws -> T) -> Recipe {
        Recipe(
            dependencies: .known([]),
            link: { _, node in
                let key = node.key
                return node.scopedConstruction(Plan { _ throws(ProvisionError) in try invoke(key) { try f() } })
            },
            instance: nil
        )
    }

    @inlinable
    static func constructor<A>(_ f: @escaping @Sendable (consuming A) throws -> T) -> Recipe {
        Recipe(
            dependencies: .known([BindingKey(A.self)]),
            link: { linker, node throws(ProvisionError) in
                let key = node.key
                let a = try linker.plan(for: A.self, below: node)
                return node.scopedConstruction(
                    Plan { context throws(ProvisionError) in
                        let va = try a.make(context, for: key)
                        do {
                            return try f(consume va)
                        } catch {
                            throw ProvisionError.factoryFailed(key, cause: error)
                        }
                    }
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
                let key = node.key
                let a = try linker.plan(for: A.self, below: node)
                let b = try linker.plan(for: B.self, below: node)
                return node.scopedConstruction(
                    Plan { context throws(ProvisionError) in
                        let va = try a.make(context, for: key)
                        let vb = try b.make(context, for: key)
                        do {
                            return try f(consume va, consume vb)
                        } catch {
                            throw ProvisionError.factoryFailed(key, cause: error)
                        }
                    }
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
                let key = node.key
                let a = try linker.plan(for: A.self, below: node)
                let b = try linker.plan(for: B.self, below: node)
                let c = try linker.plan(for: C.self, below: node)
                return node.scopedConstruction(
                    Plan { context throws(ProvisionError) in
                        let va = try a.make(context, for: key)
                        let vb = try b.make(context, for: key)
                        let vc = try c.make(context, for: key)
                        do {
                            return try f(consume va, consume vb, consume vc)
                        } catch {
                            throw ProvisionError.factoryFailed(key, cause: error)
                        }
                    }
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
                let key = node.key
                let a = try linker.plan(for: A.self, below: node)
                let b = try linker.plan(for: B.self, below: node)
                let c = try linker.plan(for: C.self, below: node)
                let d = try linker.plan(for: D.self, below: node)
                return node.scopedConstruction(
                    Plan { context throws(ProvisionError) in
                        let va = try a.make(context, for: key)
                        let vb = try b.make(context, for: key)
                        let vc = try c.make(context, for: key)
                        let vd = try d.make(context, for: key)
                        do {
                            return try f(consume va, consume vb, consume vc, consume vd)
                        } catch {
                            throw ProvisionError.factoryFailed(key, cause: error)
                        }
                    }
                )
            },
            instance: nil
        )
    }
}
