import Synchronization

/// The settling of a synchronous binding's static dependencies (see ``AsyncSettle``), and whether it is
/// still needed: once a settling finds every singleton below built, later requests skip it with one
/// relaxed load. (It only spares them the walk: the synchronous plan reads every instance with an
/// acquiring load, and waits or builds as needed.)
final class DependencySettling: Sendable {
    /// The binding whose dependencies these are, prepended to the path of an error from below.
    private let key: BindingKey
    private let dependencies: [AsyncSettle]
    private let settled = Atomic<Bool>(false)

    init(key: BindingKey, dependencies: [AsyncSettle]) {
        self.key = key
        self.dependencies = dependencies
    }

    /// Settles every dependency, unless an earlier request found them all built.
    ///
    /// - Returns: Whether every singleton below is built.
    func run(_ context: ResolutionContext) async throws(ProvisionError) -> Bool {
        if settled.load(ordering: .relaxed) { return true }
        // Settling recurses once per level of the graph below, on this thread's stack. Too deep: stop
        // here, and let the synchronous plan (which checks the stack its own way) build what is left.
        do throws(ProvisionError) {
            try StackGuard.check(key)
        } catch {
            return false
        }
        var built = true
        for settle in dependencies {
            do throws(ProvisionError) {
                // Every dependency, also after one that isn't built: each may be waited for.
                if try await !settle(context) { built = false }
            } catch {
                throw error.prepending(key)
            }
        }
        if built { settled.store(true, ordering: .relaxed) }
        return built
    }
}
