/// A linked recipe for async requests: how to build a `T` in an async request.
///
/// A node whose static subgraph has an async factory gets a plan that awaits it (see ``AsyncLinker``);
/// every other node's async plan runs its synchronous ``Plan``, once nothing it would wait for is being
/// built by another request (see ``settle``). Async plans hold the async plans of their dependencies strongly: they form an
/// acyclic graph, owned by the nodes.
@usableFromInline
final class AsyncPlan<T>: Sendable {
    @usableFromInline typealias Make = @Sendable (ResolutionContext) async throws(ProvisionError) -> T

    @usableFromInline let make: Make

    /// Suspends while instances this plan's synchronous build would wait for are being built by other
    /// requests, and builds nothing: see ``AsyncSettle``.
    let settle: AsyncSettle

    /// A plan with nothing to settle: an async factory's, which no synchronous binding depends on.
    @usableFromInline
    init(_ make: @escaping Make) {
        self.make = make
        self.settle = { _ throws(ProvisionError) in false }
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

/// Settling a synchronous binding before an async request builds it with its synchronous plan (see
/// `Node.synchronousAsyncPlan`): suspends while a singleton the build would need (or a scoped instance
/// of the request's scope) is being built by another request, so that the synchronous build finds it
/// built instead of blocking a thread of the cooperative pool at its gate. It builds nothing and
/// reports no failure but the waiting's own (`cancelled`, `timedOut`): the synchronous plan then builds
/// in its order, and fails as a synchronous request fails.
///
/// - Returns: Whether every singleton below is built for good, so that later requests need not settle.
typealias AsyncSettle = @Sendable (ResolutionContext) async throws(ProvisionError) -> Bool
