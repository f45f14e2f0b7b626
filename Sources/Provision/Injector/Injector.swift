/// Builds services from the bindings of its modules; safe to use from any number of threads at once.
///
/// Create an injector from modules, then ask it for services:
///
/// ```swift
/// struct CarModule: Module {
///     func configure(_ binder: Binder) {
///         binder.bind(Engine.self).to(Engine.init)
///         binder.bind(Brakes.self).to(Brakes.init).in(.singleton)
///         binder.bind(Car.self).to(Car.init(engine:brakes:))
///     }
/// }
///
/// let injector = try Injector(CarModule())
/// let car = try injector.get(Car.self)
/// ```
///
/// Modules are configured in order; when two modules bind the same key, the later one wins. Bindings
/// can also be added to a running injector with ``install(_:)`` while other threads resolve.
///
/// Every method is thread-safe. Singletons are built exactly once per injector, even when many threads
/// request an unbuilt singleton at the same moment. See the "Thread safety" article for the design.
public final class Injector: Sendable {
    /// The configuration the injector was created with.
    public let configuration: Configuration

    /// The modules the injector was created from, in configuration order.
    public let modules: [any Module]

    @usableFromInline let registry: Registry

    /// Creates an injector from modules, configuring them in order.
    ///
    /// - Parameters:
    ///   - modules: The modules; a later module's binding replaces an earlier one's for the same key.
    ///   - configuration: Internal tuning; the default suits most services.
    /// - Throws: ``ProvisionError`` with ``ProvisionError/Code/duplicateBinding`` (a module binds a
    ///   key twice), ``ProvisionError/Code/incompleteBinding`` (a `bind` without a target), or
    ///   ``ProvisionError/Code/configurationFailed`` (a module's `configure` threw).
    public init(modules: [any Module], configuration: Configuration = Configuration()) throws(ProvisionError) {
        self.configuration = configuration
        self.modules = modules
        self.registry = Registry(stripeCount: configuration.stripeCount)

        var merged: [BindingKey: any AnyNode] = [:]
        var order: [BindingKey] = []
        for module in modules {
            for node in try nodes(of: module) {
                if merged.updateValue(node, forKey: node.key) == nil {
                    order.append(node.key)
                }
            }
        }
        try registry.install(order.compactMap { merged[$0] })
    }

    /// Creates an injector from modules, configuring them in order.
    ///
    /// - Parameter modules: The modules; a later module's binding replaces an earlier one's.
    /// - Throws: See ``init(modules:configuration:)``.
    public convenience init(_ modules: any Module...) throws(ProvisionError) {
        try self.init(modules: modules)
    }

    /// Adds a module's bindings to this running injector, for example a plugin loaded at run time.
    ///
    /// Other threads may resolve while the bindings are added; they see either none or all of the new
    /// bindings of a stripe, and every binding is visible once `install` returns. A running injector
    /// never replaces a binding: installing a key that is already bound throws and adds nothing.
    ///
    /// - Parameter module: The module to configure and add.
    /// - Throws: ``ProvisionError`` with ``ProvisionError/Code/duplicateBinding``,
    ///   ``ProvisionError/Code/incompleteBinding`` or ``ProvisionError/Code/configurationFailed``.
    public func install(_ module: any Module) throws(ProvisionError) {
        try registry.install(nodes(of: module))
    }

    /// Whether the injector has a binding for `type` under `name`.
    ///
    /// - Parameters:
    ///   - type: The bound type.
    ///   - name: The binding's name; `nil` (the default) for the unnamed binding.
    public func hasBinding<T>(for type: T.Type, named name: String? = nil) -> Bool {
        registry.node(for: BindingKey(type, named: name)) != nil
    }

    /// The keys of every binding in the injector, in no particular order.
    public var bindingKeys: [BindingKey] {
        registry.nodes.map(\.key)
    }

    private func nodes(of module: any Module) throws(ProvisionError) -> [any AnyNode] {
        let binder = Binder()
        do {
            try module.configure(binder)
        } catch {
            throw ProvisionError.configurationFailed(module, cause: error)
        }
        return try binder.finishedRecords().compactMap { record in
            record.makeNode?(self, record.scope)
        }
    }
}
