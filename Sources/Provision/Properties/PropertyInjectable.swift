/// A class whose properties the injector sets after the instance exists.
///
/// Declare the properties to inject as key paths in ``injectedProperties``, and optionally react once
/// they are all set in ``didInjectDependencies()``:
///
/// ```swift
/// class ViewModel: PropertyInjectable {
///     var store: (any Store)?
///     var logger: Logger?
///
///     class var injectedProperties: [InjectedProperty] {
///         [.inject(\ViewModel.store), .inject(\ViewModel.logger, named: "ui")]
///     }
///
///     func didInjectDependencies() { logger?.info("ready") }
/// }
///
/// class DetailViewModel: ViewModel {
///     var formatter: Formatter?
///     override class var injectedProperties: [InjectedProperty] {
///         super.injectedProperties + [.inject(\DetailViewModel.formatter)]
///     }
/// }
/// ```
///
/// The injector fills the properties of objects created elsewhere with
/// ``Injector/injectDependencies(into:onlyIfNil:)``, and of objects it builds itself from a
/// constructor binding or an ``Injectable`` declaration (not of instances, closure results or provider
/// results, which are returned as they are; a closure can ask for it with
/// ``Resolver/injectDependencies(into:onlyIfNil:)``). Dependencies are built — and their own hooks
/// called — before the object that needs them, and ``didInjectDependencies()`` runs exactly once per
/// injection, after every property is set. A binding reads its class's `injectedProperties` once, when
/// it is first resolved.
///
/// Declare `injectedProperties` as a `class var` so that subclasses can add theirs to
/// `super.injectedProperties`. To replace a superclass's entry, list the same key path — rooted at the
/// class that declares the property (`\Person.title`, not `\Programmer.title`, which Swift considers a
/// different key path) — and the subclass's entry wins.
public protocol PropertyInjectable: AnyObject {
    /// The properties to set, in order.
    static var injectedProperties: [InjectedProperty] { get }

    /// Called once after all injected properties are set. The default does nothing.
    func didInjectDependencies()
}

extension PropertyInjectable {
    /// No properties.
    public static var injectedProperties: [InjectedProperty] { [] }

    /// Does nothing.
    public func didInjectDependencies() {}
}
