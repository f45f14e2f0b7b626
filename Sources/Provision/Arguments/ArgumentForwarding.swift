/// Passes a request's resolve-time arguments on to another binding: how a delegating binding
/// (`bind((any Processor).self).to(binding: VisaProcessor.self)`) hands `get(_:arguments:)`'s
/// arguments to its target, as Objection forwards them from a protocol or superclass binding to the
/// class it is bound to.
@usableFromInline
protocol ArgumentForwarding: Sendable {
    /// Resolves the target with `arguments` in `injector`, the injector that owns the delegating binding.
    func forward<each Argument>(
        in injector: Injector,
        arguments: repeat each Argument
    ) throws(ProvisionError) -> Any

    /// What forwarding these arguments would fail with because of them, without building anything;
    /// `nil` when the target takes them.
    func argumentFailure<each Argument>(in injector: Injector, arguments: repeat each Argument) -> ProvisionError?
}

/// The forwarding of `to(binding:)`: the arguments go to the target binding, whose declaration checks
/// them.
struct DelegationForwarding<Target>: ArgumentForwarding {
    let target: BindingKey

    func forward<each Argument>(
        in injector: Injector,
        arguments: repeat each Argument
    ) throws(ProvisionError) -> Any {
        try injector.get(Target.self, named: target.name, arguments: repeat each arguments)
    }

    func argumentFailure<each Argument>(in injector: Injector, arguments: repeat each Argument) -> ProvisionError? {
        injector.argumentFailure(Target.self, named: target.name, arguments: repeat each arguments)
    }
}

/// One request's forwarding, prepared so that a singleton's build closure can run it without touching
/// the parameter pack (Swift 6.3's compiler crashes on pack operations inside a closure here).
final class ForwardingCall<T, each Argument> {
    let key: BindingKey
    let injector: Injector
    let forwarding: any ArgumentForwarding
    let arguments: (repeat each Argument)

    init(key: BindingKey, injector: Injector, forwarding: any ArgumentForwarding, arguments: repeat each Argument) {
        self.key = key
        self.injector = injector
        self.forwarding = forwarding
        self.arguments = (repeat each arguments)
    }

    /// Resolves the target and converts its value to `T`.
    func run() throws(ProvisionError) -> T {
        let value: Any
        do throws(ProvisionError) {
            value = try forwarding.forward(in: injector, arguments: repeat each arguments)
        } catch {
            throw error.prepending(key)
        }
        guard let converted = value as? T else {
            throw ProvisionError.typeMismatch(key, value: TypeName.describe(type(of: value)), at: nil)
        }
        return converted
    }
}
