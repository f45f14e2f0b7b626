import Dispatch

/// A unit of work with its own instances of the ``Scope/scoped`` bindings: a request, a job, a session.
///
/// Create one per unit of work with ``Injector/makeScope()``, or let ``Injector/withScope(isolation:_:)``
/// create and close it around a closure:
///
/// ```swift
/// try await injector.withScope { scope in
///     let handler = try scope.get(JobHandler.self)   // its scoped dependencies belong to this scope
///     try await handler.run(job)
/// }   // the scope's Disposable instances are disposed here, newest first
/// ```
///
/// Requests made through a scope resolve like requests made through its injector, except that each
/// scoped binding is built once per scope (exactly once, even when several threads use the scope at the
/// same moment) and shared by every request of the scope. Singletons stay shared by all scopes; a
/// singleton never receives a scoped instance (that would be a captive dependency, and throws
/// ``ProvisionError/Code/captiveDependency``).
///
/// Closing the scope disposes the ``Disposable`` and ``AsyncDisposable`` instances it built, in reverse
/// creation order, exactly once; requests for scoped bindings through a closed scope throw
/// ``ProvisionError/Code/outsideScope``. A scoped instance still being built when the scope closes is
/// waited for and disposed with the others (see ``close()-5abpd``). A scope is cheap: one object with a
/// lock and a table, no thread, no task.
public final class ServiceScope: Sendable {
    /// The injector the scope resolves through.
    public let injector: Injector

    private struct State: Sendable {
        /// The cell of each scoped binding built (or being built) in this scope, by node: always an
        /// `InstanceCell<T>` for the `T` of the node it is stored under (see `cell(for:)`).
        var cells = IdentityTable<any AnyObject & Sendable>()
        /// Whether the scope is closed, the builds running, and the closers waiting for them.
        var builds = ScopeBuilds()
        /// The scoped instances built here that are to be disposed, in creation order. Recorded in the
        /// same critical section that ends the instance's build (see `endBuild(_:recording:identity:owner:)`).
        var disposals = DisposalRecord()
        /// The gates of this scope's instances being built, by cell (see ``GateHost``).
        var gates = IdentityTable<GateEntry>()
        /// Which close disposes, and the closes waiting for it.
        var closing = ScopeClosing()
    }

    /// Protects the cell table, the close handshake, the instances to dispose and the gates of the
    /// builds in flight; held for a table lookup, insert or removal and for the handshake's bookkeeping
    /// only, never while an instance is built or disposed, and never while anything waits. Only the
    /// scope's own requests take it: requests in other scopes share no lock with them. No other lock is
    /// taken under it but the injector's drain waiters' (a leaf), when a build is refused during a
    /// shutdown (see ``GateHost``).
    private let state = Locked(State())

    /// The values the scope was opened with (``ScopeSeed``); never changed, so read without a lock.
    @usableFromInline let seeds: [ScopeSeed.Entry]

    init(injector: Injector, seeds: [ScopeSeed.Entry] = []) {
        self.injector = injector
        self.seeds = seeds
    }

    /// How this scope disposes `value`, and its identity: nothing to dispose when it belongs to someone
    /// else (see ``holdsElsewhere(_:)``, asked only of bindings that may hand instances on).
    private func disposal<T>(of value: T, _ classifier: DisposalClassifier<T>)
        -> (InstanceRecorder.Disposal?, ObjectIdentifier?)
    {
        let disposal = classifier.disposal(of: value)
        let identity = disposal.flatMap { classifier.identity(of: value, disposal: $0) }
        if classifier.mayHandOn, let identity, holdsElsewhere(identity) { return (nil, identity) }
        return (disposal, identity)
    }

    /// Whether an instance a scoped binding handed out belongs to someone else: a seed of this scope, a
    /// singleton or an instance binding's value of the injector or an ancestor. The scope then never
    /// disposes it. (Found by hunt 16: a scoped closure returning a singleton, an instance binding's value
    /// or a seed had it disposed at every close.)
    func holdsElsewhere(_ identity: ObjectIdentifier) -> Bool {
        seeds.contains { $0.identity == identity } || injector.holdsInChain(identity)
    }

    /// The value this scope was seeded with for `key`, a seed binding of `T`.
    ///
    /// - Throws: `outsideScope` when the scope is closed, `notSeeded` when it was opened without it.
    @inlinable
    func seed<T: Sendable>(_ key: BindingKey, as type: T.Type) throws(ProvisionError) -> T {
        // A few seeds per scope: a linear scan beats hashing the key.
        for entry in seeds where entry.key == key {
            guard !isClosed else { throw ProvisionError.outsideScope(key, closed: true) }
            // Every box stored under a key for `T` is a `SeedBox<T>` (see `ScopeSeed.provide`).
            return unsafeDowncast(entry.box, to: SeedBox<T>.self).value
        }
        throw ProvisionError.notSeeded(key, seeded: seeds.map(\.key))
    }

    /// Resolves `type` (optionally named) in this scope.
    ///
    /// - Parameters:
    ///   - type: The type to resolve; can be omitted where the context tells it.
    ///   - name: The binding's name; `nil` (the default) for the unnamed binding.
    /// - Returns: This scope's instance for a scoped binding; what the injector returns otherwise.
    /// - Throws: What ``Injector/get(_:named:)-6n1xw`` throws, and ``ProvisionError/Code/outsideScope`` when the
    ///   scope was closed.
    @inlinable
    public func get<T>(_ type: T.Type = T.self, named name: String? = nil) throws(ProvisionError) -> T {
        try injector.resolve(
            BindingKey(type, named: name),
            as: type,
            context: ResolutionContext(frame: nil, scope: self)
        )
    }

    /// Resolves `type` (optionally named) in this scope, awaiting async factories.
    ///
    /// - Parameters:
    ///   - type: The type to resolve; can be omitted where the context tells it.
    ///   - name: The binding's name; `nil` (the default) for the unnamed binding.
    /// - Returns: This scope's instance for a scoped binding; what the injector returns otherwise.
    /// - Throws: What ``Injector/get(_:named:)-6n1xw`` throws, and ``ProvisionError/Code/outsideScope`` when the
    ///   scope was closed.
    public func get<T>(_ type: T.Type = T.self, named name: String? = nil) async throws(ProvisionError) -> T {
        try await injector.resolveAsync(
            BindingKey(type, named: name),
            as: type,
            context: ResolutionContext(frame: nil, scope: self)
        )
    }

    /// Closes the scope: disposes the instances it built, newest first, awaiting ``AsyncDisposable``
    /// ones (each bounded by ``Injector/Configuration/lifecycleHookTimeout``). Only the first close
    /// disposes: a later one, also one racing it from another task or thread, returns once the first has
    /// disposed everything (waiting for at most ``Injector/Configuration/lifecycleHookTimeout``), and
    /// throws nothing.
    ///
    /// From the moment `close()` begins, requests for scoped bindings through the scope throw
    /// ``ProvisionError/Code/outsideScope``. Scoped instances that other tasks or threads are still
    /// building are waited for (suspending, for at most ``Injector/Configuration/lifecycleHookTimeout``)
    /// and disposed with the others, while their requests still receive them. A build that ends after
    /// the scope stopped waiting disposes its own instance, and its request throws
    /// ``ProvisionError/Code/outsideScope``: every instance the scope built is disposed exactly once.
    ///
    /// - Throws: ``ProvisionError/Code/stopFailed`` listing every disposal that threw or timed out; every
    ///   other instance was still disposed.
    public func close() async throws(ProvisionError) {
        let timeout = injector.configuration.lifecycleHookTimeout
        switch state.withLock({ $0.closing.enter(ExecutionIdentity.current) }) {
        case .done:
            return
        case .waiter:
            // Another close is disposing: return once it has (bounded like a disposal).
            let waiter = SuspendedWaiter()
            await waiter.wait(timeout: timeout) { waiter in
                state.withLock { $0.closing.wait { waiter.resume(.woken) } }
            }
            return
        case .disposer:
            break
        }
        defer { finishClosing() }
        let instances = closeOrDrain()
        if instances == nil {
            // The builds of the closing task itself (a factory that awaits the close of its own scope)
            // can't end before the close does: they are not waited for, and dispose their own instances.
            let me = ExecutionIdentity.current
            let waiter = SuspendedWaiter()
            await waiter.wait(timeout: timeout) { waiter in
                let closer = ScopeBuilds.Closer(id: ObjectIdentifier(waiter), exempt: me) {
                    waiter.resume(.woken)
                }
                return state.withLock { $0.builds.wait(closer) }
            }
            // Timed out, or the closing task was cancelled: stop waiting; the builds still running
            // dispose their own instances when their recording is refused.
            if waiter.outcome != .woken {
                state.withLock { $0.builds.stopWaiting(ObjectIdentifier(waiter)) }
            }
        }
        let failures = await Disposer.dispose(instances ?? drain(), timeout: timeout)
        if !failures.isEmpty {
            throw ProvisionError.stopFailed(failures, while: "closing a scope")
        }
    }

    /// Closes the scope without awaiting: disposes the ``Disposable`` instances it built, newest first.
    ///
    /// Like `await close()`, it waits for the scoped instances other threads are still building (blocking
    /// the calling thread, for at most ``Injector/Configuration/lifecycleHookTimeout``) and disposes them
    /// too; it doesn't wait for builds running on its own thread (a factory closing its own scope), whose
    /// instances are disposed by their builds instead. A later close, also one racing it, waits for this
    /// one's disposal like `await close()` does.
    ///
    /// - Throws: ``ProvisionError/Code/stopFailed`` listing every disposal that threw, and every
    ///   ``AsyncDisposable`` instance, which only `await scope.close()` can dispose (they are left
    ///   undisposed).
    public func close() throws(ProvisionError) {
        switch state.withLock({ $0.closing.enter(ExecutionIdentity.current) }) {
        case .done:
            return
        case .waiter:
            // Another close is disposing: return once it has (bounded like a disposal).
            let semaphore = DispatchSemaphore(value: 0)
            if state.withLock({ $0.closing.wait { semaphore.signal() } }) {
                // A wake-up after the timeout signals a semaphore no one waits on: harmless.
                _ = semaphore.wait(timeout: .now() + injector.configuration.lifecycleHookTimeout.dispatchInterval)
            }
            return
        case .disposer:
            break
        }
        defer { finishClosing() }
        let instances = closeOrDrain()
        if instances == nil {
            // The builds of the closing thread itself can't end before the close does (see above).
            let thread = ExecutionIdentity.current
            let semaphore = DispatchSemaphore(value: 0)
            let closer = ScopeBuilds.Closer(id: ObjectIdentifier(semaphore), exempt: thread) { semaphore.signal() }
            let timeout = injector.configuration.lifecycleHookTimeout
            if state.withLock({ $0.builds.wait(closer) }),
                semaphore.wait(timeout: .now() + timeout.dispatchInterval) == .timedOut
            {
                // A wake-up that raced with the timeout signals a semaphore no one waits on: harmless.
                state.withLock { $0.builds.stopWaiting(closer.id) }
            }
        }
        let failures = Disposer.disposeSynchronously(instances ?? drain())
        if !failures.isEmpty {
            throw ProvisionError.stopFailed(failures, while: "closing a scope")
        }
    }

    /// Takes the instances to dispose, in recording order (``Disposer`` disposes them newest first): the
    /// first call gets them all, every later call none, and every build recording an instance after it
    /// is refused.
    /// Ends the first close: wakes the closes that waited for its disposal (with no lock held).
    private func finishClosing() {
        for wake in state.withLock({ $0.closing.finish() }) { wake() }
    }

    private func drain() -> [DisposalRecord.Entry] {
        state.withLock { $0.disposals.drain() }
    }

    /// Closes the scope and, when no build is running, takes the instances to dispose in the same
    /// critical section (no build can begin once the scope is closed, so nothing is recorded after);
    /// `nil` when builds are running: wait for them, then ``drain()``.
    private func closeOrDrain() -> [DisposalRecord.Entry]? {
        state.withLock { state in state.builds.close() ? nil : state.disposals.drain() }
    }

    /// Whether the scope was closed (or is closing).
    @usableFromInline
    var isClosed: Bool {
        state.withLock { $0.builds.isClosed }
    }

    /// The scope of a request for the scoped binding `key`.
    ///
    /// - Throws: `captiveDependency` when the request has no scope because a singleton is being built
    ///   above it, `outsideScope` when it was made outside any scope.
    @usableFromInline
    static func scope(of context: ResolutionContext, for key: BindingKey) throws(ProvisionError) -> ServiceScope {
        guard let scope = context.scope else {
            if let singleton = context.enclosingSingleton {
                throw ProvisionError.captiveDependency(
                    holder: singleton,
                    holderLifetime: .singleton,
                    captive: key,
                    captiveLifetime: .scoped,
                    path: [key]
                )
            }
            throw ProvisionError.outsideScope(key, closed: false)
        }
        return scope
    }

    /// The cell of the scoped binding `id` (a node of type `T`) in this scope.
    ///
    /// - Parameter cellType: `InstanceCell<T>.self`, which the node's plan looked up once when it was
    ///   linked: the plans are not specialized for `T`, and naming `InstanceCell<T>` here would look its
    ///   metadata up in the runtime's cache on every build (about 300 instructions).
    /// - Throws: `outsideScope` when the scope is closed.
    func cell<T>(
        for id: ObjectIdentifier,
        key: BindingKey,
        injector: Injector,
        as cellType: InstanceCell<T>.Type
    ) throws(ProvisionError) -> InstanceCell<T> {
        // No recorder: `build` records the instance, before the cell publishes it.
        let found = try cell(for: id, key: key) {
            cellType.init(key: key, injector: injector, recorder: nil, scope: self)
        }
        // Every cell stored under a node's identity was made above for that node's `T`.
        return unsafeDowncast(found, to: cellType)
    }

    /// The cell stored under `id`, or the one `make` makes (called under the lock: it only allocates).
    ///
    /// - Throws: `outsideScope` when the scope is closed.
    private func cell(
        for id: ObjectIdentifier,
        key: BindingKey,
        making make: () -> any AnyObject & Sendable
    ) throws(ProvisionError) -> AnyObject {
        let found = state.withLock { state -> AnyObject? in
            guard !state.builds.isClosed else { return nil }
            if let existing = state.cells[id] { return existing }
            let cell = make()
            state.cells[id] = cell
            return cell
        }
        guard let found else { throw ProvisionError.outsideScope(key, closed: true) }
        return found
    }

    /// Runs the build of this scope's instance of `key` (`make`, its factory, called by the holder of
    /// the instance's gate) as part of the close handshake, and records the instance for disposal.
    ///
    /// The build begins before `make` runs (refused with `outsideScope` when the scope is closed, so no
    /// factory runs for a closed scope) and ends after the instance was recorded, so a `close()` that
    /// began meanwhile waits for it and disposes it. If that close stopped waiting and drained the
    /// scope's instances before the build ended, recording is refused: the build disposes the instance
    /// itself and throws `outsideScope`, so that the cell publishes nothing and neither the request nor
    /// the requests waiting on the gate receive a disposed instance.
    ///
    /// - Parameters:
    ///   - owner: The building thread.
    ///   - classifier: How the binding's instances are disposed, decided when it was linked.
    func build<T>(
        _ key: BindingKey,
        owner: UInt,
        disposing classifier: DisposalClassifier<T>,
        using make: () throws(ProvisionError) -> T
    ) throws(ProvisionError) -> T {
        try beginBuild(key, owner: owner)
        let value: T
        do throws(ProvisionError) {
            value = try make()
        } catch {
            endBuild(key, recording: nil, identity: nil, owner: owner)
            throw error
        }
        let (disposal, identity) = disposal(of: value, classifier)
        guard endBuild(key, recording: disposal, identity: identity, owner: owner) else {
            throw refusedBuild(key, disposal: disposal)
        }
        return value
    }

    /// The error of a synchronous build whose instance the scope refused (it was drained meanwhile),
    /// once the instance is disposed: a synchronous build can't await an async disposal, which runs in
    /// a task of its own, bounded like every async disposal.
    private func refusedBuild(_ key: BindingKey, disposal: InstanceRecorder.Disposal?) -> ProvisionError {
        let failure = Disposer.disposeOrphan(disposal, key: key, timeout: injector.configuration.lifecycleHookTimeout)
        return ProvisionError.scopeClosedDuringBuild(key, disposal: failure)
    }

    /// Registers a build about to run its factory, or throws `outsideScope` when the scope is closed
    /// (no factory runs for a closed scope).
    private func beginBuild(_ key: BindingKey, owner: UInt) throws(ProvisionError) {
        guard state.withLock({ $0.builds.beginBuild(owner: owner) }) else {
            throw ProvisionError.outsideScope(key, closed: true)
        }
    }

    /// Records a built instance, then ends its build, in one critical section, and wakes the closers that
    /// waited for it (with no lock held). A `nil` disposal (nothing to dispose, or the factory threw)
    /// records nothing.
    ///
    /// - Returns: `false` when the recording was refused (the close stopped waiting): the caller disposes
    ///   the instance.
    @discardableResult
    private func endBuild(
        _ key: BindingKey,
        recording disposal: InstanceRecorder.Disposal?,
        identity: ObjectIdentifier?,
        owner: UInt
    ) -> Bool {
        let (recorded, woken) = state.withLock { state in
            (
                state.disposals.record(key, disposal: disposal, identity: identity, keepsAll: false),
                state.builds.endBuild(owner: owner)
            )
        }
        for wake in woken { wake() }
        return recorded
    }

    /// ``build(_:owner:disposing:using:)`` for an async build; a refused instance's disposal is awaited.
    ///
    /// - Parameters:
    ///   - owner: The identity of the async resolution.
    ///   - classifier: How the binding's instances are disposed, decided when it was linked.
    func buildAsync<T>(
        _ key: BindingKey,
        owner: UInt,
        disposing classifier: DisposalClassifier<T>,
        using make: () async throws(ProvisionError) -> T
    ) async throws(ProvisionError) -> T {
        try beginBuild(key, owner: owner)
        let value: T
        do throws(ProvisionError) {
            value = try await make()
        } catch {
            endBuild(key, recording: nil, identity: nil, owner: owner)
            throw error
        }
        let (disposal, identity) = disposal(of: value, classifier)
        guard endBuild(key, recording: disposal, identity: identity, owner: owner) else {
            var failure: ProvisionError?
            if let disposal {
                let timeout = injector.configuration.lifecycleHookTimeout
                let entry = DisposalRecord.Entry(key: key, disposal: disposal)
                failure = await Disposer.dispose([entry], timeout: timeout).first
            }
            throw ProvisionError.scopeClosedDuringBuild(key, disposal: failure)
        }
        return value
    }
}

extension ServiceScope: GateHost {
    func withGates<R>(_ body: (inout IdentityTable<GateEntry>) -> R) -> R {
        state.withLock { state in body(&state.gates) }
    }
}
