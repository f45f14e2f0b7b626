import Foundation
import Provision
import Synchronization
import Testing

// Handles pointing back at the type that holds them, and delegations across child injectors.

final class HHTree: Sendable {
    let children: Provider<HHTree>
    init(children: Provider<HHTree>) { self.children = children }
}

final class HHSelfLazy: Sendable {
    let me: Lazy<HHSelfLazy>
    init(me: Lazy<HHSelfLazy>) { self.me = me }
}

final class HHEager: Sendable {
    init(me: Provider<HHEager>) throws {
        _ = try me.get()
    }
}

final class HHEagerLazy: Sendable {
    init(me: Lazy<HHEagerLazy>) throws {
        _ = try me.value
    }
}

struct HHName: Sendable, Equatable {
    var value: String
}

final class HHGreeter: Sendable {
    let name: HHName
    init(name: HHName) { self.name = name }
}

protocol HHGreeting: Sendable {
    var name: HHName { get }
}
extension HHGreeter: HHGreeting {}

@Suite("Hunt: handles to oneself, delegation across injectors", .timeLimit(.minutes(1)))
struct HuntHandleTests {
    @Test("a transient holding a Provider of its own type: no cycle; each get() is a new instance")
    func providerOfSelf() throws {
        let injector = try Injector(ClosureModule { $0.bind(HHTree.self).to(HHTree.init(children:)) })
        let root = try injector.get(HHTree.self)
        let child = try root.children.get()
        let grandchild = try child.children.get()
        #expect(root !== child && child !== grandchild)
    }

    @Test("a singleton holding a Lazy of itself reads itself")
    func lazyOfSelf() throws {
        let injector = try Injector(ClosureModule { $0.bind(HHSelfLazy.self).to(HHSelfLazy.init(me:)).in(.singleton) })
        let value = try injector.get(HHSelfLazy.self)
        #expect(try value.me.value === value)
    }

    @Test("a singleton whose initializer calls its own Provider is a cycle error, not a hang or a crash")
    func singletonCallingOwnProvider() throws {
        let injector = try Injector(ClosureModule { $0.bind(HHEager.self).to(HHEager.init(me:)).in(.singleton) })
        let error = #expect(throws: ProvisionError.self) { try injector.get(HHEager.self) }
        #expect(error?.code == .cycle || error?.code == .factoryFailed, "\(String(describing: error))")
        // Whatever the wrapping, the cause is a cycle.
        let codes = [error?.code, (error?.cause as? ProvisionError)?.code]
        #expect(codes.contains(.cycle), "\(String(describing: error))")
        // and again: consistent
        let again = #expect(throws: ProvisionError.self) { try injector.get(HHEager.self) }
        #expect(again?.code == error?.code)
    }

    @Test("a singleton whose initializer reads its own Lazy is a cycle error")
    func singletonReadingOwnLazy() throws {
        let injector = try Injector(
            ClosureModule { $0.bind(HHEagerLazy.self).to(HHEagerLazy.init(me:)).in(.singleton) })
        let error = #expect(throws: ProvisionError.self) { try injector.get(HHEagerLazy.self) }
        let codes = [error?.code, (error?.cause as? ProvisionError)?.code]
        #expect(codes.contains(.cycle), "\(String(describing: error))")
    }

    @Test("a child's delegation to a parent's binding resolves that binding's dependencies in the parent")
    func delegationAcrossChild() throws {
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(HHName.self).toInstance(HHName(value: "parent"))
                binder.bind(HHGreeter.self).to(HHGreeter.init(name:))
            }
        )
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(HHName.self).toInstance(HHName(value: "child"))
                binder.bind((any HHGreeting).self).to(binding: HHGreeter.self)
            }
        )
        #expect(try child.get((any HHGreeting).self).name == HHName(value: "parent"))
        #expect(try child.get(HHGreeter.self).name == HHName(value: "parent"))
        #expect(try child.get(HHName.self) == HHName(value: "child"))
    }

    @Test("a child's ObjectFactory resolves in the child; the parent's in the parent")
    func objectFactoryInChild() throws {
        let parent = try Injector(ClosureModule { $0.bind(HHName.self).toInstance(HHName(value: "parent")) })
        let child = try parent.makeChild(
            ClosureModule { $0.bind(HHName.self).toInstance(HHName(value: "child")) })
        #expect(try child.get(ObjectFactory.self).get(HHName.self) == HHName(value: "child"))
        #expect(try parent.get(ObjectFactory.self).get(HHName.self) == HHName(value: "parent"))
        #expect(try child.get(Provider<HHName>.self).get() == HHName(value: "child"))
        #expect(try child.get(Lazy<HHName>.self).value == HHName(value: "child"))
    }

    @Test(
        "a parent's singleton holding a Provider, first built through a child that rebinds the target: resolves in the parent"
    )
    func parentSingletonProviderBuiltThroughChild() throws {
        final class Holder: Sendable {
            let names: Provider<HHName>
            let lazyName: Lazy<HHName>
            init(names: Provider<HHName>, lazyName: Lazy<HHName>) {
                self.names = names
                self.lazyName = lazyName
            }
        }
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(HHName.self).toInstance(HHName(value: "parent"))
                binder.bind(Holder.self).to(Holder.init(names:lazyName:)).in(.singleton)
            }
        )
        let child = try parent.makeChild(ClosureModule { $0.bind(HHName.self).toInstance(HHName(value: "child")) })
        let holder = try child.get(Holder.self)
        #expect(try holder.names.get() == HHName(value: "parent"))
        #expect(try holder.lazyName.value == HHName(value: "parent"))
        #expect(try parent.get(Holder.self) === holder)
    }
}
