/// The values a new ``ServiceScope`` starts with: the request it serves, its logger, its identifier.
///
/// A scope's seeds are what its scoped services can depend on but no factory can build: they exist
/// before the scope does. A module declares each seeded key with ``BindingBuilder/toSeed()``, and the
/// code that opens the scope provides the values:
///
/// ```swift
/// struct RequestModule: Module {
///     func configure(_ binder: Binder) {
///         binder.bind(HTTPRequest.self).toSeed()
///         binder.bind(RequestLog.self).to(RequestLog.init(request:)).in(.scoped)
///     }
/// }
///
/// let scope = try injector.makeScope { seed in
///     seed.provide(request)
/// }
/// let log = try scope.get(RequestLog.self)   // built with this scope's request
/// ```
///
/// A seed belongs to the code that provided it: the scope hands it out as it is and never disposes it.
/// Providing a key twice keeps the last value.
public struct ScopeSeed {
    /// One seeded value and its key.
    @usableFromInline
    struct Entry: Sendable {
        @usableFromInline let key: BindingKey
        /// A `SeedBox<T>` for the `T` of `key`.
        @usableFromInline let box: any AnyObject & Sendable
        /// The seeded object's identity, for a class `T`: the scope never disposes it, even when a scoped
        /// binding hands it on (see `ServiceScope.holdsElsewhere`).
        @usableFromInline let identity: ObjectIdentifier?

        @usableFromInline
        init(key: BindingKey, box: any AnyObject & Sendable, identity: ObjectIdentifier? = nil) {
            self.key = key
            self.box = box
            self.identity = identity
        }
    }

    @usableFromInline let injector: Injector
    @usableFromInline var entries: [Entry] = []
    /// The first key provided that no seed binding declares, if any: ``Injector/makeScope(seeding:)``
    /// throws for it.
    @usableFromInline var undeclared: BindingKey?

    init(injector: Injector) {
        self.injector = injector
        // A scope is typically seeded with a handful of values: one allocation for them.
        entries.reserveCapacity(4)
    }

    /// Provides `value` for the seed binding of its type (or of `type`), optionally named.
    ///
    /// ```swift
    /// let scope = try injector.makeScope { seed in
    ///     seed.provide(request)
    ///     seed.provide(logger, named: "request")
    ///     seed.provide(store, as: (any SessionStore).self)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - value: The value every request of the scope receives for the key.
    ///   - type: The key's type; `T` by default. Give it to seed an existential, such as
    ///     `(any SessionStore).self`.
    ///   - name: The seed binding's name; `nil` (the default) for the unnamed binding.
    @inlinable
    public mutating func provide<T: Sendable>(_ value: T, as type: T.Type = T.self, named name: String? = nil) {
        let key = BindingKey(type, named: name)
        guard injector.declaresSeed(key, as: type) else {
            if undeclared == nil { undeclared = key }
            return
        }
        store(value, for: key)
    }

    /// Provides `value` for the unnamed seed binding of `T`, which the caller found declared already
    /// (with ``Injector/hasSeed(_:named:)``, once, not per scope): an integration that seeds every scope
    /// it opens skips the lookup per value. A seed binding, once declared, stays declared.
    @inlinable
    package mutating func provideDeclared<T: Sendable>(_ value: T) {
        store(value, for: BindingKey(T.self))
    }

    /// Stores `value` under `key`, replacing an earlier value for the key.
    @inlinable
    mutating func store<T: Sendable>(_ value: T, for key: BindingKey) {
        // For a class `T`, known where the seed is provided: a bit cast, no dynamic cast.
        let identity = TypeShape.isReference(T.self) ? ObjectIdentifier(unsafeBitCast(value, to: AnyObject.self)) : nil
        let entry = Entry(key: key, box: SeedBox(value), identity: identity)
        if let index = entries.firstIndex(where: { $0.key == key }) {
            entries[index] = entry
        } else {
            entries.append(entry)
        }
    }
}

// A seed is filled in on the thread that opens the scope, like a binder.
@available(*, unavailable)
extension ScopeSeed: Sendable {}

/// A seeded value of type `T`, boxed so that every seed is stored the same way.
@usableFromInline
final class SeedBox<T: Sendable>: Sendable {
    @usableFromInline let value: T

    @usableFromInline
    init(_ value: T) {
        self.value = value
    }
}

extension Injector {
    /// Whether the binding of `key` that a request in this injector finds is a seed binding.
    ///
    /// Looks in this injector and its ancestors, without a lock and without making a just-in-time
    /// binding: modules declare seed bindings, so they are there before any scope is made.
    @inlinable
    func declaresSeed<T>(_ key: BindingKey, as type: T.Type) -> Bool {
        var current: Injector? = self
        while let injector = current {
            if let raw = injector.registry.node(for: key) ?? injector.registry.lockedNode(for: key) {
                // Every node stored under a key for `T` is a `Node<T>` (see `Binder.setRecipe`).
                return unsafeDowncast(raw.takeUnretainedValue(), to: Node<T>.self).isSeed
            }
            current = injector.parent
        }
        return false
    }
}
