/// A type the injector can provide without a binding, such as ``Provider`` or ``Lazy``: every injector
/// creates a just-in-time binding for it the first time it is requested.
protocol SyntheticDependency {
    /// The recipe for the binding of `key` (whose type is `Self`); returns a `Recipe<Self>`.
    static func syntheticRecipe(for key: BindingKey) -> Any
}
