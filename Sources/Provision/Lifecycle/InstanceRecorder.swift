/// The instances an owner (an injector's singletons, or one scope's scoped instances) built, in the
/// order they were built: for disposal in reverse creation order, and for the injector's lifecycle.
///
/// Its lock protects only its ``DisposalRecord`` (the list and the drained flag). It is taken when a
/// builder records an instance (holding no other lock) and when the owner drains the list; no user code
/// runs under it. A ``ServiceScope`` keeps its record in its own state instead, under the lock of its
/// close handshake, so that recording an instance and ending its build are one critical section.
@usableFromInline
final class InstanceRecorder: Sendable {
    /// How to dispose one recorded instance.
    @usableFromInline
    enum Disposal: Sendable {
        case sync(any Disposable)
        case async(any AsyncDisposable)

        /// How to dispose `value`, or `nil` when it is neither ``Disposable`` nor ``AsyncDisposable``.
        /// Values reaching here are `Sendable` (singleton and scoped bindings require it), which the
        /// casts rely on.
        /// Inlinable so that a specialized caller decides the casts at compile time.
        @inlinable
        init?<T>(of value: T) {
            if let disposable = value as? any Disposable {
                self = .sync(disposable)
            } else if let disposable = value as? any AsyncDisposable {
                self = .async(disposable)
            } else {
                return nil
            }
        }

        /// The identity of the instance disposed, when it is an object (see `DisposalRecord.record`).
        var identity: ObjectIdentifier? {
            switch self {
            case .sync(let disposable): InstanceIdentity.of(disposable)
            case .async(let disposable): InstanceIdentity.of(disposable)
            }
        }
    }

    /// Whether every instance is recorded (an injector's singletons, whose creation order the lifecycle
    /// uses), or only those to dispose (a scope's).
    private let recordsAll: Bool
    private let state = Locked(DisposalRecord())

    init(recordsAll: Bool) {
        self.recordsAll = recordsAll
    }

    /// Records a singleton `injector` built, unless the recorder was drained already, and unless the
    /// instance belongs to someone else: the caller (an instance binding's value, handed on by a closure
    /// binding), or an ancestor of `injector` that built it (a child's closure returning its parent's
    /// singleton; a derived injector's, its original's). Such an instance is recorded for its creation
    /// order only and never disposed here. (Found by hunt 16: each was disposed by the injector that only
    /// handed it on.)
    ///
    /// - Returns: `.refused` when the recorder was drained: the owner has disposed what it built and will
    ///   never dispose `value`, so the caller must, with the disposal it carries (`nil`: nothing to
    ///   dispose), and must not hand `value` out.
    func record<T>(_ key: BindingKey, _ value: T, in injector: Injector) -> Recording {
        // Worked out before any lock is taken: for a value of a protocol type, dynamic casts. Once per
        // singleton.
        var disposal = Disposal(of: value)
        let identity = InstanceIdentity.of(value)
        if disposal != nil, let identity, injector.holdsElsewhere(identity) { disposal = nil }
        return state.withLock { state in
            if state.record(key, disposal: disposal, identity: identity, keepsAll: recordsAll) { return .recorded }
            // Refused: an instance the owner built (or holds) itself, handed on by this build, is the
            // owner's, disposed by its drain already. (Found by hunt 19: disposed a second time.)
            if let identity, state.holds(identity) { return .refused(nil) }
            return .refused(disposal)
        }
    }

    /// What ``record(_:_:in:)`` did with an instance.
    enum Recording {
        /// Recorded: the owner disposes it.
        case recorded
        /// Refused, the recorder being drained: the caller disposes it (`nil`: nothing to dispose).
        case refused(Disposal?)
    }

    /// Records an instance binding's value as the caller's (see ``DisposalRecord/callerOwned``).
    func recordCallerOwned<T>(_ value: T) {
        guard let identity = InstanceIdentity.of(value) else { return }
        state.withLock { $0.recordCallerOwned(identity) }
    }

    /// Whether the recorder's injector built the instance, or holds it for the caller.
    func holds(_ identity: ObjectIdentifier) -> Bool {
        state.withLock { $0.holds(identity) }
    }

    /// Whether the instance is one of the caller's (an instance binding's value).
    func holdsForCaller(_ identity: ObjectIdentifier) -> Bool {
        state.withLock { $0.callerOwned.contains(identity) }
    }

    /// The keys recorded so far, in creation order.
    var creationOrder: [BindingKey] {
        state.withLock { $0.entries.map(\.key) }
    }

    /// Takes the recorded instances, in recording order (``Disposer`` disposes them newest first); the
    /// first call gets them all and every later call none, so each instance is disposed exactly once.
    /// Every later ``record(_:_:)`` is refused.
    func drain() -> [DisposalRecord.Entry] {
        state.withLock { $0.drain() }
    }
}
