import Dispatch
import Foundation
import Testing

@testable import Provision

// Hunt 21 (A): an injector whose creation fails on an eager singleton disposes what it built (as
// shutdown() would, newest first), and nothing it doesn't own: its parent's or original's singletons,
// instance bindings' values handed on, a just-in-time singleton that belongs to an ancestor. Children,
// overriding, with/without, install(_:), the failing singleton first, in the middle or last.

// MARK: - Fixtures

/// A disposable resource; its disposal is counted and logged.
private final class H21AResource: Disposable {
    let name: String
    let log: EventLog
    let disposals = Counter()
    let failsDisposal: Bool

    init(_ name: String, log: EventLog, failsDisposal: Bool = false) {
        self.name = name
        self.log = log
        self.failsDisposal = failsDisposal
    }

    func dispose() throws {
        disposals.increment()
        log.append("dispose \(name)")
        if failsDisposal { throw ExpectedFailure(id: 99) }
    }
}

/// An async-disposable resource; its disposal is counted.
private final class H21AAsyncResource: AsyncDisposable {
    let disposals = Counter()
    func dispose() async {
        await Task.yield()
        disposals.increment()
    }
}

/// Makes resources and keeps every one it made, in order.
private final class H21ATracker: Sendable {
    let log = EventLog()
    private let made = Locked<[H21AResource]>([])

    func make(_ name: String, failsDisposal: Bool = false) -> H21AResource {
        let resource = H21AResource(name, log: log, failsDisposal: failsDisposal)
        made.withLock { $0.append(resource) }
        log.append("build \(name)")
        return resource
    }

    var all: [H21AResource] { made.withLock { $0 } }

    /// The resources named `name`, in the order they were made.
    func named(_ name: String) -> [H21AResource] { all.filter { $0.name == name } }

    /// How many times the resources named `name` were disposed, in all.
    func disposals(_ name: String) -> Int { named(name).reduce(0) { $0 + $1.disposals.value } }
}

/// A self-declaring disposable singleton over nothing the child binds: its binding belongs in the root.
final class Hunt21AJustInTimeResource: Injectable, Disposable {
    static let injection = Injection(Hunt21AJustInTimeResource.init).in(.singleton)
    static let builds = Counter()
    let disposals = Counter()
    init() { Hunt21AJustInTimeResource.builds.increment() }
    func dispose() { disposals.increment() }
}

/// Binds the resource `name` as a singleton, eager or not, built by `tracker` after the named
/// resources it needs; it throws instead when `fails`.
private func h21ABind(
    _ binder: Binder,
    _ name: String,
    tracker: H21ATracker,
    needs: [String] = [],
    eager: Bool = true,
    fails: Bool = false
) {
    let builder = binder.bind(H21AResource.self, named: name).to { resolver in
        for need in needs { _ = try resolver.get(H21AResource.self, named: need) }
        if fails { throw ExpectedFailure(id: 1) }
        return tracker.make(name)
    }
    if eager { builder.asEagerSingleton() } else { builder.in(.singleton) }
}

private struct H21ABaseModule: Module {
    let tracker: H21ATracker
    func configure(_ binder: Binder) {
        h21ABind(binder, "base", tracker: tracker)
    }
}

private struct H21AConfigModule: Module {
    func configure(_ binder: Binder) {
        binder.bind(String.self, named: "config").toInstance("on")
    }
}

/// An eager singleton that fails when the configuration module is missing.
private struct H21AConfiguredModule: Module {
    let tracker: H21ATracker
    func configure(_ binder: Binder) {
        binder.bind(H21AResource.self, named: "configured").to { resolver in
            guard (try? resolver.get(String.self, named: "config")) != nil else { throw ExpectedFailure(id: 2) }
            return tracker.make("configured")
        }.asEagerSingleton()
    }
}

// MARK: - Tests

@Suite("Hunt 21A: a failed creation disposes what it built, and only that", .timeLimit(.minutes(1)))
struct Hunt21AAbandonTests {
    /// Three eager singletons over a shared singleton dependency, the one at `failing` throwing: creation
    /// throws its factoryFailed; everything built before it is disposed once, newest first.
    @Test(
        "the first, middle or last eager singleton fails: the built ones disposed once, newest first",
        arguments: [1, 2, 3])
    func failingPosition(failing: Int) throws {
        let tracker = H21ATracker()
        let creation = Hunt5.result { () throws(ProvisionError) in
            try Injector(
                ClosureModule { binder in
                    h21ABind(binder, "dep", tracker: tracker, eager: false)
                    for index in 1...3 {
                        h21ABind(binder, "e\(index)", tracker: tracker, needs: ["dep"], fails: index == failing)
                    }
                })
        }
        let error = try #require(creation.hunt5Error)
        #expect(error.code == .factoryFailed, "\(error)")
        #expect(error.key == BindingKey(H21AResource.self, named: "e\(failing)"))
        #expect(error.cause as? ExpectedFailure == ExpectedFailure(id: 1))
        let built = ["dep"] + (1..<failing).map { "e\($0)" }
        #expect(tracker.all.map(\.name) == built)
        #expect(tracker.all.allSatisfy { $0.disposals.value == 1 })
        #expect(tracker.log.with("dispose ") == built.reversed())
    }

    /// A disposal that throws while a failed creation is undone is dropped: the caller gets the eager
    /// singleton's error, and the instances built before the one whose disposal threw are still disposed.
    @Test("a disposal throwing during the undo: the creation's error, the rest still disposed")
    func disposalFailureDropped() throws {
        let tracker = H21ATracker()
        let creation = Hunt5.result { () throws(ProvisionError) in
            try Injector(
                ClosureModule { binder in
                    h21ABind(binder, "first", tracker: tracker)
                    binder.bind(H21AResource.self, named: "throwing").to {
                        tracker.make("throwing", failsDisposal: true)
                    }.asEagerSingleton()
                    h21ABind(binder, "bad", tracker: tracker, fails: true)
                })
        }
        let error = try #require(creation.hunt5Error)
        #expect(error.code == .factoryFailed)
        #expect(error.key == BindingKey(H21AResource.self, named: "bad"))
        #expect(tracker.disposals("first") == 1)
        #expect(tracker.disposals("throwing") == 1)
        #expect(tracker.log.with("dispose ") == ["throwing", "first"])
    }

    /// An eager singleton that hands on an instance binding's value (the caller's): a failed creation
    /// doesn't dispose it.
    @Test("an eager singleton handing on an instance binding's value: not disposed by the undo")
    func instanceHandedOn() throws {
        let tracker = H21ATracker()
        let instance = tracker.make("instance")
        let creation = Hunt5.result { () throws(ProvisionError) in
            try Injector(
                ClosureModule { binder in
                    binder.bind(H21AResource.self, named: "instance").toInstance(instance)
                    binder.bind(H21AResource.self, named: "handed").to { resolver in
                        try resolver.get(H21AResource.self, named: "instance")
                    }.asEagerSingleton()
                    h21ABind(binder, "bad", tracker: tracker, fails: true)
                })
        }
        #expect(creation.hunt5Error?.code == .factoryFailed)
        #expect(instance.disposals.value == 0)
    }

    /// A child whose eager singletons use the parent's singleton (one of them hands it on) fails on a
    /// later eager singleton: the child's own instance is disposed once, the parent's singleton is not,
    /// and the parent goes on serving it, disposing it once at its shutdown.
    @Test("a child's failed creation: its own disposed, the parent's singleton untouched", arguments: [false, true])
    func childFailure(parentBuiltFirst: Bool) async throws {
        let tracker = H21ATracker()
        let parent = try Injector(
            ClosureModule { binder in h21ABind(binder, "shared", tracker: tracker, eager: false) })
        let early = parentBuiltFirst ? try await parent.get(H21AResource.self, named: "shared") : nil
        let creation = Hunt5.result { () throws(ProvisionError) in
            try parent.makeChild(
                ClosureModule { binder in
                    h21ABind(binder, "own", tracker: tracker, needs: ["shared"])
                    binder.bind(H21AResource.self, named: "handed").to { resolver in
                        try resolver.get(H21AResource.self, named: "shared")
                    }.asEagerSingleton()
                    h21ABind(binder, "bad", tracker: tracker, fails: true)
                })
        }
        #expect(creation.hunt5Error?.code == .factoryFailed)
        #expect(tracker.disposals("own") == 1)
        #expect(tracker.disposals("shared") == 0)
        let shared = try await parent.get(H21AResource.self, named: "shared")
        if let early { #expect(shared === early) }
        #expect(tracker.named("shared").count == 1)
        try await parent.shutdown()
        #expect(shared.disposals.value == 1)
        #expect(tracker.disposals("own") == 1)
    }

    /// A child marks a self-declaring singleton eager whose binding belongs in the parent (it needs
    /// nothing the child binds): the child's failed creation doesn't dispose it; the parent serves it and
    /// disposes it once at shutdown.
    @Test("a child's eager just-in-time singleton that belongs to the parent: not disposed by the child")
    func childEagerJustInTime() async throws {
        let tracker = H21ATracker()
        let parent = try Injector(ClosureModule { _ in })
        let creation = Hunt5.result { () throws(ProvisionError) in
            try parent.makeChild(
                ClosureModule { binder in
                    binder.eager(Hunt21AJustInTimeResource.self)
                    h21ABind(binder, "bad", tracker: tracker, fails: true)
                })
        }
        #expect(creation.hunt5Error?.code == .factoryFailed, "\(creation)")
        let resource = try await parent.get(Hunt21AJustInTimeResource.self)
        #expect(resource.disposals.value == 0)
        try await parent.shutdown()
        #expect(resource.disposals.value == 1)
    }

    /// An overriding injector whose eager replacement fails: what it built (the replacement, the binding
    /// re-created over it, its eager singleton) is disposed once; the original's singletons, shared or
    /// replaced, are not, and the original goes on.
    @Test("overriding with a failing eager singleton: its own disposed once, the original's untouched")
    func overridingFailure() async throws {
        let tracker = H21ATracker()
        let original = try Injector(
            ClosureModule { binder in
                h21ABind(binder, "shared", tracker: tracker, eager: false)
                h21ABind(binder, "replaced", tracker: tracker, eager: false)
                binder.bind(H21AResource.self, named: "user").to(dependencies: [
                    BindingKey(H21AResource.self, named: "replaced")
                ]) { resolver in
                    _ = try resolver.get(H21AResource.self, named: "replaced")
                    return tracker.make("user")
                }.in(.singleton)
            })
        let shared = try await original.get(H21AResource.self, named: "shared")
        let user = try await original.get(H21AResource.self, named: "user")
        let creation = Hunt5.result { () throws(ProvisionError) in
            try original.overriding { binder in
                binder.bind(H21AResource.self, named: "replaced").to { tracker.make("replacement") }.in(.singleton)
                h21ABind(binder, "eager", tracker: tracker, needs: ["shared", "user"])
                h21ABind(binder, "bad", tracker: tracker, fails: true)
            }
        }
        #expect(creation.hunt5Error?.code == .factoryFailed, "\(creation)")
        #expect(tracker.disposals("replacement") == 1)
        #expect(tracker.disposals("eager") == 1)
        #expect(tracker.named("user").count == 2)
        #expect(tracker.named("user").last?.disposals.value == 1)
        #expect(shared.disposals.value == 0)
        #expect(user.disposals.value == 0)
        #expect(tracker.disposals("replaced") == 0)
        #expect(try await original.get(H21AResource.self, named: "user") === user)
        try await original.shutdown()
        #expect(shared.disposals.value == 1)
        #expect(user.disposals.value == 1)
    }

    /// `with` a module whose eager singleton fails: the new injector's own copy of the original's eager
    /// singleton is disposed once; the original's is not.
    @Test("with(_:) failing on an eager singleton: the copy disposed, the original's untouched")
    func withFailure() async throws {
        let tracker = H21ATracker()
        let original = try Injector(H21ABaseModule(tracker: tracker))
        let base = try #require(tracker.named("base").first)
        let creation = Hunt5.result { () throws(ProvisionError) in
            try original.with(ClosureModule { binder in h21ABind(binder, "bad", tracker: tracker, fails: true) })
        }
        #expect(creation.hunt5Error?.code == .factoryFailed)
        #expect(tracker.named("base").count == 2)
        #expect(tracker.named("base").last?.disposals.value == 1)
        #expect(base.disposals.value == 0)
        #expect(try await original.get(H21AResource.self, named: "base") === base)
        try await original.shutdown()
        #expect(base.disposals.value == 1)
    }

    /// `without` the module an eager singleton needs: the derived injector's creation fails on it; its
    /// copy of the base eager singleton is disposed once, the original's is not.
    @Test("without(_:) failing on an eager singleton: the copy disposed, the original's untouched")
    func withoutFailure() async throws {
        let tracker = H21ATracker()
        let original = try Injector(
            H21ABaseModule(tracker: tracker), H21AConfigModule(), H21AConfiguredModule(tracker: tracker))
        let base = try #require(tracker.named("base").first)
        let creation = Hunt5.result { () throws(ProvisionError) in try original.without(H21AConfigModule.self) }
        #expect(creation.hunt5Error?.code == .factoryFailed, "\(creation)")
        #expect(tracker.named("base").count == 2)
        #expect(tracker.named("base").last?.disposals.value == 1)
        #expect(base.disposals.value == 0)
        #expect(tracker.named("configured").count == 1)
        #expect(tracker.disposals("configured") == 0)
        try await original.shutdown()
        #expect(base.disposals.value == 1)
        #expect(tracker.disposals("configured") == 1)
    }

    /// An install whose eager singleton fails: the module's bindings are removed, the instance built
    /// meanwhile is disposed at shutdown (as documented), once; a corrected install builds another,
    /// also disposed once.
    @Test("install(_:) failing on an eager singleton: built instances disposed once, at shutdown")
    func installFailure() async throws {
        let tracker = H21ATracker()
        let injector = try Injector(ClosureModule { _ in })
        let install = Hunt5.result { () throws(ProvisionError) in
            try injector.install(
                ClosureModule { binder in
                    h21ABind(binder, "plugin", tracker: tracker)
                    h21ABind(binder, "bad", tracker: tracker, fails: true)
                })
        }
        #expect(install.hunt5Error?.code == .factoryFailed)
        #expect(!injector.hasBinding(for: H21AResource.self, named: "plugin"))
        #expect(tracker.disposals("plugin") == 0)
        try injector.install(ClosureModule { binder in h21ABind(binder, "plugin", tracker: tracker) })
        #expect(tracker.named("plugin").count == 2)
        try await injector.shutdown()
        #expect(tracker.named("plugin").map { $0.disposals.value } == [1, 1])
        #expect(tracker.log.with("dispose ") == ["plugin", "plugin"])
    }

    /// An AsyncDisposable eager singleton built before the failing one is disposed by the undo, in a task
    /// of its own, exactly once.
    @Test("an AsyncDisposable eager singleton before the failure: disposed once, in a task")
    func asyncDisposableAbandoned() async throws {
        let resource = H21AAsyncResource()
        let tracker = H21ATracker()
        let creation = Hunt5.result { () throws(ProvisionError) in
            try Injector(
                ClosureModule { binder in
                    binder.bind(H21AAsyncResource.self).to { resource }.asEagerSingleton()
                    h21ABind(binder, "bad", tracker: tracker, fails: true)
                })
        }
        #expect(creation.hunt5Error?.code == .factoryFailed)
        #expect(await Hunt5.until { resource.disposals.value >= 1 })
        #expect(resource.disposals.value == 1)
    }

    /// Validation on creation fails (an eager singleton's missing dependency): nothing was built, so
    /// nothing is disposed, and no eager factory ran.
    @Test("validation failing on creation: no eager singleton built, nothing disposed")
    func validationFailureBuildsNothing() throws {
        let tracker = H21ATracker()
        let creation = Hunt5.result { () throws(ProvisionError) in
            try Injector(
                ClosureModule { binder in
                    h21ABind(binder, "first", tracker: tracker)
                    binder.bind(H21AResource.self, named: "broken").to(dependencies: [BindingKey(Config.self)]) {
                        resolver in
                        _ = try resolver.get(Config.self)
                        return tracker.make("broken")
                    }.asEagerSingleton()
                })
        }
        #expect(creation.hunt5Error?.code == .validationFailed, "\(creation)")
        #expect(tracker.all.isEmpty)
    }

    /// An eager delegation to a singleton and that singleton are one instance: a failed creation disposes
    /// it exactly once.
    @Test("an eager delegation to a singleton, then a failure: the one instance disposed once")
    func eagerDelegationDisposedOnce() throws {
        let tracker = H21ATracker()
        let creation = Hunt5.result { () throws(ProvisionError) in
            try Injector(
                ClosureModule { binder in
                    h21ABind(binder, "target", tracker: tracker, eager: false)
                    binder.bind(H21AResource.self, named: "alias").to(binding: H21AResource.self, named: "target")
                        .asEagerSingleton()
                    h21ABind(binder, "target2", tracker: tracker, needs: ["alias", "target"])
                    h21ABind(binder, "bad", tracker: tracker, fails: true)
                })
        }
        #expect(creation.hunt5Error?.code == .factoryFailed)
        #expect(tracker.named("target").count == 1)
        #expect(tracker.disposals("target") == 1)
        #expect(tracker.disposals("target2") == 1)
    }

    /// An eager singleton over an async singleton, after a disposable eager singleton: creation throws
    /// requiresAsync and disposes the one built before, once.
    @Test("an eager singleton over an async one fails creation: the earlier eager one disposed once")
    func eagerOverAsyncDisposesEarlier() throws {
        let tracker = H21ATracker()
        let creation = Hunt5.result { () throws(ProvisionError) in
            try Injector(
                ClosureModule { binder in
                    h21ABind(binder, "first", tracker: tracker)
                    binder.bind(String.self).to { _ async in "value" }.in(.singleton)
                    binder.bind(H21AResource.self, named: "over").to { (value: String) in
                        tracker.make("over \(value)")
                    }.asEagerSingleton()
                })
        }
        #expect(creation.hunt5Error?.code == .requiresAsync, "\(creation)")
        #expect(tracker.disposals("first") == 1)
    }

    /// An overriding injector whose eager replacement hands on its own instance binding's value fails on a
    /// later eager singleton: the value (the caller's) is not disposed.
    @Test("overriding: an eager replacement handing on an override's instance value, then a failure: not disposed")
    func overridingInstanceHandedOn() throws {
        let tracker = H21ATracker()
        let instance = tracker.make("instance")
        let original = try Injector(
            ClosureModule { binder in h21ABind(binder, "shared", tracker: tracker, eager: false) })
        let creation = Hunt5.result { () throws(ProvisionError) in
            try original.overriding { binder in
                binder.bind(H21AResource.self, named: "instance").toInstance(instance)
                binder.bind(H21AResource.self, named: "handed").to { resolver in
                    try resolver.get(H21AResource.self, named: "instance")
                }.asEagerSingleton()
                h21ABind(binder, "bad", tracker: tracker, fails: true)
            }
        }
        #expect(creation.hunt5Error?.code == .factoryFailed, "\(creation)")
        #expect(instance.disposals.value == 0)
    }

    /// A disposable transient built for an eager singleton before the failure is the caller's: the undo
    /// doesn't dispose it (only the singleton that holds it).
    @Test("a transient disposable built for an eager singleton: not disposed by the undo")
    func transientNotDisposed() throws {
        let tracker = H21ATracker()
        let creation = Hunt5.result { () throws(ProvisionError) in
            try Injector(
                ClosureModule { binder in
                    binder.bind(H21AResource.self, named: "transient").to { tracker.make("transient") }
                    h21ABind(binder, "holder", tracker: tracker, needs: ["transient"])
                    h21ABind(binder, "bad", tracker: tracker, fails: true)
                })
        }
        #expect(creation.hunt5Error?.code == .factoryFailed)
        #expect(tracker.disposals("holder") == 1)
        #expect(tracker.disposals("transient") == 0)
    }

    /// An eager singleton keeps a provider of the injector being created; the creation then fails. The
    /// provider builds nothing afterwards: its requests fail (the injector is gone, or shut down).
    @Test("a provider kept by an eager singleton of a failed creation builds nothing afterwards")
    func providerAfterFailedCreation() throws {
        let tracker = H21ATracker()
        let kept = Locked<Provider<H21AResource>?>(nil)
        let creation = Hunt5.result { () throws(ProvisionError) in
            try Injector(
                ClosureModule { binder in
                    h21ABind(binder, "late", tracker: tracker, eager: false)
                    binder.bind(H21AResource.self, named: "keeper").to { resolver in
                        let provider = try resolver.get(Provider<H21AResource>.self, named: "late")
                        kept.withLock { $0 = provider }
                        return tracker.make("keeper")
                    }.asEagerSingleton()
                    h21ABind(binder, "bad", tracker: tracker, fails: true)
                })
        }
        #expect(creation.hunt5Error?.code == .factoryFailed)
        let provider = try #require(kept.withLock { $0 })
        let late = Hunt5.result { () throws(ProvisionError) in try provider.get() }
        #expect(late.hunt5Error?.code == .injectorReleased || late.hunt5Error?.code == .shutDown, "\(late)")
        #expect(tracker.named("late").isEmpty)
        #expect(tracker.disposals("keeper") == 1)
    }
}
