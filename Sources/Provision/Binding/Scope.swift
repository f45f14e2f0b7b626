/// How long an instance built by a binding lives, and who shares it.
///
/// - ``transient``: a new instance for every request (the default).
/// - ``singleton``: one instance per injector, built on first use (exactly once, even when many threads
///   ask at the same moment) and shared by every later request.
///
/// ```swift
/// binder.bind(Clock.self).to(SystemClock.init).in(.singleton)
/// ```
public struct Scope: Hashable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        case transient
        case singleton
    }

    let kind: Kind

    private init(_ kind: Kind) {
        self.kind = kind
    }

    /// A new instance for every request. The default scope of every binding.
    public static let transient = Scope(.transient)

    /// One instance per injector, built once on first use and shared afterwards.
    public static let singleton = Scope(.singleton)

    @usableFromInline var isSingleton: Bool {
        kind == .singleton
    }

    /// The scope's name: `transient` or `singleton`.
    public var description: String {
        switch kind {
        case .transient: "transient"
        case .singleton: "singleton"
        }
    }
}
