import Dispatch
public import Synchronization

/// Resolves a `T` the first time its ``value`` is read, then returns that same instance.
///
/// Inject `Lazy<T>` for a dependency that is expensive and not always needed, or to break a
/// construction cycle (nothing is resolved until ``value`` is read):
///
/// ```swift
/// final class ReportService: Sendable {
///     let renderer: Lazy<PDFRenderer>
///     init(renderer: Lazy<PDFRenderer>) { self.renderer = renderer }
///
///     func export() throws -> Data { try renderer.value.render() }
/// }
/// ```
///
/// Each injected `Lazy` resolves its value at most once, even when several threads read it at the same
/// time: the first reader resolves it (with no lock held) and the others wait for that read and get its
/// outcome. If the read fails, the readers that waited for it get its error, and the next read tries
/// again; a read that failed because its own task was cancelled is not passed on: its waiters read
/// again. Like ``Provider``, a lazy handle refers to its injector weakly and resolves in the injector
/// that created it, and in the ``ServiceScope`` it was created in, if any: a `Lazy<Customer>` held by a
/// scoped service reads that scope's customer. A binding with arguments is resolved with its defaults;
/// ``Provider/lazy(arguments:)`` makes a handle that resolves it from given arguments.
///
/// Reading a handle while that same handle is resolving its value on the same thread — from the
/// initializer or factory of `T`, or from anything they build — is a ``ProvisionError/Code/cycle``
/// error, never a deadlock.
public final class Lazy<T: Sendable>: Sendable {
    private enum State: Sendable {
        case unresolved
        /// A read of a target that is not a singleton is in flight on thread `owner`. `gate` is what the
        /// `waiting` threads wait on, made by the first of them: a read nobody waits for allocates
        /// nothing.
        case reading(owner: UInt, gate: LazyGate<T>?, waiting: Int)
        case resolved(T)
    }

    /// What a reader does next, decided under the lock.
    private enum Step {
        case done(T)
        case wait(LazyGate<T>)
        case read
        /// The reading thread is already resolving this handle's value, further up its own stack.
        case reentered
    }

    /// The resolved value, published once as a tagged word (see ``PublishedValue/taggedWord(_:)``) when
    /// the state becomes `resolved`, with the state's lock held; 0 before. A read of a resolved handle is
    /// this one acquiring load and a test of the word's tag.
    @usableFromInline let published = Atomic<UInt>(0)

    private let provider: Provider<T>
    /// For a handle made by ``Provider/lazy(arguments:)``: resolves the value from those arguments.
    private let resolveWithArguments: (@Sendable () throws(ProvisionError) -> T)?
    /// Protects the state; held for bookkeeping only, never while the value is resolved or a reader
    /// waits, and no other lock is taken under it.
    private let state = Locked<State>(.unresolved)

    init(provider: Provider<T>, resolve: (@Sendable () throws(ProvisionError) -> T)? = nil) {
        self.provider = provider
        self.resolveWithArguments = resolve
    }

    deinit {
        PublishedValue<T>.releaseTagged(published)
    }

    /// The value, resolved on first access.
    ///
    /// - Throws: ``ProvisionError``: what resolving the value throws (the next read tries again);
    ///   ``ProvisionError/Code/cycle`` when the handle is read while it is resolving its own value on
    ///   the same thread; ``ProvisionError/Code/timedOut`` when another thread's read of the handle took
    ///   longer than ``Injector/Configuration/singletonWaitTimeout``; or
    ///   ``ProvisionError/Code/injectorReleased`` when the injector is gone.
    @inlinable
    public var value: T {
        get throws(ProvisionError) {
            if let value = PublishedValue<T>.loadTagged(published) { return value }
            return try resolveValue()
        }
    }

    /// The first reads of ``value``, until one of them resolves it.
    @usableFromInline
    func resolveValue() throws(ProvisionError) -> T {
        if case .resolved(let value) = state.withLock({ $0 }) { return value }
        // A handle read while its value's own graph is built (from an initializer) recurses like a
        // dependency, but outside the plans, and a transient's every build makes a new handle, which its
        // own re-entry check can't see: check the stack here, like `Provider.get`.
        try StackGuard.check(provider.key)
        return try read(in: provider.injector.injector(for: provider.key))
    }

    /// Makes `value` the handle's value: the state's lock is held and the state was not `resolved`.
    private func resolve(_ state: inout State, to value: T) {
        state = .resolved(value)
        published.store(PublishedValue<T>.taggedWord(value), ordering: .releasing)
    }

    /// How many threads wait for the read in flight (0 when none is), for tests.
    var waitingReaders: Int {
        state.withLock { state in
            guard case .reading(_, _, let waiting) = state else { return 0 }
            return waiting
        }
    }

    /// The slow path of ``value``. The injector is an argument so that it stays alive while the nodes
    /// (which refer to it unowned) resolve.
    private func read(in injector: Injector) throws(ProvisionError) -> T {
        let key = provider.key
        let node = try injector.node(unbound: key, as: T.self)
        // The value: from the handle's arguments (a Provider request, in the handle's scope), or the
        // binding's own (its defaults, for a binding with arguments), in the scope the handle was made
        // in, if any (see WeakInjector).
        let withArguments = resolveWithArguments
        let handle = provider.injector
        let resolve = { () throws(ProvisionError) -> T in
            if let withArguments { return try withArguments() }
            return try handle.inScope { context throws(ProvisionError) -> T in try node.resolve(context) }
        }
        guard node.cell == nil else {
            // A singleton (or instance) binding needs no gate of its own: the singleton's gate builds it
            // once, catches a read that re-enters its build, and puts waits in the waits-for graph.
            let value = try resolve()
            state.withLock { state in
                if case .unresolved = state { self.resolve(&state, to: value) }
            }
            return value
        }
        let thread = ExecutionIdentity.current
        while true {
            let step = state.withLock { state -> Step in
                switch state {
                case .resolved(let value):
                    return .done(value)
                case .reading(let owner, let gate, let waiting):
                    // A thread finding its own read in flight re-entered it: waiting would be forever.
                    if owner == thread { return .reentered }
                    let gate = gate ?? LazyGate<T>(owner: owner)
                    state = .reading(owner: owner, gate: gate, waiting: waiting + 1)
                    return .wait(gate)
                case .unresolved:
                    state = .reading(owner: thread, gate: nil, waiting: 0)
                    return .read
                }
            }
            switch step {
            case .done(let value):
                return value
            case .reentered:
                throw ProvisionError.lazyReentered(key)
            case .wait(let gate):
                if let outcome = try gate.wait(for: key, timeout: injector.configuration.singletonWaitTimeout) {
                    return try outcome.get()
                }
            case .read:
                let result: Result<T, ProvisionError>
                do throws(ProvisionError) {
                    result = .success(try resolve())
                } catch {
                    result = .failure(error)
                }
                // Only this reader leaves the `reading` state, so it is still there.
                let (gate, waiting) = state.withLock { state -> (LazyGate<T>?, Int) in
                    guard case .reading(_, let gate, let waiting) = state else { return (nil, 0) }
                    switch result {
                    case .success(let value): self.resolve(&state, to: value)
                    case .failure: state = .unresolved
                    }
                    return (gate, waiting)
                }
                // A failure that is this reader's own cancellation is not passed on: the waiters, not
                // cancelled, read again (as a singleton's waiters build again; see `isOwnCancellation`).
                if case .failure(let error) = result, error.isOwnCancellation {
                    gate?.finish(nil, waking: waiting)
                } else {
                    gate?.finish(result, waking: waiting)
                }
                return try result.get()
            }
        }
    }
}

/// What the other readers of a ``Lazy`` handle wait on while one thread reads its value: made by the first
/// of them, for that one read.
///
/// Each read has its own gate and outcome, so a reader always gets the outcome of the read it waited
/// for — never an earlier read's error — except the reader's own cancellation, after which the waiters
/// read again. A wait is bounded by
/// ``Injector/Configuration/singletonWaitTimeout``; it is not in the waits-for graph of singleton gates
/// (see `WaitGraph`), which could take it in with the gate's ``owner`` as the thread it waits for.
final class LazyGate<T: Sendable>: Sendable {
    /// The thread reading the value.
    let owner: UInt
    /// Signalled once per waiting reader when the read ends.
    private let semaphore = DispatchSemaphore(value: 0)
    /// Written once by the reader before it signals, read by each waiter after it wakes. The mutex orders
    /// the write before the reads for every thread (and for ThreadSanitizer).
    private let outcome = Locked<Result<T, ProvisionError>?>(nil)

    init(owner: UInt) {
        self.owner = owner
    }

    /// Records the read's outcome (`nil`: the waiters read again), then wakes the `waiters` readers
    /// registered on the gate.
    func finish(_ result: Result<T, ProvisionError>?, waking waiters: Int) {
        outcome.withLock { $0 = result }
        for _ in 0..<waiters { semaphore.signal() }
    }

    /// Waits until the read ends (at most `timeout`).
    ///
    /// - Returns: The read's outcome, or `nil` when it has none (read again).
    /// - Throws: `timedOut` when the time was up first (the reader's later signal is then left unused).
    func wait(for key: BindingKey, timeout: Duration?) throws(ProvisionError) -> Result<T, ProvisionError>? {
        if let timeout {
            if semaphore.wait(timeout: .now() + timeout.dispatchInterval) == .timedOut {
                throw ProvisionError.timedOut(key, after: timeout)
            }
        } else {
            semaphore.wait()
        }
        return outcome.withLock { $0 }
    }
}

extension Lazy: SyntheticDependency {
    static func syntheticRecipe(for key: BindingKey) -> Any {
        let target = BindingKey(T.self, named: key.name)
        return Recipe<Lazy<T>>(
            dependencies: .deferred([target]),
            link: { pass, node in
                guard case .sync = pass else { return .noForm }
                let injector = WeakInjector(node.injector)
                // A new handle per injection: each dependent resolves its own value once, in the scope
                // the handle was made in, if any (see WeakInjector).
                return .sync(
                    Plan { context in Lazy(provider: Provider(injector: injector.scoped(in: context), key: target)) }
                )
            },
            instance: nil
        )
    }
}
