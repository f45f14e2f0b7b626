import Synchronization

/// What a resolution carries from one node to the next: the stack of dynamic frames, and the request's
/// scope when it has one.
///
/// Static edges (constructor dependencies) are checked for cycles once, when plans are linked, so they
/// push nothing here. Only the places where the graph is not known in advance push a frame: closure
/// providers (which call the resolver themselves) and singletons or scoped instances while they are
/// being built (so that a thread re-entering an instance it is still building gets a cycle error instead
/// of waiting on its own gate). Re-entering any of those keys is the only way a cycle can form at run
/// time.
///
/// A plain synchronous request outside any scope carries two `nil`s: nothing is allocated for it.
@usableFromInline
struct ResolutionContext: Sendable {
    /// The innermost dynamic frame, or `nil` at the top of a resolution.
    @usableFromInline let frame: PathFrame?
    /// The scope the request was made through, or `nil` for a request outside a scope. Strong: a
    /// context (in a handle made in the scope) keeps its scope usable.
    @usableFromInline let scope: ServiceScope?

    @inlinable
    init(frame: PathFrame?, scope: ServiceScope? = nil) {
        self.frame = frame
        self.scope = scope
    }

    /// The context of a new top-level request.
    @inlinable static var root: ResolutionContext {
        ResolutionContext(frame: nil)
    }

    /// Whether `key` is already being resolved further up this thread's resolution.
    ///
    /// Linear in the depth up to the innermost ``PathSummary`` (at most ``PathSummary/stride`` frames),
    /// then one set lookup per summary: a resolution thousands of closures deep checks each level in
    /// near-constant time instead of walking the whole path (which made such a chain quadratic).
    @usableFromInline
    func contains(_ key: BindingKey) -> Bool {
        var current = frame
        while let node = current {
            if let summary = node.summary {
                if summary.keys.contains(key) { return true }
                current = summary.above
            } else {
                if node.key == key { return true }
                current = node.parent
            }
        }
        return false
    }

    /// Whether the instance cell `cell` is being built further up this resolution: a request that comes
    /// back to it is a cycle. Compared by the cell, not its key: another injector's binding of the same
    /// type (a tenant's configuration reading the global one, a child decorating its parent's binding),
    /// or the same scoped binding in another scope, is another instance, and waiting for it is no cycle.
    /// Summarized like ``contains(_:)``.
    func contains(cell: ObjectIdentifier) -> Bool {
        var current = frame
        while let node = current {
            if let summary = node.summary {
                if summary.cells.contains(cell) { return true }
                current = summary.above
            } else {
                if node.cell == cell { return true }
                current = node.parent
            }
        }
        return false
    }

    /// The keys of the dynamic frames, outermost first.
    var keys: [BindingKey] {
        var keys: [BindingKey] = []
        var current = frame
        while let node = current {
            keys.append(node.key)
            current = node.parent
        }
        return keys.reversed()
    }

    /// The innermost singleton being built on this resolution's path, if any: a scoped request below it
    /// would be a captive dependency.
    var enclosingSingleton: BindingKey? {
        var current = frame
        while let node = current {
            if node.isSingleton { return node.key }
            current = node.parent
        }
        return nil
    }

    /// The context for resolving below `key`.
    @usableFromInline
    func pushing(_ key: BindingKey) -> ResolutionContext {
        ResolutionContext(frame: PathFrame(key: key, parent: frame, isSingleton: false), scope: scope)
    }

    /// The context a closure binding for `key` runs with: its key pushed when `tracksPath` (a transient
    /// closure; a singleton's or scoped instance's build pushed the key already), after checking that
    /// the closure isn't re-entering itself.
    @usableFromInline
    func enteringClosure(_ key: BindingKey, tracksPath: Bool) throws(ProvisionError) -> ResolutionContext {
        guard tracksPath else { return self }
        if contains(key) { throw ProvisionError.cycle(key, path: [key]) }
        return pushing(key)
    }

    /// Who runs the build whose factory gets this context: the holder of the gate of the innermost frame
    /// (the cell looked up its identity when it installed the gate), or the caller's identity when the
    /// frame holds none.
    var buildOwner: UInt {
        frame?.gate?.owner ?? ExecutionIdentity.current
    }

    /// The context for building the singleton `key` behind `gate`: a singleton outlives every scope, so
    /// nothing built for it may come from the request's scope.
    func enteringSingleton(_ key: BindingKey, cell: ObjectIdentifier, gate: SingletonGate) -> ResolutionContext {
        ResolutionContext(
            frame: PathFrame(key: key, parent: frame, isSingleton: true, cell: cell, gate: gate), scope: nil)
    }

    /// The context for building the scoped instance `key` behind `gate`, in the request's scope.
    func enteringScoped(_ key: BindingKey, cell: ObjectIdentifier, gate: SingletonGate) -> ResolutionContext {
        ResolutionContext(
            frame: PathFrame(key: key, parent: frame, isSingleton: false, cell: cell, gate: gate), scope: scope)
    }

    /// The gates held by the builds on this path (the singletons and scoped instances being built above
    /// the request): a request that ends up waiting for one of them waits for itself.
    var heldGates: [SingletonGate] {
        var gates: [SingletonGate] = []
        var current = frame
        while let node = current {
            if let gate = node.gate { gates.append(gate) }
            current = node.parent
        }
        return gates
    }

    /// The resolution a top-level request is made from, when it is made inside a factory: the factory's
    /// path (see ``ambientFrame``). A request that starts inside an async factory, through the injector
    /// rather than the factory's ``Resolver``, continues that factory's path, so that coming back to the
    /// factory's own key is a cycle error with the whole path instead of a wait on its own gate.
    ///
    /// A path whose build has ended is not continued: an unstructured `Task` started inside the factory
    /// inherits the factory's task-locals and can outlive it, and a request it makes after the factory
    /// returned is a new one (continuing the old path would report a cycle for a key that is no longer
    /// being built, for instance the same scoped binding in another scope, or a singleton whose build
    /// failed).
    ///
    /// Read on the slow paths only (a build or a closure entry), never on a request served from a
    /// published instance; and only while some async build runs its factory (``ambientBuilds``): a
    /// server whose requests build their scoped instances synchronously never looks the task-local up.
    @usableFromInline
    func continuingAmbient() -> ResolutionContext {
        guard frame == nil, Self.ambientBuilds.load(ordering: .relaxed) != 0,
            let ambient = ResolutionContext.ambientFrame
        else { return self }
        if let gate = ambient.gate, gate.isFinished { return self }
        return ResolutionContext(frame: ambient, scope: scope)
    }

    /// The innermost frame of the async build or async closure running in the current task (inherited by
    /// its child tasks), or `nil` outside any.
    @TaskLocal static var ambientFrame: PathFrame?

    /// How many async builds are running their factory with ``ambientFrame`` bound, in the whole
    /// process. While none is, every ambient frame a task may still hold (inherited by an unstructured
    /// `Task` that outlived its factory) belongs to a build that has returned, which
    /// ``continuingAmbient()`` would not continue anyway: it skips the task-local lookup.
    ///
    /// Relaxed is enough: a request that must see the count made non-zero by a build is made by the
    /// build's own task, or by a task it created after incrementing (task creation orders the two).
    static let ambientBuilds = Atomic<Int>(0)
}
