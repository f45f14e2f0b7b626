import Dispatch
import Foundation
import Provision

/// Helpers of the Hunt5 suites: blocking waits happen on plain threads, never on the cooperative pool.
enum Hunt5 {
    /// Runs `body` on a plain thread with a 4 MiB stack.
    static func onThread(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.stackSize = 4 << 20
        thread.start()
    }

    /// Suspends until `semaphore` is signalled (or `seconds` pass), waiting on a plain thread.
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

    /// A factory's hold: counts the build, signals `entered`, then waits for `release` (30 s at most).
    final class Hold: Sendable {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let builds = Counter()

        /// Blocks the calling thread.
        func run() {
            builds.increment()
            entered.signal()
            _ = release.wait(timeout: .now() + 30)
        }

        /// Suspends the calling task (the wait runs on a plain thread).
        func runAsync() async {
            builds.increment()
            entered.signal()
            await Hunt5.wait(for: release)
        }
    }

    /// A request run on a plain thread; its outcome is read once `done` was signalled.
    final class Request<T: Sendable>: Sendable {
        let done = DispatchSemaphore(value: 0)
        private let outcome = Locked<Result<T, ProvisionError>?>(nil)

        init(_ body: @escaping @Sendable () throws(ProvisionError) -> T) {
            Hunt5.onThread { [self] in
                let result = Hunt5.result(body)
                outcome.withLock { $0 = result }
                done.signal()
            }
        }

        /// Waits (on a plain thread) for the request to end, at most `seconds`; nil when it didn't.
        func result(seconds: Double = 30) async -> Result<T, ProvisionError>? {
            guard await Hunt5.wait(for: done, seconds: seconds) else { return nil }
            return outcome.withLock { $0 }
        }
    }
}

extension Result {
    /// The failure, or nil.
    var hunt5Error: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
