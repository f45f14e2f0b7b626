import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Provision

// Hunt 20A, part 1: initializers the way users write them, at arities 1, 6 and 12 (the fixed-arity
// overloads) and 13, 16, 20 and 24 (the parameter-pack path), each mixing every kind of parameter:
// a singleton existential, a singleton, transients, optionals of a bound and an unbound key, a
// multibinding, a Provider, a Lazy, an instance, an argument binding resolved with its defaults and an
// optional existential. The last parameter (and the first, `any Hunt20ADB`) can be made missing,
// failing, async or an argument binding without defaults, to check the error's code and path at each
// end of the parameter list.

// MARK: - Fixtures

/// Counts the instances a graph built and how many are still alive, per injector (no global state).
final class Hunt20ALive: Sendable {
    let freshBuilt = Atomic(0)
    let freshAlive = Atomic(0)
    let singleBuilt = Atomic(0)
    let dbBuilt = Atomic(0)
    let tailBuilt = Atomic(0)
    let tailAlive = Atomic(0)
    /// While set, `any Hunt20ADB`'s factory throws.
    let failDB = Atomic(false)
    /// While set, `Hunt20ATail`'s factory throws (in the `.failing` mode).
    let failTail = Atomic(false)

    func setFailure(db: Bool, _ value: Bool) {
        if db {
            failDB.store(value, ordering: .sequentiallyConsistent)
        } else {
            failTail.store(value, ordering: .sequentiallyConsistent)
        }
    }

    var fresh: (built: Int, alive: Int) {
        (freshBuilt.load(ordering: .sequentiallyConsistent), freshAlive.load(ordering: .sequentiallyConsistent))
    }
}

struct Hunt20AFailure: Error, Equatable {
    let site: String
}

protocol Hunt20ADB: AnyObject, Sendable {
    var tag: String { get }
}

final class Hunt20APostgres: Hunt20ADB {
    let tag: String
    init(tag: String) { self.tag = tag }
}

protocol Hunt20APlugin: Sendable {
    var id: Int { get }
}

struct Hunt20APluginValue: Hunt20APlugin {
    let id: Int
}

final class Hunt20ASingle: Sendable {
    init(live: Hunt20ALive) { live.singleBuilt.add(1, ordering: .sequentiallyConsistent) }
}

final class Hunt20AFresh: Sendable {
    let live: Hunt20ALive
    init(live: Hunt20ALive) {
        self.live = live
        live.freshBuilt.add(1, ordering: .sequentiallyConsistent)
        live.freshAlive.add(1, ordering: .sequentiallyConsistent)
    }
    deinit { live.freshAlive.subtract(1, ordering: .sequentiallyConsistent) }
}

final class Hunt20ATail: Sendable {
    let live: Hunt20ALive
    let number: Int
    init(live: Hunt20ALive, number: Int = 0) {
        self.live = live
        self.number = number
        live.tailBuilt.add(1, ordering: .sequentiallyConsistent)
        live.tailAlive.add(1, ordering: .sequentiallyConsistent)
    }
    deinit { live.tailAlive.subtract(1, ordering: .sequentiallyConsistent) }
}

/// Never bound: only ever asked for as an optional.
final class Hunt20AUnbound: Sendable {}

struct Hunt20AConfig: Sendable {
    let port: Int
}

final class Hunt20AArgued: Sendable {
    let number: Int
    init(number: Int) { self.number = number }
}

/// What a root's initializer received.
struct Hunt20ASeen: Sendable {
    var db: (any Hunt20ADB)?
    var single: Hunt20ASingle?
    var fresh: [Hunt20AFresh] = []
    var maybe: Hunt20ASingle?
    var missingIsNil: Bool?
    var plugins: [Int]?
    var provider: Provider<Hunt20AFresh>?
    var lazy: Lazy<Hunt20ASingle>?
    var port: Int?
    var argued: Int?
    var optionalDB: (any Hunt20ADB)?
    var tail: Hunt20ATail?
}

protocol Hunt20AMix: AnyObject, Sendable {
    var seen: Hunt20ASeen { get }
    static var arity: Int { get }
    static func bind(_ binder: Binder, scope: Scope)
}

/// The root above a mix: `Hunt20AApp<Hunt20AMix13> -> Hunt20AMix13 -> any Hunt20ADB`.
final class Hunt20AApp<Store: Hunt20AMix>: Sendable {
    let store: Store
    init(store: Store) { self.store = store }
}

/// How the last parameter (`Hunt20ATail`) is bound.
enum Hunt20ATailMode: Sendable, CustomStringConvertible {
    case transient, failing, unbound, asyncSingleton, argumentsWithoutDefaults

    var description: String {
        switch self {
        case .transient: "transient"
        case .failing: "failing"
        case .unbound: "unbound"
        case .asyncSingleton: "async singleton"
        case .argumentsWithoutDefaults: "arguments without defaults"
        }
    }
}

enum Hunt20AMixes {
    static let all: [any Hunt20AMix.Type] = [
        Hunt20AMix1.self, Hunt20AMix6.self, Hunt20AMix12.self, Hunt20AMix13.self, Hunt20AMix16.self,
        Hunt20AMix20.self, Hunt20AMix24.self,
    ]
    static let wide: [any Hunt20AMix.Type] = [
        Hunt20AMix12.self, Hunt20AMix13.self, Hunt20AMix16.self, Hunt20AMix20.self, Hunt20AMix24.self,
    ]

    /// Binds every dependency a mix may have (the database unless `bindDB` is false, the tail as
    /// `tail` says), the mixes in `rootScope` and an app over each.
    static func module(
        _ live: Hunt20ALive, tail: Hunt20ATailMode = .transient, bindDB: Bool = true, rootScope: Scope = .transient
    ) -> ClosureModule {
        ClosureModule { binder in
            bindLeaves(binder, live, tail: tail, bindDB: bindDB)
            bindRoots(binder, rootScope: rootScope)
        }
    }

    static func bindLeaves(_ binder: Binder, _ live: Hunt20ALive, tail: Hunt20ATailMode, bindDB: Bool) {
        if bindDB {
            binder.bind((any Hunt20ADB).self).to { () throws -> any Hunt20ADB in
                if live.failDB.load(ordering: .sequentiallyConsistent) { throw Hunt20AFailure(site: "db") }
                live.dbBuilt.add(1, ordering: .sequentiallyConsistent)
                return Hunt20APostgres(tag: "main")
            }.in(.singleton)
        }
        binder.bind(Hunt20ASingle.self).to { Hunt20ASingle(live: live) }.in(.singleton)
        binder.bind(Hunt20AFresh.self).to { Hunt20AFresh(live: live) }
        for id in 1...3 {
            binder.multibind((any Hunt20APlugin).self).toInstance(Hunt20APluginValue(id: id))
        }
        binder.bind(Hunt20AConfig.self).toInstance(Hunt20AConfig(port: 8080))
        binder.bind(Hunt20AArgued.self).withArguments(Int.self).to { _, number in Hunt20AArgued(number: number) }
            .defaults(7)
        switch tail {
        case .transient:
            binder.bind(Hunt20ATail.self).to { Hunt20ATail(live: live) }
        case .failing:
            binder.bind(Hunt20ATail.self).to { () throws -> Hunt20ATail in
                if live.failTail.load(ordering: .sequentiallyConsistent) { throw Hunt20AFailure(site: "tail") }
                return Hunt20ATail(live: live)
            }
        case .unbound:
            break
        case .asyncSingleton:
            binder.bind(Hunt20ATail.self).to { _ async throws in Hunt20ATail(live: live) }.in(.singleton)
        case .argumentsWithoutDefaults:
            binder.bind(Hunt20ATail.self).withArguments(Int.self).to { _, number in
                Hunt20ATail(live: live, number: number)
            }
        }
    }

    static func bindRoots(_ binder: Binder, rootScope: Scope) {
        for mix in all {
            mix.bind(binder, scope: rootScope)
            bindApp(binder, mix)
        }
    }

    static func bindApp<M: Hunt20AMix>(_ binder: Binder, _: M.Type) {
        binder.bind(Hunt20AApp<M>.self).to(Hunt20AApp<M>.init(store:))
    }

    static func app<M: Hunt20AMix>(_ injector: Injector, _: M.Type) throws(ProvisionError) -> M {
        try injector.get(Hunt20AApp<M>.self).store
    }

    static func appAsync<M: Hunt20AMix>(_ injector: Injector, _: M.Type) async throws(ProvisionError) -> M {
        try await injector.get(Hunt20AApp<M>.self).store
    }

    static func appKey<M: Hunt20AMix>(_: M.Type) -> BindingKey { BindingKey(Hunt20AApp<M>.self) }

    /// The error of a synchronous request for the app over `mix`, or nil.
    static func appError(_ injector: Injector, _ mix: any Hunt20AMix.Type) -> ProvisionError? {
        do {
            _ = try app(injector, mix)
            return nil
        } catch {
            return error
        }
    }

    /// How many `Hunt20AFresh` parameters a mix has.
    static func freshCount(_ arity: Int) -> Int {
        switch arity {
        case 1: 0
        case 6: 1
        default: 1 + arity - 12
        }
    }
}

final class Hunt20AMix1: Hunt20AMix {
    let seen: Hunt20ASeen
    static let arity = 1
    static func bind(_ binder: Binder, scope: Scope) {
        binder.bind(Hunt20AMix1.self).to(Hunt20AMix1.init(tail:)).in(scope)
    }
    init(
        tail: Hunt20ATail
    ) {
        var seen = Hunt20ASeen()
        seen.tail = tail
        self.seen = seen
    }
}

final class Hunt20AMix6: Hunt20AMix {
    let seen: Hunt20ASeen
    static let arity = 6
    static func bind(_ binder: Binder, scope: Scope) {
        binder.bind(Hunt20AMix6.self).to(Hunt20AMix6.init(db:fresh:maybe:plugins:provider:tail:)).in(scope)
    }
    init(
        db: any Hunt20ADB,
        fresh: Hunt20AFresh,
        maybe: Hunt20ASingle?,
        plugins: [any Hunt20APlugin],
        provider: Provider<Hunt20AFresh>,
        tail: Hunt20ATail
    ) {
        var seen = Hunt20ASeen()
        seen.db = db
        seen.fresh.append(fresh)
        seen.maybe = maybe
        seen.plugins = plugins.map(\.id)
        seen.provider = provider
        seen.tail = tail
        self.seen = seen
    }
}

final class Hunt20AMix12: Hunt20AMix {
    let seen: Hunt20ASeen
    static let arity = 12
    static func bind(_ binder: Binder, scope: Scope) {
        binder.bind(Hunt20AMix12.self).to(
            Hunt20AMix12.init(db:single:fresh:maybe:missing:plugins:provider:lazy:config:argued:optionalDB:tail:)
        ).in(scope)
    }
    init(
        db: any Hunt20ADB,
        single: Hunt20ASingle,
        fresh: Hunt20AFresh,
        maybe: Hunt20ASingle?,
        missing: Hunt20AUnbound?,
        plugins: [any Hunt20APlugin],
        provider: Provider<Hunt20AFresh>,
        lazy: Lazy<Hunt20ASingle>,
        config: Hunt20AConfig,
        argued: Hunt20AArgued,
        optionalDB: (any Hunt20ADB)?,
        tail: Hunt20ATail
    ) {
        var seen = Hunt20ASeen()
        seen.db = db
        seen.single = single
        seen.fresh.append(fresh)
        seen.maybe = maybe
        seen.missingIsNil = missing == nil
        seen.plugins = plugins.map(\.id)
        seen.provider = provider
        seen.lazy = lazy
        seen.port = config.port
        seen.argued = argued.number
        seen.optionalDB = optionalDB
        seen.tail = tail
        self.seen = seen
    }
}

final class Hunt20AMix13: Hunt20AMix {
    let seen: Hunt20ASeen
    static let arity = 13
    static func bind(_ binder: Binder, scope: Scope) {
        binder.bind(Hunt20AMix13.self).to(
            Hunt20AMix13.init(db:single:fresh:maybe:missing:plugins:provider:lazy:config:argued:optionalDB:extra0:tail:)
        ).in(scope)
    }
    init(
        db: any Hunt20ADB,
        single: Hunt20ASingle,
        fresh: Hunt20AFresh,
        maybe: Hunt20ASingle?,
        missing: Hunt20AUnbound?,
        plugins: [any Hunt20APlugin],
        provider: Provider<Hunt20AFresh>,
        lazy: Lazy<Hunt20ASingle>,
        config: Hunt20AConfig,
        argued: Hunt20AArgued,
        optionalDB: (any Hunt20ADB)?,
        extra0: Hunt20AFresh,
        tail: Hunt20ATail
    ) {
        var seen = Hunt20ASeen()
        seen.db = db
        seen.single = single
        seen.fresh.append(fresh)
        seen.maybe = maybe
        seen.missingIsNil = missing == nil
        seen.plugins = plugins.map(\.id)
        seen.provider = provider
        seen.lazy = lazy
        seen.port = config.port
        seen.argued = argued.number
        seen.optionalDB = optionalDB
        seen.fresh.append(extra0)
        seen.tail = tail
        self.seen = seen
    }
}

final class Hunt20AMix16: Hunt20AMix {
    let seen: Hunt20ASeen
    static let arity = 16
    static func bind(_ binder: Binder, scope: Scope) {
        binder.bind(Hunt20AMix16.self).to(
            Hunt20AMix16.init(
                db:single:fresh:maybe:missing:plugins:provider:lazy:config:argued:optionalDB:extra0:extra1:extra2:
                extra3:tail:)
        ).in(scope)
    }
    init(
        db: any Hunt20ADB,
        single: Hunt20ASingle,
        fresh: Hunt20AFresh,
        maybe: Hunt20ASingle?,
        missing: Hunt20AUnbound?,
        plugins: [any Hunt20APlugin],
        provider: Provider<Hunt20AFresh>,
        lazy: Lazy<Hunt20ASingle>,
        config: Hunt20AConfig,
        argued: Hunt20AArgued,
        optionalDB: (any Hunt20ADB)?,
        extra0: Hunt20AFresh,
        extra1: Hunt20AFresh,
        extra2: Hunt20AFresh,
        extra3: Hunt20AFresh,
        tail: Hunt20ATail
    ) {
        var seen = Hunt20ASeen()
        seen.db = db
        seen.single = single
        seen.fresh.append(fresh)
        seen.maybe = maybe
        seen.missingIsNil = missing == nil
        seen.plugins = plugins.map(\.id)
        seen.provider = provider
        seen.lazy = lazy
        seen.port = config.port
        seen.argued = argued.number
        seen.optionalDB = optionalDB
        seen.fresh.append(extra0)
        seen.fresh.append(extra1)
        seen.fresh.append(extra2)
        seen.fresh.append(extra3)
        seen.tail = tail
        self.seen = seen
    }
}

final class Hunt20AMix20: Hunt20AMix {
    let seen: Hunt20ASeen
    static let arity = 20
    static func bind(_ binder: Binder, scope: Scope) {
        binder.bind(Hunt20AMix20.self).to(
            Hunt20AMix20.init(
                db:single:fresh:maybe:missing:plugins:provider:lazy:config:argued:optionalDB:extra0:extra1:extra2:
                extra3:extra4:extra5:extra6:extra7:tail:)
        ).in(scope)
    }
    init(
        db: any Hunt20ADB,
        single: Hunt20ASingle,
        fresh: Hunt20AFresh,
        maybe: Hunt20ASingle?,
        missing: Hunt20AUnbound?,
        plugins: [any Hunt20APlugin],
        provider: Provider<Hunt20AFresh>,
        lazy: Lazy<Hunt20ASingle>,
        config: Hunt20AConfig,
        argued: Hunt20AArgued,
        optionalDB: (any Hunt20ADB)?,
        extra0: Hunt20AFresh,
        extra1: Hunt20AFresh,
        extra2: Hunt20AFresh,
        extra3: Hunt20AFresh,
        extra4: Hunt20AFresh,
        extra5: Hunt20AFresh,
        extra6: Hunt20AFresh,
        extra7: Hunt20AFresh,
        tail: Hunt20ATail
    ) {
        var seen = Hunt20ASeen()
        seen.db = db
        seen.single = single
        seen.fresh.append(fresh)
        seen.maybe = maybe
        seen.missingIsNil = missing == nil
        seen.plugins = plugins.map(\.id)
        seen.provider = provider
        seen.lazy = lazy
        seen.port = config.port
        seen.argued = argued.number
        seen.optionalDB = optionalDB
        seen.fresh.append(extra0)
        seen.fresh.append(extra1)
        seen.fresh.append(extra2)
        seen.fresh.append(extra3)
        seen.fresh.append(extra4)
        seen.fresh.append(extra5)
        seen.fresh.append(extra6)
        seen.fresh.append(extra7)
        seen.tail = tail
        self.seen = seen
    }
}

final class Hunt20AMix24: Hunt20AMix {
    let seen: Hunt20ASeen
    static let arity = 24
    static func bind(_ binder: Binder, scope: Scope) {
        binder.bind(Hunt20AMix24.self).to(
            Hunt20AMix24.init(
                db:single:fresh:maybe:missing:plugins:provider:lazy:config:argued:optionalDB:extra0:extra1:extra2:
                extra3:extra4:extra5:extra6:extra7:extra8:extra9:extra10:extra11:tail:)
        ).in(scope)
    }
    init(
        db: any Hunt20ADB,
        single: Hunt20ASingle,
        fresh: Hunt20AFresh,
        maybe: Hunt20ASingle?,
        missing: Hunt20AUnbound?,
        plugins: [any Hunt20APlugin],
        provider: Provider<Hunt20AFresh>,
        lazy: Lazy<Hunt20ASingle>,
        config: Hunt20AConfig,
        argued: Hunt20AArgued,
        optionalDB: (any Hunt20ADB)?,
        extra0: Hunt20AFresh,
        extra1: Hunt20AFresh,
        extra2: Hunt20AFresh,
        extra3: Hunt20AFresh,
        extra4: Hunt20AFresh,
        extra5: Hunt20AFresh,
        extra6: Hunt20AFresh,
        extra7: Hunt20AFresh,
        extra8: Hunt20AFresh,
        extra9: Hunt20AFresh,
        extra10: Hunt20AFresh,
        extra11: Hunt20AFresh,
        tail: Hunt20ATail
    ) {
        var seen = Hunt20ASeen()
        seen.db = db
        seen.single = single
        seen.fresh.append(fresh)
        seen.maybe = maybe
        seen.missingIsNil = missing == nil
        seen.plugins = plugins.map(\.id)
        seen.provider = provider
        seen.lazy = lazy
        seen.port = config.port
        seen.argued = argued.number
        seen.optionalDB = optionalDB
        seen.fresh.append(extra0)
        seen.fresh.append(extra1)
        seen.fresh.append(extra2)
        seen.fresh.append(extra3)
        seen.fresh.append(extra4)
        seen.fresh.append(extra5)
        seen.fresh.append(extra6)
        seen.fresh.append(extra7)
        seen.fresh.append(extra8)
        seen.fresh.append(extra9)
        seen.fresh.append(extra10)
        seen.fresh.append(extra11)
        seen.tail = tail
        self.seen = seen
    }
}

/// Nothing is ever multibound or bound for it.
protocol Hunt20ANothing: Sendable {}

/// Only multibound: a single one is ambiguous.
protocol Hunt20AOnlyMultibound: Sendable {}
struct Hunt20AOnlyMultiboundValue: Hunt20AOnlyMultibound {}

/// A list of nothing as the last parameter, fixed arity and parameter pack.
final class Hunt20AEmptyList3: Sendable {
    init(a: Hunt20AFresh, b: Provider<Hunt20AFresh>, list: [any Hunt20ANothing]) {}
}

final class Hunt20AEmptyList14: Sendable {
    init(
        a: Hunt20AFresh, b: Hunt20AFresh, c: Hunt20AFresh, d: Hunt20AFresh, e: Hunt20AFresh, f: Hunt20AFresh,
        g: Hunt20AFresh, h: Hunt20AFresh, i: Hunt20AFresh, j: Hunt20AFresh, k: Hunt20AFresh, l: Hunt20AFresh,
        m: Provider<Hunt20AFresh>, list: [any Hunt20ANothing]
    ) {}
}

/// A single one of a type that is only multibound, as the last parameter.
final class Hunt20AAmbiguous3: Sendable {
    init(a: Hunt20AFresh, b: Provider<Hunt20AFresh>, one: any Hunt20AOnlyMultibound) {}
}

// MARK: - Tests

@Suite("Hunt 20A: mixed parameter kinds at every arity", .timeLimit(.minutes(2)))
struct Hunt20AArityTests {
    /// Checks what a mix received against the injector's own answers.
    static func check(
        _ mix: any Hunt20AMix, _ injector: Injector, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws {
        let arity = type(of: mix).arity
        let seen = mix.seen
        #expect(seen.tail != nil, sourceLocation: sourceLocation)
        #expect(seen.fresh.count == Hunt20AMixes.freshCount(arity), sourceLocation: sourceLocation)
        #expect(
            Set(seen.fresh.map { ObjectIdentifier($0) }).count == seen.fresh.count, "transients are distinct",
            sourceLocation: sourceLocation)
        guard arity >= 6 else { return }
        let db = try injector.get((any Hunt20ADB).self)
        #expect(seen.db === db, sourceLocation: sourceLocation)
        #expect(seen.plugins == [1, 2, 3], sourceLocation: sourceLocation)
        let made = try #require(seen.provider, sourceLocation: sourceLocation).get()
        #expect(
            !seen.fresh.contains { $0 === made }, "a provider of a transient builds anew",
            sourceLocation: sourceLocation)
        let single = try injector.get(Hunt20ASingle.self)
        #expect(seen.maybe === single, sourceLocation: sourceLocation)
        guard arity >= 12 else { return }
        #expect(seen.single === single, sourceLocation: sourceLocation)
        #expect(seen.missingIsNil == true, sourceLocation: sourceLocation)
        #expect(
            try #require(seen.lazy, sourceLocation: sourceLocation).value === single, sourceLocation: sourceLocation)
        #expect(seen.port == 8080, sourceLocation: sourceLocation)
        #expect(
            seen.argued == 7, "an argument binding as a parameter gets its defaults", sourceLocation: sourceLocation)
        #expect(seen.optionalDB === db, sourceLocation: sourceLocation)
    }

    @Test(
        "every parameter kind at arity 1, 6, 12, 13, 16, 20 and 24: values, identities, transient and singleton roots",
        arguments: Hunt20AMixes.all.indices, [Scope.transient, .singleton])
    func valuesAtEveryArity(index: Int, scope: Scope) throws {
        let mix = Hunt20AMixes.all[index]
        let live = Hunt20ALive()
        let injector = try Injector(Hunt20AMixes.module(live, rootScope: scope))
        let first = try Hunt20AMixes.app(injector, mix)
        let second = try Hunt20AMixes.app(injector, mix)
        try Self.check(first, injector)
        try Self.check(second, injector)
        #expect((first === second) == (scope == .singleton))
        #expect(live.singleBuilt.load(ordering: .sequentiallyConsistent) <= 1)
        #expect(live.dbBuilt.load(ordering: .sequentiallyConsistent) <= 1)
        let perRoot = Hunt20AMixes.freshCount(mix.arity)
        // Two roots (one when shared), plus the one fresh instance each check's provider made.
        let roots = scope == .singleton ? 1 : 2
        let providerMade = mix.arity >= 6 ? 2 : 0
        #expect(live.fresh.built == perRoot * roots + providerMade)
    }

    @Test(
        "a missing first or last parameter at every arity: notBound, path App -> Mix -> the key, at request and at creation",
        arguments: Hunt20AMixes.all.indices, [true, false])
    func missingAtEitherEnd(index: Int, first: Bool) throws {
        let mix = Hunt20AMixes.all[index]
        guard !(first && mix.arity < 6) else { return } // arity 1 has no database
        let live = Hunt20ALive()
        let module = Hunt20AMixes.module(live, tail: first ? .transient : .unbound, bindDB: !first)
        let missing = first ? BindingKey((any Hunt20ADB).self) : BindingKey(Hunt20ATail.self)
        let injector = try Injector.unvalidated(module)
        let error = Hunt20AMixes.appError(injector, mix)
        #expect(error?.code == .notBound, "\(String(describing: error))")
        #expect(error?.key == missing)
        #expect(error?.path == [Hunt20AMixes.appKey(mix), BindingKey(mix), missing], "\(error?.pathDescription ?? "")")
        #expect(
            error?.pathDescription.hasSuffix("Hunt20AMix\(mix.arity) -> \(first ? "any Hunt20ADB" : "Hunt20ATail")")
                == true, "\(error?.pathDescription ?? "")")
        #expect(live.fresh.alive == 0, "nothing built before the link failed is kept")
        // Created with validation, the injector reports the key once, with a path to it and the mixes that need it.
        do {
            _ = try Injector(module)
            Issue.record("creation validated a graph with a missing binding")
        } catch {
            let problems = error.underlyingErrors.filter { $0.key == missing }
            #expect(error.code == .validationFailed)
            #expect(
                problems.count == 1 && problems.first?.code == .notBound && problems.first?.path.last == missing,
                "\(error)")
            #expect(
                error.description.contains("Hunt20AMix\(mix.arity)") || error.description.contains("more"), "\(error)")
        }
    }

    @Test(
        "a failing first or last parameter at every arity: factoryFailed with the path, values built before it released, a later request works",
        arguments: Hunt20AMixes.all.indices, [true, false])
    func failingAtEitherEnd(index: Int, first: Bool) throws {
        let mix = Hunt20AMixes.all[index]
        guard !(first && mix.arity < 6) else { return }
        let live = Hunt20ALive()
        let injector = try Injector(Hunt20AMixes.module(live, tail: .failing))
        live.setFailure(db: first, true)
        let failing = first ? BindingKey((any Hunt20ADB).self) : BindingKey(Hunt20ATail.self)
        let error = Hunt20AMixes.appError(injector, mix)
        #expect(error?.code == .factoryFailed, "\(String(describing: error))")
        #expect(error?.key == failing)
        #expect(error?.cause as? Hunt20AFailure == Hunt20AFailure(site: first ? "db" : "tail"))
        #expect(error?.path == [Hunt20AMixes.appKey(mix), BindingKey(mix), failing], "\(error?.pathDescription ?? "")")
        let built = live.fresh.built
        #expect(built == (first ? 0 : Hunt20AMixes.freshCount(mix.arity)), "built in parameter order")
        #expect(live.fresh.alive == 0, "the transients built before the failure were released")
        live.setFailure(db: first, false)
        try Self.check(try Hunt20AMixes.app(injector, mix), injector)
        #expect(live.fresh.alive == 0)
        #expect(live.tailAlive.load(ordering: .sequentiallyConsistent) == 0)
    }

    @Test(
        "8 threads race the first request for a singleton root of arity 12 to 24: every singleton built once",
        arguments: Hunt20AMixes.wide.indices)
    func singletonRootRace(index: Int) throws {
        let mix = Hunt20AMixes.wide[index]
        let live = Hunt20ALive()
        let injector = try Injector(Hunt20AMixes.module(live, rootScope: .singleton))
        let arrived = Atomic(0)
        let roots = Locked<[ObjectIdentifier]>([])
        let errors = Locked<[ProvisionError]>([])
        let finished = runThreads(8, timeout: 60) { _ in
            arrived.add(1, ordering: .sequentiallyConsistent)
            guard waitUntil({ arrived.load(ordering: .sequentiallyConsistent) == 8 }) else { return }
            do throws(ProvisionError) {
                let root = try Hunt20AMixes.app(injector, mix)
                roots.withLock { $0.append(ObjectIdentifier(root)) }
            } catch {
                errors.withLock { $0.append(error) }
            }
        }
        #expect(finished)
        #expect(errors.withLock { $0 }.isEmpty, "\(errors.withLock { $0 })")
        #expect(Set(roots.withLock { $0 }).count == 1)
        #expect(live.singleBuilt.load(ordering: .sequentiallyConsistent) == 1)
        #expect(live.dbBuilt.load(ordering: .sequentiallyConsistent) == 1)
        #expect(live.fresh.built == Hunt20AMixes.freshCount(mix.arity), "the root's transients built once, with it")
        #expect(live.tailBuilt.load(ordering: .sequentiallyConsistent) == 1)
    }

    @Test(
        "an async singleton as the last parameter: a sync request throws requiresAsync with its path, an async one builds it",
        arguments: Hunt20AMixes.all.indices)
    func asyncLastParameter(index: Int) async throws {
        let mix = Hunt20AMixes.all[index]
        let live = Hunt20ALive()
        let injector = try Injector(Hunt20AMixes.module(live, tail: .asyncSingleton))
        let error = Hunt20AMixes.appError(injector, mix)
        #expect(error?.code == .requiresAsync, "\(String(describing: error))")
        #expect(error?.path.first == Hunt20AMixes.appKey(mix), "\(error?.pathDescription ?? "")")
        #expect(error?.path.contains(BindingKey(Hunt20ATail.self)) == true, "\(error?.pathDescription ?? "")")
        #expect(live.fresh.alive == 0)
        let built = try await Hunt20AMixes.appAsync(injector, mix)
        try Self.check(built, injector)
        // Built now: the synchronous API serves it.
        try Self.check(try Hunt20AMixes.app(injector, mix), injector)
        #expect(live.tailBuilt.load(ordering: .sequentiallyConsistent) == 1)
    }

    @Test(
        "an argument binding without defaults as the last parameter: argumentMismatch with the path App -> Mix -> Hunt20ATail",
        arguments: Hunt20AMixes.all.indices)
    func argumentsWithoutDefaultsLast(index: Int) throws {
        let mix = Hunt20AMixes.all[index]
        let live = Hunt20ALive()
        let injector = try Injector.unvalidated(Hunt20AMixes.module(live, tail: .argumentsWithoutDefaults))
        let error = Hunt20AMixes.appError(injector, mix)
        #expect(error?.code == .argumentMismatch, "\(String(describing: error))")
        #expect(
            error?.path == [Hunt20AMixes.appKey(mix), BindingKey(mix), BindingKey(Hunt20ATail.self)],
            "\(error?.pathDescription ?? "")")
        #expect(live.fresh.alive == 0)
        // With arguments, the tail itself resolves.
        #expect(try injector.get(Hunt20ATail.self, arguments: 5).number == 5)
    }

    @Test(
        "a mix built in a child: the parent's singletons, the child's extra plugin, the child's tail",
        arguments: Hunt20AMixes.wide.indices)
    func mixInChild(index: Int) throws {
        let mix = Hunt20AMixes.wide[index]
        let live = Hunt20ALive()
        let parent = try Injector(
            ClosureModule { binder in Hunt20AMixes.bindLeaves(binder, live, tail: .unbound, bindDB: true) })
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(Hunt20ATail.self).to { Hunt20ATail(live: live) }
                binder.multibind((any Hunt20APlugin).self).toInstance(Hunt20APluginValue(id: 4))
                Hunt20AMixes.bindRoots(binder, rootScope: .singleton)
            })
        let built = try Hunt20AMixes.app(child, mix)
        #expect(built.seen.plugins == [1, 2, 3, 4])
        #expect(try parent.getAll((any Hunt20APlugin).self).map(\.id) == [1, 2, 3])
        #expect(built.seen.db === (try parent.get((any Hunt20ADB).self)))
        #expect(built.seen.single === (try parent.get(Hunt20ASingle.self)))
        #expect(live.singleBuilt.load(ordering: .sequentiallyConsistent) == 1)
        #expect(try built.seen.lazy?.value === (try parent.get(Hunt20ASingle.self)))
        #expect(try Hunt20AMixes.app(child, mix) === built)
    }

    @Test(
        "an overriding injector replacing the database: the mix is rebuilt with it, the other singletons shared",
        arguments: Hunt20AMixes.wide.indices)
    func mixOverridden(index: Int) throws {
        let mix = Hunt20AMixes.wide[index]
        let live = Hunt20ALive()
        let injector = try Injector(Hunt20AMixes.module(live, rootScope: .singleton))
        let original = try Hunt20AMixes.app(injector, mix)
        let test = try injector.overriding { binder in
            binder.bind((any Hunt20ADB).self).to { Hunt20APostgres(tag: "fake") }.in(.singleton)
        }
        let replaced = try Hunt20AMixes.app(test, mix)
        #expect(replaced !== original)
        #expect(replaced.seen.db?.tag == "fake")
        #expect(replaced.seen.optionalDB?.tag == "fake")
        #expect(original.seen.db?.tag == "main")
        #expect(replaced.seen.single === original.seen.single)
        #expect(live.singleBuilt.load(ordering: .sequentiallyConsistent) == 1)
        #expect(try replaced.seen.lazy?.value === original.seen.single)
        #expect(try Hunt20AMixes.app(test, mix) === replaced)
    }

    /// Found by hunt 20A, fixed: a request that links a constructor depending on `[T]` with nothing multibound
    /// throws notBound, while validation (and ``ProvisionError/Code/emptyMultibinding``'s documentation:
    /// "a binding depends on `[T]`, and nothing is multibound for `T`") names the same problem
    /// emptyMultibinding.
    @Test(
        "a [T] parameter with nothing multibound, fixed arity and parameter pack: emptyMultibinding at request as at validation",
        arguments: [3, 14])
    func emptyListAtRequest(arity: Int) throws {
        let live = Hunt20ALive()
        let module = ClosureModule { binder in
            binder.bind(Hunt20AFresh.self).to { Hunt20AFresh(live: live) }
            if arity == 3 {
                binder.bind(Hunt20AEmptyList3.self).to(Hunt20AEmptyList3.init(a:b:list:))
            } else {
                binder.bind(Hunt20AEmptyList14.self).to(Hunt20AEmptyList14.init(a:b:c:d:e:f:g:h:i:j:k:l:m:list:))
            }
        }
        let root = arity == 3 ? BindingKey(Hunt20AEmptyList3.self) : BindingKey(Hunt20AEmptyList14.self)
        let list = BindingKey([any Hunt20ANothing].self)
        let report = try Injector.unvalidated(module).validationReport()
        #expect(report.problems.map(\.code) == [.emptyMultibinding])
        let request: ProvisionError?
        do {
            let injector = try Injector.unvalidated(module)
            if arity == 3 {
                _ = try injector.get(Hunt20AEmptyList3.self)
            } else {
                _ = try injector.get(Hunt20AEmptyList14.self)
            }
            request = nil
        } catch {
            request = error
        }
        #expect(request?.path == [root, list], "\(request?.pathDescription ?? "")")
        #expect(request?.code == .emptyMultibinding, "\(String(describing: request))")
        #expect(live.fresh.alive == 0)
    }

    /// Found by hunt 20A, fixed: a request that links a constructor depending on a single `T` that is only
    /// multibound throws notBound ("no binding for any Hunt20AOnlyMultibound", hint: bind it), while
    /// validation (and ``ProvisionError/Code/ambiguousMultibinding``'s documentation) names it
    /// ambiguousMultibinding.
    @Test("a single T parameter where T is only multibound: ambiguousMultibinding at request as at validation")
    func ambiguousAtRequest() throws {
        let live = Hunt20ALive()
        let injector = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(Hunt20AFresh.self).to { Hunt20AFresh(live: live) }
                binder.multibind((any Hunt20AOnlyMultibound).self).toInstance(Hunt20AOnlyMultiboundValue())
                binder.bind(Hunt20AAmbiguous3.self).to(Hunt20AAmbiguous3.init(a:b:one:))
            })
        #expect(injector.validationReport().problems.map(\.code) == [.ambiguousMultibinding])
        do {
            _ = try injector.get(Hunt20AAmbiguous3.self)
            Issue.record("an ambiguous dependency resolved")
        } catch {
            #expect(error.path == [BindingKey(Hunt20AAmbiguous3.self), BindingKey((any Hunt20AOnlyMultibound).self)])
            #expect(error.code == .ambiguousMultibinding, "\(error)")
        }
        #expect(live.fresh.alive == 0)
    }
}
