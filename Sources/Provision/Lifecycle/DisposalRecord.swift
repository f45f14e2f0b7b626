/// The instances an owner built, in the order they were built, and whether the owner has drained them
/// for disposal: the state of an ``InstanceRecorder``, and part of a ``ServiceScope``'s state, each
/// kept behind its owner's lock.
///
/// Recording and draining are atomic with respect to each other under that lock: an instance recorded
/// before the drain is handed to the drain (and disposed by the owner), and a recording attempted
/// after it is refused, so the builder knows it must dispose the instance itself. Either way it is
/// disposed exactly once.
struct DisposalRecord: Sendable {
    /// One recorded instance.
    struct Entry: Sendable {
        let key: BindingKey
        let disposal: InstanceRecorder.Disposal?
        /// The disposed instance's identity, when it is an object (see ``record(_:disposal:keepsAll:)``).
        var identity: ObjectIdentifier?
    }

    /// The recorded instances, oldest first.
    private(set) var entries: [Entry] = []
    /// Whether the owner drained the record: every later recording is refused.
    private(set) var isDrained = false
    /// For a record that keeps all (an injector's): the identities of every instance recorded, disposable
    /// or not, that is everything its owner built (see ``holds(_:)``). A scope's record keeps none.
    private(set) var built: Set<ObjectIdentifier> = []
    /// The identities of the values of an injector's instance bindings: the caller's, never disposed, by
    /// this record or by a scope or child whose binding hands them on.
    private(set) var callerOwned: Set<ObjectIdentifier> = []

    /// Records a built instance, unless the record was drained already.
    ///
    /// - Parameters:
    ///   - keepsAll: Whether an instance with nothing to dispose is kept too (for its creation order).
    /// - Returns: `false` when the record was drained: the owner will never dispose the instance, so
    ///   the caller must (and must not hand it out as the owner's).
    ///   - identity: The instance's identity when it is an object (`disposal?.identity`, which the caller
    ///     works out before it takes the lock, or knows from the binding's type).
    mutating func record(
        _ key: BindingKey,
        disposal: InstanceRecorder.Disposal?,
        identity: ObjectIdentifier?,
        keepsAll: Bool
    ) -> Bool {
        guard !isDrained else { return false }
        // One instance bound under two keys (a singleton and a delegation to it, each with a scope) is
        // disposed once. A linear search, of the few instances with an identity that a scope records.
        var duplicate = false
        if let identity {
            // An injector's record keeps every identity; a scope's, few, searches its entries.
            duplicate = keepsAll ? !built.insert(identity).inserted : entries.contains { $0.identity == identity }
        }
        let disposal = duplicate ? nil : disposal
        if disposal != nil || keepsAll {
            entries.append(Entry(key: key, disposal: disposal, identity: disposal == nil ? nil : identity))
        }
        return true
    }

    /// The recorded instances, oldest first, for disposal: the first call gets them all and every later
    /// call none. Every later ``record(_:disposal:identity:keepsAll:)`` is refused. The entries stay readable
    /// (``entries``: an injector's creation order outlives its shutdown).
    /// Records the identity of an instance binding's value (see ``callerOwned``).
    mutating func recordCallerOwned(_ identity: ObjectIdentifier) {
        callerOwned.insert(identity)
    }

    /// Whether the record's owner built the instance, or holds it for the caller.
    func holds(_ identity: ObjectIdentifier) -> Bool {
        built.contains(identity) || callerOwned.contains(identity)
    }

    mutating func drain() -> [Entry] {
        guard !isDrained else { return [] }
        isDrained = true
        return entries
    }
}
