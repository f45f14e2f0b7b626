/// Which thread waits on which singleton gate, process-wide: the waits-for graph that turns a
/// cross-thread singleton cycle into an error instead of a deadlock.
///
/// Thread 1 builds singleton A, which needs B, while thread 2 builds B, which needs A: neither thread's
/// own resolution path shows a cycle, but each would wait on the other's gate forever. Before a thread
/// waits on a gate, it follows the chain "the gate's builder waits on gate G, whose builder waits on
/// ..." and, if the chain comes back to itself, throws a cycle error instead of waiting (the same idea
/// as Guice's cycle-detecting singleton locks). The check and the registration of the wait happen under
/// one lock, so of two threads closing a cycle at the same moment the second one always sees the first.
///
/// The lock protects only this map; it is taken on the slow path (a thread about to wait on a gate) and
/// never while any other lock is held or any user code runs.
enum WaitGraph {
    private static let waiting = Locked<[UInt: SingletonGate]>([:])

    /// Registers that the current thread is about to wait on `gate`, or returns the gates of the cycle
    /// that waiting would close (starting with `gate`).
    static func beginWaiting(on gate: SingletonGate, thread: UInt) -> [SingletonGate]? {
        waiting.withLock { waiting in
            var chain = [gate]
            var owner = gate.owner
            while owner != thread {
                guard let next = waiting[owner], chain.count <= waiting.count else {
                    waiting[thread] = gate
                    return nil
                }
                chain.append(next)
                owner = next.owner
            }
            return chain
        }
    }

    /// The current thread stopped waiting.
    static func endWaiting(thread: UInt) {
        waiting.withLock { _ = $0.removeValue(forKey: thread) }
    }
}
