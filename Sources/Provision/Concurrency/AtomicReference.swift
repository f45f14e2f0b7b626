public import Synchronization

/// Publishes a retained object through an `Atomic<UInt>` holding its address (0 for none).
///
/// A generic class's fields of type `Atomic<Unmanaged<Plan<T>>?>` have a layout the compiler can only
/// work out at run time, through `T`'s metadata: every node's deinitializer then paid for a dozen
/// generic-metadata lookups (measured with callgrind: most of the cost of creating and dropping an
/// injector). An `Atomic<UInt>` has a fixed layout, so it costs nothing to initialize or destroy.
@usableFromInline
enum AtomicReference {
    /// The object published in `word`, unretained, or `nil`.
    @inlinable
    static func load<Object: AnyObject>(_ word: borrowing Atomic<UInt>, as type: Object.Type) -> Unmanaged<Object>? {
        guard let address = UnsafeRawPointer(bitPattern: word.load(ordering: .acquiring)) else { return nil }
        return Unmanaged<Object>.fromOpaque(address)
    }

    /// The word for `object` (already retained by the caller, on behalf of the word).
    @inlinable
    static func bits<Object: AnyObject>(_ object: Unmanaged<Object>) -> UInt {
        UInt(bitPattern: object.toOpaque())
    }

    /// Publishes `object` if nothing is published yet; returns the object published afterwards (this
    /// one, or the one another thread published first, which the caller must not release).
    static func publishOnce<Object: AnyObject>(_ word: borrowing Atomic<UInt>, _ object: Unmanaged<Object>)
        -> (published: Bool, current: Unmanaged<Object>)
    {
        let (exchanged, current) = word.compareExchange(
            expected: 0,
            desired: bits(object),
            ordering: .acquiringAndReleasing
        )
        if exchanged { return (true, object) }
        guard let address = UnsafeRawPointer(bitPattern: current) else { return (false, object) }
        return (false, Unmanaged<Object>.fromOpaque(address))
    }

    /// Releases the object published in `word`, if any (from a deinitializer). Needs no metadata.
    static func release(_ word: borrowing Atomic<UInt>) {
        load(word, as: AnyObject.self)?.release()
    }
}
