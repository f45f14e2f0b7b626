import Foundation
import Provision
import Testing

// Issue 13, defect 10: besides injected properties, two more dynamic edges recursed without a check —
// an argument factory resolving its own binding, and `get(_:arguments:)` forwarding its arguments
// around a cycle of delegations — and a Provider called from an initializer can recurse without any
// binding on the path. The first two are cycle errors now; the last stops with depthExceeded (the
// stack guard in Provider.get), in a child process in case it regresses to a crash.

/// Built by an argument factory that resolves its own binding.
final class Echo: Sendable {
    init(inner: Echo?) {}
}

/// Resolves a `PongService` through a provider while it is initialized.
final class PingService: Sendable {
    init(pong: Provider<PongService>) throws {
        _ = try pong.get()
    }
}

/// Resolves a `PingService` through a provider while it is initialized.
final class PongService: Sendable {
    init(ping: Provider<PingService>) throws {
        _ = try ping.get()
    }
}

@Suite("Defect 10: cycles through arguments and handles end in an error")
struct DynamicCycleTests {
    @Test("defect 10: an argument factory that resolves its own binding is a cycle")
    func argumentFactoryCycle() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Echo.self).withArguments(Int.self)
                    .to { resolver, _ in Echo(inner: try resolver.get(Echo.self)) }
                    .defaults(0)
            }
        )
        for request in [{ try injector.get(Echo.self) }, { try injector.get(Echo.self, arguments: 1) }] {
            let error = #expect(throws: ProvisionError.self) { _ = try request() }
            #expect(error?.code == .cycle)
            #expect(error?.pathDescription == "Echo -> Echo")
        }
    }

    @Test("defect 10: arguments forwarded around a cycle of delegations are a cycle error")
    func forwardingCycle() throws {
        let injector = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(AnyObject.self).to(binding: AnyObject.self, named: "other")
                binder.bind(AnyObject.self, named: "other").to(binding: AnyObject.self)
            }
        )
        let error = #expect(throws: ProvisionError.self) { _ = try injector.get(AnyObject.self, arguments: 1) }
        #expect(error?.code == .cycle)
        #expect(error?.pathDescription == "AnyObject -> AnyObject named \"other\" -> AnyObject")
    }

    @Test("defect 10: services calling each other's Provider from their initializers stop with depthExceeded")
    func providerRecursion() async {
        await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(PingService.self).to(PingService.init(pong:))
                    binder.bind(PongService.self).to(PongService.init(ping:))
                }
            )
            let outcome = try DeepChain.run(on: .large) {
                Result { () throws(ProvisionError) in try injector.get(PingService.self) }
            }
            guard case .failure(var error) = outcome else { exit(1) }
            // Each initializer reports what the provider threw as its own failure: the cause at the
            // bottom is the depth.
            while error.code == .factoryFailed, let cause = error.cause as? ProvisionError {
                error = cause
            }
            if error.code != .depthExceeded {
                FileHandle.standardError.write(Data("expected depthExceeded, got \(error.code)\n".utf8))
                exit(2)
            }
        }
    }
}
