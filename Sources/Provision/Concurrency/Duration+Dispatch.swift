import Dispatch

extension Duration {
    /// The duration as a Dispatch interval, in whole nanoseconds (saturating).
    var dispatchInterval: DispatchTimeInterval {
        let (seconds, attoseconds) = components
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !nanoseconds.overflow else { return .never }
        let total = nanoseconds.partialValue.addingReportingOverflow(attoseconds / 1_000_000_000)
        return total.overflow ? .never : .nanoseconds(Int(clamping: total.partialValue))
    }
}
