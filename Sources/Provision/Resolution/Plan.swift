/// A linked recipe: how to build a `T` with every static dependency already resolved to its own plan.
///
/// A plan is computed once per binding, the first time the binding is resolved (see ``Linker``), and
/// captures the plans of its dependencies directly, so resolving a deep graph costs one closure call per
/// node: no key hashing, no table lookup, no dynamic cast, no lock.
///
/// Plans are immutable and `Sendable`; they are published through ``Node/plan`` with one atomic store
/// and read from any thread without a lock.
final class Plan<T>: Sendable {
    typealias Make = @Sendable (ResolutionContext) throws(ProvisionError) -> T

    let make: Make

    init(_ make: @escaping Make) {
        self.make = make
    }
}
