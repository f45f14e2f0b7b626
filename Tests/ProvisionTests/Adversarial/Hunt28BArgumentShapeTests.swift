import Provision
import Testing

// Hunt 28B: resolve-time arguments declared with the existential shapes users write (a generic
// protocol's `any Store<User>`, a plain `any Store` of a protocol with an associated type, a class-
// constrained composition), passed the values a call would accept. The documentation of
// ArgumentBindingBuilder: arguments "are converted as a call would convert them: ... an instance of a
// subclass where its class is, a value where a protocol it conforms to is".
//
// Found by hunt 28B, fixed: three false `argumentMismatch`es (a concrete value for a parameterized
// existential, a subclass composition for a superclass composition or for the superclass itself; see
// `ArgumentConversion`).

/// A report over a store given at resolve time.
struct Hunt28BStoreReport: Sendable {
    let total: Int
}

/// A class chain for a class-constrained composition.
class Hunt28BPuppy: Hunt28BAnimal, @unchecked Sendable {}
final class Hunt28BAuditedPuppy: Hunt28BPuppy, Hunt28BAudited, @unchecked Sendable {
    override var sound: String { "yip" }
}

@Suite("Hunt28B: resolve-time arguments of existential shapes", .timeLimit(.minutes(1)))
struct Hunt28BArgumentShapeTests {
    @Test("a concrete store passed where any Hunt28BStore<Hunt28BUser> is declared converts, as in a call")
    func concreteToParameterizedExistential() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt28BStoreReport.self)
                    .withArguments((any Hunt28BStore<Hunt28BUser>).self)
                    .to { _, store in Hunt28BStoreReport(total: store.count()) }
            })
        // What a call accepts: func report(_ store: any Hunt28BStore<Hunt28BUser>); report(Hunt28BMemoryStore()).
        let asExistential = try injector.get(
            Hunt28BStoreReport.self, arguments: Hunt28BMemoryStore() as any Hunt28BStore<Hunt28BUser>)
        #expect(asExistential.total == 3)
        let result = Result { () throws(ProvisionError) in
            try injector.get(Hunt28BStoreReport.self, arguments: Hunt28BMemoryStore())
        }
        #expect(throws: Never.self) { try result.get() }
        if case .failure(let error) = result { Issue.record("\(error)") }
    }

    @Test("a concrete store passed where a plain any Hunt28BStore (associated type unconstrained) is declared")
    func concreteToUnconstrainedExistential() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt28BStoreReport.self)
                    .withArguments((any Hunt28BStore).self)
                    .to { _, store in Hunt28BStoreReport(total: store.count()) }
            })
        let result = Result { () throws(ProvisionError) in
            try injector.get(Hunt28BStoreReport.self, arguments: Hunt28BMemoryStore())
        }
        #expect(throws: Never.self) { try result.get() }
        if case .failure(let error) = result { Issue.record("\(error)") }
    }

    @Test("an any Hunt28BPuppy & Hunt28BAudited passed where any Hunt28BAnimal & Hunt28BAudited is declared")
    func subclassCompositionToSuperclassComposition() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(String.self)
                    .withArguments((any Hunt28BAnimal & Hunt28BAudited).self)
                    .to { _, animal in animal.sound }
            })
        let puppy: any Hunt28BPuppy & Hunt28BAudited = Hunt28BAuditedPuppy()
        // A call accepts it: let animal: any Hunt28BAnimal & Hunt28BAudited = puppy.
        let upcast: any Hunt28BAnimal & Hunt28BAudited = puppy
        #expect(try injector.get(String.self, arguments: upcast) == "yip")
        let result = Result { () throws(ProvisionError) in try injector.get(String.self, arguments: puppy) }
        #expect(throws: Never.self) { try result.get() }
        if case .failure(let error) = result { Issue.record("\(error)") }
    }

    @Test("a wrong argument for any Hunt28BStore<Hunt28BUser>: argumentMismatch names the declared list as written")
    func mismatchNamesParameterizedExistential() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt28BStoreReport.self)
                    .withArguments((any Hunt28BStore<Hunt28BUser>).self)
                    .to { _, store in Hunt28BStoreReport(total: store.count()) }
            })
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt28BStoreReport.self, arguments: 5) }
        #expect(error?.code == .argumentMismatch)
        #expect(error?.message.contains("(any Hunt28BStore<Hunt28BUser>)") == true, "\(error?.message ?? "")")
    }

    @Test("an any Hunt28BPuppy & Hunt28BAudited passed where the superclass Hunt28BAnimal is declared")
    func classCompositionToSuperclass() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(String.self).withArguments(Hunt28BAnimal.self).to { _, animal in animal.sound }
            })
        let puppy: any Hunt28BPuppy & Hunt28BAudited = Hunt28BAuditedPuppy()
        // A call accepts it: let animal: Hunt28BAnimal = puppy (every value of the composition is a Hunt28BPuppy).
        let upcast: Hunt28BAnimal = puppy
        #expect(try injector.get(String.self, arguments: upcast) == "yip")
        let result = Result { () throws(ProvisionError) in try injector.get(String.self, arguments: puppy) }
        #expect(throws: Never.self) { try result.get() }
        if case .failure(let error) = result { Issue.record("\(error)") }
    }
}
