import Testing

@testable import Provision

/// The error of an operation that did not finish in time.
struct WatchdogTimeout: Error {}

/// Runs `operation`, failing with ``WatchdogTimeout`` instead of hanging if it takes longer than
/// `limit`: a test that could deadlock fails CI instead of stalling it. The limit is far above the
/// operation's real duration; it is not a way to wait for anything.
///
/// The operation runs in a task of its own that is cancelled, not awaited, on timeout: a hung
/// operation cannot hold the test.
func withWatchdog<T: Sendable>(
    _ limit: Duration = .seconds(30),
    sourceLocation: Testing.SourceLocation = #_sourceLocation,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let operationTask = Task { try await operation() }
    let result: Result<T, any Error> = await withCheckedContinuation { continuation in
        let pending = Locked<CheckedContinuation<Result<T, any Error>, Never>?>(continuation)
        let resume: @Sendable (Result<T, any Error>) -> Void = { result in
            pending.withLock { $0.take() }?.resume(returning: result)
        }
        let timer = Task {
            guard (try? await Task.sleep(for: limit)) != nil else { return }
            operationTask.cancel()
            resume(.failure(WatchdogTimeout()))
        }
        Task {
            let result = await operationTask.result
            timer.cancel()
            resume(result)
        }
    }
    if case .failure(let error) = result, error is WatchdogTimeout {
        Issue.record("the operation did not finish within \(limit)", sourceLocation: sourceLocation)
    }
    return try result.get()
}
