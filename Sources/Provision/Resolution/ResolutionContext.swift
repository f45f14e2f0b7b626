/// What a resolution carries from one node to the next: the stack of dynamic frames, and the request's
/// scope and async identity when it has them.
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
    /// The scope and async identity of the request, or `nil` for a synchronous request outside a scope.
    @usableFromInline let request: ResolutionRequest?

    @inlinable
    init(frame: PathFrame?, request: ResolutionRequest? = nil) {
        self.frame = frame
        self.request = request
    }

    /// The context of a new top-level request.
    @inlinable static var root: ResolutionContext {
        ResolutionContext(frame: nil)
    }

    /// The scope the request was made through, if any.
    var scope: ServiceScope? {
        request?.scope
    }

    /// The identity of the async resolution, or 0 for a synchronous one.
    var task: UInt {
        request?.task ?? 0
    }

    /// Whether `key` is already being resolved further up this thread's resolution.
    @usableFromInline
    func contains(_ key: BindingKey) -> Bool {
        var current = frame
        while let node = current {
            if node.key == key { return true }
            current = node.parent
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
        ResolutionContext(frame: PathFrame(key: key, parent: frame, isSingleton: false), request: request)
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

    /// The context for building the singleton `key`: a singleton outlives every scope, so nothing built
    /// for it may come from the request's scope.
    func enteringSingleton(_ key: BindingKey) -> ResolutionContext {
        ResolutionContext(frame: PathFrame(key: key, parent: frame, isSingleton: true), request: request?.unscoped)
    }

    /// The same context with an async identity: `task` when it has none yet.
    func identified(as task: UInt) -> ResolutionContext {
        if let request, request.task != 0 { return self }
        return ResolutionContext(frame: frame, request: ResolutionRequest(scope: scope, task: task))
    }
}

/// One entry of the dynamic resolution stack: an immutable linked list, so a frame can be shared by
/// every nested request below it without copying.
@usableFromInline
final class PathFrame: Sendable {
    let key: BindingKey
    let parent: PathFrame?
    /// Whether the frame is a singleton's build (see ``ResolutionContext/enclosingSingleton``).
    let isSingleton: Bool

    init(key: BindingKey, parent: PathFrame?, isSingleton: Bool) {
        self.key = key
        self.parent = parent
        self.isSingleton = isSingleton
    }
}

/// What a request carries besides its path: the ``ServiceScope`` it was made through, and the identity
/// of an async resolution (which the waits-for graph uses in place of a thread).
@usableFromInline
final class ResolutionRequest: Sendable {
    let scope: ServiceScope?
    /// Unique per async top-level request; 0 for synchronous requests.
    let task: UInt

    init(scope: ServiceScope?, task: UInt) {
        self.scope = scope
        self.task = task
    }

    /// The request without its scope: `nil` when nothing else is left.
    var unscoped: ResolutionRequest? {
        guard scope != nil else { return self }
        return task == 0 ? nil : ResolutionRequest(scope: nil, task: task)
    }
}
