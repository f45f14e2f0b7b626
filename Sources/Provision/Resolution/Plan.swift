/// A linked recipe: how to build a `T` with every static dependency already resolved to its own plan.
///
/// A plan is computed once per binding, the first time the binding is resolved (see ``Linker``), and
/// captures the plans of its dependencies directly, so resolving a deep graph costs one closure call per
/// node: no key hashing, no table lookup, no dynamic cast, no lock.
///
/// Plans are immutable and `Sendable`; they are published through ``Node/plan`` with one atomic store
/// and read from any thread without a lock.
@usableFromInline
final class Plan<T>: Sendable {
    @usableFromInline typealias Make = @Sendable (ResolutionContext) throws(ProvisionError) -> T

    @usableFromInline let make: Make

    @inlinable
    init(_ make: @escaping Make) {
        self.make = make
    }
}

extension Plan {
    /// Builds a dependency of `dependent`: on failure, records `dependent` on the error's path.
    @inlinable
    func make(_ context: ResolutionContext, for dependent: BindingKey) throws(ProvisionError) -> T {
        do {
            return try make(context)
        } catch {
            throw error.prepending(dependent)
        }
    }
}
