/// The instances an owner (an injector's singletons, or one scope's scoped instances) built, in the
/// order they were built: for disposal in reverse creation order, and for the injector's lifecycle.
///
/// Its lock protects only the list. It is taken after an instance is published (by the builder,
/// holding no other lock) and when the owner drains the list; no user code runs under it.
final class InstanceRecorder: Sendable {
    /// How to dispose one recorded instance.
    enum Disposal: Sendable {
        case sync(any Disposable)
        case async(any AsyncDisposable)
    }

    struct Entry: Sendable {
        let key: BindingKey
        let disposal: Disposal?
    }

    private struct State: Sendable {
        var entries: [Entry] = []
        var drained = false
    }

    /// Whether every instance is recorded (an injector's singletons, whose creation order the lifecycle
    /// uses), or only those to dispose (a scope's).
    private let recordsAll: Bool
    private let state = Locked(State())

    init(recordsAll: Bool) {
        self.recordsAll = recordsAll
    }

    /// Records a built instance. Values of `T` reaching here are `Sendable` (singleton and scoped
    /// bindings require it), which the casts below rely on.
    func record<T>(_ key: BindingKey, _ value: T) {
        let disposal: Disposal? =
            if let disposable = value as? any Disposable {
                .sync(disposable)
            } else if let disposable = value as? any AsyncDisposable {
                .async(disposable)
            } else {
                nil
            }
        guard disposal != nil || recordsAll else { return }
        state.withLock { $0.entries.append(Entry(key: key, disposal: disposal)) }
    }

    /// The keys recorded so far, in creation order.
    var creationOrder: [BindingKey] {
        state.withLock { $0.entries.map(\.key) }
    }

    /// Takes the instances to dispose, newest first; the first call gets them all and every later call
    /// none, so each instance is disposed exactly once.
    func drain() -> [(key: BindingKey, disposal: Disposal)] {
        let entries = state.withLock { state -> [Entry] in
            guard !state.drained else { return [] }
            state.drained = true
            return state.entries
        }
        return entries.reversed().compactMap { entry in entry.disposal.map { (entry.key, $0) } }
    }
}
