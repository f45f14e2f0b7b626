import Dispatch
import Foundation
import Provision

/// Helpers of the Hunt2 suites: blocking waits happen on plain threads, never on the cooperative pool.
enum Hunt2 {
    /// Runs `body` on a plain thread (not one of the cooperative pool).
    static func onThread(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Suspends until `semaphore` is signalled (or 30 s pass), waiting on a plain thread.
    @discardableResult
    static func wait(for semaphore: DispatchSemaphore, seconds: Double = 30) async -> Bool {
        await withCheckedContinuation { continuation in
            onThread { continuation.resume(returning: semaphore.wait(timeout: .now() + seconds) == .success) }
        }
    }

    /// Suspends until `condition` holds (or 30 s pass), polling on a plain thread.
    @discardableResult
    static func until(_ condition: @escaping @Sendable () -> Bool) async -> Bool {
        await withCheckedContinuation { continuation in
            onThread { continuation.resume(returning: waitUntil(condition)) }
        }
    }

    /// Runs `body` on a plain thread and suspends until it returns.
    static func thread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            onThread { continuation.resume(returning: body()) }
        }
    }

    /// The outcome of a synchronous request, as a value.
    static func result<T>(_ body: () throws(ProvisionError) -> T) -> Result<T, ProvisionError> {
        Result { () throws(ProvisionError) in try body() }
    }

    /// The error of an async request, or nil.
    static func error<T>(_ body: () async throws(ProvisionError) -> T) async -> ProvisionError? {
        do {
            _ = try await body()
            return nil
        } catch { return error }
    }

    /// A singleton factory's hold: signals `entered`, then waits for `release` (30 s at most).
    final class Hold: Sendable {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let builds = Counter()

        func run() {
            builds.increment()
            entered.signal()
            _ = release.wait(timeout: .now() + 30)
        }
    }
}
