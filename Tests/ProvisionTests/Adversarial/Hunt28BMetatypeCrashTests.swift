import Provision
import Testing

// Hunt 28B: the existential metatype of a generic protocol with a primary associated type,
// `any Hunt28BStore<Hunt28BUser>.Type` (a store chosen by its type). The Swift runtime's type printer
// crashes on it (String(describing:) and String(reflecting:) both dereference a bad pointer, Swift
// 6.3.1), so every message that names the key must spell it without asking the runtime for its name.

/// A store type chosen by its metatype.
struct Hunt28BStaticStore: Hunt28BStore {
    typealias Element = Hunt28BUser
    func count() -> Int { 7 }
}

/// Needs a store type.
struct Hunt28BStoreFactory: Sendable {
    let storeType: any Hunt28BStore<Hunt28BUser>.Type
}

// Found by hunt 28B, fixed: the three tests below crashed the test process. Provision spells these
// metatypes from their metadata (`TypeName+ExtendedExistential.swift`).

@Suite("Hunt28B: the metatype of a generic protocol's existential", .timeLimit(.minutes(1)))
struct Hunt28BMetatypeCrashTests {
    @Test("bound, any Hunt28BStore<Hunt28BUser>.Type is injected into a constructor")
    func boundMetatype() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind((any Hunt28BStore<Hunt28BUser>.Type).self).to { Hunt28BStaticStore.self }
                binder.bind(Hunt28BStoreFactory.self).to(Hunt28BStoreFactory.init(storeType:))
            })
        #expect(try injector.validate().isValid)
        let factory = try injector.get(Hunt28BStoreFactory.self)
        #expect(ObjectIdentifier(factory.storeType) == ObjectIdentifier(Hunt28BStaticStore.self))
    }

    @Test("missing, any Hunt28BStore<Hunt28BUser>.Type is a notBound error naming it")
    func missingMetatype() throws {
        let error = #expect(throws: ProvisionError.self) {
            _ = try Injector(
                ClosureModule { binder in
                    binder.bind(Hunt28BStoreFactory.self).to(Hunt28BStoreFactory.init(storeType:))
                })
        }
        let text = error.map { "\($0)" } ?? ""
        #expect(text.contains("Hunt28BStoreFactory -> any Hunt28BStore<Hunt28BUser>.Type"), "\(text)")
    }

    @Test("a resolve-time argument of type any Hunt28BStore<Hunt28BUser>.Type binds and builds")
    func metatypeArgument() throws {
        // No error anywhere: the binding is valid, and so is the request.
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt28BStoreFactory.self)
                    .withArguments((any Hunt28BStore<Hunt28BUser>.Type).self)
                    .to { _, storeType in Hunt28BStoreFactory(storeType: storeType) }
            })
        let factory = try injector.get(
            Hunt28BStoreFactory.self, arguments: Hunt28BStaticStore.self as any Hunt28BStore<Hunt28BUser>.Type)
        #expect(ObjectIdentifier(factory.storeType) == ObjectIdentifier(Hunt28BStaticStore.self))
    }

    @Test("the graph of a valid injector binding any Hunt28BStore<Hunt28BUser>.Type labels it")
    func metatypeInGraph() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind((any Hunt28BStore<Hunt28BUser>.Type).self).to { Hunt28BStaticStore.self }
            })
        #expect(injector.graph().dot().contains("any Hunt28BStore<Hunt28BUser>.Type"))
    }
}
