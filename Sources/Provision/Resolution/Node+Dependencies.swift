/// What a node depends on, for validation, graph exports and the start order: the keys its recipe
/// declares, the nodes of its injector they are bound to, and the keys of its injected properties.
extension Node {
    @usableFromInline var dependencyKeys: [BindingKey]? {
        switch dependencies {
        case .known(let keys), .declared(let keys): keys
        case .optional(let keys): keys
        case .deferred: []
        case .dynamic: nil
        }
    }

    @usableFromInline var awaitsArguments: Bool {
        guard let arguments = options?.arguments else { return false }
        return !arguments.hasDefaults
    }

    @usableFromInline var injectedPropertyKeys: [BindingKey] {
        var keys: [BindingKey] = []
        if let instance = cell?.value as? any PropertyInjectable {
            keys = PropertyInjector.requirements(of: type(of: instance), in: injector).map(\.key)
        }
        if let injection = AtomicReference.load(propertyInjection, as: PropertyInjection.self) {
            keys += injection.takeUnretainedValue().injectedKeys
        }
        return keys
    }

    @usableFromInline
    func staticDependencies() -> [any AnyNode] {
        guard case .known(let keys) = dependencies else { return [] }
        return keys.compactMap { injector.registry.retainedNode(for: $0) }
    }
}
