/// Several bindings of one key that differ by their argument lists: `bind((any Animal).self).to(...)`,
/// `.withArguments(String.self).to(...)` and `.withArguments(String.self, Int.self).to(...)` in one
/// injector, resolved by the types of a request's arguments (as Swinject keys its registrations).
///
/// One of the bindings of a key is its *primary* binding, installed under the key itself: it serves
/// requests without arguments and dependencies on the key, and requests whose arguments are its own. It
/// is the binding without arguments when there is one; otherwise the first one declared with defaults;
/// otherwise the first one declared. Every other binding of the key is a *variant*, installed under a
/// key of its own: the same type, with a hidden name that carries its argument list and the binding's
/// name (see ``key(_:signature:)``). A request with arguments tries the primary binding first (the
/// fast path, unchanged), then the variant of its argument types.
///
/// A key is bound once per argument list: two bindings of one key with the same argument types are a
/// duplicate (across modules, unless the later one is an override), like two bindings without arguments.
enum ArgumentVariants {
    /// What starts and ends a variant's argument list in its key's name: a private-use character, never
    /// in a name a user would write.
    static let marker: Character = "\u{E001}"

    /// What follows the argument list in a variant key's name: the identity of the factory's type, which
    /// tells apart two lists that read alike (two private types of one name, in different scopes).
    static let discriminator: Character = "\u{E002}"

    /// The key of the variant of `base` whose argument list is `signature` (`(String, Int)`), declared
    /// by a factory of the type `factoryType` (an `ArgumentFactory`).
    static func key(_ base: BindingKey, signature: String, factoryType: ObjectIdentifier) -> BindingKey {
        key(base, text: text(signature, factoryType: factoryType))
    }

    /// The key of the variant of `base` whose name carries `text` (see ``text(_:factoryType:)``).
    private static func key(_ base: BindingKey, text: String) -> BindingKey {
        base.renamed("\(marker)\(text)\(marker)\(base.name ?? "")")
    }

    /// The argument list and the factory type's identity, as a variant key's name carries them.
    private static func text(_ signature: String, factoryType: ObjectIdentifier) -> String {
        "\(signature)\(discriminator)\(String(UInt(bitPattern: factoryType), radix: 16))"
    }

    /// The key a request for `base` with the argument types of `Factory` (an `ArgumentFactory`) looks up
    /// when the primary binding doesn't take them. The argument list's text is made once per type.
    static func key<Factory>(_ base: BindingKey, requestedWith factory: Factory.Type, signature: () -> String)
        -> BindingKey
    {
        key(base, text: texts.text(of: factory) { text(signature(), factoryType: ObjectIdentifier(factory)) })
    }

    /// The argument lists of the factory types requests used, by type: formatting type names costs
    /// microseconds, and a request must not pay it each time.
    private static let texts = SignatureCache()

    /// Whether `key` is a variant's.
    static func isVariantKey(_ key: BindingKey) -> Bool {
        key.name?.first == marker
    }

    /// A variant key's argument list and the binding's own name.
    static func parts(of key: BindingKey) -> (signature: String, name: String?)? {
        guard let name = key.name, name.first == marker else { return nil }
        let rest = name.dropFirst()
        guard let end = rest.firstIndex(of: marker) else { return nil }
        let own = String(rest[rest.index(after: end)...])
        let text = rest[..<end]
        let signature = text.firstIndex(of: discriminator).map { text[..<$0] } ?? text
        return (String(signature), own.isEmpty ? nil : own)
    }

    /// The key a binding is counted under for duplicates and overrides: a binding with arguments by its
    /// key and argument list (its variant key), any other by its key.
    static func slot(of node: any AnyNode) -> BindingKey {
        guard let variant = node as? any ArgumentNode, let signature = variant.argumentSignature,
            let factoryType = variant.argumentFactoryType
        else {
            return node.key
        }
        return key(node.key, signature: signature, factoryType: factoryType)
    }

    /// `nodes` with the bindings that share a key sorted out: for each key bound more than once (by
    /// different argument lists), the primary binding keeps the key and every other binding with
    /// arguments is moved to its variant key. Nodes of other keys are returned as they are, in order.
    ///
    /// Callers pass only nodes among which a binding takes arguments (creating an injector of thousands of
    /// bindings without any doesn't look at each of them again).
    ///
    /// - Parameters:
    ///   - existing: The node bound to a key already (the injector's own, for ``Injector/install(_:)``;
    ///     the original's, for ``Injector/overriding(_:)-(Module...)``): a binding of such a key is a
    ///     variant, unless it takes the same arguments as that node.
    ///   - replacing: What a binding taking the same arguments as the existing node is: its replacement,
    ///     which keeps the key (an override), or a duplicate (an install).
    /// - Throws: `duplicateBinding` for a binding whose key and argument list are bound already, unless
    ///   `replacing`.
    static func separate(
        _ nodes: [any AnyNode],
        existing: (BindingKey) -> (any AnyNode)? = { _ in nil },
        replacing: Bool = false
    ) throws(ProvisionError) -> [any AnyNode] {
        // Only bindings with arguments can share a key: without any, nothing to do.
        let argumentKeys = Set(
            nodes.compactMap { node in
                (node as? any ArgumentNode)?.argumentSignature == nil ? nil : node.key
            })
        guard !argumentKeys.isEmpty else { return nodes }
        var groups: [BindingKey: [Int]] = [:]
        for (index, node) in nodes.enumerated() where argumentKeys.contains(node.key) {
            groups[node.key, default: []].append(index)
        }
        var result = nodes
        for (key, members) in groups {
            let installed = existing(key)
            guard members.count > 1 || installed != nil else { continue }
            // One module binding a key twice with the same arguments (several modules were sorted out by
            // slot already, overrides included).
            var slots: [BindingKey: SourceLocation] = [:]
            for index in members {
                let slot = slot(of: nodes[index])
                if let first = slots.updateValue(nodes[index].location, forKey: slot) {
                    throw ProvisionError.duplicateBinding(
                        slot,
                        at: nodes[index].location,
                        reason: "the same module binds it at \(first) and at \(nodes[index].location)"
                    )
                }
            }
            var primary: Int?
            if let installed {
                // The binding that takes the existing node's arguments replaces it, or is a duplicate.
                primary = members.first { slot(of: nodes[$0]) == slot(of: installed) }
                if let same = primary, !replacing {
                    throw ProvisionError.duplicateBinding(
                        slot(of: nodes[same]),
                        at: nodes[same].location,
                        reason: "the injector already has a binding declared at \(installed.location)"
                    )
                }
                // An injector derived with `overriding` over an original whose binding takes arguments
                // and declares no defaults: the first new binding with defaults is the one a request
                // without arguments takes, so it keeps the key here (the original's binding still takes
                // its own arguments, found as an ancestor's, see `argumentBindings`). In the same
                // injector (an install), the original stays primary and hands such requests on (see
                // `Recipe.arguments`). (Found by hunt 24A.)
                if primary == nil, replacing, let original = installed as? any ArgumentNode,
                    original.argumentSignature != nil, !original.hasArgumentDefaults
                {
                    primary = members.first { (nodes[$0] as? any ArgumentNode)?.hasArgumentDefaults == true }
                }
            } else {
                primary = primaryIndex(of: members, in: nodes)
            }
            for index in members where index != primary {
                // Every other binding of the key takes arguments: only one binding per slot got here.
                guard let variant = nodes[index] as? any ArgumentNode, let signature = variant.argumentSignature,
                    let factoryType = variant.argumentFactoryType
                else { continue }
                result[index] = variant.rekeyed(
                    ArgumentVariants.key(key, signature: signature, factoryType: factoryType))
            }
        }
        return result
    }

    /// The primary binding among the bindings of one key (indexes into `nodes`, in declaration order):
    /// the one without arguments, else the first with defaults, else the first.
    private static func primaryIndex(of members: [Int], in nodes: [any AnyNode]) -> Int? {
        if let plain = members.first(where: { (nodes[$0] as? any ArgumentNode)?.argumentSignature == nil }) {
            return plain
        }
        if let withDefaults = members.first(where: { (nodes[$0] as? any ArgumentNode)?.hasArgumentDefaults == true }) {
            return withDefaults
        }
        return members.first
    }

    /// The argument lists `injector` (and its ancestors) binds `key` with: the primary binding's, `()`
    /// for one without arguments, then each variant's in declaration order. For the error of a request
    /// that matches none.
    static func signatures(of key: BindingKey, in injector: Injector) -> [String] {
        var lists: [String] = []
        var current: Injector? = injector
        while let owner = current {
            if let found = owner.registry.retainedNode(for: key) {
                lists.append((found as? any ArgumentNode)?.argumentSignature ?? "()")
            }
            let variants = owner.registry.nodes.filter { $0.key.id == key.id && parts(of: $0.key)?.name == key.name }
            for node in variants.sorted(by: { $0.declarationIndex < $1.declarationIndex }) {
                if let (signature, _) = parts(of: node.key) { lists.append(signature) }
            }
            current = owner.parent
        }
        var seen: Set<String> = []
        return lists.filter { seen.insert($0).inserted }
    }
}

/// The argument-list text of each factory type, computed once.
private final class SignatureCache: Sendable {
    /// Held to read or store one entry; the text is computed outside it.
    private let texts = Locked<[ObjectIdentifier: String]>([:])

    func text<Factory>(of factory: Factory.Type, _ make: () -> String) -> String {
        let id = ObjectIdentifier(factory)
        if let known = texts.withLock({ $0[id] }) { return known }
        let made = make()
        texts.withLock { $0[id] = made }
        return made
    }
}

/// A node seen for its arguments: every node is a `Node<T>`; the protocol reads it without `T`.
protocol ArgumentNode: AnyNode {
    /// The binding's argument list (`(String, Int)`), or `nil` for a binding without arguments.
    var argumentSignature: String? { get }
    /// Whether the binding declares defaults for its arguments.
    var hasArgumentDefaults: Bool { get }
    /// The type of the binding's `ArgumentFactory`, or `nil` for a binding without arguments.
    var argumentFactoryType: ObjectIdentifier? { get }
    /// The same binding under another key: a new node of the same recipe, scope and hooks.
    func rekeyed(_ key: BindingKey) -> any AnyNode
}

extension Node: ArgumentNode {
    var argumentSignature: String? {
        options?.arguments?.signature
    }

    var hasArgumentDefaults: Bool {
        options?.arguments?.hasDefaults == true
    }

    var argumentFactoryType: ObjectIdentifier? {
        options?.arguments.map { ObjectIdentifier(type(of: $0.factory)) }
    }

    func rekeyed(_ key: BindingKey) -> any AnyNode {
        var recipe = Recipe<T>(dependencies: dependencies, link: link, instance: nil)
        recipe.isAsync = isAsync
        recipe.options = options
        let node = Node(key: key, location: location, recipe: recipe, injector: injector)
        node.attach(scope: scope, hooks: hooks)
        return node
    }
}

extension BindingKey {
    /// This key's type with another name.
    func renamed(_ name: String?) -> BindingKey {
        func key<T>(_ type: T.Type) -> BindingKey { BindingKey(type, named: name) }
        return _openExistential(type, do: key)
    }
}
