/// How long an instance built by a binding lives, and who shares it.
///
/// - ``transient``: a new instance for every request (the default).
/// - ``singleton``: one instance per injector, built on first use (exactly once, even when many threads
///   ask at the same moment) and shared by every later request.
/// - ``scoped``: one instance per ``ServiceScope`` (a request, a job), built on first use in the scope
///   and disposed when the scope closes.
///
/// ```swift
/// binder.bind(Clock.self).to(SystemClock.init).in(.singleton)
/// binder.bind(RequestContext.self).to(RequestContext.init).in(.scoped)
/// ```
public struct Scope: Hashable, Sendable, CustomStringConvertible {
    @usableFromInline
    enum Kind: Hashable, Sendable {
        case transient
        case singleton
        case scoped
    }

    @usableFromInline let kind: Kind

    private init(_ kind: Kind) {
        self.kind = kind
    }

    /// A new instance for every request. The default scope of every binding.
    public static let transient = Scope(.transient)

    /// One instance per injector, built once on first use and shared afterwards.
    public static let singleton = Scope(.singleton)

    /// One instance per ``ServiceScope``: built once on first use in a scope (exactly once, even when
    /// several threads of the scope ask at the same moment), shared by every request made through that
    /// scope, and disposed in reverse creation order when the scope closes (see ``Disposable``).
    ///
    /// Requesting a scoped binding outside any scope throws ``ProvisionError/Code/outsideScope``; a
    /// singleton that depends on one throws ``ProvisionError/Code/captiveDependency``.
    public static let scoped = Scope(.scoped)

    @usableFromInline var isSingleton: Bool {
        kind == .singleton
    }

    @usableFromInline var isScoped: Bool {
        kind == .scoped
    }

    /// The scope's name: `transient`, `singleton` or `scoped`.
    public var description: String {
        switch kind {
        case .transient: "transient"
        case .singleton: "singleton"
        case .scoped: "scoped"
        }
    }
}
