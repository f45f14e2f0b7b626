@testable import Provision

/// The events of a test, in the order they happened, from any task.
///
/// The test helpers lock with Provision's `Locked` (a pthread mutex) rather than
/// `Synchronization.Mutex`, whose contended path ThreadSanitizer does not see on Linux.
final class EventLog: Sendable {
    private let events = Locked<[String]>([])

    func record(_ event: String) {
        events.withLock { $0.append(event) }
    }

    var all: [String] { events.withLock { $0 } }
}
