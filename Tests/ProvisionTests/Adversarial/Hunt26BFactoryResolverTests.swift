import Dispatch
import Provision
import Synchronization
import Testing

// Hunt 26B: what users of hmlongco's Factory and Resolver rely on every day (optional resolution,
// protocol vs concrete registrations, `.implements`, cached-scope reset, decorators, parameters at
// resolution time, resolving in a tight loop from many threads), written against Provision's API as such
// a user would migrate it.

protocol Hunt26BStore: Sendable {
    var label: String { get }
}

protocol Hunt26BAnalytics: Sendable {}

final class Hunt26BMemoryStore: Hunt26BStore {
    let label: String

    init(label: String = "memory") {
        self.label = label
    }
}

/// A decorator, as Factory's `decorator` or Resolver's `resolveProperties` wraps a service.
final class Hunt26BLoggingStore: Hunt26BStore {
    let inner: any Hunt26BStore

    init(inner: any Hunt26BStore) {
        self.inner = inner
    }

    var label: String { "logged(\(inner.label))" }
}

/// A generic store, as users of Factory register `Repository<User>`.
struct Hunt26BGenericStore<Element>: Hunt26BStore {
    var label: String { "generic" }
}

/// Takes an optional protocol, as a Resolver user writes `@OptionalInjected var analytics: Analytics?`.
struct Hunt26BScreen: Sendable {
    let analytics: (any Hunt26BAnalytics)?
    let store: any Hunt26BStore
}

struct Hunt26BNoAnalytics: Hunt26BAnalytics {}

/// A service built from a parameter given at resolution time (Factory's `ParameterFactory`).
struct Hunt26BUserViewModel: Sendable {
    let userID: Int
    let store: any Hunt26BStore
}

@Suite("Hunt26B: Factory and Resolver habits", .timeLimit(.minutes(1)))
struct Hunt26BFactoryResolverTests {
    /// Factory's `container.analytics.resolve()` on an optional factory returns `nil` when nothing is
    /// registered; Provision's ComingFromSwinject.md: "`try injector.get(Car?.self)` for `nil` when
    /// nothing binds `Car`", and for an existential too. Once bound, the optional resolves the binding.
    @Test("an optional of a protocol resolves to nil when unbound and to the binding when bound")
    func optionalOfProtocol() throws {
        let empty = try Injector()
        #expect(try empty.get((any Hunt26BStore)?.self) == nil)
        let bound = try Injector(
            ClosureModule { binder in
                binder.bind((any Hunt26BStore).self).toInstance(Hunt26BMemoryStore(label: "bound"))
            })
        #expect(try bound.get((any Hunt26BStore)?.self)?.label == "bound")
    }

    /// ComingFromSwinject.md: "`get(Dog?.self)` is `nil` only when nothing binds `Dog`; a `Dog` binding
    /// that fails still throws, where Swinject's `nil` hid the failure." Factory users are used to the
    /// opposite (`try?`-style nil), so the failure must be the binding's own error, named in Swift syntax.
    @Test("an optional of a bound protocol whose factory throws rethrows, naming the existential")
    func optionalOfFailingProtocol() throws {
        struct Failure: Error {}
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind((any Hunt26BStore).self).to { () throws -> any Hunt26BStore in throw Failure() }
            })
        let error = #expect(throws: ProvisionError.self) { try injector.get((any Hunt26BStore)?.self) }
        #expect(error?.code == .factoryFailed)
        #expect(error?.key == BindingKey((any Hunt26BStore).self))
        #expect(error?.message.contains("any Hunt26BStore") == true, "\(error?.message ?? "")")
    }

    /// Resolver's `@OptionalInjected`: an optional parameter is `nil` when nothing binds its type
    /// (ComingFromSwinject.md: "`init(dog: Dog?)`: the parameter is `nil` when nothing binds `Dog`"),
    /// and the bound value once a module binds it — here the wrapped type is an existential.
    @Test("an optional existential constructor parameter is nil when unbound and the binding when bound")
    func optionalExistentialParameter() throws {
        let module = ClosureModule { binder in
            binder.bind((any Hunt26BStore).self).to { Hunt26BMemoryStore() }
            binder.bind(Hunt26BScreen.self).to(Hunt26BScreen.init(analytics:store:))
        }
        let without = try Injector(module)
        #expect(try without.get(Hunt26BScreen.self).analytics == nil)
        let with = try without.overriding { binder in
            binder.bind((any Hunt26BAnalytics).self).toInstance(Hunt26BNoAnalytics())
        }
        #expect(try with.get(Hunt26BScreen.self).analytics is Hunt26BNoAnalytics)
        // The original is unchanged by the derivation.
        #expect(try without.get(Hunt26BScreen.self).analytics == nil)
    }

    /// Factory users register a concrete factory and resolve it as its protocol (`Factory<any Store>
    /// { MemoryStore() }`). Provision keys bindings by the requested type: binding the concrete class
    /// doesn't bind its protocol. The error must say so in Swift syntax, with a hint that spells the
    /// existential's metatype (`(any Hunt26BStore).self`), as README "Errors that say what to do"
    /// promises.
    @Test("a concrete binding doesn't bind its protocol: the error names `any P` and the fix")
    func concreteDoesNotBindProtocol() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt26BMemoryStore.self).to { Hunt26BMemoryStore() }
            })
        let error = #expect(throws: ProvisionError.self) { try injector.get((any Hunt26BStore).self) }
        #expect(error?.code == .notBound)
        #expect(error?.message == "no binding for any Hunt26BStore")
        #expect(error?.hint == "bind it in a module: binder.bind((any Hunt26BStore).self).to(...)")
        // And the other way around: an existential binding doesn't provide the concrete type.
        let other = try Injector(
            ClosureModule { binder in
                binder.bind((any Hunt26BStore).self).to { Hunt26BMemoryStore() }
            })
        let concrete = #expect(throws: ProvisionError.self) { try other.get(Hunt26BMemoryStore.self) }
        #expect(concrete?.message == "no binding for Hunt26BMemoryStore")
    }

    /// Resolver's `.implements(Store.self)` on a cached registration: one instance served as both the
    /// concrete type and the protocol. ScopesAndLifetimes.md: a delegation to a singleton "doesn't own
    /// what it hands out"; ComingFromSwinject.md maps `.implements` to `to(binding:)`. Resolved from 8
    /// threads in a tight loop, the factory runs exactly once and every request sees that instance.
    @Test("`.implements`: a protocol delegating to a concrete singleton shares its one instance across threads")
    func implementsSharesSingletonAcrossThreads() async throws {
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt26BMemoryStore.self).to { () -> Hunt26BMemoryStore in
                    builds.increment()
                    return Hunt26BMemoryStore()
                }.in(.singleton)
                binder.bind((any Hunt26BStore).self).to(binding: Hunt26BMemoryStore.self)
            })
        let mismatches = Counter()
        let failures = Counter()
        let barrier = Barrier(count: 8)
        let finished = try await offPool {
            runThreads(8, timeout: 20) { index in
                barrier.arriveAndWait()
                for iteration in 0..<300 {
                    do {
                        let concrete = try injector.get(Hunt26BMemoryStore.self)
                        let existential = try injector.get((any Hunt26BStore).self)
                        if (iteration + index) % 2 == 0, existential as AnyObject !== concrete {
                            mismatches.increment()
                        }
                        if (existential as? Hunt26BMemoryStore) !== concrete { mismatches.increment() }
                    } catch {
                        failures.increment()
                    }
                }
            }
        }
        #expect(finished)
        #expect(builds.value == 1)
        #expect(mismatches.value == 0)
        #expect(failures.value == 0)
    }

    /// `.implements` pointing at a generic concrete type that nothing binds: the error follows the
    /// delegation, names both keys in Swift syntax (`any Hunt26BStore -> Hunt26BGenericStore<Int>`), and
    /// the hint spells the generic type's metatype. Validation at creation (on by default,
    /// ComingFromSwinject.md "Broken graphs don't start") reports it.
    @Test("a delegation to an unbound generic type fails creation with the path through the delegation")
    func delegationToUnboundGeneric() throws {
        let error = #expect(throws: ProvisionError.self) {
            try Injector(
                ClosureModule { binder in
                    binder.bind((any Hunt26BStore).self).to(binding: Hunt26BGenericStore<Int>.self)
                })
        }
        let problem = error?.underlyingErrors.first ?? error
        #expect(problem?.code == .notBound, "\(String(describing: error))")
        #expect(
            problem?.message.hasPrefix("no binding for Hunt26BGenericStore<Int>") == true,
            "\(String(describing: error))")
        #expect(problem?.pathDescription == "any Hunt26BStore -> Hunt26BGenericStore<Int>")
        #expect(problem?.hint == "bind it in a module: binder.bind(Hunt26BGenericStore<Int>.self).to(...)")
    }

    /// A delegation whose target is not a `T` (`bind((any Store).self).to(binding: Int.self)` — a slip
    /// when migrating Resolver's `.implements`): BindingBuilder's `to(binding:named:)` documents "a value
    /// that does not convert throws ``ProvisionError/Code/typeMismatch``" when built. The error names
    /// both types in Swift syntax.
    @Test("a delegation to a type that isn't a T throws typeMismatch naming both types")
    func delegationToNonConformingType() throws {
        let injector = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(Int.self).toInstance(7)
                binder.bind((any Hunt26BStore).self).to(binding: Int.self)
            })
        let error = #expect(throws: ProvisionError.self) { try injector.get((any Hunt26BStore).self) }
        #expect(error?.code == .typeMismatch, "\(String(describing: error))")
        #expect(error?.message.contains("Int") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("any Hunt26BStore") == true, "\(error?.message ?? "")")
    }

    /// Factory's `Container.shared.reset()` / Resolver's `ResolverScope.cached.reset()`: Provision has no
    /// reset, but `with()` "configures every module again and shares nothing with this one: its
    /// singletons (eager ones included) are built anew. This injector is unchanged." (Injector+Derivation).
    @Test("`with()` as a cache reset: new singletons in the new injector, the old ones untouched")
    func withAsReset() throws {
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind((any Hunt26BStore).self).to { () -> any Hunt26BStore in
                    Hunt26BMemoryStore(label: "build \(builds.increment())")
                }.in(.singleton)
            })
        let first = try injector.get((any Hunt26BStore).self)
        let reset = try injector.with()
        let second = try reset.get((any Hunt26BStore).self)
        #expect(first.label == "build 1")
        #expect(second.label == "build 2")
        #expect(try injector.get((any Hunt26BStore).self) as AnyObject === first as AnyObject)
        #expect(try reset.get((any Hunt26BStore).self) as AnyObject === second as AnyObject)
        #expect(builds.value == 2)
    }

    /// Factory's `decorator { }` wraps every resolved instance; the Provision idiom is a named inner
    /// binding and a closure that wraps it. For a test override of the inner service (Factory's
    /// `register { Mock() }`), `overriding` "re-creates ... exactly the bindings that depend on a replaced
    /// key ... A closure that doesn't declare its dependencies ... is re-created too": the derived
    /// injector's decorator wraps the fake, the original's still wraps the real store, and a singleton
    /// decorator is built once per injector.
    @Test("a decorator over a named inner binding wraps the test override in the derived injector")
    func decoratorOverOverride() throws {
        let decorations = Counter()
        let app = try Injector(
            ClosureModule { binder in
                binder.bind((any Hunt26BStore).self, named: "raw").to { Hunt26BMemoryStore(label: "real") }
                binder.bind((any Hunt26BStore).self).to { resolver -> any Hunt26BStore in
                    decorations.increment()
                    return Hunt26BLoggingStore(inner: try resolver.get((any Hunt26BStore).self, named: "raw"))
                }.in(.singleton)
            })
        let test = try app.overriding { binder in
            binder.bind((any Hunt26BStore).self, named: "raw").toInstance(Hunt26BMemoryStore(label: "fake"))
        }
        #expect(try test.get((any Hunt26BStore).self).label == "logged(fake)")
        #expect(try app.get((any Hunt26BStore).self).label == "logged(real)")
        #expect(try test.get((any Hunt26BStore).self).label == "logged(fake)")
        #expect(decorations.value == 2)
    }

    /// Factory's `ParameterFactory<Int, UserViewModel>`: a parameter at resolution time, plus injected
    /// dependencies. Passing the wrong parameter type is "``ProvisionError/Code/argumentMismatch`` naming
    /// both signatures" (ArgumentBindingBuilder), in Swift syntax.
    @Test("resolution-time parameters: the right type builds, a wrong one names both signatures")
    func parameterFactory() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind((any Hunt26BStore).self).to { Hunt26BMemoryStore() }.in(.singleton)
                binder.bind(Hunt26BUserViewModel.self).withArguments(Int.self).to { resolver, id in
                    Hunt26BUserViewModel(userID: id, store: try resolver.get())
                }
            })
        #expect(try injector.get(Hunt26BUserViewModel.self, arguments: 42).userID == 42)
        let error = #expect(throws: ProvisionError.self) {
            try injector.get(Hunt26BUserViewModel.self, arguments: "42")
        }
        #expect(error?.code == .argumentMismatch)
        #expect(error?.message.contains("(Int)") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("(String)") == true, "\(error?.message ?? "")")
        // Without arguments and without defaults: also a mismatch, not a crash or a zero.
        let none = #expect(throws: ProvisionError.self) { try injector.get(Hunt26BUserViewModel.self) }
        #expect(none?.code == .argumentMismatch)
    }

    /// Factory's `.unique` (the default) vs `.cached`: hammered from 8 threads, a transient factory runs
    /// once per request and a singleton exactly once (ScopesAndLifetimes.md: "Singletons ... are built
    /// exactly once per injector ... even when many threads ... ask for them at the same moment").
    @Test("tight loop from 8 threads: transient builds once per request, singleton exactly once")
    func tightLoop() async throws {
        let transientBuilds = Counter()
        let singletonBuilds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt26BMemoryStore.self, named: "unique").to { () -> Hunt26BMemoryStore in
                    transientBuilds.increment()
                    return Hunt26BMemoryStore()
                }
                binder.bind(Hunt26BMemoryStore.self, named: "cached").to { () -> Hunt26BMemoryStore in
                    singletonBuilds.increment()
                    return Hunt26BMemoryStore()
                }.in(.singleton)
            })
        let seen = Locked<Set<ObjectIdentifier>>([])
        let barrier = Barrier(count: 8)
        let finished = try await offPool {
            runThreads(8, timeout: 20) { _ in
                barrier.arriveAndWait()
                var local: Set<ObjectIdentifier> = []
                for _ in 0..<250 {
                    _ = try? injector.get(Hunt26BMemoryStore.self, named: "unique")
                    if let cached = try? injector.get(Hunt26BMemoryStore.self, named: "cached") {
                        local.insert(ObjectIdentifier(cached))
                    }
                }
                seen.withLock { $0.formUnion(local) }
            }
        }
        #expect(finished)
        #expect(transientBuilds.value == 8 * 250)
        #expect(singletonBuilds.value == 1)
        #expect(seen.withLock { $0.count } == 1)
    }
}
