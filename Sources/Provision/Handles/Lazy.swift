import Dispatch

/// Resolves a `T` the first time its ``value`` is read, then returns that same instance.
///
/// Inject `Lazy<T>` for a dependency that is expensive and not always needed, or to break a
/// construction cycle (nothing is resolved until ``value`` is read):
///
/// ```swift
/// final class ReportService: Sendable {
///     let renderer: Lazy<PDFRenderer>
///     init(renderer: Lazy<PDFRenderer>) { self.renderer = renderer }
///
///     func export() throws -> Data { try renderer.value.render() }
/// }
/// ```
///
/// Each injected `Lazy` builds its value at most once, even when several threads read it at the same
/// time: the first reader resolves it (with no lock held) and the others wait for that result. If the
/// resolution fails, every waiting reader gets the error and the next read tries again. Like
/// ``Provider``, a lazy handle refers to its injector weakly and resolves in the injector that created it.
public final class Lazy<T: Sendable>: Sendable {
    private enum State: Sendable {
        case unresolved
        case resolving(DispatchSemaphore, waiters: Int)
        case resolved(T)
    }

    private enum Action {
        case done(T)
        case wait(DispatchSemaphore)
        case resolve
    }

    private let provider: Provider<T>
    private let state = Locked<State>(.unresolved)
    /// The last failure, handed to the threads that waited for it.
    private let failure = Locked<ProvisionError?>(nil)

    init(provider: Provider<T>) {
        self.provider = provider
    }

    /// The value, resolved on first access.
    ///
    /// - Throws: ``ProvisionError``: what resolving the value throws (the next read tries again), or
    ///   ``ProvisionError/Code/injectorReleased`` when the injector is gone.
    public var value: T {
        get throws(ProvisionError) {
            while true {
                let action = state.withLock { state -> Action in
                    switch state {
                    case .resolved(let value):
                        return .done(value)
                    case .resolving(let semaphore, let waiters):
                        state = .resolving(semaphore, waiters: waiters + 1)
                        return .wait(semaphore)
                    case .unresolved:
                        state = .resolving(DispatchSemaphore(value: 0), waiters: 0)
                        return .resolve
                    }
                }
                switch action {
                case .done(let value):
                    return value
                case .wait(let semaphore):
                    semaphore.wait()
                    if let error = failure.withLock({ $0 }) { throw error }
                case .resolve:
                    let result: Result<T, ProvisionError>
                    do throws(ProvisionError) {
                        result = .success(try provider.get())
                    } catch {
                        result = .failure(error)
                    }
                    if case .failure(let error) = result {
                        failure.withLock { $0 = error }
                    }
                    let (semaphore, waiters) = state.withLock { state -> (DispatchSemaphore?, Int) in
                        guard case .resolving(let semaphore, let waiters) = state else { return (nil, 0) }
                        switch result {
                        case .success(let value): state = .resolved(value)
                        case .failure: state = .unresolved
                        }
                        return (semaphore, waiters)
                    }
                    for _ in 0..<waiters { semaphore?.signal() }
                    return try result.get()
                }
            }
        }
    }
}

extension Lazy: SyntheticDependency {
    static func syntheticRecipe(for key: BindingKey) -> Any {
        let target = BindingKey(T.self, named: key.name)
        return Recipe<Lazy<T>>(
            dependencies: .deferred([target]),
            link: { _, node in
                let injector = WeakInjector(node.injector)
                // A new handle per injection: each dependent resolves its own value once.
                return Plan { _ in Lazy(provider: Provider(injector: injector, key: target)) }
            },
            instance: nil
        )
    }
}
