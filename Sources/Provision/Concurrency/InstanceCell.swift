public import Synchronization

/// A write-once slot for a singleton's instance (or a scoped instance in one ``ServiceScope``), read with
/// one acquiring load and no lock.
///
/// The instance is published with one atomic store of a retained object's address (see
/// ``PublishedValue``): the instance itself when `T` is a class, a box holding it otherwise. The cell
/// retains that object from publication until it is released.
@usableFromInline
final class InstanceCell<T> {
    /// The published object's address (see ``PublishedValue``), 0 until published.
    @usableFromInline let box = Atomic<UInt>(0)

    /// The key of the singleton binding this cell belongs to.
    @usableFromInline let key: BindingKey

    /// The injector whose registry holds this key's gate. Unowned and unchecked, like `Node.injector`:
    /// the injector owns the node, which owns the cell (a scope's cells are owned by the scope, which
    /// holds the injector); a plan only runs while its injector is held.
    @usableFromInline unowned(unsafe) let injector: Injector

    /// Where a built instance is recorded, in creation order, for disposal and for the lifecycle: the
    /// injector's record for singletons. `nil` for a scoped instance, which its ``ServiceScope`` records
    /// while the build is still running (see `ServiceScope.build`), so that a scope closed meanwhile
    /// refuses it before it is published.
    @usableFromInline let recorder: InstanceRecorder?

    /// The scope whose instance the cell holds, for a scoped binding; `nil` for a singleton. The scope
    /// keeps the gate of the cell's build (see ``GateHost``). Unowned and unchecked: the scope owns its
    /// cells, and a cell is built only by a plan that holds the scope (its request's).
    unowned(unsafe) let scope: ServiceScope?

    /// The node of the singleton binding whose cell this is, which mirrors the published word (see
    /// `Node.instance`); `nil` for a scoped instance's cell. Unowned and unchecked: the node owns the
    /// cell.
    @usableFromInline unowned(unsafe) let node: Node<T>?

    /// Whether the instance was given when the binding was declared (an instance binding).
    @usableFromInline private(set) var isPrebuilt = false

    @usableFromInline
    init(
        key: BindingKey,
        injector: Injector,
        recorder: InstanceRecorder?,
        scope: ServiceScope? = nil,
        node: Node<T>? = nil
    ) {
        self.key = key
        self.injector = injector
        self.recorder = recorder
        self.scope = scope
        self.node = node
    }

    /// Whether the cell holds a singleton (whose build leaves any scope behind) or a scoped instance.
    var isScoped: Bool {
        scope != nil
    }

    /// Where the gate of the cell's build is kept: its scope for a scoped instance, the registry stripe
    /// of its key for a singleton.
    var gateHost: any GateHost {
        if let scope { return scope }
        return injector.registry.stripe(for: key)
    }

    deinit {
        PublishedValue<T>.release(box)
    }

    /// The published instance, or `nil` while it is not built.
    @inlinable var value: T? {
        PublishedValue<T>.load(box)
    }

    /// The address of the published object (see ``PublishedValue``), or `nil` while the instance is not
    /// built. For the plans that are not specialized for `T`: unlike ``value``, a miss makes no
    /// `Optional<T>` (whose metadata an unspecialized caller looks up at run time, about 300
    /// instructions).
    @usableFromInline var publishedAddress: UnsafeRawPointer? {
        UnsafeRawPointer(bitPattern: box.load(ordering: .acquiring))
    }

    /// Records a built instance (when the cell has a recorder), then publishes it. Called once, by the
    /// thread holding the cell's gate, which is the only writer.
    ///
    /// Recorded first: once published, other threads can build (and record) instances that depend on
    /// it, and disposal runs in reverse recording order, so a dependency must be recorded before
    /// anything can see it. (Found by the perturbed stress run: disposal in the wrong order.)
    ///
    /// - Returns: `nil` once published; the error to fail the build with when the recorder refused the
    ///   instance (the injector shut down and stopped waiting for this build before it ended): the
    ///   instance is then disposed here, and never published or handed out. (Found by hunt 18: such an
    ///   instance was handed out live and never disposed.)
    func publish(_ value: T) -> ProvisionError? {
        // A delegation whose target keeps its instances records nothing: the target disposes its own.
        if let recorder, node?.options?.sharesTargetInstances.load(ordering: .acquiring) != true,
            case .refused(let disposal) = recorder.record(key, value, in: injector)
        {
            return refusedBuild(disposal)
        }
        store(PublishedValue<T>.retainedWord(value))
        return nil
    }

    /// Disposes an instance whose recording was refused (see ``Disposer/disposeOrphan(_:key:timeout:)``),
    /// and returns the error its build fails with.
    private func refusedBuild(_ disposal: InstanceRecorder.Disposal?) -> ProvisionError {
        _ = Disposer.disposeOrphan(disposal, key: key, timeout: injector.configuration.lifecycleHookTimeout)
        return ProvisionError.shutDown(key)
    }

    /// Publishes an instance binding's value, before the cell is shared with any other thread. The value
    /// was made by the caller, so it is not recorded for disposal.
    @usableFromInline
    func prebuild(_ value: T) {
        isPrebuilt = true
        // The caller's: a closure binding that hands it on doesn't make it this injector's to dispose.
        recorder?.recordCallerOwned(value)
        store(PublishedValue<T>.retainedWord(value))
    }

    /// Publishes `word` in the cell, then in its node (see ``node``).
    private func store(_ word: UInt) {
        box.store(word, ordering: .releasing)
        node?.instance.store(word, ordering: .releasing)
    }
}

// Shared across threads by the singleton plans. The box pointer is an atomic, written once by the
// gate holder; `isPrebuilt` is written once before the cell is reachable from another thread; everything
// else is immutable. Values of T are only stored for Sendable T (see Node's Sendable note).
extension InstanceCell: @unchecked Sendable {}
