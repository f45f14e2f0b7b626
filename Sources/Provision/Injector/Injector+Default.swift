extension Injector {
    private static let defaultSlot = Locked<Injector?>(nil)

    /// A process-wide injector slot, `nil` until set. Thread-safe.
    ///
    /// A convenience for code that cannot receive its injector (Objection's default injector): nothing
    /// resolves through it implicitly. Prefer passing injectors or injecting ``ObjectFactory``.
    ///
    /// ```swift
    /// Injector.default = try Injector(AppModule())
    /// let car = try Injector.default?.get(Car.self)
    /// ```
    public static var `default`: Injector? {
        get { defaultSlot.withLock { $0 } }
        set { defaultSlot.withLock { $0 = newValue } }
    }
}
