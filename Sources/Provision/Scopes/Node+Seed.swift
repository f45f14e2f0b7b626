extension Node {
    /// Whether the binding's value is seeded by each scope (``BindingBuilder/toSeed()``).
    @usableFromInline
    var isSeed: Bool {
        options?.isSeed == true
    }
}
