import Provision

/// A module made of a closure, for tests that need a one-off set of bindings.
struct ClosureModule: Module {
    let body: @Sendable (Binder) -> Void

    init(_ body: @escaping @Sendable (Binder) -> Void) {
        self.body = body
    }

    func configure(_ binder: Binder) {
        body(binder)
    }
}
