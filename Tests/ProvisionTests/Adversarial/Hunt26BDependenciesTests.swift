import Dispatch
import Provision
import Synchronization
import Testing

// Hunt 26B: what users of pointfreeco's swift-dependencies rely on: clients that are structs of
// `@Sendable` closures bound as values, a live value and test values, overriding a dependency for one
// operation (`withDependencies`), resolved from many tasks at once.

/// A swift-dependencies style client: a struct of closures.
struct Hunt26BAPIClient: Sendable {
    var fetch: @Sendable (Int) async throws -> String
    var name: @Sendable () -> String
}

/// A feature that uses the client; a singleton in the app.
final class Hunt26BFeature: Sendable {
    let client: Hunt26BAPIClient

    init(client: Hunt26BAPIClient) {
        self.client = client
    }
}

/// A service that doesn't touch the client: must be shared by a derived injector.
final class Hunt26BClock: Sendable {}

/// Takes a closure directly as its dependency (a closure bound as a service).
struct Hunt26BFeed: Sendable {
    let load: @Sendable (Int) async throws -> String
}

/// The live and test values.
enum Hunt26BClients {
    static let live = Hunt26BAPIClient(fetch: { "live \($0)" }, name: { "live" })

    static func test(_ tag: String) -> Hunt26BAPIClient {
        Hunt26BAPIClient(fetch: { "\(tag) \($0)" }, name: { tag })
    }
}

@Suite("Hunt26B: swift-dependencies habits", .timeLimit(.minutes(1)))
struct Hunt26BDependenciesTests {
    static func appModule(featureBuilds: Counter, clockBuilds: Counter) -> ClosureModule {
        ClosureModule { binder in
            binder.bind(Hunt26BAPIClient.self).toInstance(Hunt26BClients.live)
            binder.bind(Hunt26BFeature.self).to { (client: Hunt26BAPIClient) -> Hunt26BFeature in
                featureBuilds.increment()
                return Hunt26BFeature(client: client)
            }.in(.singleton)
            binder.bind(Hunt26BClock.self).to { () -> Hunt26BClock in
                clockBuilds.increment()
                return Hunt26BClock()
            }.in(.singleton)
        }
    }

    /// `@Dependency(\.apiClient)` read from 64 concurrent tasks: one value bound with `toInstance`
    /// ("An instance binding behaves as a singleton that is already built", BindingBuilder), through
    /// the async `get` and through a singleton that holds it; the singleton is built exactly once
    /// (ScopesAndLifetimes.md: "An async singleton is built exactly once; concurrent callers suspend").
    @Test("a struct-of-closures client resolved from 64 tasks: one value, one feature, every call answered")
    func clientFromManyTasks() async throws {
        let featureBuilds = Counter()
        let injector = try Injector(Self.appModule(featureBuilds: featureBuilds, clockBuilds: Counter()))
        let results = try await withThrowingTaskGroup(of: (String, ObjectIdentifier).self) { group in
            for index in 0..<64 {
                group.addTask {
                    let client = try await injector.get(Hunt26BAPIClient.self)
                    let feature = try await injector.get(Hunt26BFeature.self)
                    let text = try await client.fetch(index)
                    let viaFeature = try await feature.client.fetch(index)
                    return (text == viaFeature ? text : "mismatch", ObjectIdentifier(feature))
                }
            }
            var collected: [(String, ObjectIdentifier)] = []
            for try await result in group { collected.append(result) }
            return collected
        }
        #expect(results.count == 64)
        #expect(Set(results.map(\.0)) == Set((0..<64).map { "live \($0)" }))
        #expect(Set(results.map(\.1)).count == 1)
        #expect(featureBuilds.value == 1)
    }

    /// `withDependencies { $0.apiClient = .test } operation: { ... }`: Provision's analogue is
    /// `overriding` (Injector+Overriding: "re-creates ... exactly the bindings that depend on a replaced
    /// key ... Every other binding is this injector's own ... its singletons (built or not) are shared,
    /// built at most once for both injectors ... This injector is unchanged").
    @Test("overriding the client for one operation: the feature is rebuilt with it, the clock shared")
    func overrideForOneOperation() throws {
        let featureBuilds = Counter()
        let clockBuilds = Counter()
        let app = try Injector(Self.appModule(featureBuilds: featureBuilds, clockBuilds: clockBuilds))
        let liveFeature = try app.get(Hunt26BFeature.self)
        let liveClock = try app.get(Hunt26BClock.self)
        let test = try app.overriding { binder in
            binder.bind(Hunt26BAPIClient.self).toInstance(Hunt26BClients.test("mock"))
        }
        let testFeature = try test.get(Hunt26BFeature.self)
        #expect(testFeature.client.name() == "mock")
        #expect(testFeature !== liveFeature)
        #expect(try test.get(Hunt26BClock.self) === liveClock)
        #expect(try app.get(Hunt26BFeature.self) === liveFeature)
        #expect(try app.get(Hunt26BFeature.self).client.name() == "live")
        #expect(featureBuilds.value == 2)
        #expect(clockBuilds.value == 1)
    }

    /// Nested `withDependencies` (an override of an override): the innermost value wins, the middle
    /// injector keeps its own, and the clock that depends on none of them is still the app's one
    /// instance, "built at most once" across all three (Injector+Overriding).
    @Test("an override of an override: innermost wins, each level keeps its own, the clock is built once")
    func nestedOverrides() throws {
        let featureBuilds = Counter()
        let clockBuilds = Counter()
        let app = try Injector(Self.appModule(featureBuilds: featureBuilds, clockBuilds: clockBuilds))
        let middle = try app.overriding { binder in
            binder.bind(Hunt26BAPIClient.self).toInstance(Hunt26BClients.test("middle"))
        }
        let inner = try middle.overriding { binder in
            binder.bind(Hunt26BAPIClient.self).toInstance(Hunt26BClients.test("inner"))
        }
        #expect(try inner.get(Hunt26BFeature.self).client.name() == "inner")
        #expect(try middle.get(Hunt26BFeature.self).client.name() == "middle")
        #expect(try app.get(Hunt26BFeature.self).client.name() == "live")
        let clocks = [
            try inner.get(Hunt26BClock.self), try middle.get(Hunt26BClock.self), try app.get(Hunt26BClock.self),
        ]
        #expect(clocks.allSatisfy { $0 === clocks[0] })
        #expect(clockBuilds.value == 1)
        #expect(featureBuilds.value == 3)
    }

    /// Tests running in parallel, each with `withDependencies` of its own: 16 threads each derive an
    /// injector with their own test client and resolve the feature. Each sees its own client (no
    /// task-local leakage between derivations), and the shared clock is built exactly once.
    @Test("16 threads each overriding the client: each sees its own value, the shared clock built once")
    func parallelOverrides() async throws {
        let featureBuilds = Counter()
        let clockBuilds = Counter()
        let app = try Injector(Self.appModule(featureBuilds: featureBuilds, clockBuilds: clockBuilds))
        let wrong = Counter()
        let failures = Counter()
        let clocks = Locked<Set<ObjectIdentifier>>([])
        let barrier = Barrier(count: 16)
        let finished = try await offPool {
            runThreads(16, timeout: 20) { index in
                barrier.arriveAndWait()
                do {
                    let test = try app.overriding { binder in
                        binder.bind(Hunt26BAPIClient.self).toInstance(Hunt26BClients.test("t\(index)"))
                    }
                    if try test.get(Hunt26BFeature.self).client.name() != "t\(index)" { wrong.increment() }
                    let clock = try test.get(Hunt26BClock.self)
                    clocks.withLock { _ = $0.insert(ObjectIdentifier(clock)) }
                } catch {
                    failures.increment()
                }
            }
        }
        #expect(finished)
        #expect(wrong.value == 0)
        #expect(failures.value == 0)
        #expect(clockBuilds.value == 1)
        #expect(clocks.withLock { $0.count } == 1)
        #expect(featureBuilds.value == 16)
    }

    /// A closure bound as a service (`bind((@Sendable (Int) async throws -> String).self)`), given to
    /// `toInstance(_:)` in parentheses and injected into a constructor whose parameter has that exact
    /// function type: the constructor binding's dependency key is the parameter's type.
    @Test("a @Sendable async throwing closure bound as a service is injected into a constructor")
    func closureAsService() async throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind((@Sendable (Int) async throws -> String).self).toInstance({ "loaded \($0)" })
                binder.bind(Hunt26BFeed.self).to(Hunt26BFeed.init(load:))
            })
        let feed = try await injector.get(Hunt26BFeed.self)
        #expect(try await feed.load(3) == "loaded 3")
    }

    /// Found by hunt 26B, fixed: `toInstance(checking:)` takes `any Sendable` (with `Any`, the compiler
    /// preferred it for a synchronous trailing closure bound to an `async` function type).
    ///
    /// The same binding written with trailing-closure syntax, as every swift-dependencies user
    /// writes a closure value: `toInstance { "loaded \($0)" }`. BindingBuilder documents `toInstance(_:)`
    /// as "checks the type at compile time" and `toInstance(checking:)` as the variant "for values from
    /// dynamic sources". But an unlabeled trailing closure also matches the `checking: Any` parameter, and
    /// the compiler picks that overload: the closure is typed without the binding's context (as
    /// `(Any.Type) -> String`) and creating the injector throws at run time:
    /// `ProvisionError (type mismatch): a value of type (Type) -> String was bound to @Sendable (Int)
    /// async throws -> String, which it is not` (its `Any.Type` also misspelled `Type`). A user expects
    /// the trailing closure to bind the closure, or at least a compile-time error.
    @Test("`toInstance { ... }` with a trailing closure binds the closure, as the parenthesized form does")
    func closureAsServiceTrailing() async throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind((@Sendable (Int) async throws -> String).self).toInstance { "loaded \($0)" }
                binder.bind(Hunt26BFeed.self).to(Hunt26BFeed.init(load:))
            })
        let feed = try await injector.get(Hunt26BFeed.self)
        #expect(try await feed.load(4) == "loaded 4")
    }

    /// A missing closure dependency, named in Swift syntax (README: "the key in Swift syntax, the path
    /// (`App -> Checkout -> any PaymentGateway`) and a hint"). The message and the hint must spell the
    /// function type as written, `@Sendable (Int) async throws -> String`, and the hint's metatype
    /// expression must compile when pasted: `binder.bind((@Sendable (Int) async throws -> String).self)`.
    @Test("a missing @Sendable async throwing closure is named as written, with a hint that compiles")
    func missingClosureNamed() throws {
        let error = #expect(throws: ProvisionError.self) {
            try Injector(
                ClosureModule { binder in
                    binder.bind(Hunt26BFeed.self).to(Hunt26BFeed.init(load:))
                })
        }
        let problem = error?.underlyingErrors.first ?? error
        #expect(problem?.code == .notBound)
        #expect(
            problem?.message.hasPrefix("no binding for @Sendable (Int) async throws -> String") == true,
            "\(problem?.message ?? "")")
        #expect(
            problem?.hint == "bind it in a module: binder.bind((@Sendable (Int) async throws -> String).self).to(...)",
            "\(problem?.hint ?? "")")
    }

    /// Found by hunt 26B, fixed: `BindingKey.pathStep` parenthesizes a function type in a path of
    /// several keys.
    ///
    /// The path of a missing closure dependency: a path joins keys with " -> ", and a function type
    /// contains "->" too, so `Hunt26BFeed -> @Sendable (Int) async throws -> String` reads as if
    /// `String` were a further key. A demanding user expects the function type parenthesized in the path
    /// (`Hunt26BFeed -> (@Sendable (Int) async throws -> String)`), the way the hint's metatype
    /// expression and an optional of it (`((Int) -> String)?`, Hunt 17) are. The docs are silent on
    /// function types in paths; this is what keeps the path unambiguous. Actual: `Hunt26BFeed ->
    /// @Sendable (Int) async throws -> String` (`ProvisionError.pathDescription` joins each key's
    /// `TypeName.describe` with " -> " and never parenthesizes a function type).
    @Test("a function-typed key in a path is parenthesized, so the path's arrows stay unambiguous")
    func closureInPath() throws {
        let injector = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(Hunt26BFeed.self).to(Hunt26BFeed.init(load:))
            })
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt26BFeed.self) }
        #expect(error?.code == .notBound)
        #expect(
            error?.pathDescription == "Hunt26BFeed -> (@Sendable (Int) async throws -> String)",
            "\(error?.pathDescription ?? "")")
    }

    /// A child injector as a "scoped dependency override": ``Injector/makeChild(_:)`` documents that
    /// "Bindings of the parent always resolve their dependencies in the parent (a parent never sees its
    /// children's bindings)". A swift-dependencies user might expect the child's client to reach the
    /// parent's feature; the documented behaviour is that it doesn't, and the child's own requests for
    /// the client get the child's value.
    @Test("a child's client doesn't reach the parent's feature; the child's own requests get it")
    func childDoesNotReachParent() throws {
        let featureBuilds = Counter()
        let app = try Injector(Self.appModule(featureBuilds: featureBuilds, clockBuilds: Counter()))
        let child = try app.makeChild(
            ClosureModule { binder in
                binder.bind(Hunt26BAPIClient.self).toInstance(Hunt26BClients.test("child"))
            })
        #expect(try child.get(Hunt26BAPIClient.self).name() == "child")
        #expect(try child.get(Hunt26BFeature.self).client.name() == "live")
        #expect(try child.get(Hunt26BFeature.self) === (try app.get(Hunt26BFeature.self)))
        #expect(featureBuilds.value == 1)
    }
}
