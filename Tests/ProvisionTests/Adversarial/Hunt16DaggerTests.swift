import Dispatch
import Foundation
import Testing

@testable import Provision

// Behaviours Dagger's and Hilt's own tests check (subcomponents and what they see of their parent,
// optional bindings present or absent in a subcomponent, qualifiers, Provider<T> and Lazy<T> injection
// and their nesting, singletons of a subcomponent beside the parent's, multibindings reached through
// subcomponents), written the way a Dagger user writes them, on Provision's API.

// MARK: - Fixtures

private final class Hunt16Sink: Sendable {
    let label: String
    init(label: String) { self.label = label }
}

/// A self-declaring singleton whose only dependency is optional: Dagger's `@BindsOptionalOf` shape.
private final class Hunt16Reporter: Injectable, Sendable {
    static let injection = Injection(Hunt16Reporter.init(sink:)).in(.singleton)
    let sink: Hunt16Sink?
    init(sink: Hunt16Sink?) { self.sink = sink }
}

/// The same, transient: resolved before and after a module binding its dependency is installed.
private struct Hunt16Probe: Injectable, Sendable {
    static let injection = Injection(Hunt16Probe.init(sink:))
    let sink: Hunt16Sink?
}

/// Bound by modules; holds the optional through a constructor parameter.
private struct Hunt16Consumer: Sendable {
    let sink: Hunt16Sink?
}

/// Holds every optional-shaped handle of the sink.
private struct Hunt16OptionalHandles: Sendable {
    let lazy: Lazy<Hunt16Sink?>
    let provider: Provider<Hunt16Sink?>
    let named: Hunt16Sink?
}

private final class Hunt16Widget: Sendable {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}

/// Every way Dagger lets a class ask for a transient later: two Lazy handles, a Provider, a Provider of
/// Lazy, a Lazy of Provider, a Lazy of Lazy, and a Lazy of an optional.
private final class Hunt16HandleHolder: Sendable {
    let lazyA: Lazy<Hunt16Widget>
    let lazyB: Lazy<Hunt16Widget>
    let provider: Provider<Hunt16Widget>
    let lazies: Provider<Lazy<Hunt16Widget>>
    let lazyProvider: Lazy<Provider<Hunt16Widget>>
    let lazyLazy: Lazy<Lazy<Hunt16Widget>>
    let optional: Lazy<Hunt16Widget?>

    init(
        lazyA: Lazy<Hunt16Widget>, lazyB: Lazy<Hunt16Widget>, provider: Provider<Hunt16Widget>,
        lazies: Provider<Lazy<Hunt16Widget>>, lazyProvider: Lazy<Provider<Hunt16Widget>>,
        lazyLazy: Lazy<Lazy<Hunt16Widget>>, optional: Lazy<Hunt16Widget?>
    ) {
        self.lazyA = lazyA
        self.lazyB = lazyB
        self.provider = provider
        self.lazies = lazies
        self.lazyProvider = lazyProvider
        self.lazyLazy = lazyLazy
        self.optional = optional
    }
}

private final class Hunt16Pool: Sendable {
    let id: Int
    init(id: Int) { self.id = id }
}

/// A subcomponent's singleton built from the parent's singleton.
private final class Hunt16Session: Sendable {
    let pool: Hunt16Pool
    let owner: String
    init(pool: Hunt16Pool, owner: String) {
        self.pool = pool
        self.owner = owner
    }
}

private protocol Hunt16Plugin: Sendable {
    var id: String { get }
}

private final class Hunt16PluginImpl: Hunt16Plugin {
    let id: String
    init(id: String) { self.id = id }
}

private struct Hunt16PluginHost: Sendable {
    let plugins: [any Hunt16Plugin]
    let later: Lazy<[any Hunt16Plugin]>
    let fresh: Provider<[any Hunt16Plugin]>
}

// MARK: - Tests

@Suite("Hunt16: Dagger's and Hilt's behaviours on Provision", .timeLimit(.minutes(1)))
struct Hunt16DaggerTests {
    /// Dagger: an optional binding absent in the component and present in a subcomponent that binds it.
    /// A self-declaring singleton with an optional dependency, asked first of a child that binds the
    /// dependency, is built the child's way; the parent (asked after) builds its own, with `nil`; a
    /// second child that binds nothing shares the parent's.
    @Test("a declared singleton with an optional dependency: present in the binding child, absent above")
    func optionalPresentInChildOnly() throws {
        let parent = try Injector()
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(Hunt16Sink.self).toInstance(Hunt16Sink(label: "child"))
            })
        let fromChild = try child.get(Hunt16Reporter.self)
        #expect(fromChild.sink?.label == "child")
        let fromParent = try parent.get(Hunt16Reporter.self)
        #expect(fromParent.sink == nil)
        #expect(fromChild !== fromParent)
        let bare = try parent.makeChild(ClosureModule { _ in })
        #expect(try bare.get(Hunt16Reporter.self) === fromParent)
        #expect(try child.get(Hunt16Reporter.self) === fromChild)

        // The other order: the parent builds it first (nil); a child that binds the sink still gets one
        // built with its sink, not the parent's.
        let parent2 = try Injector()
        let first = try parent2.get(Hunt16Reporter.self)
        #expect(first.sink == nil)
        let child2 = try parent2.makeChild(
            ClosureModule { binder in
                binder.bind(Hunt16Sink.self).toInstance(Hunt16Sink(label: "child2"))
            })
        let second = try child2.get(Hunt16Reporter.self)
        #expect(second.sink?.label == "child2")
        #expect(second !== first)
    }

    /// Dagger's optional bindings through a subcomponent, and Provision's documented rule that a parent's
    /// binding resolves its dependencies in the parent: a `Consumer` bound by the parent sees no sink even
    /// when asked through a child that binds one (Dagger would re-resolve an unscoped binding in the
    /// subcomponent; Provision documents the parent's view, asserted here). Bound by the child, it sees
    /// the child's sink; handles of the optional (Lazy, Provider, a qualified optional) follow the child.
    @Test("optional dependencies through a child: the child's bindings see its sink, the parent's don't")
    func optionalThroughChild() throws {
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt16Consumer.self).to(Hunt16Consumer.init(sink:))
            })
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(Hunt16Sink.self).toInstance(Hunt16Sink(label: "child"))
                binder.bind(Hunt16Sink.self, named: "audit").toInstance(Hunt16Sink(label: "audit"))
                binder.bind(Hunt16Consumer.self, named: "own").to(Hunt16Consumer.init(sink:))
                binder.bind(Hunt16OptionalHandles.self).to { resolver in
                    Hunt16OptionalHandles(
                        lazy: try resolver.get(), provider: try resolver.get(),
                        named: try resolver.get(Hunt16Sink?.self, named: "audit"))
                }
            })
        #expect(try parent.get(Hunt16Consumer.self).sink == nil)
        #expect(try child.get(Hunt16Consumer.self).sink == nil) // the parent's binding, resolved in the parent
        #expect(try child.get(Hunt16Consumer.self, named: "own").sink?.label == "child")
        let handles = try child.get(Hunt16OptionalHandles.self)
        #expect(try handles.lazy.value?.label == "child")
        #expect(try handles.provider.get()?.label == "child")
        #expect(handles.named?.label == "audit")
        #expect(try parent.get(Hunt16Sink?.self, named: "audit") == nil)
        #expect(try parent.get(Lazy<Hunt16Sink?>.self).value == nil)
    }

    /// Dagger's optional becomes present when the binding appears. In Provision a module installed into a
    /// running child later binds the sink: the child's own constructor binding with `Sink?`, linked
    /// before, and a self-declared transient first resolved before (whose just-in-time binding the
    /// parent then held), both see it afterwards; the parent still doesn't.
    @Test("a child's optional that a later install() binds: seen by linked bindings and declared types")
    func optionalBoundByLaterInstall() throws {
        let parent = try Injector()
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(Hunt16Consumer.self).to(Hunt16Consumer.init(sink:))
            })
        #expect(try child.get(Hunt16Consumer.self).sink == nil)
        #expect(try child.get(Hunt16Probe.self).sink == nil)
        #expect(try child.get(Hunt16Sink?.self) == nil)
        try child.install(
            ClosureModule { binder in
                binder.bind(Hunt16Sink.self).toInstance(Hunt16Sink(label: "late"))
            })
        #expect(try child.get(Hunt16Sink?.self)?.label == "late")
        #expect(try child.get(Hunt16Consumer.self).sink?.label == "late")
        #expect(try child.get(Hunt16Probe.self).sink?.label == "late")
        #expect(try parent.get(Hunt16Probe.self).sink == nil)
    }

    /// Dagger: each injected `Lazy<T>` computes its value once (per handle), each `Provider<T>.get()`
    /// calls the binding again, a `Provider<Lazy<T>>` gives a new lazy handle per `get()` (each computing
    /// once), and nothing is built until a handle is used. Build counts are exact.
    @Test("Lazy once per handle, Provider per get, Provider<Lazy<T>>, Lazy<Provider<T>>, Lazy<Lazy<T>>")
    func handleNesting() throws {
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt16Widget.self).to { Hunt16Widget(serial: builds.increment()) }
                binder.bind(Hunt16HandleHolder.self).to(
                    Hunt16HandleHolder.init(lazyA:lazyB:provider:lazies:lazyProvider:lazyLazy:optional:))
            })
        let holder = try injector.get(Hunt16HandleHolder.self)
        #expect(builds.value == 0)
        let a1 = try holder.lazyA.value
        let a2 = try holder.lazyA.value
        #expect(a1 === a2)
        #expect(builds.value == 1)
        let b = try holder.lazyB.value
        #expect(b !== a1)
        #expect(builds.value == 2)
        let p1 = try holder.provider.get()
        let p2 = try holder.provider.get()
        #expect(p1 !== p2)
        #expect(builds.value == 4)
        let l1 = try holder.lazies.get()
        let l2 = try holder.lazies.get()
        #expect(l1 !== l2)
        #expect(builds.value == 4)
        #expect(try l1.value === l1.value)
        #expect(try l2.value !== l1.value)
        #expect(builds.value == 6)
        let q1 = try holder.lazyProvider.value.get()
        let q2 = try holder.lazyProvider.value.get()
        #expect(q1 !== q2)
        #expect(builds.value == 8)
        #expect(try holder.lazyLazy.value.value === holder.lazyLazy.value.value)
        #expect(builds.value == 9)
        #expect(try holder.optional.value != nil)
        #expect(try holder.optional.value === holder.optional.value)
        #expect(builds.value == 10)
        // A second holder has handles of its own.
        let other = try injector.get(Hunt16HandleHolder.self)
        #expect(try other.lazyA.value !== a1)
        #expect(builds.value == 11)
    }

    /// Dagger: a subcomponent's scoped binding is one per subcomponent instance, the component's singleton
    /// one for all. Two children, each binding a session singleton over the parent's pool singleton,
    /// asked by 16 threads at once (half per child, some through a Provider) before anything is built.
    @Test("a child's singleton over the parent's, two children raced by 16 threads: exact builds")
    func childSingletonsRaced() throws {
        let pools = Counter()
        let sessions = Counter()
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt16Pool.self).to { Hunt16Pool(id: pools.increment()) }.in(.singleton)
            })
        func child(_ owner: String) throws -> Injector {
            try parent.makeChild(
                ClosureModule { binder in
                    binder.bind(String.self, named: "owner").toInstance(owner)
                    binder.bind(Hunt16Session.self).to { resolver in
                        sessions.increment()
                        return Hunt16Session(
                            pool: try resolver.get(), owner: try resolver.get(String.self, named: "owner"))
                    }.in(.singleton)
                })
        }
        let children = [try child("left"), try child("right")]
        let barrier = Barrier(count: 16)
        let seen = Locked<[Int: Set<ObjectIdentifier>]>([:])
        let owners = Locked<[Int: Set<String>]>([:])
        let failures = Counter()
        let finished = runThreads(16, timeout: 20) { index in
            let side = index % 2
            barrier.arriveAndWait()
            do throws(ProvisionError) {
                let session =
                    index % 4 < 2
                    ? try children[side].get(Hunt16Session.self)
                    : try children[side].get(Provider<Hunt16Session>.self).get()
                seen.withLock { _ = $0[side, default: []].insert(ObjectIdentifier(session)) }
                owners.withLock { _ = $0[side, default: []].insert(session.owner) }
            } catch {
                failures.increment()
            }
        }
        #expect(finished)
        #expect(failures.value == 0)
        #expect(pools.value == 1)
        #expect(sessions.value == 2)
        #expect(seen.withLock { $0[0]?.count } == 1)
        #expect(seen.withLock { $0[1]?.count } == 1)
        #expect(owners.withLock { $0 } == [0: ["left"], 1: ["right"]])
        let left = try children[0].get(Hunt16Session.self)
        let right = try children[1].get(Hunt16Session.self)
        #expect(left.pool === right.pool)
        #expect(left.pool === (try parent.get(Hunt16Pool.self)))
        let orphan = Hunt5.result { () throws(ProvisionError) in try parent.get(Hunt16Session.self) }
        #expect(orphan.hunt5Error?.code == .notBound)
    }

    /// Dagger: a subcomponent sees its ancestors' multibindings (sets and qualified sets) when it adds
    /// nothing to them. A grandchild's binding injects the root's collection, directly, lazily and
    /// through a provider; a qualified collection stays apart; a singleton element is the root's.
    @Test("a grandchild injecting the root's collections: order, qualifier, singleton element, handles")
    func grandchildSeesRootCollections() throws {
        let transientBuilds = Counter()
        let root = try Injector(
            ClosureModule { binder in
                binder.multibind((any Hunt16Plugin).self).to { Hunt16PluginImpl(id: "p1") }.in(.singleton)
                binder.multibind((any Hunt16Plugin).self).to { () -> any Hunt16Plugin in
                    transientBuilds.increment()
                    return Hunt16PluginImpl(id: "p2")
                }
                binder.multibind((any Hunt16Plugin).self, named: "admin").to { Hunt16PluginImpl(id: "a1") }
            })
        let child = try root.makeChild(
            ClosureModule { binder in
                binder.bind(Int.self).toInstance(1)
            })
        let grandchild = try child.makeChild(
            ClosureModule { binder in
                binder.bind(Hunt16PluginHost.self).to(Hunt16PluginHost.init(plugins:later:fresh:))
            })
        let host = try grandchild.get(Hunt16PluginHost.self)
        #expect(host.plugins.map(\.id) == ["p1", "p2"])
        let rootFirst = try root.getAll((any Hunt16Plugin).self)
        #expect((host.plugins[0] as? Hunt16PluginImpl) === (rootFirst[0] as? Hunt16PluginImpl))
        #expect(try host.later.value.map(\.id) == ["p1", "p2"])
        let before = transientBuilds.value
        let fresh1 = try host.fresh.get()
        let fresh2 = try host.fresh.get()
        #expect(transientBuilds.value - before == 2)
        #expect((fresh1[1] as? Hunt16PluginImpl) !== (fresh2[1] as? Hunt16PluginImpl))
        #expect((fresh1[0] as? Hunt16PluginImpl) === (fresh2[0] as? Hunt16PluginImpl))
        #expect(try grandchild.getAll((any Hunt16Plugin).self, named: "admin").map(\.id) == ["a1"])
        #expect(try grandchild.getAll((any Hunt16Plugin).self).map(\.id) == ["p1", "p2"])
        #expect(try grandchild.get([any Hunt16Plugin].self, named: "admin").map(\.id) == ["a1"])
        #expect(try grandchild.getAll((any Hunt16Plugin).self, named: "other").isEmpty)
    }

    /// Dagger rejects a `Set<T>` provided explicitly beside `@IntoSet` contributions to the same key.
    /// Provision documents that a key bound twice by accident is an error naming both places; a module
    /// that binds `[T]` and multibinds `T` binds the collection key twice, and creating the injector
    /// refuses it (passes: Provision agrees with Dagger here).
    @Test("an explicit [T] binding beside multibind(T) in one injector is refused, not silently one")
    func explicitCollectionBesideMultibinding() throws {
        let outcome = Result { () throws(ProvisionError) in
            try Injector(
                ClosureModule { binder in
                    binder.bind([any Hunt16Plugin].self).toInstance([Hunt16PluginImpl(id: "explicit")])
                    binder.multibind((any Hunt16Plugin).self).to { Hunt16PluginImpl(id: "element") }
                })
        }
        switch outcome {
        case .failure(let error):
            #expect(error.code == .duplicateBinding || error.code == .validationFailed, "\(error)")
        case .success(let injector):
            let all = try injector.getAll((any Hunt16Plugin).self).map(\.id)
            let injected = try injector.get([any Hunt16Plugin].self).map(\.id)
            Issue.record("both accepted: getAll gives \(all), the [T] key gives \(injected)")
        }
    }
}
