public import CProvisionStack

/// Stops a resolution that would overflow its thread's stack, with a
/// ``ProvisionError/Code/depthExceeded`` error instead of a crash.
///
/// Resolution is recursive: a service's plan calls its dependencies' plans, a closure binding's
/// resolver calls back into the injector, the linker links a binding's dependencies before the binding.
/// A chain of bindings deeper than the thread's stack can hold would crash the process. The guard
/// compares the current stack position with the thread's stack bounds (read once per thread and kept
/// in thread-local storage; see `CProvisionStack`) and throws while ``margin`` bytes are still left:
/// enough for the frames the guard doesn't see, such as a user factory's own, and for unwinding.
///
/// It is checked where the resolution recurses through a dynamic edge — entering a closure binding,
/// injecting properties, resolving through a ``Provider``, ``Lazy`` or ``ObjectFactory``, a request with
/// arguments, and each level of linking — and, on chains of static edges, at one binding in every
/// ``staticStride`` levels (see ``Linker``), so that the constructor plans on the hot path check
/// nothing themselves.
@usableFromInline
enum StackGuard {
    /// The stack that must be left when a resolution goes one level deeper: 128 KiB. It covers the
    /// unchecked levels of a static chain below a checked one (``staticStride`` levels of at most
    /// 2 KiB each in a debug build), a user factory's own frames, and the error's unwinding.
    static let margin = inlinableMargin

    /// On chains of static edges (constructors, delegations, singletons), one binding in every this
    /// many levels checks the stack (see ``Linker``).
    static let staticStride = 32

    /// Throws ``ProvisionError/Code/depthExceeded`` for `key` when less than ``margin`` bytes of the
    /// thread's stack are left. The error's path starts with `key`; each level of the resolution adds
    /// its key as the error propagates.
    ///
    /// Inlined: the comparison is a few instructions (see `c_provision_stack_remaining`); only the error
    /// is made out of line.
    @inlinable @inline(__always)
    static func check(_ key: BindingKey) throws(ProvisionError) {
        let remaining = c_provision_stack_remaining()
        guard remaining < inlinableMargin else { return }
        throw exceeded(key, remaining: remaining)
    }

    /// ``margin``, for inlinable code.
    @inlinable static var inlinableMargin: Int { 128 * 1024 }

    /// The error of ``check(_:)``.
    @usableFromInline
    static func exceeded(_ key: BindingKey, remaining: Int) -> ProvisionError {
        exceeded(key, remaining: remaining, path: [key])
    }

    /// ``check(_:)`` for a caller that knows the whole path to `key` (the linker): the error carries it.
    static func check(_ key: BindingKey, path: @autoclosure () -> [BindingKey]) throws(ProvisionError) {
        let remaining = c_provision_stack_remaining()
        guard remaining < margin else { return }
        throw exceeded(key, remaining: remaining, path: path())
    }

    private static func exceeded(_ key: BindingKey, remaining: Int, path: [BindingKey]) -> ProvisionError {
        ProvisionError.depthExceeded(key, remaining: remaining, stackSize: c_provision_stack_size(), path: path)
    }
}
