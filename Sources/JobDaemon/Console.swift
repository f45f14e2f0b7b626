import Foundation
import Synchronization

/// The daemon's standard output: one line per event, written whole with no buffering, so that a
/// script reading the output sees every line as soon as it is printed, never two lines interleaved.
///
/// It also remembers which services started and stopped, in order, and counts the job lines, for the
/// summary line.
final class Console: Sendable {
    private struct State {
        var started: [String] = []
        var stopped: [String] = []
        var accepted = 0
        var finished = 0
        var failed = 0
    }

    private let state = Mutex(State())

    /// Writes `line` and a newline to standard output at once, with one unbuffered write.
    func line(_ line: String) {
        let bytes = Data((line + "\n").utf8)
        // Under the lock: lines from different workers never interleave.
        state.withLock { _ in FileHandle.standardOutput.write(bytes) }
    }

    /// Prints `started NAME` and records the start.
    func started(_ service: String) {
        state.withLock { $0.started.append(service) }
        line("started \(service)")
    }

    /// Prints `stopped NAME` and records the stop.
    func stopped(_ service: String) {
        state.withLock { $0.stopped.append(service) }
        line("stopped \(service)")
    }

    /// Prints `job N accepted`.
    func accepted(_ job: Int) {
        state.withLock { $0.accepted += 1 }
        line("job \(job) accepted")
    }

    /// Prints `job N finished by worker W, checksum C`.
    func finished(_ job: Int, worker: Int, checksum: UInt32) {
        state.withLock { $0.finished += 1 }
        line("job \(job) finished by worker \(worker), checksum \(checksum)")
    }

    /// Prints `job N failed: ERROR`.
    func failed(_ job: Int, error: any Error) {
        state.withLock { $0.failed += 1 }
        line("job \(job) failed: \(error)")
    }

    /// `summary: accepted A, finished F, failed X, services started S, stopped T`.
    var summary: String {
        let state = state.withLock { $0 }
        return "summary: accepted \(state.accepted), finished \(state.finished), failed \(state.failed), "
            + "services started \(state.started.count), stopped \(state.stopped.count)"
    }
}
