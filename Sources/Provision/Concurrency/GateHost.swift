/// Where the gates of the builds in flight are kept, and the lock that protects them.
///
/// - A singleton's gate is kept by the ``RegistryStripe`` its key hashes to: every request of the
///   injector may build it, so they all go through the stripe's lock.
/// - A scoped instance's gate is kept by its ``ServiceScope``: only the requests of that scope build
///   it, so they go through the scope's own lock. Requests in different scopes (a server's requests)
///   then share no lock at all when they build their scoped instances. When they shared a stripe's,
///   two requests building the same scoped binding at once contended for it, and a thread of Swift's
///   cooperative pool that found it held slept in the kernel until its holder (perhaps preempted, on a
///   busy machine) released it.
///
/// The lock is held only to look up, install, update or remove an entry: never while a factory runs,
/// never while anyone waits. Under it the injector's count of builds in flight may be updated (atomics)
/// and, while a shutdown drains it, the shutdown woken (see `InjectorLifecycle.endBuild()`, a leaf
/// lock): no lock of a stripe or a scope is ever taken under another.
protocol GateHost: AnyObject, Sendable {
    /// Runs `body` with the host's lock held and exclusive access to its table of gates, keyed by the
    /// identity of the cell being built.
    func withGates<R>(_ body: (inout IdentityTable<GateEntry>) -> R) -> R
}

extension RegistryStripe: GateHost {
    func withGates<R>(_ body: (inout IdentityTable<GateEntry>) -> R) -> R {
        withState { state in body(&state.gates) }
    }
}
