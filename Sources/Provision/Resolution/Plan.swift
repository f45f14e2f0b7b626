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

/// A published plan, referenced without retaining it.
///
/// Plans capture the plans of their dependencies this way. A published plan is owned by its node until
/// the injector is freed, and a plan only runs while its injector is alive, so the reference is always
/// valid when used; not retaining it keeps every resolution free of reference-count traffic on shared
/// plans, which would otherwise bounce their cache lines between threads resolving the same graph.
@usableFromInline
struct PlanReference<T>: Sendable {
    @usableFromInline let plan: Unmanaged<Plan<T>>

    @inlinable
    init(_ plan: Plan<T>) {
        self.plan = Unmanaged.passUnretained(plan)
    }

    @inlinable
    init(_ plan: Unmanaged<Plan<T>>) {
        self.plan = plan
    }

    /// Builds the value.
    @inlinable
    func make(_ context: ResolutionContext) throws(ProvisionError) -> T {
        let result = plan._withUnsafeGuaranteedRef { plan in
            Result { () throws(ProvisionError) in try plan.make(context) }
        }
        return try result.get()
    }

    /// Builds a dependency of `dependent`: on failure, records `dependent` on the error's path.
    @inlinable
    func make(_ context: ResolutionContext, for dependent: BindingKey) throws(ProvisionError) -> T {
        let result = plan._withUnsafeGuaranteedRef { plan in
            Result { () throws(ProvisionError) in try plan.make(context) }
        }
        switch result {
        case .success(let value): return value
        case .failure(let error): throw error.prepending(dependent)
        }
    }
}
