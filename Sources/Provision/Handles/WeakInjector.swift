/// A weak reference to an injector, shared by the handles (``Provider``, ``Lazy``, ``ObjectFactory``)
/// an injector gives out.
///
/// Handles are often stored by singletons, which the injector owns; a strong reference would make a
/// cycle that keeps the injector and everything it built alive forever. Using a handle after its
/// injector was released throws ``ProvisionError/Code/injectorReleased``.
@usableFromInline
final class WeakInjector: Sendable {
    @usableFromInline weak let value: Injector?

    init(_ value: Injector) {
        self.value = value
    }

    /// The injector, or the error to throw when it is gone.
    @inlinable
    func injector(for key: BindingKey) throws(ProvisionError) -> Injector {
        guard let value else { throw ProvisionError.injectorReleased(key) }
        return value
    }
}
