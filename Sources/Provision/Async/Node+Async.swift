import Synchronization

extension Node {
    /// The async plan, if linked already. No retain: the node keeps the plan alive.
    var asyncPlan: AsyncPlan<T>? {
        AtomicReference.load(linkedAsyncPlan, as: AsyncPlan<T>.self)?.takeUnretainedValue()
    }

    /// Publishes `candidate` unless another request linked this node's async plan first; returns the
    /// plan that won (linking is idempotent, like ``publish(_:)``).
    func publishAsync(_ candidate: AsyncPlan<T>) -> AsyncPlan<T> {
        let retained = Unmanaged.passRetained(candidate)
        let (published, current) = AtomicReference.publishOnce(linkedAsyncPlan, retained)
        if !published { retained.release() }
        return current.takeUnretainedValue()
    }

    /// Resolves through this node in an async request.
    func resolveAsync(_ context: ResolutionContext) async throws(ProvisionError) -> T {
        if let value = cell?.value { return value }
        let plan: AsyncPlan<T>
        if let linked = asyncPlan {
            plan = linked
        } else {
            plan = try AsyncLinker().link(self)
        }
        return try await plan.make(context)
    }

    /// Wraps an async plan that builds a fresh value with this node's scope: a singleton is built once
    /// per injector and a scoped instance once per scope, through the cell's gate, with async callers
    /// suspending while another request builds it.
    @usableFromInline
    func scopedAsync(_ inner: AsyncPlan<T>) -> AsyncPlan<T> {
        let inner = observingAsync(inner)
        switch scope.kind {
        case .transient:
            return inner
        case .singleton:
            guard let cell, !cell.isPrebuilt else { return inner }
            return AsyncPlan { context throws(ProvisionError) in
                if let value = cell.value { return value }
                return try await cell.buildAsync(context, using: inner.make)
            }
        case .scoped:
            let key = self.key
            let id = ObjectIdentifier(self)
            let cellType = InstanceCell<T>.self
            let disposal = DisposalClassifier<T>()
            return AsyncPlan { [unowned injector] context throws(ProvisionError) in
                let scope = try ServiceScope.scope(of: context, for: key)
                let cell = try scope.cell(for: id, key: key, injector: injector, as: cellType)
                if let value = cell.value { return value }
                // Inside the scope's close handshake, like the synchronous plan (see `perScope`); the
                // building task, which holds the cell's gate, is the owner of the build.
                return try await cell.buildAsync(context) { context async throws(ProvisionError) in
                    try await scope.buildAsync(key, owner: context.buildOwner, disposing: disposal) {
                        () async throws(ProvisionError) in
                        try await inner.make(context)
                    }
                }
            }
        }
    }

    /// The synchronous plan of a singleton or scoped node that only the async path can build: the
    /// instance once it is built, otherwise a `requiresAsync` error. Never takes the cell's gate, so a
    /// synchronous caller can't block (or fail) an async build.
    func asyncOnlyPlan() -> Plan<T> {
        let key = self.key
        if scope.isScoped {
            let id = ObjectIdentifier(self)
            let cellType = InstanceCell<T>.self
            return Plan { [unowned injector] context throws(ProvisionError) in
                let cell = try ServiceScope.scope(of: context, for: key)
                    .cell(for: id, key: key, injector: injector, as: cellType)
                if let value = cell.value { return value }
                throw ProvisionError.requiresAsync(key, dependency: nil, path: [key])
            }
        }
        let cell = self.cell
        return Plan { _ throws(ProvisionError) in
            if let value = cell?.value { return value }
            throw ProvisionError.requiresAsync(key, dependency: nil, path: [key])
        }
    }
}
