import Hummingbird
import Logging
import ProvisionHummingbird

@testable import Provision

/// A one-shot signal whose waits are bounded: `wait(timeout:)` returns `true` once `open()` was called
/// (before or after), `false` when the timeout passed first. A wait ignores its task's cancellation
/// unless `cancellable`, in which case a cancelled waiter returns `false` at once.
final class Hunt28AGate: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [Int: CheckedContinuation<Bool, Never>] = [:]
        var next = 0
    }

    private let state = Locked(State())

    var isOpen: Bool { state.withLock { $0.isOpen } }

    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.isOpen = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    private func resume(_ id: Int, _ value: Bool) {
        let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
        waiter?.resume(returning: value)
    }

    func wait(timeout: Duration = .seconds(20), cancellable: Bool = false) async -> Bool {
        let id = state.withLock { state in
            defer { state.next += 1 }
            return state.next
        }
        let timer = Task { [self] in
            try? await Task.sleep(for: timeout)
            resume(id, false)
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let open = state.withLock { state -> Bool? in
                    if state.isOpen { return true }
                    if cancellable && Task.isCancelled { return false }
                    state.waiters[id] = continuation
                    return nil
                }
                if let open { continuation.resume(returning: open) }
            }
        } onCancel: {
            if cancellable { resume(id, false) }
        }
    }
}

/// Counts made and disposed instances, and remembers what each disposal saw.
final class Hunt28ACensus: Sendable {
    private let counts = Locked((made: 0, disposed: 0, alive: 0))
    private let events = Locked<[String]>([])

    func made() -> Int {
        counts.withLock { counts in
            counts.made += 1
            counts.alive += 1
            return counts.made
        }
    }

    func died() { counts.withLock { $0.alive -= 1 } }

    func disposed(_ event: String) {
        counts.withLock { $0.disposed += 1 }
        events.withLock { $0.append(event) }
    }

    func record(_ event: String) { events.withLock { $0.append(event) } }

    var madeCount: Int { counts.withLock { $0.made } }
    var disposedCount: Int { counts.withLock { $0.disposed } }
    var alive: Int { counts.withLock { $0.alive } }
    var log: [String] { events.withLock { $0 } }
}

/// A singleton built by a slow async factory: counted, disposed at shutdown.
final class Hunt28ASlowSingleton: Disposable {
    let census: Hunt28ACensus
    let number: Int
    init(census: Hunt28ACensus) {
        self.census = census
        number = census.made()
    }
    func dispose() { census.disposed("dispose Hunt28ASlowSingleton \(number)") }
    deinit { census.died() }
}

/// A scoped service built asynchronously, whose async disposal checks that it still may suspend.
final class Hunt28ARequestUnit: AsyncDisposable {
    let census: Hunt28ACensus
    let number: Int
    let singleton: Hunt28ASlowSingleton
    init(census: Hunt28ACensus, singleton: Hunt28ASlowSingleton) {
        self.census = census
        self.singleton = singleton
        number = census.made()
    }
    func dispose() async throws {
        let cancelled = Task.isCancelled
        try await Task.sleep(for: .milliseconds(1))
        census.disposed("dispose Hunt28ARequestUnit \(number) cancelled=\(cancelled)")
    }
    deinit { census.died() }
}

/// A plain scoped service: synchronous disposal.
final class Hunt28APlain: Disposable {
    let census: Hunt28ACensus
    let number: Int
    init(census: Hunt28ACensus) {
        self.census = census
        number = census.made()
    }
    func dispose() { census.disposed("dispose Hunt28APlain \(number)") }
    deinit { census.died() }
}

/// A scoped service whose async factory waits for a gate.
final class Hunt28AGated: Disposable {
    let census: Hunt28ACensus
    let number: Int
    init(census: Hunt28ACensus) {
        self.census = census
        number = census.made()
    }
    func dispose() { census.disposed("dispose Hunt28AGated \(number)") }
    deinit { census.died() }
}

/// A secret-bearing failure of a factory: its text must never reach a client.
struct Hunt28ASecretFailure: Error, CustomStringConvertible {
    var description: String { "connection to postgres://admin:hunter2@db.internal refused" }
}

/// A logger that drops everything.
let hunt28AQuiet: Logger = {
    var logger = Logger(label: "hunt28a") { _ in SwiftLogNoOpLogHandler() }
    logger.logLevel = .critical
    return logger
}()

/// Waits, bounded, until `condition` holds (polling; the sleeps order nothing).
func hunt28AEventually(_ limit: Duration = .seconds(30), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < deadline else { return condition() }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return true
}
