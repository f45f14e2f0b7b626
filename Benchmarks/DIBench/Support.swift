import CKeptResult
import Swinject

/// An object's identity, for a checksum: the result sink that keeps the optimizer from deleting the work
/// being measured. Not inlined, so the object must really exist.
@inline(never)
func identity(_ object: AnyObject) -> UInt {
    UInt(bitPattern: ObjectIdentifier(object))
}

/// Folds an object's identity into `sink` and keeps the object: the sink of the measuring loops.
///
/// Not inlined, so the object must really exist; and each call reads and writes the running checksum,
/// so the optimizer can't hoist it out of the loop even when it gets the same object every time (a
/// singleton). `identity` alone can be: it computes nothing from memory, so a loop that folds the
/// identity of one stored `let` was measured at 0.1 ns per operation, the call made once for the whole
/// loop.
///
/// The object is handed over owned and kept until the same thread folds the next one (its slot in
/// ``CKeptResult``), as a caller keeps what it resolved: in a property, or in a local it uses after other
/// calls. Every column pays the same for it: an implementation that returns an object gives a reference
/// it owns (a container retains the singleton it returns), and a floor that reads a stored `let` retains
/// it here. Borrowing the object instead made the singleton floor a bare call (2 ns), below what any
/// code that keeps the reference can reach.
///
/// The slot is the calling thread's own: the throughput scenarios fold from several threads at once,
/// and with one slot for the process two threads could read the same previous object and both release
/// it (the singleton of "throughput: singleton hit" was freed while its injector still published it,
/// and di-bench crashed in about one quick run in sixteen), besides writing one cache line from every
/// thread.
@inline(never)
func fold(_ object: __owned AnyObject, into sink: inout UInt) {
    sink ^= UInt(bitPattern: ObjectIdentifier(object))
    let slot = c_kept_result_slot().unsafelyUnwrapped
    let previous = slot.pointee
    slot.pointee = Unmanaged.passRetained(object).toOpaque()
    if let previous {
        Unmanaged<AnyObject>.fromOpaque(previous).release()
    }
}

/// Releases the object the calling thread kept last (see ``fold(_:into:)``), for a measuring thread that
/// is about to end: its slot would otherwise keep that object alive for the rest of the run.
func releaseKeptResult() {
    let slot = c_kept_result_slot().unsafelyUnwrapped
    guard let kept = slot.pointee else { return }
    slot.pointee = nil
    Unmanaged<AnyObject>.fromOpaque(kept).release()
}

/// Resolves a Swinject dependency that the benchmark registered itself. A failure means the benchmark's
/// own graph is broken, which is a programming error in the benchmark, so it stops the run loudly.
func resolved<T>(_ resolver: any Swinject.Resolver, _ type: T.Type) -> T {
    guard let value = resolver.resolve(type) else {
        preconditionFailure("di-bench: Swinject could not resolve \(T.self); the benchmark graph is broken")
    }
    return value
}

/// Every checksum produced by a run, so that no measured loop is dead code.
nonisolated(unsafe) var globalSink: UInt = 0
