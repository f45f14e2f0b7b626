// The errors Provision raises, in one place so that every message has the same shape: what went wrong,
// for which key, and how to fix it.
extension ProvisionError {
    @usableFromInline
    static func notBound(_ key: BindingKey, path: [BindingKey]) -> ProvisionError {
        let hint: String
        if key.type == Resolver.self {
            // A Resolver can't be bound (its initializer is internal): a constructor or closure of
            // several parameters took one for a dependency. (Found by hunt 27B: the hint said to bind it.)
            hint =
                "a Resolver can't be bound: the injector passes one to a closure binding whose only parameter "
                + "is a Resolver, to { resolver in ... }, or whose first one is, after the arguments declared "
                + "with withArguments(...).to { resolver, ... in ... }; every parameter of any other "
                + "function is resolved as a dependency"
        } else if let name = key.name {
            hint =
                "bind it with binder.bind(\(TypeName.metatypeExpression(key.type)), named: \"\(name)\").to(...); "
                + "a named request never falls back to the unnamed binding"
        } else {
            hint = "bind it in a module: binder.bind(\(TypeName.metatypeExpression(key.type))).to(...)"
        }
        return ProvisionError(
            code: .notBound,
            key: key,
            message: "no binding for \(key)",
            hint: hint,
            path: path
        )
    }

    /// A cycle found while linking, with the whole path known (`App -> A -> B -> A`).
    @usableFromInline
    static func cycle(_ key: BindingKey, path: [BindingKey]) -> ProvisionError {
        ProvisionError(
            code: .cycle,
            key: key,
            message: "\(key) depends on itself",
            hint: "break the cycle: inject a Provider or Lazy handle on one edge, or restructure the services",
            path: path
        )
    }

    /// A ``Lazy`` handle read while that same handle is resolving its value on the same thread: the
    /// value's construction (its initializer or factory, or something they build) reads the handle.
    static func lazyReentered(_ key: BindingKey) -> ProvisionError {
        ProvisionError(
            code: .cycle,
            key: key,
            message: "\(key) depends on itself: a Lazy handle of \(key) was read while that handle was "
                + "resolving its own value on the same thread",
            hint: "read the Lazy after \(key) is built, not from its initializer or factory (or from "
                + "anything they build)",
            path: [key]
        )
    }

    /// What a closure binding's or an initializer's failure becomes: a Provision error from a request
    /// it made (through a resolver, or a handle such as ``Lazy``), with the binding's key on its path, or
    /// `factoryFailed` wrapping anything else it threw.
    ///
    /// The error is consumed, and its box released before the key is added: a box still holding the
    /// error's storage would make `prepending(_:)` copy the whole path, once per level, so a failure
    /// thousands of levels down took time quadratic in its depth (found by hunt 26A: 12,000 levels of
    /// closures failed in 1.6 s, and resolved in 0.1 s).
    @usableFromInline
    static func thrown(by key: BindingKey, _ error: consuming any Error) -> ProvisionError {
        guard let typed = error as? ProvisionError else { return factoryFailed(key, cause: error) }
        _ = consume error
        return typed.prepending(key)
    }

    /// The ``ProvisionError`` that code which only throws `ProvisionError` threw, after a closure lost
    /// the error's type. Out of line: the cast needs stack slots that the callers' frames then don't.
    /// Consumed, as in ``thrown(by:_:)``: the error returned is the only holder of its storage.
    @usableFromInline @inline(never)
    static func recovered(_ error: consuming any Error) -> ProvisionError {
        if let typed = error as? ProvisionError {
            _ = consume error
            return typed
        }
        return ProvisionError(
            code: .factoryFailed, key: nil, message: "unexpected error \(error)", hint: "", cause: error)
    }

    @usableFromInline
    static func factoryFailed(_ key: BindingKey, cause: any Error) -> ProvisionError {
        ProvisionError(
            code: .factoryFailed,
            key: key,
            message: "the factory of \(key) threw \(String(describing: type(of: cause)))",
            hint: "see the cause; a failed singleton is not cached, so a later request tries again",
            cause: cause,
            path: [key]
        )
    }

    static func duplicateBinding(
        _ key: BindingKey,
        at location: SourceLocation?,
        reason: String,
        hint: String = "remove one of the bindings"
    ) -> ProvisionError {
        ProvisionError(
            code: .duplicateBinding,
            key: key,
            message: "\(key) is bound twice: \(reason)",
            hint: ArgumentConversion.isExistential(key.type) ? hint + markerProtocolNote : hint,
            location: location
        )
    }

    /// Why two bindings of an existential written differently in source can be one key. (Found by hunt
    /// 28B: `any Logger` and `any Logger & Sendable` were reported as one type bound twice, with no word
    /// of why.)
    private static let markerProtocolNote =
        "; `Sendable` and other marker protocols don't exist at run time, so `any P & Sendable` and `any P` "
        + "are one key: bind one of them, or tell them apart with a name (`named:`)"

    /// Two modules of one injector bind `key`, and the later binding is not an override.
    static func duplicateBinding(
        _ key: BindingKey,
        first: (module: any Module, location: SourceLocation),
        second: (module: any Module, location: SourceLocation)
    ) -> ProvisionError {
        let firstModule = TypeName.describe(type(of: first.module))
        let secondModule = TypeName.describe(type(of: second.module))
        return duplicateBinding(
            key,
            at: second.location,
            reason: "\(firstModule) binds it at \(first.location), and \(secondModule) binds it again at "
                + "\(second.location)",
            hint: "if the later binding is meant to replace the earlier one, declare it with "
                + "binder.override(\(TypeName.metatypeExpression(key.type))\(key.name.map { ", named: \"\($0)\"" } ?? "")); "
                + "otherwise remove one of them"
        )
    }

    static func incompleteBinding(_ key: BindingKey, at location: SourceLocation) -> ProvisionError {
        ProvisionError(
            code: .incompleteBinding,
            key: key,
            message: "bind(\(TypeName.metatypeExpression(key.type))) was never given a target",
            hint: "finish the binding with .to(...) or .toInstance(...)",
            location: location
        )
    }

    @usableFromInline
    static func injectorReleased(_ key: BindingKey) -> ProvisionError {
        ProvisionError(
            code: .injectorReleased,
            key: key,
            message: "the injector that created this handle for \(key) was released",
            hint: "keep the injector alive while the services that hold its handles run",
            path: [key]
        )
    }

    static func argumentMismatch(_ key: BindingKey, expected: String, given: String, reason: String) -> ProvisionError {
        ProvisionError(
            code: .argumentMismatch,
            key: key,
            message: "\(key) takes arguments \(expected), was given \(given): \(reason)",
            hint:
                "pass arguments of types \(expected) with get(_:arguments:), or declare .defaults(...) on the binding",
            path: [key]
        )
    }

    static func eagerNotSingleton(_ key: BindingKey, scope: Scope, at location: SourceLocation) -> ProvisionError {
        ProvisionError(
            code: .eagerNotSingleton,
            key: key,
            message: "\(key) is marked eager but bound \(scope); only singletons can be built eagerly",
            hint: "bind it with .in(.singleton) (or .asEagerSingleton()), or don't mark it eager",
            location: location
        )
    }

    static func typeMismatch(_ key: BindingKey, value: String, at location: SourceLocation?) -> ProvisionError {
        ProvisionError(
            code: .typeMismatch,
            key: key,
            message: "a value of type \(value) was bound to \(key), which it is not",
            hint: "bind a value that is a \(TypeName.describe(key.type)), or bind it to its own type",
            location: location,
            path: location == nil ? [key] : []
        )
    }

    /// One error for every binding missing below a request: the single error itself when there is one.
    static func missingDependencies(_ errors: [ProvisionError]) -> ProvisionError {
        guard errors.count > 1, let first = errors.first else {
            return errors.first ?? ProvisionError(code: .notBound, key: nil, message: "no binding", hint: "")
        }
        let keys = errors.compactMap(\.key).map(\.description)
        let error = ProvisionError(
            code: .notBound,
            key: first.key,
            message: "\(errors.count) bindings are missing: \(keys.joined(separator: ", "))",
            hint: "bind each of them in a module; every missing binding below the request is listed",
            path: first.path
        )
        error.storage.underlying = errors
        return error
    }

    /// A cycle of singleton builds on several threads, each waiting on the next one's gate.
    ///
    /// - Parameters:
    ///   - key: The singleton this thread was about to wait for.
    ///   - path: This thread's path to `key` (the plans the error passes through prepend the rest).
    ///   - otherThreads: The other threads' paths to the singletons they wait for, in wait order.
    static func crossThreadCycle(_ key: BindingKey, path: [BindingKey], otherThreads: [[BindingKey]])
        -> ProvisionError
    {
        let others = otherThreads.map { BindingKey.path($0) }
        let subject = others.count == 1 ? "the other thread's path" : "the other threads' paths"
        return ProvisionError(
            code: .cycle,
            key: key,
            message: "\(key) is being built on another thread that waits, directly or through other threads, "
                + "for a singleton this thread is building; \(subject): "
                + others.joined(separator: "; "),
            hint: "break the cycle: inject a Provider or Lazy handle on one edge, or restructure the services",
            path: path
        )
    }

    /// An async request was cancelled while it waited for another request's build of `key`.
    static func cancelled(_ key: BindingKey) -> ProvisionError {
        ProvisionError(
            code: .cancelled,
            key: key,
            message: "the task was cancelled while it waited for another request to build \(key)",
            hint: "nothing to fix if the cancellation was intended; the build goes on, and a later request gets "
                + "its instance",
            path: [key]
        )
    }

    /// A resolution about to go deeper than its thread's stack can hold (see `StackGuard`).
    ///
    /// - Parameters:
    ///   - key: The binding that was about to be resolved.
    ///   - remaining: The bytes of stack left.
    ///   - stackSize: The size of the thread's stack, 0 when unknown.
    ///   - path: The path to `key` as far as it is known; the plans the error propagates through
    ///     prepend the rest.
    static func depthExceeded(_ key: BindingKey, remaining: Int, stackSize: Int, path: [BindingKey])
        -> ProvisionError
    {
        let stack = stackSize > 0 ? "of its \(stackSize / 1024) KiB stack " : "of its stack "
        return ProvisionError(
            code: .depthExceeded,
            key: key,
            message: "the resolution nested too deep for this thread: \(key) was requested with "
                + "\(remaining / 1024) KiB \(stack)left",
            hint: "resolve on a thread with a larger stack (for example Thread.stackSize = 64 << 20), or break "
                + "the chain: a Provider or Lazy on one edge defers what is below it",
            path: path
        )
    }

    static func timedOut(_ key: BindingKey, after timeout: Duration) -> ProvisionError {
        ProvisionError(
            code: .timedOut,
            key: key,
            message: "gave up waiting for another thread to build \(key) after \(timeout)",
            hint: "find out why its factory is slow or stuck, or raise Configuration.singletonWaitTimeout",
            path: [key]
        )
    }

    static func configurationFailed(_ module: any Module, cause: any Error) -> ProvisionError {
        ProvisionError(
            code: .configurationFailed,
            key: nil,
            message:
                "\(TypeName.describe(type(of: module))).configure(_:) threw \(String(describing: type(of: cause)))",
            hint: "see the cause; the injector was not created",
            cause: cause
        )
    }

    /// The error's message for a cycle found at run time, where only the closing key is known when
    /// the error is created; the rest of the path is prepended as the error propagates.
    var cycleDescription: String? {
        guard code == .cycle else { return nil }
        // From the innermost key back to where it was requested before: the length of the cycle, not of
        // the path above it (validation reports thousands of cycles deep in one graph).
        var cycle: [BindingKey] = []
        var closing: BindingKey?
        forEachKeyInnermostFirst { key in
            cycle.append(key)
            guard let closing else {
                closing = key
                return true
            }
            return key != closing
        }
        guard let closing else { return nil }
        if cycle.count > 1, cycle.last != closing { cycle = [closing] }
        return BindingKey.path(cycle.reversed())
    }
}
