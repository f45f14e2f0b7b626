import Synchronization

/// A node's part in its injector's lifecycle: building an eager singleton, and the start and stop
/// actions of a built singleton (its hooks, ``ManagedService``, or an integration's adapter).
extension Node {
    @usableFromInline
    func build() throws(ProvisionError) {
        _ = try resolve(.root)
    }

    @usableFromInline
    func buildAsync() async throws(ProvisionError) {
        _ = try await resolveAsync(.root)
    }

    @usableFromInline
    func lifecycleActions() -> LifecycleActions? {
        guard scope.isSingleton, let cell, cell.value != nil else { return nil }
        // A delegation whose target keeps its instances starts and stops nothing of its own accord: the
        // target's binding does, once (in its own injector, for an ancestor's). Hooks of its own still run.
        if hooks == nil, options?.sharesTargetInstances.load(ordering: .acquiring) == true { return nil }
        // The actions read the instance from the cell: it is published and never changes.
        if let hooks = hooks?.hooks as? LifecycleHooks<T> {
            return LifecycleActions(
                key: key,
                start: Node.action(hooks.start, on: cell),
                stop: Node.action(hooks.stop, on: cell)
            )
        }
        guard cell.value is any ManagedService else {
            // A type only an integration knows (a swift-service-lifecycle `Service`): its adapter's.
            guard let value = cell.value, !injector.configuration.lifecycleAdapters.isEmpty,
                var actions = injector.adaptedLifecycle(of: value, key: key)
            else { return nil }
            actions.instance = InstanceIdentity.of(value)
            return actions
        }
        var actions = LifecycleActions(
            key: key,
            start: { try await (cell.value as? any ManagedService)?.start() },
            stop: { try await (cell.value as? any ManagedService)?.stop() }
        )
        actions.instance = cell.value.flatMap { InstanceIdentity.of($0) }
        return actions
    }

    /// A binding's hook, bound to the instance in `cell`.
    private static func action(_ hook: LifecycleHooks<T>.Hook?, on cell: InstanceCell<T>) -> LifecycleActions.Action? {
        guard let hook else { return nil }
        return { @Sendable () async throws -> Void in
            if let value = cell.value { try await hook(value) }
        }
    }
}
