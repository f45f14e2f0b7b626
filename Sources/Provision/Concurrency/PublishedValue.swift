public import Synchronization

/// How a value of `T` is published in one atomic word, for readers that take no lock: a singleton's
/// ``InstanceCell`` and a resolved ``Lazy`` handle.
///
/// The word holds the address of a retained object: the value itself when `T` is a class (or any other
/// type whose value is one strong reference, like `AnyObject`), so that a read is one load and no
/// indirection; an ``InstanceBox`` holding the value for any other `T` (a struct, an existential). 0 means
/// nothing is published. The word is written once, with release ordering, and read with acquire
/// ordering; its owner releases the object when it is freed (``release(_:)``).
@usableFromInline
enum PublishedValue<T> {
    /// Whether the word holds the value itself rather than a box. Known when the caller is specialized.
    @inlinable static var storesReference: Bool {
        T.self is AnyObject.Type && MemoryLayout<T>.size == MemoryLayout<UnsafeRawPointer>.size
    }

    /// The value published at `address` (a non-zero word), borrowed from the word's owner and copied
    /// out.
    @inlinable @inline(__always)
    static func value(at address: UnsafeRawPointer) -> T {
        if storesReference {
            // The word holds a retained reference to the value (see `retainedWord(_:)`).
            return unsafeBitCast(address, to: T.self)
        }
        return Unmanaged<InstanceBox<T>>.fromOpaque(address)._withUnsafeGuaranteedRef { $0.value }
    }

    /// The value published in `word`, or `nil` while nothing is.
    @inlinable @inline(__always)
    static func load(_ word: borrowing Atomic<UInt>) -> T? {
        guard let address = UnsafeRawPointer(bitPattern: word.load(ordering: .acquiring)) else { return nil }
        return value(at: address)
    }

    /// The word that publishes `value`: a retained reference to the value, or to a box holding it. The
    /// caller stores it, and releases it later with ``release(_:)``.
    @inlinable
    static func retainedWord(_ value: T) -> UInt {
        if storesReference {
            // A single class reference (see `storesReference`): not `value as AnyObject`, which stays a
            // call to the runtime's bridging conversion even when specialized.
            return AtomicReference.bits(Unmanaged.passRetained(unsafeBitCast(value, to: AnyObject.self)))
        }
        return AtomicReference.bits(Unmanaged.passRetained(InstanceBox(value)))
    }

    /// Releases the object published in `word`, if any. Called by the word's owner when it is freed.
    static func release(_ word: borrowing Atomic<UInt>) {
        AtomicReference.release(word)
    }

    // MARK: Tagged words

    // A second encoding, for a reader whose code doesn't hoist `T`'s metadata out of its loop (a resolved
    // `Lazy`'s `value`, read in the caller's loop): `storesReference` asks for the metadata, a call per
    // read there, while the word's bit 0 tells the same without it. An object's address is 16-byte
    // aligned, so bit 0 is free: clear for the value itself, set for a box.

    /// The tag of a word that holds a box (see ``taggedWord(_:)``).
    @inlinable static var boxTag: UInt { 1 }

    /// The word that publishes `value`, tagged: ``retainedWord(_:)``, with ``boxTag`` set when it is a
    /// box. Read with ``loadTagged(_:)``, released with ``releaseTagged(_:)``.
    @inlinable
    static func taggedWord(_ value: T) -> UInt {
        storesReference ? retainedWord(value) : retainedWord(value) | boxTag
    }

    /// The value published in a tagged `word`, or `nil` while nothing is: told apart by the tag alone.
    @inlinable @inline(__always)
    static func loadTagged(_ word: borrowing Atomic<UInt>) -> T? {
        let bits = word.load(ordering: .acquiring)
        if bits & boxTag == 0 {
            guard let address = UnsafeRawPointer(bitPattern: bits) else { return nil }
            return unsafeBitCast(address, to: T.self)
        }
        let box = UnsafeRawPointer(bitPattern: bits & ~boxTag).unsafelyUnwrapped
        return Unmanaged<InstanceBox<T>>.fromOpaque(box)._withUnsafeGuaranteedRef { $0.value }
    }

    /// Releases the object published in a tagged `word`, if any.
    static func releaseTagged(_ word: borrowing Atomic<UInt>) {
        guard let address = UnsafeRawPointer(bitPattern: word.load(ordering: .acquiring) & ~boxTag) else { return }
        Unmanaged<AnyObject>.fromOpaque(address).release()
    }
}

/// The box that publishes a value of a type that is not a single reference (see ``PublishedValue``).
@usableFromInline
final class InstanceBox<T> {
    @usableFromInline let value: T

    @usableFromInline
    init(_ value: T) {
        self.value = value
    }
}
