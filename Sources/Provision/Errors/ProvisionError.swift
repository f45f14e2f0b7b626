/// The error every Provision API throws.
///
/// A `ProvisionError` says what went wrong (``code``), for which binding (``key``), along which
/// resolution path (``path``, outermost request first), and how to fix it (``hint``). Its
/// ``description`` puts all of that in one message:
///
/// ```
/// ProvisionError (not bound): no binding for any PaymentGateway
///   path: App -> Checkout -> any PaymentGateway
///   hint: bind it in a module: binder.bind((any PaymentGateway).self).to(...)
/// ```
///
/// Match on ``code`` to handle a kind of failure; the codes are open for extension, so a `switch`
/// over them needs a `default` case:
///
/// ```swift
/// do {
///     let car = try injector.get(Car.self)
/// } catch where error.code == .notBound {
///     // configure a fallback
/// }
/// ```
///
/// Two errors compare equal when their codes are equal.
public struct ProvisionError: Error, Equatable, CustomStringConvertible {
    /// The error's fields, behind one reference: a typed-throws error travels in a register, so failing
    /// and succeeding resolutions alike stay cheap. Copied on write (see ``prepending(_:)``).
    @usableFromInline
    final class Storage {
        let code: Code
        let key: BindingKey?
        let location: SourceLocation?
        let message: String
        let hint: String
        let cause: (any Error)?
        /// For an error that reports several problems at once: each of them.
        var underlying: [ProvisionError] = []
        /// Innermost request first, so that propagating an error up through nested resolutions only
        /// appends. With a ``branch``, only the inner part of the path.
        var reversedPath: [BindingKey]
        /// A part of the path shared with other errors (validation's problems), or `nil` when
        /// ``reversedPath`` holds all of it: above ``reversedPath`` going ``PathBranch/Direction/fromRoot``
        /// (and then spelled out into it before anything is prepended, see
        /// ``ProvisionError/prepending(_:)``), below it going ``PathBranch/Direction/towardRoot``.
        var branch: PathBranch?

        init(
            code: Code,
            key: BindingKey?,
            location: SourceLocation?,
            message: String,
            hint: String,
            cause: (any Error)?,
            reversedPath: [BindingKey]
        ) {
            self.code = code
            self.key = key
            self.location = location
            self.message = message
            self.hint = hint
            self.cause = cause
            self.reversedPath = reversedPath
        }

        func copy() -> Storage {
            let copy = Storage(
                code: code,
                key: key,
                location: location,
                message: message,
                hint: hint,
                cause: cause,
                reversedPath: reversedPath
            )
            copy.underlying = underlying
            copy.branch = branch
            return copy
        }
    }

    @usableFromInline var storage: Storage

    /// What kind of failure this is.
    public var code: Code { storage.code }

    /// The binding the failure is about, when there is one: the missing binding, the binding whose
    /// factory threw, the binding that closes a cycle.
    public var key: BindingKey? { storage.key }

    /// The binding's declared location, for configuration errors about a specific `bind` call.
    public var location: SourceLocation? { storage.location }

    /// A one-sentence explanation of the failure.
    public var message: String { storage.message }

    /// A one-line suggestion to fix it.
    public var hint: String { storage.hint }

    /// The error that caused this one: what a factory threw, for ``Code/factoryFailed``.
    public var cause: (any Error)? { storage.cause }

    /// The individual problems, when this error reports several at once (for example every missing
    /// dependency of a service); empty otherwise.
    public var underlyingErrors: [ProvisionError] { storage.underlying }

    init(
        code: Code,
        key: BindingKey?,
        message: String,
        hint: String,
        cause: (any Error)? = nil,
        location: SourceLocation? = nil,
        path: [BindingKey] = []
    ) {
        storage = Storage(
            code: code,
            key: key,
            location: location,
            message: message,
            hint: hint,
            cause: cause,
            reversedPath: path.reversed()
        )
    }

    /// The chain of requests that led to the failure, outermost first: for `App -> Store -> any DB`
    /// the user asked for `App`, which needed `Store`, which needed `any DB`. Empty for errors raised
    /// outside a resolution, such as a duplicate binding found while an injector is created.
    public var path: [BindingKey] {
        reversedPath.reversed()
    }

    /// The whole path, innermost request first.
    private var reversedPath: [BindingKey] {
        guard let branch = storage.branch else { return storage.reversedPath }
        switch branch.direction {
        case .fromRoot: return storage.reversedPath + branch.reversedKeys
        case .towardRoot: return branch.reversedKeys + storage.reversedPath
        }
    }

    /// Calls `body` with the keys of ``path``, innermost first, until it returns `false`: without
    /// spelling out the rest of a shared path.
    func forEachKeyInnermostFirst(_ body: (BindingKey) -> Bool) {
        let branch = storage.branch
        if let branch, branch.direction == .towardRoot {
            for key in branch.reversedKeys where !body(key) { return }
        }
        for key in storage.reversedPath where !body(key) { return }
        guard let branch, branch.direction == .fromRoot else { return }
        var current = branch.vertex
        while current >= 0, body(branch.forest.keys[current]) {
            current = branch.forest.parents[current]
        }
    }

    /// How many keys ``path`` holds.
    var pathCount: Int {
        storage.reversedPath.count + (storage.branch?.count ?? 0)
    }

    /// Returns this error with the shared `branch` as a part of its path: above the keys it holds going
    /// ``PathBranch/Direction/fromRoot``, below them going ``PathBranch/Direction/towardRoot``. Made by
    /// validation, on an error no one else holds yet.
    consuming func sharing(_ branch: PathBranch) -> ProvisionError {
        if !isKnownUniquelyReferenced(&storage) {
            storage = storage.copy()
        }
        storage.branch = branch
        return self
    }

    /// The path in Swift syntax, outermost first: `App -> Checkout -> any PaymentGateway`. In a path of
    /// several keys, a function type is in parentheses: `Feed -> (@Sendable (Int) async -> String)`.
    public var pathDescription: String {
        BindingKey.path(path)
    }

    /// This error with storage of its own, which no other thread can hold: for an error handed from one
    /// thread to another (a failed singleton build's outcome, inherited by the requests that waited for
    /// it). ``prepending(_:)`` appends in place to storage it holds alone, and whether it does is a
    /// reference count, which orders nothing between threads: a thread that had just read the path and
    /// dropped its copy would race with the append. (Found by ThreadSanitizer in CI: a cross-thread
    /// cycle's error, described by the builder's thread while a waiter prepended its key.)
    func withOwnStorage() -> ProvisionError {
        var copy = self
        copy.storage = storage.copy()
        return copy
    }

    /// Returns this error with `key` recorded as the request that led to it.
    @usableFromInline
    consuming func prepending(_ key: BindingKey) -> ProvisionError {
        // A propagating error is usually the only holder of its storage: append in place.
        if !isKnownUniquelyReferenced(&storage) {
            storage = storage.copy()
        }
        if let branch = storage.branch, branch.direction == .fromRoot {
            storage.reversedPath += branch.reversedKeys
            storage.branch = nil
        }
        storage.reversedPath.append(key)
        return self
    }

    /// The path in Swift syntax like ``pathDescription``, but a long one (a problem deep in a graph
    /// thousands of bindings deep) shows only its ends, with how many keys it leaves out between them:
    /// its root and its ``shortPathSide`` innermost keys (where a dependency is missing), or, along a
    /// ``PathBranch/Direction/towardRoot`` branch, its ``shortPathSide`` outermost keys and the last
    /// one (the captive dependency at its end). A report of thousands of such problems stays readable,
    /// and takes time linear in their number rather than in their number times the depth.
    var shortPathDescription: String {
        let count = pathCount
        let side = Self.shortPathSide
        guard count > side + 2 else { return pathDescription }
        // Both ends, read without spelling out the rest of the path.
        let own = storage.reversedPath
        var first: [BindingKey]
        var last: [BindingKey]
        if let branch = storage.branch, branch.direction == .towardRoot {
            first = own.suffix(side).reversed()
            first += branch.fromVertex(side - first.count)
            last = [branch.rootKey]
        } else {
            last = Array(own.prefix(side))
            if let branch = storage.branch, last.count < side {
                last += branch.fromVertex(side - last.count)
            }
            last.reverse()
            first = [storage.branch?.rootKey ?? own[own.count - 1]]
        }
        let omitted = "... (\(count - first.count - last.count) more)"
        return (first.map(\.pathStep) + [omitted] + last.map(\.pathStep)).joined(separator: " -> ")
    }

    /// How many keys a shortened path shows at its long end (see ``shortPathDescription``).
    static let shortPathSide = 6

    /// How many keys of a ``Code/depthExceeded`` error's path its description shows.
    static let depthPathPrefix = 6

    /// Whether two errors have the same ``code``.
    public static func == (lhs: ProvisionError, rhs: ProvisionError) -> Bool {
        lhs.code == rhs.code
    }

    /// The whole message: code, explanation, path, cycle, declaration site, cause and hint.
    public var description: String {
        var text = "ProvisionError (\(code)): \(message)"
        if code == .depthExceeded {
            // Thousands of keys long: the depth, and the start of the path, which shows the chain.
            let path = self.path
            text += "\n  depth: \(path.count) nested requests"
            let start = BindingKey.path(path.prefix(Self.depthPathPrefix))
            text += "\n  path: \(start)\(path.count > Self.depthPathPrefix ? " -> ..." : "")"
        } else if pathCount > 0 {
            text += "\n  path: \(pathDescription)"
        }
        if let cycle = cycleDescription {
            text += "\n  cycle: \(cycle)"
        }
        if let location {
            text += "\n  declared at: \(location)"
        }
        if let cause {
            text += "\n  cause: \(String(describing: cause))"
        }
        for (index, problem) in storage.underlying.enumerated() {
            text += "\n  \(index + 1). \(problem.message)"
            if problem.pathCount > 0 { text += "\n     path: \(problem.shortPathDescription)" }
            if let cycle = problem.cycleDescription { text += "\n     cycle: \(cycle)" }
            if let location = problem.location { text += "\n     declared at: \(location)" }
            if problem.hint != hint { text += "\n     hint: \(problem.hint)" }
        }
        text += "\n  hint: \(hint)"
        return text
    }
}

// Storage is only mutated (in `prepending`) when the mutating copy holds the only reference to it;
// shared storage is copied first. Every other field is immutable, and `cause` is an `Error`, which is
// Sendable.
extension ProvisionError.Storage: @unchecked Sendable {}
