/// A group of bindings: the unit an ``Injector`` is built from.
///
/// A module declares bindings in ``configure(_:)``, which the injector calls once when it is created
/// (or when the module is installed into a running injector). Keep modules free of state that
/// `configure` changes: the same module value may configure several injectors.
///
/// ```swift
/// struct StorageModule: Module {
///     let url: String
///
///     func configure(_ binder: Binder) {
///         binder.bind(DatabaseURL.self).toInstance(DatabaseURL(url))
///         binder.bind((any Store).self).to(SQLStore.init(url:)).in(.singleton)
///     }
/// }
/// ```
public protocol Module: Sendable {
    /// Declares the module's bindings.
    ///
    /// - Parameter binder: Records the bindings; valid only during this call.
    /// - Throws: Any error; the injector reports it as ``ProvisionError/Code/configurationFailed`` with
    ///   the error as its cause.
    func configure(_ binder: Binder) throws
}
