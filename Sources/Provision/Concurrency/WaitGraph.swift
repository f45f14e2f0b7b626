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
    /// A waiting thread: the gate it waits on, and its resolution path to that gate's key.
    private struct Wait {
        let gate: SingletonGate
        let path: [BindingKey]
    }

    private static let waiting = Locked<[UInt: Wait]>([:])

    /// Registers that the current thread is about to wait on `gate`, having come to it along `path`
    /// (outermost first, ending with the gate's key), or returns the paths of the other threads in the
    /// cycle that waiting would close, in the order the waits run (each ends where the next begins).
    static func beginWaiting(on gate: SingletonGate, thread: UInt, path: [BindingKey]) -> [[BindingKey]]? {
        waiting.withLock { waiting in
            var paths: [[BindingKey]] = []
            var owner = gate.owner
            while owner != thread {
                guard let next = waiting[owner], paths.count < waiting.count else {
                    waiting[thread] = Wait(gate: gate, path: path)
                    return nil
                }
                paths.append(next.path)
                owner = next.gate.owner
            }
            return paths
        }
    }

    /// The current thread stopped waiting.
    static func endWaiting(thread: UInt) {
        waiting.withLock { _ = $0.removeValue(forKey: thread) }
    }
}
