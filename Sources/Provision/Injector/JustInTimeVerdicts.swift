/// A child injector's verdicts on whether its parent may hold the just-in-time binding of a declared
/// type (see `Injector.parentMayHoldJustInTime(_:)`), by key, and the generation they belong to.
///
/// A verdict is worked out with no lock held (the walk reads the registries and the types'
/// declarations) and stored afterwards only if no install ended meanwhile: an install may bind
/// something the walk reached, and starts a new generation, which drops every verdict.
struct JustInTimeVerdicts: Sendable {
    /// The verdicts of the current generation.
    var verdicts: [BindingKey: Bool] = [:]
    /// Incremented by every ``reset()``.
    private(set) var generation: UInt64 = 0

    /// Drops every verdict and starts a new generation (after an install).
    mutating func reset() {
        verdicts.removeAll()
        generation &+= 1
    }
}
