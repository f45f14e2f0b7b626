extension AnyNode {
    /// Whether the node is a just-in-time binding the injector created on first request.
    var isJustInTime: Bool {
        location.fileID == SourceLocation.justInTime.fileID
    }
}

extension SourceLocation {
    /// The location recorded for just-in-time bindings, which no module declares.
    static let justInTime = SourceLocation(fileID: "Provision/just-in-time", line: 0)
}

extension Injector {
    /// The shape and scope of the just-in-time binding this injector would create for `key` (see
    /// `lookup`), without creating it.
    func justInTimeShape(for key: BindingKey) -> (BindingShape, Scope)? {
        if let synthetic = key.type as? any SyntheticDependency.Type,
            let recipe = synthetic.syntheticRecipe(for: key) as? any ShapedRecipe
        {
            return (recipe.shape, .transient)
        }
        if let optional = key.type as? any OptionalType.Type,
            let recipe = optional.optionalRecipe(for: key) as? any ShapedRecipe
        {
            return (recipe.shape, .transient)
        }
        if key.name == nil, let injectable = key.type as? any Injectable.Type,
            let injection = injectable.anyInjection as? any ShapedInjection
        {
            return (injection.shape, injection.defaultScope)
        }
        if key.name == nil, let declaring = key.type as? any InjectableClass.Type, declaring.misdeclaration == nil,
            let injection = declaring.classInjection as? any ShapedInjection
        {
            return (injection.shape, injection.defaultScope)
        }
        return nil
    }
}
