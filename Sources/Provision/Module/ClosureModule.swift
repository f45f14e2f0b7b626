/// A module made of a closure: for one-off bindings, tests, and overrides.
///
/// ```swift
/// let injector = try Injector(
///     AppModule(),
///     ClosureModule { binder in
///         binder.override(Clock.self).toInstance(FixedClock(now: .zero))
///     }
/// )
/// ```
///
/// The closure is the module's ``configure(_:)``: it runs each time an injector configures the module,
/// so, like any module, it should only declare bindings (see ``Module``).
public struct ClosureModule: Module {
    private let body: @Sendable (Binder) throws -> Void

    /// Creates a module whose bindings `configure` declares.
    ///
    /// - Parameter configure: Declares the bindings; what it throws makes creating the injector fail
    ///   with ``ProvisionError/Code/configurationFailed``.
    public init(_ configure: @escaping @Sendable (Binder) throws -> Void) {
        self.body = configure
    }

    /// Runs the module's closure.
    ///
    /// - Parameter binder: Records the bindings.
    /// - Throws: What the closure throws.
    public func configure(_ binder: Binder) throws {
        try body(binder)
    }
}
