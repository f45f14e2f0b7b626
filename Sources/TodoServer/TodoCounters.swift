import Metrics

/// The server's swift-metrics counters. The same in both wirings, so their summaries compare.
///
/// A class: every request's unit of work holds the one set of counters, one reference, rather than a
/// copy of eight (each copy retains, and each release releases, eight objects every thread shares).
final class TodoCounters: Sendable {
    /// Units of work made (one per request that resolves one).
    let unitsOpened = Counter(label: "todo_units_opened_total")
    /// Units of work rolled back: their handler threw, or their request was abandoned.
    let unitsRolledBack = Counter(label: "todo_units_rolled_back_total")
    /// Units of work disposed when their request's scope closed.
    let unitsDisposed = Counter(label: "todo_units_disposed_total")
    /// Statements committed.
    let writesCommitted = Counter(label: "todo_writes_committed_total")
    /// Responses by status class.
    let responses2xx = Counter(label: "todo_responses_total", dimensions: [("class", "2xx")])
    let responses4xx = Counter(label: "todo_responses_total", dimensions: [("class", "4xx")])
    let responses5xx = Counter(label: "todo_responses_total", dimensions: [("class", "5xx")])
    /// Requests received.
    let requests = Counter(label: "todo_requests_total")

    /// Counts a response of `status`.
    func countResponse(_ status: Int) {
        switch status {
        case 500...: responses5xx.increment()
        case 400..<500: responses4xx.increment()
        default: responses2xx.increment()
        }
    }
}
