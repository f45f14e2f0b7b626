/// Records the bindings a ``Module`` declares.
///
/// A binder is handed to ``Module/configure(_:)`` and is valid only during that call. Start each
/// binding with ``bind(_:named:fileID:line:)`` and finish it with `to(...)` or `toInstance(_:)`:
///
/// ```swift
/// func configure(_ binder: Binder) {
///     binder.bind(Engine.self).to(Engine.init)
///     binder.bind(Car.self).to(Car.init(engine:brakes:))
///     binder.bind(Headlight.self, named: "left").to(HalogenHeadlight.init).in(.singleton)
/// }
/// ```
///
/// Binding the same key twice in one module is an error (``ProvisionError/Code/duplicateBinding``),
/// reported when the injector is created. Across modules, a later module's binding replaces an earlier
/// module's binding for the same key.
public final class Binder {
    struct Record {
        let key: BindingKey
        let location: SourceLocation
        var scope: Scope = .transient
        /// Creates the binding's node in an injector; `nil` until the binding gets a target.
        var makeNode: ((Injector, Scope) -> any AnyNode)?
    }

    private(set) var records: [Record] = []

    init() {}

    /// Starts a binding for `type`, optionally named.
    ///
    /// - Parameters:
    ///   - type: The type requests will ask for: a concrete type (`Car.self`) or an existential
    ///     (`(any Store).self`).
    ///   - name: A name that distinguishes several bindings of one type; a named request never falls
    ///     back to the unnamed binding.
    ///   - fileID: Recorded for error messages; leave the default.
    ///   - line: Recorded for error messages; leave the default.
    /// - Returns: A builder; finish it with `to(...)` or `toInstance(_:)`.
    public func bind<T>(
        _ type: T.Type,
        named name: String? = nil,
        fileID: String = #fileID,
        line: Int = #line
    ) -> BindingBuilder<T> {
        records.append(Record(key: BindingKey(type, named: name), location: SourceLocation(fileID: fileID, line: line)))
        return BindingBuilder(binder: self, index: records.count - 1)
    }

    @usableFromInline
    func setRecipe<T>(_ recipe: Recipe<T>, at index: Int) {
        let record = records[index]
        records[index].makeNode = { injector, scope in
            Node(key: record.key, scope: scope, location: record.location, recipe: recipe, injector: injector)
        }
    }

    @usableFromInline
    func setScope(_ scope: Scope, at index: Int) {
        records[index].scope = scope
    }

    /// The finished bindings, checked: every `bind` got a target and no key is bound twice.
    func finishedRecords() throws(ProvisionError) -> [Record] {
        var seen: [BindingKey: SourceLocation] = [:]
        for record in records {
            guard record.makeNode != nil else {
                throw ProvisionError.incompleteBinding(record.key, at: record.location)
            }
            if let first = seen[record.key] {
                throw ProvisionError.duplicateBinding(
                    record.key,
                    at: record.location,
                    reason: "the same module binds it at \(first) and at \(record.location)"
                )
            }
            seen[record.key] = record.location
        }
        return records
    }
}

// A binder collects one module's bindings on the thread that configures it.
@available(*, unavailable)
extension Binder: Sendable {}
