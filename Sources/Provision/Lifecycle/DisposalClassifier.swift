/// How the instances of one binding of `T` are disposed, decided once, when the binding is linked,
/// instead of with two dynamic casts for every instance built.
///
/// `InstanceRecorder.Disposal(of:)` casts each value to ``Disposable`` and then to ``AsyncDisposable``.
/// In a plan that is not specialized for `T` (a scoped binding's), each cast looks the conformance up
/// in the runtime's cache, and under load those lookups were 5% of a server request's samples in
/// Provision's frames (callgrind, one thread, a conforming class: about 140 instructions fewer per
/// scoped instance with the classifier). Most of that answer is already known from `T` alone:
///
/// - `T` conforms to ``Disposable`` (or else to ``AsyncDisposable``): every value does. The conformance
///   is found once, here, and each value is wrapped with it, no cast.
/// - `T` is a struct, an enum, a tuple, a function or a metatype that conforms to neither: no value can
///   (see `TypeShape.holdsOnlyItself(_:)`), so there is nothing to record.
/// - Otherwise (a class, whose subclass may conform; a protocol or `Any`; an optional): each value is
///   cast as before.
struct DisposalClassifier<T>: Sendable {
    private enum Kind: Sendable {
        case never
        case sync(@Sendable (T) -> any Disposable)
        case async(@Sendable (T) -> any AsyncDisposable)
        case eachValue
    }

    private let kind: Kind
    /// Whether `T` is a class: then every value's identity is its reference, no cast needed.
    private let isClass: Bool
    /// Whether the binding's values may be instances it didn't build (a closure can return a singleton,
    /// an instance binding's value or a seed), which its scope must then leave to their owner (see
    /// `ServiceScope.holdsElsewhere`). A constructor binding's values are always new: no check.
    let mayHandOn: Bool

    /// Classifies `T` (three metatype casts and a look at its metadata's kind).
    init(mayHandOn: Bool = true) {
        self.mayHandOn = mayHandOn
        // A class-bound existential (`any P & AnyObject`) is a reference and a witness table: not one
        // reference, so its identity takes the cast.
        isClass = T.self is AnyObject.Type && MemoryLayout<T>.size == MemoryLayout<AnyObject>.size
        if let type = T.self as? any Disposable.Type {
            kind = .sync(Self.wrapping(as: type))
        } else if let type = T.self as? any AsyncDisposable.Type {
            kind = .async(Self.wrapping(as: type))
        } else if TypeShape.holdsOnlyItself(T.self) {
            kind = .never
        } else {
            kind = .eachValue
        }
    }

    private init(kind: Kind, isClass: Bool) {
        self.kind = kind
        self.isClass = isClass
        self.mayHandOn = false
    }

    /// The classifier of a binding whose values it never disposes (they belong to another binding).
    static var never: DisposalClassifier { DisposalClassifier(kind: .never, isClass: false) }

    /// How to dispose `value`, or `nil` when it is neither ``Disposable`` nor ``AsyncDisposable``: the
    /// same answer as `InstanceRecorder.Disposal(of: value)`.
    func disposal(of value: T) -> InstanceRecorder.Disposal? {
        switch kind {
        case .never: nil
        case .sync(let wrap): .sync(wrap(value))
        case .async(let wrap): .async(wrap(value))
        case .eachValue: InstanceRecorder.Disposal(of: value)
        }
    }

    /// The identity of `value`, whose disposal is `disposal`, for `DisposalRecord.record`: its reference
    /// when `T` is a class (no cast), otherwise what the disposal's dynamic cast finds.
    func identity(of value: T, disposal: InstanceRecorder.Disposal) -> ObjectIdentifier? {
        guard isClass else { return disposal.identity }
        // `T` is a class: a value is one reference, reinterpreted as such.
        return ObjectIdentifier(unsafeBitCast(value, to: AnyObject.self))
    }

    /// Wraps a `T` as the ``Disposable`` it is. `D` is `T` itself (opened from `T.self`'s cast), so the
    /// reinterpretation is of a value as its own type.
    private static func wrapping<D: Disposable>(as type: D.Type) -> @Sendable (T) -> any Disposable {
        { value in unsafeBitCast(value, to: type) }
    }

    /// Wraps a `T` as the ``AsyncDisposable`` it is (see above).
    private static func wrapping<D: AsyncDisposable>(as type: D.Type) -> @Sendable (T) -> any AsyncDisposable {
        { value in unsafeBitCast(value, to: type) }
    }
}
