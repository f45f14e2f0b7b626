public import Provision
public import Testing

/// A Swift Testing trait that gives each test an injector of its own, with the overrides it needs.
///
/// Add it to a test, or to a suite to give each of its tests (each case of a parameterized test) a new
/// injector; the test reads it as ``TestInjector/current``:
///
/// ```swift
/// @Suite(.injector(ShopModule(), StorageModule()) { binder in
///     binder.override(Clock.self).toInstance(FixedClock(now: .zero))
/// })
/// struct CheckoutTests {
///     @Test func emptyCartCostsNothing() throws {
///         let checkout = try TestInjector.current.get(Checkout.self)
///         #expect(checkout.total(of: Cart()) == 0)
///     }
/// }
/// ```
///
/// Each test's injector is made for it before it runs and shut down after it (stopping its services and
/// disposing its singletons), so no singleton, started service or override leaks from one test into
/// another, however many run in parallel: the injector is a task-local value, not a global. A failing
/// shutdown fails the test.
///
/// To share expensive singletons (a connection pool) between tests while each test replaces what it
/// needs, derive each test's injector from one made once: ``injector(derivedFrom:overriding:)`` gives each
/// test `base.overriding(...)` (see `Injector.overriding(_:)`), which re-creates only the bindings that
/// depend on the replaced ones. Shared singletons then are shared by the tests, too.
public struct InjectorTrait: TestTrait, SuiteTrait, TestScoping {
    /// Makes a test's injector.
    private let make: @Sendable () throws -> Injector

    /// The trait applies to every test of a suite it is added to.
    public var isRecursive: Bool { true }

    init(make: @escaping @Sendable () throws -> Injector) {
        self.make = make
    }

    /// A scope for each test case: each case gets its own injector.
    ///
    /// - Returns: The trait, for a test case; `nil` for a test or suite as a whole.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> InjectorTrait? {
        testCase == nil ? nil : self
    }

    /// Makes the test case's injector, runs the test case with it as ``TestInjector/current``, then shuts
    /// it down.
    ///
    /// - Throws: What making the injector throws, what the test throws, and a failed shutdown.
    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        try await InjectorTrait.run(with: make(), function)
    }

    /// Runs `body` with `injector` as the current test injector, then shuts it down: after a failure of
    /// `body` too (whose error is the one thrown).
    static func run<Result: Sendable>(
        with injector: Injector,
        _ body: () async throws -> Result
    ) async throws -> Result {
        let result: Result
        do {
            result = try await TestInjector.$ifPresent.withValue(injector) { try await body() }
        } catch {
            try? await injector.shutdown()
            throw error
        }
        try await injector.shutdown()
        return result
    }

    /// An injector of `modules`, with `overrides` as a last module.
    static func makeInjector(
        _ modules: [any Module],
        configuration: Injector.Configuration,
        overrides: (@Sendable (Binder) throws -> Void)?
    ) throws(ProvisionError) -> Injector {
        try Injector(modules: modules + (overrides.map { [ClosureModule($0)] } ?? []), configuration: configuration)
    }
}

extension Trait where Self == InjectorTrait {
    /// Gives each test a new injector of `modules`, with `overrides` as a last module.
    ///
    /// ```swift
    /// @Test(.injector(ShopModule()) { $0.override(Clock.self).toInstance(FixedClock(now: .zero)) })
    /// func receipt() throws { ... }
    /// ```
    ///
    /// - Parameters:
    ///   - modules: The modules of each test's injector.
    ///   - configuration: The injectors' configuration; the default one by default.
    ///   - overrides: Bindings of a last module, typically `binder.override(...)`s of `modules`'
    ///     bindings; none by default.
    /// - Returns: The trait.
    public static func injector(
        _ modules: any Module...,
        configuration: Injector.Configuration = Injector.Configuration(),
        overriding overrides: (@Sendable (Binder) throws -> Void)? = nil
    ) -> Self {
        InjectorTrait { () throws(ProvisionError) in
            try InjectorTrait.makeInjector(modules, configuration: configuration, overrides: overrides)
        }
    }

    /// Gives each test an injector derived from `base` by `overrides` (`base.overriding(overrides)`),
    /// which shares `base`'s singletons that don't depend on the replaced bindings.
    ///
    /// ```swift
    /// enum Shared {
    ///     static let app = Result { try Injector(ShopModule(), StorageModule()) }
    /// }
    ///
    /// @Test(.injector(derivedFrom: try Shared.app.get()) { $0.bind(Clock.self).toInstance(FixedClock(now: .zero)) })
    /// func receipt() throws { ... }
    /// ```
    ///
    /// Each test's derived injector is shut down after the test (its own singletons only); `base` is not.
    ///
    /// - Parameters:
    ///   - base: The injector to derive from; evaluated for each test (keep the injector itself in a
    ///     `static let`, built once).
    ///   - overrides: The replacing bindings: each replaces `base`'s binding of its key, without
    ///     `override`.
    /// - Returns: The trait.
    public static func injector(
        derivedFrom base: @autoclosure @escaping @Sendable () throws -> Injector,
        overriding overrides: @escaping @Sendable (Binder) throws -> Void
    ) -> Self {
        InjectorTrait { try base().overriding(overrides) }
    }
}
