/// The start and stop hooks declared on one binding (``LifecycleBuilder``).
@usableFromInline
struct LifecycleHooks<T>: Sendable {
    typealias Hook = @Sendable (T) async throws -> Void

    var start: Hook?
    var stop: Hook?
}

/// A binding's hooks (a `LifecycleHooks<T>`), type-erased: while the binder records them, and in the
/// binding's node, which reads them as `LifecycleHooks<T>` only to start or stop its singleton.
@usableFromInline
final class AnyLifecycleHooks: Sendable {
    @usableFromInline let hooks: any Sendable

    @usableFromInline
    init<T>(_ hooks: LifecycleHooks<T>) {
        self.hooks = hooks
    }
}

/// What starting and stopping one built singleton does: its binding's hooks, or its ``ManagedService``
/// conformance, bound to the instance.
@usableFromInline
struct LifecycleActions: Sendable {
    typealias Action = @Sendable () async throws -> Void

    let key: BindingKey
    let start: Action?
    let stop: Action?
    /// The instance the actions come from, when they are its own (a ``ManagedService``, an adapter's)
    /// rather than its binding's hooks: one instance bound under two keys (a singleton and a delegation
    /// to it) starts and stops once.
    var instance: ObjectIdentifier?
}
