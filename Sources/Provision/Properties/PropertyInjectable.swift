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
/// **Which objects are injected.** An object gets its properties, and its ``didInjectDependencies()``
/// call, exactly once: when the injector constructs it, with a constructor binding (`to(_:)` given an
/// initializer or a function of dependencies) or an ``Injectable`` declaration's factory. The object's
/// own class decides, whatever the key it is bound to:
///
/// ```swift
/// binder.bind((any Person).self).to { PetOwner() }          // a PetOwner: injected
/// binder.bind(Animal.self).to(Dog.init(leash:))             // a Dog, if Dog declares properties
/// ```
///
/// Objects the injector didn't construct are returned as they are: instances (`toInstance`, which may
/// be shared by several injectors), and what closures, providers and argument factories return (that
/// code built the object; it asks for injection with ``Resolver/injectDependencies(into:onlyIfNil:)``).
/// A delegation (`to(binding:)`) returns what its target binding built, injected once by that binding
/// under the same rule. Objects created elsewhere are filled with
/// ``Injector/injectDependencies(into:onlyIfNil:)``.
///
/// Dependencies are built — and their own hooks called — before the object that needs them, and
/// ``didInjectDependencies()`` runs exactly once per injection, after every property is set. A
/// binding reads a class's `injectedProperties` once, when it first builds an instance of it; when the
/// key's own type declares them, they are read when the binding is linked, and their bindings are
/// checked with the binding's other dependencies: a missing one, or a cycle through injected properties
/// (`A -> B -> A`), fails the first request before anything is built. A cycle the linker can't see
/// (behind a protocol key) is found as it forms, and is the same ``ProvisionError/Code/cycle`` error.
///
/// An optional property (`var brakes: Brakes?`, or implicitly unwrapped) takes its value from a binding
/// of the optional type when the injector has one, so that such a binding can provide `nil` on purpose;
/// otherwise from the wrapped type's binding, which must exist.
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
