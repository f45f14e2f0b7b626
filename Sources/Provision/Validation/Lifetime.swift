/// How long a binding's instance lives, ranked for the captive-dependency rule.
///
/// A *captive dependency* is a longer-lived instance holding a shorter-lived one: the holder keeps the
/// captive alive past the end of its lifetime, and every later user of the holder sees a stale instance
/// (a per-request context captured by a process-wide cache). The rule compares lifetimes that make a
/// promise about when an instance ends. A transient binding makes none: its instance belongs to the
/// one dependent it was built for and lives as long as that dependent, so a singleton that depends on a
/// transient is not captive (transient is also the default scope, so flagging it would flag nearly
/// every graph). A lifetime shorter than the injector's (a per-request `.scoped`) ranks between the two,
/// and a singleton depending on it, directly or through transients, is an error.
enum Lifetime: Sendable, CustomStringConvertible {
    /// No promise: a new instance for each dependent (``Scope/transient``).
    case transient
    /// Shorter than the injector's: one instance per ``ServiceScope``, such as a request
    /// (``Scope/scoped``).
    case scoped
    /// As long as the injector (``Scope/singleton`` and instance bindings).
    case singleton

    init(_ scope: Scope) {
        switch scope.kind {
        case .transient: self = .transient
        case .singleton: self = .singleton
        case .scoped: self = .scoped
        }
    }

    /// Longer lives rank higher; `nil` for a lifetime that makes no promise.
    var rank: Int? {
        switch self {
        case .transient: nil
        case .scoped: 1
        case .singleton: 2
        }
    }

    var description: String {
        switch self {
        case .transient: "transient"
        case .scoped: "scoped"
        case .singleton: "singleton"
        }
    }
}
