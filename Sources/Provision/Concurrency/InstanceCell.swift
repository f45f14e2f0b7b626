public import Synchronization

/// A write-once slot for a singleton's instance, read with one acquiring load and no lock.
///
/// The instance is boxed so that it can be published with one atomic pointer store whatever `T` is (a
/// class, a struct, an existential). The cell retains the box from publication until it is released.
@usableFromInline
final class InstanceCell<T> {
    @usableFromInline let box = Atomic<Unmanaged<InstanceBox<T>>?>(nil)

    /// The key of the singleton binding this cell belongs to.
    let key: BindingKey

    /// The injector whose registry holds this key's gate. Unowned: the injector owns the node, which
    /// owns the cell; a plan only runs while its injector is held (see `Node.injector`).
    unowned let injector: Injector

    /// Whether the instance was given when the binding was declared (an instance binding).
    @usableFromInline private(set) var isPrebuilt = false

    init(key: BindingKey, injector: Injector) {
        self.key = key
        self.injector = injector
    }

    deinit {
        box.load(ordering: .acquiring)?.release()
    }

    /// The published instance, or `nil` while it is not built.
    @inlinable var value: T? {
        guard let box = box.load(ordering: .acquiring) else { return nil }
        return box._withUnsafeGuaranteedRef { $0.value }
    }

    /// Publishes the instance. Called once: at creation for instance bindings, otherwise by the thread
    /// holding the key's singleton gate, which is the only writer.
    func publish(_ value: T) {
        box.store(Unmanaged.passRetained(InstanceBox(value)), ordering: .releasing)
    }

    /// Publishes an instance binding's value, before the cell is shared with any other thread.
    func prebuild(_ value: T) {
        isPrebuilt = true
        publish(value)
    }
}

@usableFromInline
final class InstanceBox<T> {
    @usableFromInline let value: T

    init(_ value: T) {
        self.value = value
    }
}

// Shared across threads by the singleton plans. The box pointer is an atomic, written once by the
// gate holder; `isPrebuilt` is written once before the cell is reachable from another thread; everything
// else is immutable. Values of T are only stored for Sendable T (see Node's Sendable note).
extension InstanceCell: @unchecked Sendable {}
