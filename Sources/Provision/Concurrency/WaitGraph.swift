/// Which thread or task waits on which singleton gate, process-wide: the waits-for graph that turns a
/// cross-thread singleton cycle into an error instead of a deadlock.
///
/// Thread 1 builds singleton A, which needs B, while thread 2 builds B, which needs A: neither thread's
/// own resolution path shows a cycle, but each would wait on the other's gate forever. Before a caller
/// waits on a gate, it follows the chain "the gate is held by a build that waits on gate G, which is
/// held by a build that waits on ..." and, if the chain comes back to a gate the caller itself holds,
/// throws a cycle error instead of waiting (the same idea as Guice's cycle-detecting singleton locks).
///
/// The graph's vertices are gates. A gate X *waits on* gate Y when some recorded waiter on Y holds X:
/// either X's builder is the waiter itself (the same thread, or the same task), or X is the gate of a
/// build on the waiter's resolution path (an enclosing build that cannot end before the waiter does —
/// the case of a factory whose child tasks, with identities of their own, resolve in parallel).
///
/// Two rules keep the graph exact:
/// - A record lives exactly as long as the wait it describes: it is added under the graph's lock in
///   the same step that checks for a cycle, and removed by the waiter when its wait ends.
/// - A finished gate is never an edge. Between a build's end (``SingletonGate/finish(_:)``, before any
///   waiter is woken) and the moment its woken waiters remove their records, those records are stale;
///   the search skips every record whose gate has finished, so a stale record can't make a false cycle.
///
/// The check and the registration of the wait happen under one lock, so of two callers closing a cycle
/// at the same moment the second one always sees the first. The lock protects only this graph; it is
/// taken on the slow path (a caller about to wait on a gate) and never while any other lock is held or
/// any user code runs (a gate's ``SingletonGate/isFinished`` is an atomic read).
enum WaitGraph {
    /// A recorded wait: the gate waited on, the gates the waiter holds through its path, and its path to
    /// the gate (for the error message).
    fileprivate struct Wait {
        let gate: SingletonGate
        let held: [SingletonGate]
        let path: [BindingKey]
    }

    fileprivate struct State {
        /// Each waiting thread or task's wait (a caller waits on one gate at a time).
        var waits: [UInt: Wait] = [:]
        /// The waiters whose path holds a gate, by the gate (the second kind of edge).
        var holders: [ObjectIdentifier: Set<UInt>] = [:]
    }

    private static let state = Locked(State())

    /// Records that `waiter` (an ``ExecutionIdentity``) is about to wait on `gate`, holding the gates
    /// `held` of the builds on its path and having come to `gate` along `path` (outermost first, ending
    /// with the gate's key); or returns the paths of the other waits in the cycle that waiting would
    /// close, in the order the waits run (each ends where the next begins). An empty array means that
    /// `gate` is held by the caller itself.
    static func beginWaiting(
        on gate: SingletonGate,
        as waiter: UInt,
        holding held: [SingletonGate],
        path: [BindingKey]
    ) -> [[BindingKey]]? {
        let cycle = state.withLock { state -> [[BindingKey]]? in
            if let cycle = state.cycle(from: gate, to: waiter, holding: held) { return cycle }
            state.waits[waiter] = Wait(gate: gate, held: held, path: path)
            for holding in held {
                state.holders[ObjectIdentifier(holding), default: []].insert(waiter)
            }
            return nil
        }
        if cycle == nil { ScheduleProbe.step(.waitRecorded) }
        return cycle
    }

    /// `waiter` stopped waiting.
    static func endWaiting(_ waiter: UInt) {
        ScheduleProbe.step(.waitEnding)
        state.withLock { state in
            guard let wait = state.waits.removeValue(forKey: waiter) else { return }
            for holding in wait.held {
                let id = ObjectIdentifier(holding)
                state.holders[id]?.remove(waiter)
                if state.holders[id]?.isEmpty == true { state.holders[id] = nil }
            }
        }
    }

    /// Whether any wait is recorded (for tests: every record ends with its wait).
    static var isEmpty: Bool {
        state.withLock { $0.waits.isEmpty && $0.holders.isEmpty }
    }
}

extension WaitGraph.State {
    /// The waits that lead from `start` back to a gate held by `waiter`, or `nil` when there is no such
    /// chain: a depth-first search over unfinished gates.
    fileprivate func cycle(from start: SingletonGate, to waiter: UInt, holding held: [SingletonGate]) -> [[BindingKey]]?
    {
        func isHeld(_ gate: SingletonGate) -> Bool {
            gate.owner == waiter || held.contains { $0 === gate }
        }
        // A gate whose build has ended is no reason to wait, let alone a cycle: its waiter's semaphore is
        // signalled, or about to be.
        if start.isFinished { return nil }
        if isHeld(start) { return [] }
        // Each stack entry: a gate to expand, and the paths of the waits that led to it.
        var stack: [(gate: SingletonGate, paths: [[BindingKey]])] = [(start, [])]
        var visited: Set<ObjectIdentifier> = [ObjectIdentifier(start)]
        while let (gate, paths) = stack.popLast() {
            for next in waitsHolding(gate) {
                guard !next.gate.isFinished else { continue }
                let nextPaths = paths + [next.path]
                if isHeld(next.gate) { return nextPaths }
                if visited.insert(ObjectIdentifier(next.gate)).inserted {
                    stack.append((next.gate, nextPaths))
                }
            }
        }
        return nil
    }

    /// The recorded waits whose waiter holds `gate`: its builder's own wait, and the waits of callers
    /// whose path passes through its build.
    private func waitsHolding(_ gate: SingletonGate) -> [WaitGraph.Wait] {
        var result: [WaitGraph.Wait] = []
        if let own = waits[gate.owner] { result.append(own) }
        for waiter in holders[ObjectIdentifier(gate)] ?? [] where waiter != gate.owner {
            if let wait = waits[waiter] { result.append(wait) }
        }
        return result
    }
}
