extension DependencyGraph {
    /// A binding in a ``DependencyGraph``, or a dependency that nothing binds.
    public struct Vertex: Sendable, Hashable, Identifiable {
        /// What kind of binding a vertex is.
        ///
        /// Kinds are static members rather than enum cases so that new kinds can be added without
        /// breaking existing `switch` statements.
        public struct Kind: Hashable, Sendable, CustomStringConvertible {
            private enum Value: Hashable, Sendable {
                case constructor
                case closure
                case arguments
                case instance
                case multibinding
                case handle
                case missing
                case seed
            }

            private let value: Value

            private init(_ value: Value) {
                self.value = value
            }

            /// A function whose parameters are its dependencies (`to(Car.init(engine:))`, also a binding
            /// to another binding and an ``Injectable`` type's declaration).
            public static let constructor = Kind(.constructor)

            /// A closure that resolves its dependencies itself (`to { resolver in ... }`).
            public static let closure = Kind(.closure)

            /// A closure that takes resolve-time arguments (``BindingBuilder/withArguments(_:)``).
            public static let arguments = Kind(.arguments)

            /// A value given when the binding was declared (`toInstance(_:)`).
            public static let instance = Kind(.instance)

            /// The collection of a multibinding: its dependencies are its elements.
            public static let multibinding = Kind(.multibinding)

            /// A ``Provider`` or ``Lazy`` handle, which resolves its target later.
            /// ``DependencyGraph`` draws edges through handles instead of handle vertices.
            public static let handle = Kind(.handle)

            /// A dependency that nothing binds.
            public static let missing = Kind(.missing)

            /// A value each ``ServiceScope`` is opened with (``BindingBuilder/toSeed()``).
            public static let seed = Kind(.seed)

            /// The kind in words: `constructor`, `closure`, `instance`...
            public var description: String {
                switch value {
                case .constructor: "constructor"
                case .closure: "closure"
                case .arguments: "arguments"
                case .instance: "instance"
                case .multibinding: "multibinding"
                case .handle: "handle"
                case .missing: "missing"
                case .seed: "seed"
                }
            }
        }

        /// The vertex's position in ``DependencyGraph/vertices``; edges refer to vertices by it.
        public let id: Int

        /// The binding's key (for a missing vertex, the key nothing binds).
        public let key: BindingKey

        /// What kind of binding this is.
        public let kind: Kind

        /// The binding's scope; `nil` for a missing dependency.
        public let scope: Scope?

        /// Whether the injector creates the binding on first request (an ``Injectable`` type, an
        /// ``ObjectFactory``) rather than a module declaring it.
        public let isJustInTime: Bool

        /// Whether the binding belongs to an ancestor of the injector (see ``Injector/makeChild(_:)``).
        public let isInherited: Bool

        /// Whether validation could check the binding's dependencies: `false` for a closure that
        /// didn't declare them.
        public let isStaticallyChecked: Bool

        /// Whether the binding takes part in a problem validation found.
        public let hasProblem: Bool

        /// The label diagrams show, one line per item: type, name (if any), then scope and kind. For
        /// example `"Headlight\nnamed \"left\"\nsingleton, constructor"`.
        public let label: String
    }
}

extension DependencyGraph.Vertex {
    /// The lines of a binding's label.
    static func labelLines(
        title: String,
        subtitle: String?,
        scope: Scope?,
        kind: Kind,
        notes: [String]
    ) -> [String] {
        var lines = [title]
        if let subtitle { lines.append(subtitle) }
        let detail = ([scope?.description, kind == .missing ? nil : kind.description].compactMap { $0 } + notes)
        lines.append(detail.joined(separator: ", "))
        return lines
    }
}
