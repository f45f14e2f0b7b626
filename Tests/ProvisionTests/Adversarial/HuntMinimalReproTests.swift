import Dispatch
import Foundation
import Provision
import Testing

@testable import Provision

// The smallest reproductions of the defects the hunt found. Each test states the documented behaviour.

@Suite("Hunt: minimal reproductions", .timeLimit(.minutes(2)))
struct HuntMinimalReproTests {
    /// ThreadSafety.md: "a factory may resolve anything, from any injector"; a cycle is reported "if and
    /// only if the waits really form one". Two unrelated injectors, each binding its own `HFConfig`.
    @Test(
        "defect A: an async request whose singleton factory resolves the same type from another injector is no cycle"
    )
    func falseCycleAcrossInjectors() async throws {
        let global = try Injector(ClosureModule { $0.bind(HFConfig.self).to { _ in HFConfig(port: 1) }.in(.singleton) })
        let tenant = try Injector(
            ClosureModule { binder in
                binder.bind(HFConfig.self).to { _ in HFConfig(port: try global.syncGet(HFConfig.self).port + 1) }.in(
                    .singleton)
            }
        )
        do {
            let config = try await tenant.get(HFConfig.self)
            #expect(config == HFConfig(port: 2))
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test("defect A, control: the same graph resolved synchronously works")
    func sameGraphSync() throws {
        let global = try Injector(ClosureModule { $0.bind(HFConfig.self).to { _ in HFConfig(port: 1) }.in(.singleton) })
        let tenant = try Injector(
            ClosureModule { binder in
                binder.bind(HFConfig.self).to { _ in HFConfig(port: try global.get(HFConfig.self).port + 1) }.in(
                    .singleton)
            }
        )
        #expect(try tenant.get(HFConfig.self) == HFConfig(port: 2))
    }

    /// ThreadSafety.md, "Depth: an error instead of a stack overflow": a chain too long for the thread's
    /// stack stops with depthExceeded. A chain of 300 transient constructor bindings (distinct types,
    /// each `to { (next: Next) in Link(next: next) }`) on a 512 KiB thread crashes with SIGSEGV in
    /// ProgramBuilder's recursion (emit -> link(.program) -> reference(for:below:) -> emit ...), at the
    /// first request; 200 links resolve.
    @Test(
        "defect B: 300 transient constructor bindings on a 512 KiB thread resolve or stop with depthExceeded, never crash"
    )
    func constructorChainSmallStack() async {
        await #expect(processExitsWith: .success) {
            HuntFlatChain.resolveInChild(depth: 300, stack: 512 << 10, scope: .transient)
        }
    }

    @Test(
        "defect B: 5,000 transient constructor bindings on an 8 MiB thread resolve or stop with depthExceeded, never crash"
    )
    func constructorChainLargeStack() async {
        await #expect(processExitsWith: .success) {
            HuntFlatChain.resolveInChild(depth: 5_000, stack: 8 << 20, scope: .transient)
        }
    }

    /// README: errors name "the key in Swift syntax". Two nested types named `Config` print the same.
    @Test("defect C: nested types of one name are told apart in keys and errors")
    func nestedNames() throws {
        #expect(BindingKey(HuntPayments.Config.self).description != BindingKey(HuntStorage.Config.self).description)
        let injector = try Injector(
            ClosureModule { $0.bind(HuntPayments.Config.self).toInstance(HuntPayments.Config()) })
        let error = #expect(throws: ProvisionError.self) { try injector.get(HuntStorage.Config.self) }
        #expect(error?.description.contains("HuntStorage.Config") == true, "\(error?.description ?? "")")
    }

    @Test(
        "defect A via start(): a child whose singleton decorates its parent's singleton of the same key starts")
    func falseCycleInStart() async throws {
        let parent = try Injector(
            ClosureModule { $0.bind(HFConfig.self).to { _ in HFConfig(port: 8080) }.in(.singleton) })
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(HFConfig.self).to { _ in
                    var config = try parent.syncGet(HFConfig.self)
                    config.port += 1
                    return config
                }.in(.singleton)
            }
        )
        do {
            try await child.start()
        } catch {
            Issue.record("\(error)")
        }
        #expect(try child.syncGet(HFConfig.self) == HFConfig(port: 8081))
    }
}
