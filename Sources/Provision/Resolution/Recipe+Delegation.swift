import Synchronization

extension Recipe {
    /// A binding that takes another binding's value and converts it (class to superclass, concrete type
    /// to existential), checking the conversion at run time.
    static func delegating<Target>(to target: BindingKey, as type: Target.Type) -> Recipe {
        var recipe = Recipe(
            dependencies: .known([target]),
            link: { pass, node throws(ProvisionError) in
                guard case .sync(let linker) = pass else {
                    guard case .async(let linker) = pass else { return .noForm }
                    return try delegatingAsynchronously(to: target, as: type, linker, node)
                }
                let key = node.key
                let plan = try linker.plan(for: target, as: type, below: node)
                markSharing(node, target: target, as: type)
                return .sync(
                    node.scoped(
                        Plan { context throws(ProvisionError) in
                            try converted(try plan.make(context, for: key), key: key)
                        }
                    )
                )
            },
            instance: nil
        )
        recipe.options = RecipeOptions(forwarding: DelegationForwarding<Target>(target: target))
        return recipe
    }

    /// A delegating binding's conversion of its target's value, checked at run time.
    /// Records on the delegation's options whether its target keeps its own instances (see
    /// ``RecipeOptions/sharesTargetInstances``). Called after the target was linked, so that a target that
    /// is itself a delegation has its own answer.
    static func markSharing<Target>(_ node: Node<T>, target: BindingKey, as type: Target.Type) {
        guard let options = node.options, let targetNode = node.injector.lookup(target, as: type) else { return }
        let shares =
            targetNode.scope.kind != .transient || targetNode.cell != nil
            || targetNode.options?.sharesTargetInstances.load(ordering: .acquiring) == true
        if shares { options.sharesTargetInstances.store(true, ordering: .releasing) }
    }

    static func converted<Target>(_ value: Target, key: BindingKey) throws(ProvisionError) -> T {
        guard let converted = value as? T else {
            throw ProvisionError.typeMismatch(key, value: TypeName.describe(Swift.type(of: value)), at: nil)
        }
        return converted
    }

    /// Stands in for a binding that was rejected while its module was configured; the module's error
    /// is thrown before any injector can use it.
    static var failing: Recipe {
        Recipe(
            dependencies: .known([]),
            link: { _, node throws(ProvisionError) in
                throw ProvisionError.typeMismatch(node.key, value: "an invalid value", at: node.location)
            },
            instance: nil
        )
    }
}
