extension DependencyGraph {
    /// A dependency in a ``DependencyGraph``: the dependent binding needs the target.
    public struct Edge: Sendable, Hashable {
        /// How the dependent gets its dependency.
        ///
        /// Kinds are static members rather than enum cases so that new kinds can be added without
        /// breaking existing `switch` statements.
        public struct Kind: Hashable, Sendable, CustomStringConvertible {
            private enum Value: Hashable, Sendable {
                case construction
                case declared
                case deferred
            }

            private let value: Value

            private init(_ value: Value) {
                self.value = value
            }

            /// Built with the dependent: a constructor parameter or a multibinding element.
            public static let construction = Kind(.construction)

            /// Resolved by a closure that declared it (``BindingBuilder/to(dependencies:_:)``): built
            /// with the dependent, too.
            public static let declared = Kind(.declared)

            /// Resolved later, through a ``Provider`` or ``Lazy`` handle: drawn dashed. Such an edge may
            /// close a cycle.
            public static let deferred = Kind(.deferred)

            /// The kind in words: `construction`, `declared`, `deferred`.
            public var description: String {
                switch value {
                case .construction: "construction"
                case .declared: "declared"
                case .deferred: "deferred"
                }
            }
        }

        /// The dependent's ``Vertex/id``.
        public let from: Int

        /// The dependency's ``Vertex/id``.
        public let to: Int

        /// How the dependency is obtained.
        public let kind: Kind

        /// For a ``Kind/deferred`` edge, the handle's name: `Provider` or `Lazy`.
        public let handle: String?

        /// Whether the edge takes part in a problem validation found (a cycle, a missing or captive
        /// dependency).
        public let hasProblem: Bool
    }
}
