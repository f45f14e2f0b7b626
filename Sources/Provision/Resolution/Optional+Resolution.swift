/// An optional type, seen through its metatype: lets the injector resolve `Dog?` without a binding, and
/// type names spell `Dog?`.
protocol OptionalType {
    /// The wrapped type: `Dog` for `Dog?`.
    static var wrappedType: any Any.Type { get }

    /// The recipe of the just-in-time binding of `key` (whose type is `Self`): a `Recipe<Self>`.
    static func optionalRecipe(for key: BindingKey) -> Any
}

extension Optional: OptionalType {
    static var wrappedType: any Any.Type { Wrapped.self }

    /// Resolves `Wrapped` (with the key's name) when something binds it, and is `nil` when nothing does.
    ///
    /// A request for `Dog?` that no module binds gets this binding, made just in time in the injector
    /// the request is made to (never borrowed from a parent: like a handle, it must see the child's own
    /// bindings). When `Dog` is bound when the binding is linked, its plan runs `Dog`'s plan: a failing
    /// `Dog` fails the request, with `Dog`'s path. When nothing binds `Dog` then, every request looks
    /// `Dog` up again, so a module installed later that binds it is seen; until then the value is `nil`.
    /// The binding builds nothing itself, so an observer sees `Dog`'s builds only.
    static func optionalRecipe(for key: BindingKey) -> Any {
        let target = BindingKey(Wrapped.self, named: key.name)
        return Recipe<Wrapped?>(
            dependencies: .optional([target]),
            link: { pass, node throws(ProvisionError) in
                switch pass {
                case .sync(let linker):
                    let injector = node.injector
                    guard injector.lookup(target, as: Wrapped.self) != nil else {
                        // Unowned: the injector owns this plan (through its node).
                        return .sync(
                            Plan { [unowned injector] context throws(ProvisionError) in
                                try injector.resolveIfBound(target, as: Wrapped.self, for: key, context: context)
                            }
                        )
                    }
                    let plan = try linker.plan(for: target, as: Wrapped.self, below: node)
                    return .sync(Plan { context throws(ProvisionError) in .some(try plan.make(context)) })
                case .async(let linker):
                    // Only reached when the synchronous link found `Wrapped` bound, with an async factory
                    // or a singleton below it.
                    let plan = try linker.plan(for: target, as: Wrapped.self, below: node)
                    guard node.traits.contains(.needsAsync) else { return node.settlingAsync([plan.settle]) }
                    return .async(AsyncPlan { context throws(ProvisionError) in .some(try await plan.make(context)) })
                case .program:
                    // A program calls this binding's plan.
                    return .noForm
                }
            },
            instance: nil
        )
    }
}

extension Injector {
    /// Resolves `key` when something binds it (this injector, an ancestor, or a just-in-time binding);
    /// `nil` when nothing does. A shut-down injector (or one below a shut-down ancestor) throws
    /// ``ProvisionError/Code/shutDown`` instead, with the path from `optional`, the key of the request.
    func resolveIfBound<T>(
        _ key: BindingKey,
        as type: T.Type,
        for optional: BindingKey,
        context: ResolutionContext
    ) throws(ProvisionError) -> T? {
        guard let node = lookup(key, as: type) else {
            if isShuttingDown { throw missing(key, path: [optional, key]) }
            return nil
        }
        return try node.resolve(context)
    }
}
