extension Recipe where T: Sendable {
    /// A seed binding: each ``ServiceScope`` provides the value when it is made (``ScopeSeed``).
    ///
    /// The plan reads the value from the request's scope. Nothing is built, so there is no gate and no
    /// disposal: the seed belongs to the code that opened the scope.
    @inlinable
    static func seed() -> Recipe {
        var recipe = Recipe(
            dependencies: .known([]),
            link: { pass, node in
                guard case .sync = pass else { return .noForm }
                let key = node.key
                return .sync(
                    Plan { context throws(ProvisionError) in
                        try ServiceScope.scope(of: context, for: key).seed(key, as: T.self)
                    }
                )
            },
            instance: nil
        )
        recipe.options = RecipeOptions(isSeed: true)
        return recipe
    }
}
