/// What ``Injector/validate()`` found: every problem in the graph, and the bindings it could not check.
///
/// ```swift
/// let report = injector.validationReport()
/// for problem in report.problems {
///     print(problem.code, problem.pathDescription, problem.hint)
/// }
/// ```
public struct ValidationReport: Sendable, CustomStringConvertible {
    /// Every problem, each a ``ProvisionError`` with its own code (``ProvisionError/Code/notBound``,
    /// ``ProvisionError/Code/cycle``, ``ProvisionError/Code/captiveDependency``,
    /// ``ProvisionError/Code/emptyMultibinding``, ``ProvisionError/Code/ambiguousMultibinding``,
    /// ``ProvisionError/Code/eagerNotSingleton``), path and hint; empty for a valid graph.
    ///
    /// Ordered by rule (missing bindings, cycles, captive dependencies, eager bindings), then by
    /// declaration order.
    public let problems: [ProvisionError]

    /// Closure bindings whose dependencies are only known when they run, so validation could not check
    /// them. Not a failure: declare what such a closure resolves with
    /// ``BindingBuilder/to(dependencies:_:)`` and validation checks it like a constructor.
    public let uncheckedBindings: [BindingKey]

    /// The keys every ``ServiceScope`` can be seeded with (``BindingBuilder/toSeed()``), in declaration
    /// order: the values code that opens a scope provides (``Injector/makeScope(seeding:)``).
    public var seededKeys: [BindingKey] = []

    /// How many bindings were checked: the injector's own, its ancestors', and the just-in-time
    /// bindings their dependencies would create.
    public let bindingCount: Int

    /// Whether the graph has no problems (unchecked bindings don't count as problems).
    public var isValid: Bool { problems.isEmpty }

    /// The problems as one ``ProvisionError/Code/validationFailed`` error, or `nil` for a valid graph.
    public var error: ProvisionError? {
        isValid ? nil : ProvisionError.validationFailed(self)
    }

    /// `valid: 12 bindings` or the validation error's description.
    public var description: String {
        if let error { return error.description }
        var text = "valid: \(bindingCount) bindings"
        if !uncheckedBindings.isEmpty {
            text += " (not statically checked: \(ProvisionError.listing(uncheckedBindings)))"
        }
        return text
    }
}
