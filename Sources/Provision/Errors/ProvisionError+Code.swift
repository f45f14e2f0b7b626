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

        /// The code in words, as error messages print it (`not bound`).
        public var description: String {
            switch value {
            case .notBound: "not bound"
            case .cycle: "cycle"
            case .factoryFailed: "factory failed"
            case .duplicateBinding: "duplicate binding"
            case .incompleteBinding: "incomplete binding"
            case .configurationFailed: "configuration failed"
            }
        }
    }
}
