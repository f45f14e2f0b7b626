@testable import Provision

/// Serializes the tests that use ``Injector/default``: the slot is process-wide, and Swift Testing runs
/// tests in parallel, so two tests setting it at once would see each other's injector.
enum DefaultInjectorSlot {
    private static let lock = Locked(())

    /// Runs `body` with `Injector.default` set to `injector` and no other test using the slot; empties
    /// the slot afterwards.
    static func with<R>(_ injector: Injector?, _ body: () throws -> R) throws -> R {
        try lock.withLock { _ in
            Injector.default = injector
            defer { Injector.default = nil }
            return try body()
        }
    }
}
