import Synchronization

/// The events of a test, in the order they happened, from any task.
final class EventLog: Sendable {
    private let events = Mutex<[String]>([])

    func record(_ event: String) {
        events.withLock { $0.append(event) }
    }

    var all: [String] { events.withLock { $0 } }
}
