public import Provision

/// The injector of the running test: the one the ``InjectorTrait`` (`@Test(.injector(...))`) or
/// ``withTestInjector(_:configuration:_:)`` made for it.
///
/// ```swift
/// @Test(.injector(ShopModule()) { binder in
///     binder.override((any PaymentGateway).self).to(DecliningGateway.init)
/// })
/// func declinedPayment() throws {
///     let checkout = try TestInjector.current.get(Checkout.self)
///     #expect(throws: PaymentDeclined.self) { try checkout.pay(100) }
/// }
/// ```
///
/// The injector is a task-local value: each test (each case of a parameterized test) sees its own,
/// however many tests run in parallel, and so do the tasks a test starts with structured concurrency.
/// Threads a test starts itself don't see it: hand them the injector.
public enum TestInjector {
    /// The injector of the running test, when there is one.
    @TaskLocal public static var ifPresent: Injector?

    /// The injector of the running test.
    ///
    /// - Throws: ``MissingTestInjector`` outside a test that has the ``InjectorTrait`` (and outside
    ///   ``withTestInjector(_:configuration:_:)``).
    public static var current: Injector {
        get throws(MissingTestInjector) {
            guard let injector = ifPresent else { throw MissingTestInjector() }
            return injector
        }
    }
}

/// Thrown by ``TestInjector/current`` where no test injector was made.
public struct MissingTestInjector: Error, CustomStringConvertible {
    /// Creates the error.
    public init() {}

    /// What happened, and how to fix it.
    public var description: String {
        "no injector for this test: add the .injector(...) trait to the test or its suite, or run the code "
            + "inside withTestInjector(...)"
    }
}

/// Runs `body` with a new injector of `modules`, made current for it (``TestInjector/current``), and shuts
/// the injector down afterwards: what the ``InjectorTrait`` does around a test, for code that isn't a
/// Swift Testing test (an XCTest case, a helper shared by several tests).
///
/// ```swift
/// let fixedClock = ClosureModule { $0.override(Clock.self).toInstance(FixedClock(now: .zero)) }
/// let total = try await withTestInjector(ShopModule(), fixedClock) { injector in
///     try await injector.get(Checkout.self).total(of: cart)
/// }
/// ```
///
/// - Parameters:
///   - modules: The modules of the injector; a later one replaces an earlier one's binding with
///     `binder.override(...)`.
///   - configuration: The injector's configuration; the default one by default.
///   - body: The work; it receives the injector, which is also ``TestInjector/current`` inside it.
/// - Returns: What `body` returns.
/// - Throws: What creating the injector throws, what `body` throws, and what shutting it down throws
///   (``ProvisionError/Code/stopFailed``) when `body` succeeded.
public func withTestInjector<Result: Sendable>(
    _ modules: any Module...,
    configuration: Injector.Configuration = Injector.Configuration(),
    _ body: (Injector) async throws -> Result
) async throws -> Result {
    let injector = try Injector(modules: modules, configuration: configuration)
    return try await InjectorTrait.run(with: injector) { try await body(injector) }
}
