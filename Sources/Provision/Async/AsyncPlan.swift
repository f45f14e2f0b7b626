/// A linked recipe for async requests: how to build a `T` when building it awaits an async factory.
///
/// Only nodes whose static subgraph has an async factory get a plan of their own (see
/// ``AsyncLinker``); every other node's async plan just runs its synchronous ``Plan``. Async plans hold
/// the async plans of their dependencies strongly: they form an acyclic graph, owned by the nodes.
@usableFromInline
final class AsyncPlan<T>: Sendable {
    @usableFromInline typealias Make = @Sendable (ResolutionContext) async throws(ProvisionError) -> T

    @usableFromInline let make: Make

    @usableFromInline
    init(_ make: @escaping Make) {
        self.make = make
    }

    /// Builds a dependency of `dependent`: on failure, records `dependent` on the error's path.
    @usableFromInline
    func make(_ context: ResolutionContext, for dependent: BindingKey) async throws(ProvisionError) -> T {
        do throws(ProvisionError) {
            return try await make(context)
        } catch {
            throw error.prepending(dependent)
        }
    }
}
