import Dispatch
import Provision
import Synchronization
import Testing

// Hunt 26B: what users of Koin, Needle and Weaver rely on: module composition (the same type in two
// modules), eager singletons (`createdAtStart`), lazy injection, scopes tied to a parent object, checking
// the graph at start-up; and the types such users bind (generics, nested types, compositions, actors,
// enums, class hierarchies, metatypes), named in Swift syntax.

struct Hunt26BSettings<Value: Sendable>: Sendable {
    var value: Value
}

struct Hunt26BNetworkModule: Module {
    func configure(_ binder: Binder) {
        binder.bind(Hunt26BSettings<String>.self).toInstance(Hunt26BSettings(value: "network"))
    }
}

struct Hunt26BStorageModule: Module {
    func configure(_ binder: Binder) {
        binder.bind(Hunt26BSettings<String>.self).toInstance(Hunt26BSettings(value: "storage"))
    }
}

struct Hunt26BOverridingModule: Module {
    let value: String

    func configure(_ binder: Binder) {
        binder.override(Hunt26BSettings<String>.self).toInstance(Hunt26BSettings(value: value))
    }
}

/// Expensive and not always needed: injected lazily.
final class Hunt26BHeavy: Sendable {}

final class Hunt26BReport: Sendable {
    let heavy: Lazy<Hunt26BHeavy>

    init(heavy: Lazy<Hunt26BHeavy>) {
        self.heavy = heavy
    }
}

/// A per-request object, disposed when its scope closes (Koin's `scope<Activity> { scoped { } }`).
final class Hunt26BSession: Disposable {
    let disposals: Counter

    init(disposals: Counter) {
        self.disposals = disposals
    }

    func dispose() {
        disposals.increment()
    }
}

/// An actor service, resolved from async contexts.
protocol Hunt26BTally: Actor {
    func add() -> Int
}

actor Hunt26BTallyActor: Hunt26BTally {
    private var count = 0

    func add() -> Int {
        count += 1
        return count
    }
}

/// A non-final class hierarchy.
class Hunt26BAnimal: @unchecked Sendable {
    var sound: String { "..." }
}

final class Hunt26BDog: Hunt26BAnimal, @unchecked Sendable {
    override var sound: String { "woof" }
}

enum Hunt26BEnvironment: Sendable {
    case production, staging
}

protocol Hunt26BDatabase: Sendable {}
struct Hunt26BUser: Sendable {}

struct Hunt26BRepository<Element>: Sendable {
    struct Cache: Sendable {
        let database: any Hunt26BDatabase
    }
}

struct Hunt26BApp: Sendable {
    let cache: Hunt26BRepository<Hunt26BUser>.Cache
}

protocol Hunt26BReader: Sendable {}
protocol Hunt26BWriter: Sendable {}

/// Needs a reader-writer; the reader-writer needs the journal: a cycle through a composition.
final class Hunt26BJournal: Sendable {
    let file: any Hunt26BReader & Hunt26BWriter

    init(file: any Hunt26BReader & Hunt26BWriter) {
        self.file = file
    }
}

final class Hunt26BFile: Hunt26BReader, Hunt26BWriter {
    let journal: Hunt26BJournal

    init(journal: Hunt26BJournal) {
        self.journal = journal
    }
}

@Suite("Hunt26B: Koin, Needle and Weaver habits", .timeLimit(.minutes(1)))
struct Hunt26BKoinTests {
    /// Koin lets a later module silently win (`allowOverride`); Provision's Binder promises "an unmarked
    /// second binding of a key is a ``ProvisionError/Code/duplicateBinding`` error naming both
    /// declarations", and the hint spells the `override` call for the generic key.
    @Test("the same generic key in two modules is a duplicateBinding naming both modules and places")
    func sameKeyInTwoModules() throws {
        let error = #expect(throws: ProvisionError.self) {
            try Injector(Hunt26BNetworkModule(), Hunt26BStorageModule())
        }
        #expect(error?.code == .duplicateBinding)
        let message = error?.message ?? ""
        #expect(
            message.hasPrefix("Hunt26BSettings<String> is bound twice: Hunt26BNetworkModule binds it at "), "\(message)"
        )
        #expect(message.contains(", and Hunt26BStorageModule binds it again at "), "\(message)")
        #expect(
            message.split(separator: "Hunt26BKoinTests.swift:", omittingEmptySubsequences: false).count == 3,
            "\(message)")
        #expect(
            error?.hint
                == "if the later binding is meant to replace the earlier one, declare it with "
                + "binder.override(Hunt26BSettings<String>.self); otherwise remove one of them")
    }

    /// Koin's `override = true` on a later module: with `binder.override`, the later module wins, and a
    /// chain of overrides ends with the last one ("An override replaces the binding of any earlier
    /// module of the injector", Binder). An override followed by a plain binding is still an unmarked
    /// second binding: an error.
    @Test("overrides: the last overriding module wins; a plain binding after an override is an error")
    func overrideOrder() throws {
        let injector = try Injector(
            Hunt26BNetworkModule(), Hunt26BOverridingModule(value: "first"), Hunt26BOverridingModule(value: "second"))
        #expect(try injector.get(Hunt26BSettings<String>.self).value == "second")
        let error = #expect(throws: ProvisionError.self) {
            try Injector(Hunt26BOverridingModule(value: "first"), Hunt26BStorageModule())
        }
        #expect(error?.code == .duplicateBinding)
    }

    /// Koin's `single(createdAtStart = true)`: built when the injector is created, exactly once
    /// ("Makes the binding a singleton that is built when the injector is created", `asEagerSingleton`).
    /// A transient marked eager is "``ProvisionError/Code/eagerNotSingleton`` (naming the key)"
    /// (Binder.eager), in Swift syntax, listed in the validation error that creation throws.
    @Test("eager singletons are built at creation exactly once; an eager transient names its key")
    func eagerSingletons() throws {
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt26BHeavy.self).to { () -> Hunt26BHeavy in
                    builds.increment()
                    return Hunt26BHeavy()
                }.asEagerSingleton()
            })
        #expect(builds.value == 1)
        let first = try injector.get(Hunt26BHeavy.self)
        #expect(try injector.get(Hunt26BHeavy.self) === first)
        #expect(builds.value == 1)

        let error = #expect(throws: ProvisionError.self) {
            try Injector(
                ClosureModule { binder in
                    binder.bind(Hunt26BSettings<Int>.self).to { Hunt26BSettings(value: 1) }
                    binder.eager(Hunt26BSettings<Int>.self)
                })
        }
        // With validation on creation (the default), the problem comes inside validationFailed
        // (Injector.init's Throws list).
        #expect(error?.code == .validationFailed)
        let problem = error?.underlyingErrors.first
        #expect(problem?.code == .eagerNotSingleton)
        #expect(
            problem?.message
                == "Hunt26BSettings<Int> is marked eager but bound transient; only singletons can be built eagerly",
            "\(problem?.message ?? "")")
        #expect(problem?.hint == "bind it with .in(.singleton) (or .asEagerSingleton()), or don't mark it eager")
    }

    /// Koin's `by inject()` / Needle's lazy properties: an injected `Lazy<T>` resolves nothing until
    /// read, and "Each injected `Lazy` resolves its value at most once, even when several threads read
    /// it at the same time" (Lazy) — here over a transient binding, read by 8 threads at once. A second
    /// report (transient) has a handle of its own, so it builds its own value.
    @Test("Lazy over a transient: nothing built until read, one build per handle however many threads read")
    func lazyInjection() async throws {
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt26BHeavy.self).to { () -> Hunt26BHeavy in
                    builds.increment()
                    return Hunt26BHeavy()
                }
                binder.bind(Hunt26BReport.self).to(Hunt26BReport.init(heavy:))
            })
        let report = try await injector.get(Hunt26BReport.self)
        #expect(builds.value == 0)
        let seen = Locked<Set<ObjectIdentifier>>([])
        let barrier = Barrier(count: 8)
        let finished = try await offPool {
            runThreads(8, timeout: 20) { _ in
                barrier.arriveAndWait()
                if let heavy = try? report.heavy.value {
                    seen.withLock { _ = $0.insert(ObjectIdentifier(heavy)) }
                }
            }
        }
        #expect(finished)
        #expect(builds.value == 1)
        #expect(seen.withLock { $0.count } == 1)
        let other = try await injector.get(Hunt26BReport.self)
        #expect(try other.heavy.value !== report.heavy.value)
        #expect(builds.value == 2)
    }

    /// Koin's scope tied to an activity: one instance per scope, disposed once when the scope closes, and
    /// "Requesting a scoped binding ... through a closed one, throws
    /// ``ProvisionError/Code/outsideScope``" (ScopesAndLifetimes.md).
    @Test("a scope tied to a unit of work: one session per scope, disposed once at close, then outsideScope")
    func scopeTiedToParent() async throws {
        let disposals = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt26BSession.self).to { Hunt26BSession(disposals: disposals) }.in(.scoped)
            })
        let scope = injector.makeScope()
        let first = try await scope.get(Hunt26BSession.self)
        #expect(try await scope.get(Hunt26BSession.self) === first)
        let other = injector.makeScope()
        #expect(try await other.get(Hunt26BSession.self) !== first)
        try await scope.close()
        #expect(disposals.value == 1)
        let error = #expect(throws: ProvisionError.self) { try scope.get(Hunt26BSession.self) }
        #expect(error?.code == .outsideScope)
        #expect(error?.key == BindingKey(Hunt26BSession.self))
        try await other.close()
        #expect(disposals.value == 2)
    }

    /// An actor bound behind an `Actor`-constrained protocol, resolved from 100 tasks: the singleton is
    /// built exactly once (ScopesAndLifetimes.md) and every task talks to the same actor.
    @Test("an actor singleton behind an Actor protocol, resolved from 100 tasks: built once, one actor")
    func actorFromTasks() async throws {
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind((any Hunt26BTally).self).to { () -> any Hunt26BTally in
                    builds.increment()
                    return Hunt26BTallyActor()
                }.in(.singleton)
            })
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    let tally = try await injector.get((any Hunt26BTally).self)
                    return await tally.add()
                }
            }
            var all: [Int] = []
            for try await count in group { all.append(count) }
            return all
        }
        #expect(builds.value == 1)
        #expect(counts.sorted() == Array(1...100))
    }

    /// A non-final base class bound to a subclass's initializer: the base resolves to the subclass; the
    /// subclass itself is a different key that nothing binds ("a named request never falls back" has
    /// an unnamed analogue: keys are exact types), reported in Swift syntax.
    @Test("a base class bound to a subclass: the base resolves to it, the subclass key is unbound")
    func classHierarchy() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt26BAnimal.self).to { () -> Hunt26BAnimal in Hunt26BDog() }
                binder.bind(Hunt26BEnvironment.self).toInstance(.staging)
            })
        #expect(try injector.get(Hunt26BAnimal.self).sound == "woof")
        #expect(try injector.get(Hunt26BEnvironment.self) == .staging)
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt26BDog.self) }
        #expect(error?.message == "no binding for Hunt26BDog")
    }

    /// Needle/Weaver check the graph at build time; Provision's injector "validates its graph when it is
    /// created" (ComingFromSwinject.md), with the path in Swift syntax: a generic's nested type and an
    /// existential (README: "the path (`App -> Checkout -> any PaymentGateway`)").
    @Test("start-up validation names a missing existential below a generic's nested type")
    func validationPath() throws {
        let error = #expect(throws: ProvisionError.self) {
            try Injector(
                ClosureModule { binder in
                    binder.bind(Hunt26BApp.self).to(Hunt26BApp.init(cache:))
                    binder.bind(Hunt26BRepository<Hunt26BUser>.Cache.self).to(
                        Hunt26BRepository<Hunt26BUser>.Cache.init(database:))
                })
        }
        let problem = error?.underlyingErrors.first ?? error
        #expect(problem?.code == .notBound, "\(String(describing: error))")
        #expect(
            problem?.pathDescription == "Hunt26BApp -> Hunt26BRepository<Hunt26BUser>.Cache -> any Hunt26BDatabase",
            "\(String(describing: error))")
        #expect(problem?.hint == "bind it in a module: binder.bind((any Hunt26BDatabase).self).to(...)")
    }

    /// A cycle through a protocol composition (`any Reader & Writer`): reported, not overflowed, with the
    /// composition spelled as source spells it (either order; the runtime orders the protocols).
    @Test("a cycle through `any A & B` is reported with the composition spelled in Swift syntax")
    func cycleThroughComposition() throws {
        let injector = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(Hunt26BJournal.self).to(Hunt26BJournal.init(file:))
                binder.bind((any Hunt26BReader & Hunt26BWriter).self).to(Hunt26BFile.init(journal:))
            })
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt26BJournal.self) }
        #expect(error?.code == .cycle)
        #expect(
            error?.pathDescription == "Hunt26BJournal -> any Hunt26BReader & Hunt26BWriter -> Hunt26BJournal",
            "\(error?.pathDescription ?? "")")
    }

    /// An existential metatype and a labelled tuple as services: bound with `toInstance`, resolved back.
    @Test("an existential metatype and a labelled tuple bound as values resolve back")
    func metatypeAndTupleServices() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind((any Hunt26BDatabase.Type).self).toInstance(Hunt26BMemoryDatabase.self)
                binder.bind((host: String, port: Int).self).toInstance((host: "db", port: 5432))
            })
        #expect(try injector.get((any Hunt26BDatabase.Type).self) == Hunt26BMemoryDatabase.self)
        let endpoint = try injector.get((host: String, port: Int).self)
        #expect(endpoint.host == "db" && endpoint.port == 5432)
        let missing = #expect(throws: ProvisionError.self) { try injector.get((host: String, port: Int?).self) }
        #expect(missing?.message == "no binding for (host: String, port: Int?)", "\(missing?.message ?? "")")
    }

    /// Found by hunt 26B, fixed: `TypeName.withoutModules` keeps a word's `Any.` (no module).
    ///
    /// `Any.Type` inside another type: a registry of type-erased factories
    /// (`Hunt26BSettings<Any.Type>`) or a closure service taking a type (`@Sendable (Any.Type) ->
    /// String`). README promises errors that name "the key in Swift syntax". TypeName spells
    /// `Hunt26BSettings<Type>` and `@Sendable (Type) -> String`: `TypeName.withoutModules` strips the
    /// text before the first dot of each word as a module name, and the runtime prints `Any.Type`
    /// without a module (`Swift.` is absent), so `Any.` is dropped. (Hunt 25B fixed the top-level
    /// `Any.Type` in `TypeName.describe`; nested occurrences go through `qualifiedName`.)
    @Test("`Any.Type` inside a generic or a function type is spelled `Any.Type`, not `Type`")
    func anyMetatypeInside() throws {
        let injector = try Injector()
        let generic = #expect(throws: ProvisionError.self) { try injector.get(Hunt26BSettings<Any.Type>.self) }
        #expect(generic?.message == "no binding for Hunt26BSettings<Any.Type>", "\(generic?.message ?? "")")
        let function = #expect(throws: ProvisionError.self) {
            try injector.get((@Sendable (Any.Type) -> String).self)
        }
        #expect(function?.message == "no binding for @Sendable (Any.Type) -> String", "\(function?.message ?? "")")
        #expect(
            function?.hint == "bind it in a module: binder.bind((@Sendable (Any.Type) -> String).self).to(...)",
            "\(function?.hint ?? "")")
    }
}

struct Hunt26BMemoryDatabase: Hunt26BDatabase {}
