/// A linked recipe for async requests: how to build a `T` in an async request.
///
/// A node whose static subgraph has an async factory gets a plan that awaits it (see ``AsyncLinker``);
/// every other node's async plan runs its synchronous ``Plan``, once nothing it would wait for is being
/// built (see ``settle``). Async plans hold the async plans of their dependencies strongly: they form an
/// acyclic graph, owned by the nodes.
@usableFromInline
final class AsyncPlan<T>: Sendable {
    @usableFromInline typealias Make = @Sendable (ResolutionContext) async throws(ProvisionError) -> T

    @usableFromInline let make: Make

    /// Builds the singletons this plan's synchronous build would wait for, suspending while another
    /// request builds one, and builds nothing else: a singleton's plan builds it, a transient or scoped
    /// binding's plan settles its dependencies (see `Node.synchronousAsyncPlan`).
    let settle: AsyncSettle

    /// A plan whose settling builds its value (an async factory's, whose dependents await it anyway).
    @usableFromInline
    init(_ make: @escaping Make) {
        self.make = make
        self.settle = { context throws(ProvisionError) in _ = try await make(context) }
    }

    init(_ make: @escaping Make, settle: @escaping AsyncSettle) {
        self.make = make
        self.settle = settle
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

/// See ``AsyncPlan/settle``.
typealias AsyncSettle = @Sendable (ResolutionContext) async throws(ProvisionError) -> Void
