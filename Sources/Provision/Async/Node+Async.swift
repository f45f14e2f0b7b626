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

    /// The async plan of a node whose construction awaits nothing (no async factory in its static
    /// subgraph), for a recipe's async pass: see ``synchronousAsyncPlan(_:settling:)``. `.noForm` when
    /// the node has no synchronous plan, which linking published before this pass.
    func settlingAsync(_ dependencies: [AsyncSettle]) -> LinkedPlan<T> {
        guard let plan else { return .noForm }
        return .async(synchronousAsyncPlan(PlanReference(plan), settling: dependencies))
    }

    /// The async plan of a node whose construction awaits nothing: it suspends while another request
    /// builds the instance asked for, then while instances below that its build would need are being
    /// built by others (settling `dependencies`, the ``AsyncPlan/settle`` closures of its static
    /// dependencies' async plans), then runs the synchronous plan.
    ///
    /// The build itself is synchronous, even in an async request, so that every gate of a synchronous
    /// binding is held by a build that never suspends, and a thread can wait at it (see
    /// ``SingletonGate/isAsync``). Had an async request built it through an async plan, it could hold
    /// the gate while suspended, and a synchronous request meeting it could neither wait (its thread
    /// might be one of the cooperative pool that the suspended build needs to resume) nor build.
    ///
    /// Settling only waits: the synchronous plan builds everything, in its order, so an async request
    /// fails exactly as a synchronous one does. Its thread still blocks where settling can't see (see
    /// the ThreadSafety article): a build that began just after settling looked, or a synchronous
    /// closure's or an injected property's request meeting a build in progress.
    func synchronousAsyncPlan(
        _ sync: PlanReference<T>,
        settling dependencies: [AsyncSettle] = [],
        preparing preparation: DeclaredPreparation? = nil
    ) -> AsyncPlan<T> {
        let settling = dependencies.isEmpty ? nil : DependencySettling(key: key, dependencies: dependencies)
        switch scope.kind {
        case .transient:
            return AsyncPlan(
                { context throws(ProvisionError) in
                    _ = try await settling?.run(context)
                    try await preparation?.run(context)
                    return try sync.make(context)
                },
                settle: { context throws(ProvisionError) in
                    // Prepared for each request (its scoped anchors are the request's scope's): never
                    // reported settled for good.
                    if let preparation {
                        try await preparation.run(context)
                        return false
                    }
                    return try await settling?.run(context) ?? true
                }
            )
        case .singleton:
            guard let cell, !cell.isPrebuilt else {
                return AsyncPlan(
                    { context throws(ProvisionError) in try sync.make(context) },
                    settle: { _ throws(ProvisionError) in true }
                )
            }
            return AsyncPlan(
                { context throws(ProvisionError) in
                    try await Node.build(through: cell, settling: settling, preparing: preparation, sync, context)
                },
                settle: { context throws(ProvisionError) in
                    // Built, or being built: nothing below it is needed. Not built: the synchronous plan
                    // will build it, after what it depends on.
                    guard let built = try await cell.settle(context) else {
                        _ = try await settling?.run(context)
                        try await preparation?.run(context)
                        return false
                    }
                    return built
                }
            )
        case .scoped:
            // A seed is read from the scope, never built.
            guard !isSeed else {
                return AsyncPlan(
                    { context throws(ProvisionError) in try sync.make(context) },
                    settle: { _ throws(ProvisionError) in true }
                )
            }
            let key = self.key
            let id = ObjectIdentifier(self)
            let cellType = InstanceCell<T>.self
            // The request's scope's cell, or nil outside a scope or in a closed one: then the synchronous
            // plan throws its error, and nothing below is waited for.
            let cellInScope: @Sendable (ResolutionContext) -> InstanceCell<T>? = { [unowned injector] context in
                guard let scope = context.scope else { return nil }
                return try? scope.cell(for: id, key: key, injector: injector, as: cellType)
            }
            return AsyncPlan(
                { context throws(ProvisionError) in
                    guard let cell = cellInScope(context) else { return try sync.make(context) }
                    return try await Node.build(
                        through: cell, settling: settling, preparing: preparation, sync, context)
                },
                settle: { context throws(ProvisionError) in
                    guard let cell = cellInScope(context) else { return false }
                    // What later requests (in other scopes) may skip is the singletons below: settle them
                    // unless this scope's build just failed, also when the instance is built (which finds
                    // them built, and says so).
                    if try await cell.settle(context) == false { return false }
                    if let preparation {
                        if cell.publishedAddress == nil { try await preparation.run(context) }
                        return false
                    }
                    return try await settling?.run(context) ?? true
                }
            )
        }
    }

    /// The instance in `cell`: published already, or built by another request (suspending while it
    /// builds), or else built by this request's synchronous plan once `settling` has waited for what
    /// it needs.
    private static func build(
        through cell: InstanceCell<T>,
        settling: DependencySettling?,
        preparing preparation: DeclaredPreparation?,
        _ sync: PlanReference<T>,
        _ context: ResolutionContext
    ) async throws(ProvisionError) -> T {
        if let address = cell.publishedAddress { return PublishedValue<T>.value(at: address) }
        if let address = try await cell.awaitBuildInProgress(context) { return PublishedValue<T>.value(at: address) }
        _ = try await settling?.run(context)
        // A singleton is built outside the request's scope (see `InstanceCell.factoryContext`): so are the
        // anchors it declared, whose scoped ones its closure can't have (it reports them captive).
        try await preparation?.run(cell.isScoped ? context : ResolutionContext(frame: context.frame))
        return try sync.make(context)
    }

    /// Wraps an async plan that builds a fresh value with this node's scope: a singleton is built once
    /// per injector and a scoped instance once per scope, through the cell's gate, with async callers
    /// suspending while another request builds it.
    @usableFromInline
    func scopedAsync(_ inner: AsyncPlan<T>) -> AsyncPlan<T> {
        switch scope.kind {
        case .transient:
            return observingAsync(inner)
        case .singleton:
            guard let cell, !cell.isPrebuilt else { return observingAsync(inner) }
            let inner = observingAsync(inner, publishingIn: cell)
            return AsyncPlan { context throws(ProvisionError) in
                if let value = cell.value { return value }
                return try await cell.buildAsync(context, using: inner.make)
            }
        case .scoped:
            let inner = observingAsync(inner)
            let key = self.key
            let id = ObjectIdentifier(self)
            let cellType = InstanceCell<T>.self
            let disposal = scopedDisposal
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

    /// The synchronous plan of a singleton or scoped node whose own factory awaits, which only the async
    /// path can build: the instance once it is built, otherwise a `requiresAsync` error. Never takes the
    /// cell's gate, so a synchronous caller can't block (or fail) an async build. (A node whose factory
    /// is synchronous, over async bindings, keeps its synchronous plan: see `Linker`.)
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
