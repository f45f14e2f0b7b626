import Swinject

/// An object's identity, for a checksum: the result sink that keeps the optimizer from deleting the work
/// being measured. Not inlined, so the object must really exist.
@inline(never)
func identity(_ object: AnyObject) -> UInt {
    UInt(bitPattern: ObjectIdentifier(object))
}

/// Folds an object's identity into `sink`: the sink of the measuring loops. Not inlined, so the object
/// must really exist; and each call reads and writes the running checksum, so the optimizer can't hoist
/// it out of the loop even when it gets the same object every time (a singleton). `identity` alone can
/// be: it computes nothing from memory, so a loop that folds the identity of one stored `let` was
/// measured at 0.1 ns per operation, the call made once for the whole loop.
@inline(never)
func fold(_ object: AnyObject, into sink: inout UInt) {
    sink ^= UInt(bitPattern: ObjectIdentifier(object))
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
