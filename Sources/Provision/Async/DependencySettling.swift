import Synchronization

/// The settling of a synchronous binding's dependencies before an async request builds it with its
/// synchronous plan: every singleton its static subgraph builds is built first, through the
/// dependencies' async plans, so that an async request suspends where another request is building one
/// instead of blocking its thread in the synchronous build (see ``AsyncLinker``).
///
/// Once a settling has succeeded, every singleton below is built for good: later requests skip it, with
/// one relaxed load. (A singleton's instance is read with an acquiring load wherever it is used.)
final class DependencySettling: Sendable {
    /// The binding whose dependencies these are, prepended to the path of an error from below.
    private let key: BindingKey
    private let dependencies: [AsyncSettle]
    private let settled = Atomic<Bool>(false)

    init(key: BindingKey, dependencies: [AsyncSettle]) {
        self.key = key
        self.dependencies = dependencies
    }

    /// Settles the dependencies, unless an earlier request did.
    func run(_ context: ResolutionContext) async throws(ProvisionError) {
        if settled.load(ordering: .relaxed) { return }
        // Settling recurses once per level of the graph below, on this thread's stack.
        try StackGuard.check(key)
        for settle in dependencies {
            do throws(ProvisionError) {
                try await settle(context)
            } catch {
                throw error.prepending(key)
            }
        }
        settled.store(true, ordering: .relaxed)
    }
}
