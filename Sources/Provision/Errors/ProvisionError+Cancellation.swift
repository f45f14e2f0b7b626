extension ProvisionError {
    /// Whether this failure belongs to the current task rather than to what it resolved: the task was
    /// cancelled and the request ended because of it (`cancelled`), or a factory honoured the
    /// cancellation by throwing `CancellationError` (`factoryFailed`, in a cancelled task).
    ///
    /// Such a failure is not passed on to the requests that waited for this one (a singleton's gate, a
    /// ``Lazy`` handle's read): they were not cancelled, so they resolve again instead of inheriting it.
    var isOwnCancellation: Bool {
        switch code {
        case .cancelled: return true
        case .factoryFailed: return cause is CancellationError && Task.isCancelled
        default: return false
        }
    }
}
