import Foundation
import Provision
import Testing

// Hunt 17: handles, multibindings, captive dependencies and child injectors in error messages.

struct Hunt17PluginHost: Sendable {
    let plugins: Lazy<[any Hunt17Plugin]>
}

struct Hunt17StoreUser: Sendable {
    let store: any Hunt17Store
}

@Suite("Hunt17: handles and lifetimes in error messages", .timeLimit(.minutes(1)))
struct Hunt17HandleNameTests {
    @Test("a Lazy of an empty multibinding: emptyMultibinding, every mention of the protocol with `any`")
    func lazyOfEmptyMultibinding() {
        let error = #expect(throws: ProvisionError.self) {
            _ = try Injector(ClosureModule { $0.bind(Hunt17PluginHost.self).to(Hunt17PluginHost.init(plugins:)) })
        }
        #expect(error?.code == .validationFailed)
        let problem = error?.underlyingErrors.first
        #expect(problem?.code == .emptyMultibinding)
        #expect(problem?.path.first == BindingKey(Hunt17PluginHost.self))
        #expect(problem?.path.last == BindingKey([any Hunt17Plugin].self))
        #expect(problem?.hint.contains("binder.multibind((any Hunt17Plugin).self)") == true)
        let text = error?.description ?? ""
        // Found by hunt 17, fixed (as providerOfExistentialTarget): the handle's key prints as
        // "Lazy<Array<Hunt17Plugin>>" on the path, not "Lazy<[any Hunt17Plugin]>".
        #expect(hunt17EveryMentionHasAny(text, "Hunt17Plugin"), "\(text)")
    }

    @Test("a singleton holding a scoped existential: captiveDependency naming any Hunt17Store")
    func captiveExistential() {
        let error = #expect(throws: ProvisionError.self) {
            _ = try Injector(
                ClosureModule { binder in
                    binder.bind((any Hunt17Store).self).to(Hunt17MemoryStore.init).in(.scoped)
                    binder.bind(Hunt17StoreUser.self).to(Hunt17StoreUser.init(store:)).in(.singleton)
                })
        }
        #expect(error?.code == .validationFailed)
        let problem = error?.underlyingErrors.first
        #expect(problem?.code == .captiveDependency)
        #expect(problem?.pathDescription == "Hunt17StoreUser -> any Hunt17Store")
        #expect(problem?.hint.isEmpty == false)
        #expect(hunt17EveryMentionHasAny(error?.description ?? "", "Hunt17Store"), "\(error?.description ?? "")")
    }

    @Test("a child's binding needing what neither child nor parent binds: notBound with the child's path")
    func childMissingBelowParent() throws {
        let parent = try Injector()
        let error = #expect(throws: ProvisionError.self) {
            _ = try parent.makeChild(
                ClosureModule { $0.bind(Hunt17StoreUser.self).to(Hunt17StoreUser.init(store:)) })
        }
        let problem = error?.code == .validationFailed ? error?.underlyingErrors.first : error
        #expect(problem?.code == .notBound)
        #expect(problem?.pathDescription == "Hunt17StoreUser -> any Hunt17Store")
        #expect(problem?.hint == "bind it in a module: binder.bind((any Hunt17Store).self).to(...)")
    }
}
