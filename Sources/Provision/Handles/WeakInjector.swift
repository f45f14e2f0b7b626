public import CProvisionStack

/// A weak reference to an injector, shared by the handles (``Provider``, ``Lazy``, ``ObjectFactory``)
/// an injector gives out; for a handle created while resolving in a ``ServiceScope``, also that scope.
///
/// Handles are often stored by singletons, which the injector owns; a strong reference would make a
/// cycle that keeps the injector and everything it built alive forever. Using a handle after its
/// injector was released throws ``ProvisionError/Code/injectorReleased``.
///
/// A handle resolves in the scope it was created in: a `Lazy<Customer>` held by a scoped service, built
/// in a request's scope, reads the request's scoped customer. The scope is held weakly too (a scoped
/// instance holding a strong reference to its own scope would be a cycle); once the scope is gone, the
/// handle's requests for scoped bindings throw ``ProvisionError/Code/outsideScope``, like any request
/// outside a scope.
@usableFromInline
final class WeakInjector: Sendable {
    /// The injector's address. This reference holds an unowned reference count on it (taken in `init`,
    /// dropped in `deinit`), which keeps the object's memory allocated after the injector's deinit, but
    /// not the injector: ``value`` takes a strong reference only if the injector isn't being
    /// deinitialized (see `CProvisionRetain.h`).
    ///
    /// Not a Swift `weak` reference: that gives the injector a side table, and each release of the
    /// injector then takes the runtime's slow path: a `Provider.get()` cost 220 instructions more than
    /// the same request through the injector, and costs 136 more now (callgrind, di-bench's leaf).
    @usableFromInline let address: UInt
    /// The scope the handle was created in; `nil` for a handle created outside any scope.
    @usableFromInline let scope: WeakScope?

    init(_ value: Injector, scope: ServiceScope? = nil) {
        let object = Unmanaged.passUnretained(value).toOpaque()
        c_provision_unowned_retain(object)
        self.address = UInt(bitPattern: object)
        self.scope = scope.map(WeakScope.init)
    }

    deinit {
        c_provision_unowned_release(object)
    }

    /// The injector's object, unretained: valid memory for as long as this reference lives.
    @inlinable var object: UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(bitPattern: address).unsafelyUnwrapped
    }

    /// The injector, retained; `nil` once its last strong reference is gone.
    @inlinable var value: Injector? {
        guard c_provision_try_retain(object) else { return nil }
        return Unmanaged<Injector>.fromOpaque(object).takeRetainedValue()
    }

    /// The injector, or the error to throw when it is gone.
    @inlinable
    func injector(for key: BindingKey) throws(ProvisionError) -> Injector {
        guard let value else { throw ProvisionError.injectorReleased(key) }
        return value
    }

    /// This reference, for a handle a plan makes in `context`: a new one that remembers the context's
    /// scope when it has one, this one otherwise.
    func scoped(in context: ResolutionContext) -> WeakInjector {
        guard let scope = context.scope, let value else { return self }
        return WeakInjector(value, scope: scope)
    }

    /// The context a request through the handle starts with: in the handle's scope, if it has one.
    /// Read through ``inScope(_:)``, which also words the error of a scope that is gone.
    private var context: ResolutionContext {
        guard let scope else { return .root }
        return ResolutionContext(frame: nil, scope: scope.value)
    }

    /// Resolves `key` in `injector`, in the handle's scope: the slow path of ``Provider/get()`` for a
    /// handle created in a scope.
    @usableFromInline
    func resolveInScope<T>(_ key: BindingKey, as type: T.Type, in injector: Injector) throws(ProvisionError) -> T {
        try inScope { context throws(ProvisionError) -> T in
            try injector.resolve(key, as: type, context: context)
        }
    }

    /// Runs a request of the handle with the context it starts with (see ``context``): the only way to
    /// that context. Once the handle's scope is gone (closed, and released by everything that held it)
    /// the request runs outside any scope, and a scoped key's ``ProvisionError/Code/outsideScope``
    /// error then says that the handle's scope is gone, instead of telling the caller to open a scope,
    /// which a handle can't do. Only the error is rewritten, so a request that succeeds pays nothing.
    func inScope<R>(_ body: (ResolutionContext) throws(ProvisionError) -> R) throws(ProvisionError) -> R {
        do {
            return try body(context)
        } catch {
            guard error.code == .outsideScope, let scope, scope.value == nil else { throw error }
            throw ProvisionError.outsideReleasedScope(error)
        }
    }
}

/// A weak reference to a ``ServiceScope``.
@usableFromInline
final class WeakScope: Sendable {
    weak let value: ServiceScope?

    init(_ value: ServiceScope) {
        self.value = value
    }
}
