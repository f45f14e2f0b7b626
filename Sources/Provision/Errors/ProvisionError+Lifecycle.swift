// The errors of async resolution, scopes and the lifecycle.
extension ProvisionError {
    @usableFromInline
    static func shutDown(_ key: BindingKey?) -> ProvisionError {
        ProvisionError(
            code: .shutDown,
            key: key,
            message: key.map { "can't resolve \($0): the injector was shut down" }
                ?? "the injector was shut down",
            hint: "resolve services between start() and shutdown(); create a new injector to run again",
            path: key.map { [$0] } ?? []
        )
    }

    /// A child or derived injector (`makeChild`, `overriding`, `with`, `without`) asked of an injector
    /// that has begun shutting down (or whose ancestor has).
    static func madeFromShutDownInjector() -> ProvisionError {
        ProvisionError(
            code: .shutDown,
            key: nil,
            message: "can't make a child or derived injector of an injector that was shut down",
            hint: "make children (makeChild) and derived injectors (overriding, with, without) before the "
                + "parent's shutdown(); create a new injector to run again",
            path: []
        )
    }

    /// `key` was missing from an injector because it, or an ancestor, began shutting down (its tables
    /// were emptied): a request, or validation, reached it along `path`.
    static func shutDown(_ key: BindingKey, path: [BindingKey], byAncestor: Bool) -> ProvisionError {
        ProvisionError(
            code: .shutDown,
            key: key,
            message: byAncestor
                ? "can't resolve \(key): an ancestor of the injector (its parent, or above) was shut down"
                : "can't resolve \(key): the injector was shut down",
            hint: byAncestor
                ? "resolve through a child only while its ancestors run; make a new injector chain to run again"
                : ProvisionError.shutDown(key).hint,
            path: path.isEmpty ? [key] : path
        )
    }

    /// A synchronous request reached a binding that only the async path can build.
    ///
    /// - Parameter dependency: The binding with the async factory, when known.
    @usableFromInline
    static func requiresAsync(_ key: BindingKey, dependency: BindingKey?, path: [BindingKey]) -> ProvisionError {
        let reason =
            if let dependency, dependency != key {
                "it depends on \(dependency), which has an async factory"
            } else if dependency == key {
                "its factory is async"
            } else {
                "building it awaits an async factory"
            }
        return ProvisionError(
            code: .requiresAsync,
            key: key,
            message: "\(key) can't be built by a synchronous request: \(reason)",
            hint: requiresAsyncHint(key),
            path: path
        )
    }

    /// How to resolve `key`, which a synchronous request can't build: the hint of every `requiresAsync`.
    private static func requiresAsyncHint(_ key: BindingKey) -> String {
        "resolve it with try await injector.get(\(TypeName.metatypeExpression(key.type))), "
            + "or build it first: try await injector.start() builds every singleton (a synchronous "
            + "closure that requests it can declare it with to(dependencies:), and async requests build "
            + "it first)"
    }

    /// A synchronous request found an async request building `key` (a binding whose factory is
    /// synchronous, over async bindings): it doesn't wait for work that may be suspended.
    static func requiresAsyncWhileBuilding(_ key: BindingKey) -> ProvisionError {
        ProvisionError(
            code: .requiresAsync,
            key: key,
            message: "\(key) can't be built by a synchronous request now: an async request is building it, "
                + "awaiting an async factory, and a synchronous request doesn't wait for it",
            hint: requiresAsyncHint(key),
            path: [key]
        )
    }

    /// A scoped binding that delegates to a binding with arguments, requested with arguments.
    static func scopedDelegationWithArguments(_ key: BindingKey) -> ProvisionError {
        ProvisionError(
            code: .invalidLifecycle,
            key: key,
            message: "\(key) is scoped and delegates to a binding with arguments: one instance per scope "
                + "would ignore the arguments of every request but the first",
            hint: "bind the delegation transient (built from each request's arguments) or singleton, "
                + "or request it without arguments",
            path: [key]
        )
    }

    /// An async request needs a recipe that has no async form (argument bindings, providers).
    static func asyncUnsupported(_ key: BindingKey) -> ProvisionError {
        ProvisionError(
            code: .requiresAsync,
            key: key,
            message: "\(key) depends on a binding with an async factory, but its own kind of binding "
                + "can only build synchronously",
            hint: "bind it with to(...) or an async closure, or build the async dependency first "
                + "(try await injector.start())",
            path: [key]
        )
    }

    @usableFromInline
    static func outsideScope(_ key: BindingKey, closed: Bool) -> ProvisionError {
        ProvisionError(
            code: .outsideScope,
            key: key,
            message: closed
                ? "\(key) is scoped, and the scope it was requested through is closed"
                : "\(key) is scoped, and was requested outside any scope",
            hint: closed
                ? "resolve scoped services while their scope is open (inside withScope { ... })"
                : "resolve it through a scope: try injector.withScope { scope in try scope.get(...) }, "
                    + "or injector.makeScope()",
            path: [key]
        )
    }

    /// `error`, an ``Code/outsideScope`` error of a request that a ``Provider``, ``Lazy`` or
    /// ``ObjectFactory`` made after the scope it was made in was closed and released: the same key and
    /// path, and what to do about it.
    static func outsideReleasedScope(_ error: ProvisionError) -> ProvisionError {
        let service = error.key.map { "\($0)" } ?? "the service"
        return ProvisionError(
            code: .outsideScope,
            key: error.key,
            message: "\(service) is scoped, and the scope the handle resolving it was made in is closed and released",
            hint: "a Provider, Lazy or ObjectFactory made while a scope's services are built resolves in that "
                + "scope: call it only while that scope is open",
            path: error.path
        )
    }

    /// The error of a request for `key` made where a scope was expected and there is none: for
    /// integrations that hand out a request's ``ServiceScope`` (such as a web framework's request
    /// context) and were asked before they opened one.
    ///
    /// ```swift
    /// guard let scope = context.serviceScope else {
    ///     throw ProvisionError.outsideScope(key, hint: "add RequestScopeMiddleware to the router")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key requested.
    ///   - hint: How to fix it: where the scope should have been opened.
    /// - Returns: An error with code ``Code/outsideScope``.
    public static func outsideScope(_ key: BindingKey, hint: String) -> ProvisionError {
        ProvisionError(
            code: .outsideScope,
            key: key,
            message: "\(key) was requested outside any scope",
            hint: hint,
            path: [key]
        )
    }

    /// A seed binding requested through a scope opened without its value.
    @usableFromInline
    static func notSeeded(_ key: BindingKey, seeded: [BindingKey]) -> ProvisionError {
        ProvisionError(
            code: .notSeeded,
            key: key,
            message: "\(key) is seeded by each scope (toSeed()), and this scope was opened without it"
                + (seeded.isEmpty ? "" : " (it was seeded with \(listing(seeded)))"),
            hint: "provide it where the scope is made: injector.makeScope { seed in seed.provide(...) }",
            path: [key]
        )
    }

    /// A scope opened with a value for a key that no seed binding declares.
    static func undeclaredSeed(_ key: BindingKey) -> ProvisionError {
        ProvisionError(
            code: .notSeeded,
            key: key,
            message: "a scope was seeded with \(key), which no seed binding declares",
            hint: "declare it in a module: binder.bind(\(TypeName.metatypeExpression(key.type))"
                + (key.name.map { ", named: \"\($0)\"" } ?? "") + ").toSeed()",
            path: [key]
        )
    }

    /// A scoped instance whose build ended after its scope had closed and disposed what it built: the
    /// instance was disposed (`disposal` is what disposing it threw, if anything) and is not handed out.
    static func scopeClosedDuringBuild(_ key: BindingKey, disposal: ProvisionError?) -> ProvisionError {
        ProvisionError(
            code: .outsideScope,
            key: key,
            message: "\(key) is scoped, and its scope was closed while it was being built; "
                + (disposal == nil ? "the instance was disposed" : "disposing the instance failed (see the cause)"),
            hint: "close a scope once the work that uses it is done (withScope { ... } does that), "
                + "or raise Configuration.lifecycleHookTimeout if close() gave up waiting for a slow factory",
            cause: disposal,
            path: [key]
        )
    }

    /// An async-disposable instance met by a synchronous `close()`, which can't await its disposal.
    static func asyncDisposalInSynchronousClose(_ key: BindingKey) -> ProvisionError {
        ProvisionError(
            code: .requiresAsync,
            key: key,
            message: "\(key) is AsyncDisposable, and a synchronous close() can't await its dispose(); "
                + "it was not disposed",
            hint: "close the scope with try await scope.close(), or use injector.withScope { ... }",
            path: [key]
        )
    }

    static func hooksNotSingleton(_ key: BindingKey, scope: Scope, at location: SourceLocation) -> ProvisionError {
        ProvisionError(
            code: .invalidLifecycle,
            key: key,
            message: "\(key) declares start or stop hooks but is bound \(scope); only singletons are started "
                + "and stopped",
            hint: "bind it with .in(.singleton) before .onStart/.onStop, or dispose per-scope instances "
                + "with Disposable",
            location: location
        )
    }

    static func alreadyStarted(phase: String) -> ProvisionError {
        ProvisionError(
            code: .invalidLifecycle,
            key: nil,
            message: "start() was called on an injector that \(phase)",
            hint: "start an injector once; to run again after shutdown, create a new injector"
        )
    }

    /// A start or stop hook, or a disposal, that threw.
    static func hookFailed(_ key: BindingKey, _ action: String, cause: any Error) -> ProvisionError {
        ProvisionError(
            code: .factoryFailed,
            key: key,
            message: "\(action) \(key) threw \(String(describing: type(of: cause)))",
            hint: "see the cause",
            cause: cause,
            path: [key]
        )
    }

    /// A start or stop hook, or a disposal, that did not finish in time.
    static func hookTimedOut(_ key: BindingKey, _ action: String, after timeout: Duration) -> ProvisionError {
        ProvisionError(
            code: .timedOut,
            key: key,
            message: "\(action) \(key) did not finish within \(timeout)",
            hint: "find out why it is slow or stuck, or raise Configuration.lifecycleHookTimeout",
            path: [key]
        )
    }

    static func startFailed(_ failures: [ProvisionError]) -> ProvisionError {
        let error = ProvisionError(
            code: .startFailed,
            key: failures.first?.key,
            message: "the injector could not start: "
                + failures.map(\.message).joined(separator: "; "),
            hint: "fix the failing service; the services that had started were stopped again",
            path: failures.first?.path ?? []
        )
        error.storage.underlying = failures
        return error
    }

    static func stopFailed(_ failures: [ProvisionError], while activity: String) -> ProvisionError {
        let error = ProvisionError(
            code: .stopFailed,
            key: failures.first?.key,
            message: "\(failures.count) failure\(failures.count == 1 ? "" : "s") while \(activity): "
                + failures.map(\.message).joined(separator: "; "),
            hint: "see each failure; every other service was still stopped and disposed"
        )
        error.storage.underlying = failures
        return error
    }
}
