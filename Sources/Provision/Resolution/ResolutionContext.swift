/// What a resolution carries from one node to the next: the stack of dynamic frames.
///
/// Static edges (constructor dependencies) are checked for cycles once, when plans are linked, so they
/// push nothing here. Only the places where the graph is not known in advance push a frame: closure
/// providers (which call the resolver themselves) and singletons while they are being built (so that a
/// thread re-entering a singleton it is still building gets a cycle error instead of waiting on its
/// own gate). Re-entering any of those keys is the only way a cycle can form at run time.
@usableFromInline
struct ResolutionContext: Sendable {
    /// The innermost dynamic frame, or `nil` at the top of a resolution.
    @usableFromInline let frame: PathFrame?

    @inlinable
    init(frame: PathFrame?) {
        self.frame = frame
    }

    /// The context of a new top-level request.
    @inlinable static var root: ResolutionContext {
        ResolutionContext(frame: nil)
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

    /// The context for resolving below `key`.
    @usableFromInline
    func pushing(_ key: BindingKey) -> ResolutionContext {
        ResolutionContext(frame: PathFrame(key: key, parent: frame))
    }
}

/// One entry of the dynamic resolution stack: an immutable linked list, so a frame can be shared by
/// every nested request below it without copying.
@usableFromInline
final class PathFrame: Sendable {
    let key: BindingKey
    let parent: PathFrame?

    init(key: BindingKey, parent: PathFrame?) {
        self.key = key
        self.parent = parent
    }
}
