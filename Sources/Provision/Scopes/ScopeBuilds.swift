/// The close handshake of a ``ServiceScope``, as a value: whether the scope is closed, which builds of
/// its instances are running, and the closers waiting for them to end.
///
/// A build of a scoped instance *begins* before its factory runs and *ends* after its instance was
/// recorded for disposal (or refused). Closing marks the scope closed and, if builds are running,
/// registers the closer to be woken when the last of them ends (in a second step, so that a close with
/// nothing to wait for allocates nothing; the registration checks again). The scope applies every transition under
/// its lock, so the two sides always see each other: a build that begins after the scope closed is
/// refused before its factory runs, and a close that finds a build running waits for it.
///
/// Builds are counted per *owner* (the thread of a synchronous build, the identity of an async
/// resolution) so that a closer can leave out the builds of its own thread: a factory that closes its
/// own scope can't wait for its own build to end.
struct ScopeBuilds: Sendable {
    /// A close waiting for the builds of the scope to end.
    struct Closer: Sendable {
        /// Identifies the closer, to withdraw it when it stops waiting (see ``stopWaiting(_:)``).
        let id: ObjectIdentifier
        /// The owner whose builds the closer doesn't wait for (its own thread), if any.
        let exempt: UInt?
        /// Wakes the closer. Called after the scope's lock is released.
        let wake: @Sendable () -> Void
    }

    /// Whether the scope is closed: no build begins any more.
    private(set) var isClosed = false
    /// The builds running, by owner: almost always of one owner at a time, so the first owner's count
    /// is kept inline (no allocation per scope), and any other owner's in `others`, which holds no
    /// owner with none. An owner can have builds in both at once (it began one while another owner
    /// held the inline slot); what counts is the total per owner.
    private var inlineOwner: UInt = 0
    private var inlineCount = 0
    private var others: [UInt: Int] = [:]
    /// The closers waiting for builds to end.
    private var closers: [Closer] = []

    /// Registers a build about to run its factory, or returns `false` when the scope is closed.
    mutating func beginBuild(owner: UInt) -> Bool {
        guard !isClosed else { return false }
        if inlineCount == 0 {
            inlineOwner = owner
            inlineCount = 1
        } else if inlineOwner == owner {
            inlineCount += 1
        } else {
            others[owner, default: 0] += 1
        }
        return true
    }

    /// Ends a build registered by ``beginBuild(owner:)``.
    ///
    /// - Returns: The closers that no longer wait for any build, withdrawn: wake each once, after the
    ///   lock is released.
    mutating func endBuild(owner: UInt) -> [@Sendable () -> Void] {
        if inlineCount > 0 && inlineOwner == owner {
            inlineCount -= 1
        } else if let count = others[owner] {
            others[owner] = count > 1 ? count - 1 : nil
        }
        guard !closers.isEmpty else { return [] }
        var woken: [@Sendable () -> Void] = []
        var waiting: [Closer] = []
        for closer in closers {
            if buildsEnded(exempting: closer.exempt) {
                woken.append(closer.wake)
            } else {
                waiting.append(closer)
            }
        }
        closers = waiting
        return woken
    }

    /// Closes the scope.
    ///
    /// - Returns: Whether builds are running: the closer must then register with ``wait(_:)`` (which
    ///   leaves out its own builds, and returns `false` when only those run); otherwise it can go on at
    ///   once. The closer's identity is only needed then, so a close with nothing running doesn't look
    ///   it up.
    mutating func close() -> Bool {
        isClosed = true
        return !buildsEnded(exempting: nil)
    }

    /// Registers a closer to be woken when the builds it waits for end.
    ///
    /// - Returns: `true` when it was registered and must wait until it is woken (or give up and
    ///   withdraw with ``stopWaiting(_:)``); `false` when those builds ended meanwhile.
    mutating func wait(_ closer: Closer) -> Bool {
        guard !buildsEnded(exempting: closer.exempt) else { return false }
        closers.append(closer)
        return true
    }

    /// Withdraws a closer that stopped waiting (its time was up); it won't be woken.
    mutating func stopWaiting(_ id: ObjectIdentifier) {
        closers.removeAll { $0.id == id }
    }

    /// Whether every running build belongs to `owner`.
    private func buildsEnded(exempting owner: UInt?) -> Bool {
        (inlineCount == 0 || inlineOwner == owner) && others.keys.allSatisfy { $0 == owner }
    }
}
