@testable import Provision

/// An ordered, thread-safe list of events ("start A", "stop B"), for order assertions.
final class EventLog: Sendable {
    private let events = Locked<[String]>([])

    func append(_ event: String) {
        events.withLock { $0.append(event) }
    }

    var all: [String] {
        events.withLock { $0 }
    }

    func clear() {
        events.withLock { $0.removeAll() }
    }

    /// The events that start with `prefix`, without it: `with("stop ")` gives the stopped names.
    func with(_ prefix: String) -> [String] {
        all.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }
}

/// A one-shot latch for async code: `wait()` suspends until `open()` was called (at once if it was).
final class AsyncLatch: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isOpen = state.withLock { state in
                if !state.isOpen { state.waiters.append(continuation) }
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }
}

// In async code `get` is the async overload; tests of the synchronous API call it through these.
extension Injector {
    func syncGet<T>(_ type: T.Type, named name: String? = nil) throws(ProvisionError) -> T {
        try get(type, named: name)
    }
}

extension ServiceScope {
    func syncGet<T>(_ type: T.Type, named name: String? = nil) throws(ProvisionError) -> T {
        try get(type, named: name)
    }

    func syncClose() throws(ProvisionError) {
        try close()
    }
}

/// A one-shot barrier for tasks: `arrive()` suspends (never blocks a thread) until `count` tasks arrived.
final class AsyncBarrier: Sendable {
    private let count: Int
    private let arrived = Locked(0)
    private let latch = AsyncLatch()

    init(count: Int) {
        self.count = count
    }

    func arrive() async {
        let all = arrived.withLock { arrived in
            arrived += 1
            return arrived == count
        }
        if all { latch.open() }
        await latch.wait()
    }
}
