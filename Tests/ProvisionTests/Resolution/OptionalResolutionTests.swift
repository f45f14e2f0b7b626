import Synchronization
import Testing

@testable import Provision

// `get(OptionalDog?.self)`: the instance when something binds `OptionalDog`, `nil` when nothing does (Swinject's
// `resolve` returning an optional), a failing binding still failing.

private protocol OptionalPet: Sendable {}

private final class OptionalDog: OptionalPet {}

/// A service whose pet may be missing.
private final class OptionalOwner: Sendable {
    let pet: (any OptionalPet)?
    let dog: OptionalDog?

    init(pet: (any OptionalPet)?, dog: OptionalDog?) {
        self.pet = pet
        self.dog = dog
    }
}

/// Depends on a `OptionalDog?` that depends on itself through `OptionalOwner`: a cycle through an optional.
private final class OptionalWalker: Sendable {
    init(dog: OptionalDog?) {}
}

/// A synchronous request, from an async test.
private func resolveSynchronously<T>(_ type: T.Type, in injector: Injector) throws(ProvisionError) -> T {
    try injector.get(type)
}

@Suite("Optional resolution")
struct OptionalResolutionTests {
    @Test("an optional of a type nothing binds resolves to nil")
    func unboundIsNil() throws {
        let injector = try Injector()
        #expect(try injector.get(OptionalDog?.self) == nil)
        #expect(try injector.get((any OptionalPet)?.self) == nil)
        let inferred: OptionalDog? = try injector.get()
        #expect(inferred == nil)
    }

    @Test("an optional of a bound type resolves to its instance; a singleton's is the shared one")
    func boundIsTheInstance() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(OptionalDog.self).to(OptionalDog.init).in(.singleton)
                binder.bind((any OptionalPet).self).to(OptionalDog.init)
            }
        )
        let dog = try #require(try injector.get(OptionalDog?.self))
        #expect(dog === (try injector.get(OptionalDog.self)))
        let pet = try injector.get((any OptionalPet)?.self)
        #expect(pet is OptionalDog)
        #expect((pet as? OptionalDog) !== dog, "the transient binding builds a new pet")
    }

    @Test("a binding of the optional type itself wins, and may give nil on purpose")
    func explicitOptionalBindingWins() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(OptionalDog.self).to(OptionalDog.init)
                binder.bind(OptionalDog?.self).to { (_: Resolver) -> OptionalDog? in nil }
                binder.bind(OptionalOwner.self).to(OptionalOwner.init(pet:dog:))
            }
        )
        #expect(try injector.get(OptionalDog?.self) == nil)
        #expect(try injector.get(OptionalOwner.self).dog == nil)
    }

    @Test("a bound binding that fails still throws, with its path, at every depth")
    func failingBindingThrows() throws {
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(OptionalDog.self).to { () throws -> OptionalDog in throw ExpectedFailure(id: 1) }
                    binder.bind(OptionalOwner.self).to(OptionalOwner.init(pet:dog:))
                    binder.bind(OptionalWalker.self).to { resolver in
                        OptionalWalker(dog: try resolver.get(OptionalDog?.self))
                    }
                }
            ],
            configuration: Injector.Configuration(validatesOnCreation: false)
        )
        let direct = #expect(throws: ProvisionError.self) { try injector.get(OptionalDog?.self) }
        #expect(direct?.code == .factoryFailed)
        #expect(direct?.key == BindingKey(OptionalDog.self))
        #expect(direct?.cause as? ExpectedFailure == ExpectedFailure(id: 1))

        let asParameter = #expect(throws: ProvisionError.self) { try injector.get(OptionalOwner.self) }
        #expect(asParameter?.code == .factoryFailed)
        #expect(asParameter?.path.first == BindingKey(OptionalOwner.self))
        #expect(asParameter?.path.last == BindingKey(OptionalDog.self))

        let throughClosure = #expect(throws: ProvisionError.self) { try injector.get(OptionalWalker.self) }
        #expect(throughClosure?.code == .factoryFailed)
        #expect(throughClosure?.path.first == BindingKey(OptionalWalker.self))
    }

    @Test("an optional whose type is bound but whose dependency is missing throws notBound, not nil")
    func missingDependencyBelowIsNotNil() throws {
        let injector = try Injector(
            modules: [ClosureModule { $0.bind(Car.self).to(Car.init(engine:brakes:)) }],
            configuration: Injector.Configuration(validatesOnCreation: false)
        )
        let error = #expect(throws: ProvisionError.self) { try injector.get(Car?.self) }
        #expect(error?.code == .notBound)
        #expect(error?.underlyingErrors.compactMap(\.key) == [BindingKey(Engine.self), BindingKey(Brakes.self)])
    }

    @Test("a named optional wraps the binding of that name, never the unnamed one")
    func namedOptional() throws {
        let left = Headlight(brand: "left")
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Headlight.self).to { Headlight(brand: "unnamed") }
                binder.bind(Headlight.self, named: "left").toInstance(left)
            }
        )
        #expect(try injector.get(Headlight?.self, named: "left") === left)
        #expect(try injector.get(Headlight?.self, named: "right") == nil)
        #expect(try injector.get(Headlight?.self)?.brand == "unnamed")
    }

    @Test("an optional constructor parameter gets nil when nothing binds its type, the instance otherwise")
    func optionalParameters() throws {
        let empty = try Injector(ClosureModule { $0.bind(OptionalOwner.self).to(OptionalOwner.init(pet:dog:)) })
        let lonely = try empty.get(OptionalOwner.self)
        #expect(lonely.pet == nil && lonely.dog == nil)

        let full = try Injector(
            ClosureModule { binder in
                binder.bind(OptionalDog.self).to(OptionalDog.init).in(.singleton)
                binder.bind((any OptionalPet).self).to(binding: OptionalDog.self)
                binder.bind(OptionalOwner.self).to(OptionalOwner.init(pet:dog:))
            }
        )
        let owner = try full.get(OptionalOwner.self)
        let dog = try #require(owner.dog)
        #expect((owner.pet as? OptionalDog) === dog)
        // Validation sees the optional parameters as satisfied either way.
        #expect(try empty.validate().isValid)
        #expect(try full.validate().isValid)
    }

    @Test("a closure resolves an optional through its resolver, and a Provider of an optional does too")
    func throughResolverAndProvider() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(OptionalOwner.self).to { resolver in
                    OptionalOwner(
                        pet: try resolver.get((any OptionalPet)?.self), dog: try resolver.get(OptionalDog?.self))
                }
            }
        )
        let owner = try injector.get(OptionalOwner.self)
        #expect(owner.pet == nil && owner.dog == nil)
        let provider = try injector.get(Provider<OptionalDog?>.self)
        #expect(try provider.get() == nil)
    }

    @Test("a child's optional sees the child's own binding, even after its parent answered nil")
    func childSeesItsOwnBinding() throws {
        let parent = try Injector()
        #expect(try parent.get(OptionalDog?.self) == nil)
        let child = try parent.makeChild(ClosureModule { $0.bind(OptionalDog.self).to(OptionalDog.init) })
        #expect(try child.get(OptionalDog?.self) != nil)
        #expect(try parent.get(OptionalDog?.self) == nil)

        // A parent's binding is found through the child, as any other binding is.
        let grandchild = try child.makeChild()
        #expect(try grandchild.get(OptionalDog?.self) != nil)
    }

    @Test("a module installed later turns nil into the instance, for requests and for linked dependents")
    func installedLater() throws {
        let injector = try Injector(ClosureModule { $0.bind(OptionalOwner.self).to(OptionalOwner.init(pet:dog:)) })
        #expect(try injector.get(OptionalDog?.self) == nil)
        #expect(try injector.get(OptionalOwner.self).dog == nil)
        try injector.install(ClosureModule { $0.bind(OptionalDog.self).to(OptionalDog.init) })
        #expect(try injector.get(OptionalDog?.self) != nil)
        #expect(try injector.get(OptionalOwner.self).dog != nil)
    }

    @Test("threads racing the first request for an optional singleton get one instance, built once")
    func racingThreads() throws {
        let threads = 8
        for _ in 0..<50 {
            let builds = Counter()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(OptionalDog.self).to { () -> OptionalDog in
                        builds.increment()
                        return OptionalDog()
                    }.in(.singleton)
                }
            )
            let barrier = Barrier(count: threads)
            let seen = Locked<[ObjectIdentifier?]>([])
            let finished = runThreads(threads) { _ in
                barrier.arriveAndWait()
                let dog = try? injector.get(OptionalDog?.self)
                seen.withLock { $0.append(dog.flatMap { $0 }.map(ObjectIdentifier.init)) }
            }
            #expect(finished)
            let identities = seen.withLock { $0 }
            #expect(identities.count == threads)
            #expect(Set(identities).count == 1 && identities.first != nil)
            #expect(builds.value == 1)
        }
    }

    @Test("an async request for an optional awaits an async singleton")
    func asyncSingleton() async throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(OptionalDog.self).to { (_: Resolver) async throws -> OptionalDog in
                    await Task.yield()
                    return OptionalDog()
                }.in(.singleton)
            }
        )
        let first = try await injector.get(OptionalDog?.self)
        let second = try await injector.get(OptionalDog.self)
        #expect(first === second)
        #expect(try await injector.get(Headlight?.self) == nil)
    }

    @Test("after shutdown, an optional request throws shutDown instead of answering nil")
    func afterShutdown() async throws {
        let injector = try Injector(ClosureModule { $0.bind(OptionalOwner.self).to(OptionalOwner.init(pet:dog:)) })
        _ = try resolveSynchronously(OptionalOwner.self, in: injector)
        try await injector.shutdown()
        let direct = #expect(throws: ProvisionError.self) { try resolveSynchronously(OptionalDog?.self, in: injector) }
        #expect(direct?.code == .shutDown)
        let dependent = #expect(throws: ProvisionError.self) {
            try resolveSynchronously(OptionalOwner.self, in: injector)
        }
        #expect(dependent?.code == .shutDown)
        let asynchronous = await #expect(throws: ProvisionError.self) { try await injector.get(OptionalDog?.self) }
        #expect(asynchronous?.code == .shutDown)
    }

    @Test("validation follows a bound optional: a cycle through it is reported, with the optional on its path")
    func cycleThroughOptional() throws {
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(OptionalDog.self).to { (_: OptionalWalker) in OptionalDog() }
                    binder.bind(OptionalWalker.self).to(OptionalWalker.init(dog:))
                }
            ],
            configuration: Injector.Configuration(validatesOnCreation: false)
        )
        let report = injector.validationReport()
        #expect(report.problems.map(\.code) == [.cycle])
        #expect(report.problems.first?.cycleDescription?.contains("OptionalDog?") == true)
        let error = #expect(throws: ProvisionError.self) { try injector.get(OptionalWalker.self) }
        #expect(error?.code == .cycle)
    }

    @Test("optional, array and dictionary types print as Swift writes them")
    func typeNames() throws {
        #expect(BindingKey(OptionalDog?.self).description == "OptionalDog?")
        #expect(BindingKey((any OptionalPet)?.self).description == "(any OptionalPet)?")
        #expect(BindingKey([any OptionalPet].self).description == "[any OptionalPet]")
        #expect(BindingKey([String: OptionalDog?].self).description == "[String: OptionalDog?]")
        #expect(BindingKey(OptionalDog??.self, named: "x").description == "OptionalDog?? named \"x\"")
        let error = ProvisionError.notBound(
            BindingKey((any OptionalPet)?.self), path: [BindingKey((any OptionalPet)?.self)])
        #expect(error.hint.contains("binder.bind((any OptionalPet)?.self)"))
    }
}
