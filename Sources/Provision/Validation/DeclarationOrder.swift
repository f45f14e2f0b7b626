import Synchronization

/// Numbers bindings in the order their nodes are created: module order, then binding order, then
/// multibinding collections and just-in-time bindings. Reports and diagrams list bindings in this
/// order, so that they read like the modules and come out the same on every run.
@usableFromInline
enum DeclarationOrder {
    private static let counter = Atomic<Int>(0)

    /// The next number; relaxed, because only the order of one thread's nodes matters.
    @usableFromInline
    static func next() -> Int {
        counter.add(1, ordering: .relaxed).newValue
    }
}
