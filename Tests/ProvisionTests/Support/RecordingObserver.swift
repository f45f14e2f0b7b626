@testable import Provision

/// A resolution observer that keeps every event, for tests.
final class RecordingObserver: ResolutionObserver {
    private let events = Locked<[ResolutionEvent]>([])

    func receive(_ event: ResolutionEvent) {
        events.withLock { $0.append(event) }
    }

    var recorded: [ResolutionEvent] {
        events.withLock { $0 }
    }

    /// The recorded events of one kind, as `kind key` strings in order.
    func lines(_ kind: ResolutionEvent.Kind? = nil) -> [String] {
        recorded.filter { kind == nil || $0.kind == kind }.map { "\($0.kind) \($0.key)" }
    }
}
