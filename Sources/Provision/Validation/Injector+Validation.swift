extension Injector {
    /// Checks every binding this injector can reach, without constructing anything, and throws one
    /// error listing every problem.
    ///
    /// ```swift
    /// let injector = try Injector(AppModule(), StorageModule())
    /// try injector.validate()   // at start-up, before serving
    /// ```
    ///
    /// Validation walks the bindings' declared dependencies (constructor parameters, multibinding
    /// elements, the dependencies closures declare with ``BindingBuilder/to(dependencies:_:)``) and
    /// checks that:
    /// - every dependency is bound (in this injector, an ancestor, or as a just-in-time
    ///   ``Injectable`` or handle type), including the targets of ``Provider`` and ``Lazy`` handles;
    /// - a `[T]` dependency has multibinding elements, and a single `T` is not only multibound;
    /// - no binding depends on itself through construction edges (an edge through a ``Provider`` or
    ///   ``Lazy`` may close a loop: that is what they are for);
    /// - no binding captures a shorter-lived one (a captive dependency; a singleton depending on a
    ///   transient is fine, see ``ProvisionError/Code/captiveDependency``).
    ///
    /// Closures that don't declare their dependencies can't be checked; they are listed in the
    /// report's ``ValidationReport/uncheckedBindings``, which is not a failure. Nothing is built, no
    /// factory runs, and the injector is not changed (just-in-time bindings are checked, not created).
    ///
    /// - Returns: The report of a valid graph, with the bindings that could not be checked.
    /// - Throws: ``ProvisionError`` with ``ProvisionError/Code/validationFailed``, whose
    ///   ``ProvisionError/underlyingErrors`` hold each problem with its own code, path and hint.
    /// - Complexity: O(*n* log *n* + *e*) for *n* bindings and *e* dependencies: about a millisecond
    ///   per thousand bindings.
    @discardableResult
    public func validate() throws(ProvisionError) -> ValidationReport {
        let report = validationReport()
        if let error = report.error { throw error }
        return report
    }

    /// Checks every binding this injector can reach, like ``validate()``, and returns what it found
    /// instead of throwing.
    ///
    /// - Returns: Every problem, and the bindings that could not be checked.
    public func validationReport() -> ValidationReport {
        analyzeGraph(eager: []).report
    }

    /// The graph, the validation findings and their report. `eager` is checked only while the injector
    /// is being created.
    ///
    /// - Parameter ancestorsReachedOnly: Whether to check only the ancestors' bindings that this
    ///   injector's own bindings reach (see `BindingGraph.init(injector:ancestorsReachedOnly:roots:)`).
    func analyzeGraph(
        eager: [(BindingKey, SourceLocation)],
        ancestorsReachedOnly: Bool = false,
        trustingSealedAncestors: Bool = false,
        sealing: ((GraphValidator) -> Void)? = nil
    ) -> (graph: BindingGraph, findings: [ValidationFinding], report: ValidationReport) {
        let graph = BindingGraph(
            injector: self,
            ancestorsReachedOnly: ancestorsReachedOnly,
            trustingSealedAncestors: trustingSealedAncestors,
            roots: eager.map(\.0)
        )
        let validator = GraphValidator(graph)
        let findings = validator.findings(eager: eager) { self.justInTimeShape(for: $0)?.1 }
        var report = ValidationReport(
            problems: findings.map(\.error),
            uncheckedBindings: validator.uncheckedKeys,
            bindingCount: graph.vertices.count
        )
        report.seededKeys = graph.vertices.filter { $0.shape.kind == .seed }.map(\.key)
        if findings.isEmpty { sealing?(validator) }
        return (graph, findings, report)
    }

    /// Validates a new injector before its eager singletons are built (when its configuration asks).
    ///
    /// A child (or an injector derived with ``overriding(_:)-(Module...)``) checks its own bindings
    /// and the ancestors' bindings they reach, not every binding of its ancestors: those were there
    /// before it, so a child made per request costs what its own bindings cost, not its parent's graph.
    /// A child whose parent began shutting down while it was made (a child of a shut-down injector is
    /// refused) is not validated: every request it gets reports the shutdown.
    ///
    /// The walk stops at the bindings of ancestors sealed by their own validation (see
    /// ``ValidationSeal``), so a chain of children costs each child its own bindings, not the chain's
    /// depth; a graph found valid seals this injector in turn. An install into any injector while the
    /// graph was read breaks the seals it trusted: the graph is then read again without them.
    func validateOnCreation(eager: [(BindingKey, SourceLocation)]) throws(ProvisionError) {
        // A child of a shut-down injector finds its parent's tables emptied: its requests report the
        // shutdown, which validation would report as missing bindings.
        if isShuttingDown { return }
        let generation = ValidationSeal.installGeneration
        var sealedCount = 0
        var analysis = analyzeGraph(
            eager: eager,
            ancestorsReachedOnly: parent != nil,
            trustingSealedAncestors: true,
            sealing: { validator in
                sealedCount = validator.graph.sealedCount
                guard ValidationSeal.isQuiet(generation), ValidationSeal.installGeneration == generation else {
                    return
                }
                self.seal(
                    ValidationSeal(
                        generation: generation,
                        transientsReachingScoped: validator.transientsReachingScoped()
                    )
                )
            }
        )
        if sealedCount > 0, ValidationSeal.installGeneration != generation {
            // An install changed what the trusted seals vouched for while the graph was read.
            analysis = analyzeGraph(eager: eager, ancestorsReachedOnly: parent != nil)
        }
        guard let error = analysis.report.error else { return }
        // An ancestor that began shutting down while the graph was read emptied its tables: what looks
        // missing is the shutdown, which this injector's requests will report.
        if isShuttingDown { return }
        throw error
    }
}
