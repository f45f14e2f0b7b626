import Swinject

/// Folds an object's identity into a checksum: the result sink that keeps the optimizer from deleting
/// the work being measured. Not inlined, so the object must really exist.
@inline(never)
func identity(_ object: AnyObject) -> UInt {
    UInt(bitPattern: ObjectIdentifier(object))
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
