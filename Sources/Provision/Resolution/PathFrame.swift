/// One entry of the dynamic resolution stack: an immutable linked list, so a frame can be shared by
/// every nested request below it without copying.
///
/// Every ``PathSummary/stride``-th frame also carries a ``PathSummary`` of the frames above it, so that
/// asking whether a key or a cell is on the path stays cheap at any depth (see
/// ``ResolutionContext/contains(_:)``).
@usableFromInline
final class PathFrame: Sendable {
    let key: BindingKey
    let parent: PathFrame?
    /// For the build of a singleton or scoped instance: the instance cell being built (see
    /// ``ResolutionContext/contains(cell:)``). The cell outlives the frame: it is freed with its node or
    /// its scope, after every build of it has returned.
    let cell: ObjectIdentifier?
    /// Whether the frame is a singleton's build (see ``ResolutionContext/enclosingSingleton``).
    let isSingleton: Bool
    /// The number of frames from the top of the resolution down to this one, this one included.
    let depth: UInt32
    /// For the build of a singleton or scoped instance: the gate this build holds.
    let gate: SingletonGate?
    /// The keys and cells of this frame and the ones above it, down to ``PathSummary/above``; set on
    /// the frames whose depth is a multiple of ``PathSummary/stride``, `nil` on the others.
    let summary: PathSummary?

    init(
        key: BindingKey,
        parent: PathFrame?,
        isSingleton: Bool,
        cell: ObjectIdentifier? = nil,
        gate: SingletonGate? = nil
    ) {
        let depth = (parent?.depth ?? 0) &+ 1
        self.key = key
        self.parent = parent
        self.cell = cell
        self.isSingleton = isSingleton
        self.depth = depth
        self.gate = gate
        self.summary =
            depth % PathSummary.stride == 0
            ? PathSummary(depth: depth, key: key, cell: cell, parent: parent) : nil
    }
}

/// The keys and cells of a run of consecutive frames of a resolution path: what lets a membership test
/// on a path thousands of frames deep skip the run with one set lookup.
///
/// The frame at depth `d` (a multiple of ``stride``) covers the `span` frames from `d - span + 1` to
/// `d`, where `span` is the largest power of ``stride`` that divides `d` (capped at `stride³`). A walk up
/// the path therefore reads at most `stride - 1` plain frames, then at most `stride - 1` summaries of
/// each size, which grow as it goes up. Making a summary reads the `span` frames it covers once; as a
/// summary of `span` frames is made every `span` frames, that costs each frame one set insertion per
/// size, and nothing at all on a path shallower than ``stride`` (every ordinary resolution).
final class PathSummary: Sendable {
    /// How many frames the smallest summary covers.
    static let stride: UInt32 = 32

    /// The keys of the covered frames.
    let keys: Set<BindingKey>
    /// The cells of the covered frames that build an instance.
    let cells: Set<ObjectIdentifier>
    /// The frame just above the covered run (where a walk up the path goes on), or `nil` when the run
    /// reaches the top.
    let above: PathFrame?

    /// The summary of the frame at `depth`, of `key` and `cell`, below `parent`.
    init(depth: UInt32, key: BindingKey, cell: ObjectIdentifier?, parent: PathFrame?) {
        var span = Self.stride
        while span < Self.stride * Self.stride * Self.stride, depth % (span * Self.stride) == 0 {
            span *= Self.stride
        }
        var keys: Set<BindingKey> = [key]
        var cells: Set<ObjectIdentifier> = []
        if let cell { cells.insert(cell) }
        var current = parent
        var remaining = span - 1
        while remaining > 0, let node = current {
            if let summary = node.summary {
                // A smaller summary inside the run: take its sets whole and jump over what it covers.
                keys.formUnion(summary.keys)
                cells.formUnion(summary.cells)
                remaining -= node.depth - (summary.above?.depth ?? 0)
                current = summary.above
            } else {
                keys.insert(node.key)
                if let cell = node.cell { cells.insert(cell) }
                remaining -= 1
                current = node.parent
            }
        }
        self.keys = keys
        self.cells = cells
        self.above = current
    }
}
