internal import Synchronization

/// What an injector's validation at its creation proved about its own bindings, so that a child
/// validated later needn't walk them again.
///
/// A child checks its own bindings and the ancestors' bindings they reach (see
/// `BindingGraph.init(injector:ancestorsReachedOnly:trustingSealedAncestors:roots:)`). Without seals,
/// it walked each ancestor binding it reached down to the bottom of its subgraph, so a chain of
/// children that each depend on their parent's binding made the *n*th child's creation walk *n*
/// bindings: quadratic in the chain's length (4,000 nested children took 15 s to create). An ancestor
/// whose graph was validated when it was created, with nothing installed anywhere since, carries a
/// seal: its own bindings' subgraphs were found complete, acyclic and without captive dependencies,
/// and they can't change (an ancestor's bindings resolve their dependencies in that ancestor and
/// above, never in a child). The child's walk stops at such a binding, which it still checks as a
/// dependency of its own (its scope against a holder's).
///
/// One thing a child's binding can learn only from below an ancestor's binding: whether a transient
/// reaches a scoped binding through other transients, which a singleton of the child depending on it
/// would capture. The seal lists those transients (``transientsReachingScoped``, nearly always empty),
/// and the walk goes on through them as before.
///
/// Immutable; published once, by the injector's initializer, before the injector is shared.
final class ValidationSeal: Sendable {
    /// ``installGeneration`` when the validation began: the seal holds while it is unchanged.
    let generation: Int
    /// The injector's own transient bindings that reach a scoped binding through construction edges
    /// and other transients.
    let transientsReachingScoped: Set<BindingKey>

    init(generation: Int, transientsReachingScoped: Set<BindingKey>) {
        self.generation = generation
        self.transientsReachingScoped = transientsReachingScoped
    }

    /// Counts the installs into running injectors (``Injector/install(_:)``), twice each: once before
    /// the install changes a registry and once after it is done, so that the count is odd while one is
    /// under way; and, by two, the dependencies bindings learn as they build (see
    /// ``noteLearnedDependencies()``). Either can change the subgraph of an ancestor's sealed binding (an
    /// install may bind a key that a sealed binding reached as a just-in-time binding), so it breaks
    /// every seal made before it; both are rare, and one counter for every injector keeps the check to
    /// one load.
    private static let installs = Atomic<Int>(0)

    /// The current install generation (see ``installs``).
    static var installGeneration: Int {
        installs.load(ordering: .acquiring)
    }

    /// Marks the beginning or the end of an install into a running injector.
    static func noteInstall() {
        installs.add(1, ordering: .acquiringAndReleasing)
    }

    /// Marks a change of a binding's dependencies that no install made: a binding that built an
    /// instance of a subclass declaring injected properties depends on their keys from then on (see
    /// `PropertyInjection`), which may make a sealed transient reach a scoped binding. Breaks every seal,
    /// like an install (found by hunt 25A: a child's singleton over such a transient wasn't found captive).
    static func noteLearnedDependencies() {
        installs.add(2, ordering: .acquiringAndReleasing)
    }

    /// Whether `generation` is one a seal can be made at: no install was under way.
    static func isQuiet(_ generation: Int) -> Bool {
        generation % 2 == 0
    }

    /// Whether the seal still holds: nothing was installed since it was made.
    var isCurrent: Bool {
        generation == ValidationSeal.installGeneration
    }
}

extension Injector {
    /// The injector's seal, if its creation validated its graph and nothing was installed since (see
    /// ``ValidationSeal``).
    var currentSeal: ValidationSeal? {
        guard let seal = AtomicReference.load(validationSeal, as: ValidationSeal.self)?.takeUnretainedValue(),
            seal.isCurrent
        else {
            return nil
        }
        return seal
    }

    /// Publishes the seal of a validation that found no problem; called once, by the initializer.
    func seal(_ seal: ValidationSeal) {
        let retained = Unmanaged.passRetained(seal)
        if !AtomicReference.publishOnce(validationSeal, retained).published { retained.release() }
    }
}
