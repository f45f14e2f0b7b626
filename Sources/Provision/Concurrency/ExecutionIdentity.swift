#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Who is running a resolution, for the waits-for graph of singleton gates: the current Swift task when
/// there is one, otherwise the current thread.
///
/// A gate records its builder's identity, and a waiter records its own; a waiter finding a gate built
/// by itself, or by an identity that (transitively) waits for it, is a cycle rather than a wait.
///
/// - A task is identified by its own address, not by the thread it runs on: a task may resume on
///   another thread after every `await`, and sibling child tasks (`async let`, task groups) of one
///   factory run at the same time on different threads, each needing an identity of its own.
/// - Code that runs outside any task (a plain thread, a Dispatch queue) is identified by its
///   `pthread_t`.
///
/// Both are addresses of live objects of one process (a task's record, a thread's control block), so
/// they never collide while both exist; a record naming an identity is removed before that wait ends.
@usableFromInline
enum ExecutionIdentity {
    /// The identity of the caller. Costs a thread-local read; only used on the slow paths (building
    /// or waiting for an instance), never on a request served from a published instance.
    @usableFromInline
    static var current: UInt {
        let task = withUnsafeCurrentTask { task -> UInt in
            guard let task else { return 0 }
            // `UnsafeCurrentTask` is a single reference to the task's record: its bits are the record's
            // address, stable for the task's whole life.
            return unsafeBitCast(task, to: UInt.self)
        }
        if task != 0 { return task }
        #if canImport(Darwin)
            return UInt(bitPattern: pthread_self())
        #else
            return UInt(pthread_self())
        #endif
    }
}
