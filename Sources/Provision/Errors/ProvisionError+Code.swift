extension ProvisionError {
    /// The kind of a ``ProvisionError``.
    ///
    /// Codes are static members rather than enum cases so that new codes can be added without
    /// breaking existing `switch` statements.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case notBound
            case cycle
            case factoryFailed
            case duplicateBinding
            case incompleteBinding
            case configurationFailed
            case injectorReleased
            case argumentMismatch
            case eagerNotSingleton
            case typeMismatch
            case timedOut
            case validationFailed
            case captiveDependency
            case emptyMultibinding
            case ambiguousMultibinding
            case requiresAsync
            case outsideScope
            case shutDown
            case startFailed
            case stopFailed
            case invalidLifecycle
            case cancelled
            case depthExceeded
            case undeclaredDependency
            case notSeeded
        }

        private let value: Value

        private init(_ value: Value) {
            self.value = value
        }

        /// Nothing is bound for the requested key (or for a dependency of it). A named request never
        /// falls back to the unnamed binding of the same type.
        public static let notBound = Code(.notBound)

        /// Building the requested service needs the service itself: the ``ProvisionError/path``
        /// shows the loop, for example `A -> B -> C -> A`.
        public static let cycle = Code(.cycle)

        /// A factory (an initializer or a closure) threw; the ``ProvisionError/cause`` holds what it
        /// threw. A failed singleton is not cached: a later request runs the factory again.
        public static let factoryFailed = Code(.factoryFailed)

        /// One module bound the same key twice, or a module installed into a running injector binds
        /// a key that the injector already has.
        public static let duplicateBinding = Code(.duplicateBinding)

        /// A module called `bind(_:)` without saying what to bind to (`.to(...)` or
        /// `.toInstance(...)`).
        public static let incompleteBinding = Code(.incompleteBinding)

        /// A module's ``Module/configure(_:)`` threw; the ``ProvisionError/cause`` holds what it threw.
        public static let configurationFailed = Code(.configurationFailed)

        /// A handle (``Provider``, ``Lazy``, ``ObjectFactory``) was used after the injector that created
        /// it was released. Handles refer to their injector weakly; keep the injector alive as long as
        /// its services run.
        public static let injectorReleased = Code(.injectorReleased)

        /// The arguments of a request don't match its binding's declared arguments (count or types), or
        /// a binding that needs arguments was requested without any and declares no defaults.
        public static let argumentMismatch = Code(.argumentMismatch)

        /// A key marked eager (built when the injector is created) is not bound as a singleton.
        public static let eagerNotSingleton = Code(.eagerNotSingleton)

        /// A value is not of the type its binding promises: a checked instance of another type, or a
        /// delegating binding whose target's value does not convert.
        public static let typeMismatch = Code(.typeMismatch)

        /// A thread waited longer than ``Injector/Configuration/singletonWaitTimeout`` for another
        /// thread's build of a singleton.
        public static let timedOut = Code(.timedOut)

        /// ``Injector/validate()`` (or an injector created with
        /// ``Injector/Configuration/validatesOnCreation``) found problems in the graph; each one is in
        /// ``ProvisionError/underlyingErrors`` with its own code, path and hint.
        public static let validationFailed = Code(.validationFailed)

        /// A binding depends, directly or through transient bindings, on a binding that lives shorter
        /// than itself, and would keep one instance of it past its lifetime. A singleton depending on
        /// a transient is not captive (a transient makes no promise about its lifetime).
        public static let captiveDependency = Code(.captiveDependency)

        /// A binding depends on `[T]`, and nothing is multibound for `T`. Reported by validation, and by
        /// the request that reaches the dependency (a request for `[T]` itself is ``notBound``).
        public static let emptyMultibinding = Code(.emptyMultibinding)

        /// A binding depends on a single `T`, and `T` only has multibinding elements: which one is
        /// meant is ambiguous. Reported by validation, and by the request that reaches the dependency.
        public static let ambiguousMultibinding = Code(.ambiguousMultibinding)

        /// A binding built by an `async` factory (or one that depends on such a binding) was requested
        /// through the synchronous API before it was built. Resolve it with `try await`, or build it
        /// first (``Injector/start()`` builds every singleton).
        public static let requiresAsync = Code(.requiresAsync)

        /// A ``Scope/scoped`` binding was requested outside any ``ServiceScope``, or through a scope that
        /// was already closed.
        public static let outsideScope = Code(.outsideScope)

        /// The injector was shut down (``Injector/shutdown()``), or is shutting down: it builds nothing
        /// any more.
        public static let shutDown = Code(.shutDown)

        /// ``Injector/start()`` failed: a singleton could not be built or a start hook threw or timed out.
        /// The services that had started were stopped again; each failure is in
        /// ``ProvisionError/underlyingErrors``.
        public static let startFailed = Code(.startFailed)

        /// Stopping or disposing services failed (``Injector/shutdown()``, ``ServiceScope/close()-5abpd``): every
        /// other service was still stopped and disposed; each failure is in
        /// ``ProvisionError/underlyingErrors``.
        public static let stopFailed = Code(.stopFailed)

        /// A binding asks for a lifecycle it can't have: start or stop hooks on a binding that is not a
        /// singleton, a binding with arguments made scoped; or the injector was started twice.
        public static let invalidLifecycle = Code(.invalidLifecycle)

        /// An async request was cancelled while it waited for another request to build an instance: it
        /// stopped waiting at once (the build goes on for everyone else).
        public static let cancelled = Code(.cancelled)
        /// A resolution nested deeper than its thread's stack can hold: a chain of bindings (each needing
        /// the next) too long for the thread it runs on. Provision stops it while some stack is left,
        /// instead of crashing; the error's description gives the depth reached and the start of the
        /// ``ProvisionError/path``. Resolve on a thread with a larger stack, or shorten the chain (a
        /// ``Provider`` or ``Lazy`` on one edge defers what is below it).
        public static let depthExceeded = Code(.depthExceeded)

        /// In a debug build, a closure binding that declared the keys it resolves
        /// (``BindingBuilder/to(dependencies:_:)``, ``Injection/init(dependencies:_:)``) resolved a key it
        /// didn't declare. Validation, diagrams and ``Injector/overriding(_:)-(Module...)`` trust the
        /// declaration, so it must list every key the closure resolves (an optional `T?` is covered by
        /// `T`); the error names the binding and where it was declared. Release builds don't check.
        public static let undeclaredDependency = Code(.undeclaredDependency)

        /// A seed binding (``BindingBuilder/toSeed()``) was requested through a scope opened without its
        /// value, or a scope was opened with a value for a key that no seed binding declares.
        public static let notSeeded = Code(.notSeeded)

        /// The code in words, as error messages print it (`not bound`).
        public var description: String {
            switch value {
            case .notBound: "not bound"
            case .cycle: "cycle"
            case .factoryFailed: "factory failed"
            case .duplicateBinding: "duplicate binding"
            case .incompleteBinding: "incomplete binding"
            case .configurationFailed: "configuration failed"
            case .injectorReleased: "injector released"
            case .argumentMismatch: "argument mismatch"
            case .eagerNotSingleton: "eager binding not singleton"
            case .typeMismatch: "type mismatch"
            case .timedOut: "timed out"
            case .validationFailed: "validation failed"
            case .captiveDependency: "captive dependency"
            case .emptyMultibinding: "empty multibinding"
            case .ambiguousMultibinding: "ambiguous multibinding"
            case .requiresAsync: "requires async"
            case .outsideScope: "outside scope"
            case .shutDown: "shut down"
            case .startFailed: "start failed"
            case .stopFailed: "stop failed"
            case .invalidLifecycle: "invalid lifecycle"
            case .cancelled: "cancelled"
            case .depthExceeded: "depth exceeded"
            case .undeclaredDependency: "undeclared dependency"
            case .notSeeded: "not seeded"
            }
        }
    }
}
