import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Provision

// Hunt 20A, part 4: Provider<T> and Lazy<T> at their edges. Handles outliving their injector (every
// way of using one), handles of scoped keys inside and outside scopes and of a child's keys, a Lazy
// read reentrantly, and handles used from tasks.

// MARK: - Fixtures

final class Hunt20AScoped: Disposable {
    let disposals: Counter
    init(disposals: Counter) { self.disposals = disposals }
    func dispose() { disposals.increment() }
}

/// A transient holding handles of the scoped binding.
final class Hunt20AScopedUser: Sendable {
    let provider: Provider<Hunt20AScoped>
    let lazy: Lazy<Hunt20AScoped>
    init(provider: Provider<Hunt20AScoped>, lazy: Lazy<Hunt20AScoped>) {
        self.provider = provider
        self.lazy = lazy
    }
}

/// A scoped service holding a Lazy of the scoped binding.
final class Hunt20AScopedHolder: Sendable {
    let lazy: Lazy<Hunt20AScoped>
    init(lazy: Lazy<Hunt20AScoped>) { self.lazy = lazy }
}

/// A singleton holding a Lazy of a transient whose initializer reads that same Lazy.
final class Hunt20AReportHolder: Sendable {
    let report: Lazy<Hunt20AReport>
    init(report: Lazy<Hunt20AReport>) { self.report = report }
}

final class Hunt20AReport: Sendable {
    init(holder: Provider<Hunt20AReportHolder>, reenter: Hunt20AReenter) throws {
        if reenter.enabled.load(ordering: .sequentiallyConsistent) {
            _ = try holder.get().report.value
        }
    }
}

final class Hunt20AReenter: Sendable {
    let enabled = Atomic(true)
}

final class Hunt20AAsyncSingle: Sendable {}

final class Hunt20AChildOnly: Sendable {}

// MARK: - Tests

@Suite("Hunt 20A: Provider and Lazy edge cases", .timeLimit(.minutes(1)))
struct Hunt20AHandleTests {
    static func code<T>(_ body: () throws(ProvisionError) -> T) -> ProvisionError.Code? {
        do {
            _ = try body()
            return nil
        } catch {
            return error.code
        }
    }

    @Test(
        "every use of a handle outliving its injector throws injectorReleased: get, get(arguments:), lazy, named, singleton, ObjectFactory; a resolved Lazy keeps its value"
    )
    func handlesOutliveInjector() throws {
        let live = Hunt20ALive()
        let handles: (Provider<Hunt20AFresh>, Provider<Hunt20ASingle>, Provider<Hunt20AArgued>, Provider<Hunt20AFresh>)
        let factory: ObjectFactory
        let unresolved: Lazy<Hunt20AFresh>
        let resolved: Lazy<Hunt20AFresh>
        let value: Hunt20AFresh
        weak var weakInjector: Injector?
        do {
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Hunt20AFresh.self).to { Hunt20AFresh(live: live) }
                    binder.bind(Hunt20AFresh.self, named: "other").to { Hunt20AFresh(live: live) }
                    binder.bind(Hunt20ASingle.self).to { Hunt20ASingle(live: live) }.in(.singleton)
                    binder.bind(Hunt20AArgued.self).withArguments(Int.self).to { _, number in
                        Hunt20AArgued(number: number)
                    }
                })
            weakInjector = injector
            handles = (
                try injector.get(Provider<Hunt20AFresh>.self),
                try injector.get(Provider<Hunt20ASingle>.self),
                try injector.get(Provider<Hunt20AArgued>.self),
                try injector.get(Provider<Hunt20AFresh>.self, named: "other")
            )
            factory = try injector.get(ObjectFactory.self)
            unresolved = try injector.get(Lazy<Hunt20AFresh>.self)
            resolved = try injector.get(Lazy<Hunt20AFresh>.self)
            value = try resolved.value
            // Used once while the injector lives: the singleton is built.
            _ = try handles.1.get()
            #expect(try handles.2.get(arguments: 3).number == 3)
        }
        #expect(weakInjector == nil)
        #expect(Self.code { () throws(ProvisionError) in try handles.0.get() } == .injectorReleased)
        #expect(Self.code { () throws(ProvisionError) in try handles.1.get() } == .injectorReleased)
        #expect(Self.code { () throws(ProvisionError) in try handles.2.get(arguments: 4) } == .injectorReleased)
        #expect(Self.code { () throws(ProvisionError) in try handles.2.lazy(arguments: 5).value } == .injectorReleased)
        #expect(Self.code { () throws(ProvisionError) in try handles.3.get() } == .injectorReleased)
        #expect(Self.code { () throws(ProvisionError) in try handles.0.lazy().value } == .injectorReleased)
        #expect(Self.code { () throws(ProvisionError) in try factory.get(Hunt20AFresh.self) } == .injectorReleased)
        #expect(
            Self.code { () throws(ProvisionError) in try factory.get(Hunt20AArgued.self, arguments: 1) }
                == .injectorReleased)
        #expect(handles.3.providedKey == BindingKey(Hunt20AFresh.self, named: "other"))
        // A Lazy: unresolved, injectorReleased every time; resolved, its value.
        #expect(Self.code { () throws(ProvisionError) in try unresolved.value } == .injectorReleased)
        #expect(Self.code { () throws(ProvisionError) in try unresolved.value } == .injectorReleased)
        #expect(try resolved.value === value)
        #expect(live.fresh.alive == 1, "only the resolved Lazy's value is alive")
    }

    @Test("handles of a scoped key: outside any scope outsideScope, in a scope its instance, after close outsideScope")
    func scopedKeyHandles() throws {
        let disposals = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt20AScoped.self).to { Hunt20AScoped(disposals: disposals) }.in(.scoped)
                binder.bind(Hunt20AScopedUser.self).to(Hunt20AScopedUser.init(provider:lazy:))
            })
        let outside = try injector.get(Provider<Hunt20AScoped>.self)
        #expect(Self.code { () throws(ProvisionError) in try outside.get() } == .outsideScope)
        let outsideUser = try injector.get(Hunt20AScopedUser.self)
        #expect(Self.code { () throws(ProvisionError) in try outsideUser.lazy.value } == .outsideScope)

        let scope = injector.makeScope()
        let instance = try scope.get(Hunt20AScoped.self)
        let inside = try scope.get(Provider<Hunt20AScoped>.self)
        let user = try scope.get(Hunt20AScopedUser.self)
        #expect(try inside.get() === instance)
        #expect(try user.provider.get() === instance)
        #expect(try user.lazy.value === instance)
        // The handle made outside stays outside, even while a scope is open.
        #expect(Self.code { () throws(ProvisionError) in try outside.get() } == .outsideScope)
        let unread = try scope.get(Hunt20AScopedUser.self)
        try scope.close()
        #expect(disposals.value == 1)
        #expect(Self.code { () throws(ProvisionError) in try inside.get() } == .outsideScope)
        #expect(Self.code { () throws(ProvisionError) in try user.provider.get() } == .outsideScope)
        #expect(Self.code { () throws(ProvisionError) in try unread.lazy.value } == .outsideScope)
        // A Lazy read before the close keeps its (disposed) value, as any holder does.
        #expect(try user.lazy.value === instance)
        #expect(disposals.value == 1)
    }

    @Test("handles of a scoped key from a child's scope: the child's scope's instance, the parent's binding")
    func childScopeHandles() throws {
        let disposals = Counter()
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt20AScoped.self).to { Hunt20AScoped(disposals: disposals) }.in(.scoped)
            })
        let child = try parent.makeChild(
            ClosureModule { binder in binder.bind(Hunt20AScopedUser.self).to(Hunt20AScopedUser.init(provider:lazy:)) })
        let scope = child.makeScope()
        let user = try scope.get(Hunt20AScopedUser.self)
        let instance = try scope.get(Hunt20AScoped.self)
        #expect(try user.provider.get() === instance)
        #expect(try user.lazy.value === instance)
        let other = child.makeScope()
        #expect(try other.get(Hunt20AScopedUser.self).provider.get() !== instance)
        try other.close()
        try scope.close()
        #expect(disposals.value == 2)
    }

    @Test("a provider from a child: the child's own key, the parent's singleton; dropped child, injectorReleased")
    func childProviders() throws {
        let live = Hunt20ALive()
        let parent = try Injector(
            ClosureModule { binder in binder.bind(Hunt20ASingle.self).to { Hunt20ASingle(live: live) }.in(.singleton) })
        let childOnly: Provider<Hunt20AChildOnly>
        let childSingle: Provider<Hunt20ASingle>
        do {
            let child = try parent.makeChild(
                ClosureModule { binder in binder.bind(Hunt20AChildOnly.self).to(Hunt20AChildOnly.init) })
            childOnly = try child.get(Provider<Hunt20AChildOnly>.self)
            childSingle = try child.get(Provider<Hunt20ASingle>.self)
            _ = try childOnly.get()
            #expect(try childSingle.get() === (try parent.get(Hunt20ASingle.self)))
        }
        let parentsOwn = try parent.get(Provider<Hunt20AChildOnly>.self)
        #expect(Self.code { () throws(ProvisionError) in try parentsOwn.get() } == .notBound)
        #expect(Self.code { () throws(ProvisionError) in try childOnly.get() } == .injectorReleased)
        #expect(Self.code { () throws(ProvisionError) in try childSingle.get() } == .injectorReleased)
        #expect(try parent.get(Provider<Hunt20ASingle>.self).get() === (try parent.get(Hunt20ASingle.self)))
        #expect(live.singleBuilt.load(ordering: .sequentiallyConsistent) == 1)
    }

    @Test(
        "a Lazy read reentrantly by its own value's initializer: cycle, every time, and the next read after that works")
    func lazyReentrantRead() throws {
        let reenter = Hunt20AReenter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt20AReenter.self).toInstance(reenter)
                binder.bind(Hunt20AReport.self).to(Hunt20AReport.init(holder:reenter:))
                binder.bind(Hunt20AReportHolder.self).to(Hunt20AReportHolder.init(report:)).in(.singleton)
            })
        let holder = try injector.get(Hunt20AReportHolder.self)
        for _ in 0..<2 {
            do {
                _ = try holder.report.value
                Issue.record("a reentrant read resolved")
            } catch {
                #expect(error.code == .cycle, "\(error)")
                #expect(error.path.first == BindingKey(Hunt20AReport.self), "\(error.pathDescription)")
            }
        }
        reenter.enabled.store(false, ordering: .sequentiallyConsistent)
        let report = try holder.report.value
        #expect(try holder.report.value === report)
    }

    @Test(
        "handles in tasks: a Provider and a Lazy of an async singleton throw requiresAsync until an async request built it"
    )
    func handlesInTasks() async throws {
        let builds = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt20AAsyncSingle.self).to { _ async throws in
                    builds.increment()
                    return Hunt20AAsyncSingle()
                }.in(.singleton)
            })
        let provider = try await injector.get(Provider<Hunt20AAsyncSingle>.self)
        let lazy = try await injector.get(Lazy<Hunt20AAsyncSingle>.self)
        let early = await Task { Self.code { () throws(ProvisionError) in try provider.get() } }.value
        #expect(early == .requiresAsync)
        let earlyLazy = await Task { Self.code { () throws(ProvisionError) in try lazy.value } }.value
        #expect(earlyLazy == .requiresAsync)
        let built = try await injector.get(Hunt20AAsyncSingle.self)
        let fromTasks = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
            for index in 0..<16 {
                group.addTask {
                    ObjectIdentifier(index % 2 == 0 ? try provider.get() : try lazy.value)
                }
            }
            return try await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
        }
        #expect(fromTasks == [ObjectIdentifier(built)])
        #expect(builds.value == 1)
    }

    @Test("nested handles resolve in their injector: Provider<Lazy<T>>, Lazy<Provider<T>>, Provider<[T]>, Lazy<T?>")
    func nestedHandles() throws {
        let live = Hunt20ALive()
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt20ASingle.self).to { Hunt20ASingle(live: live) }.in(.singleton)
                binder.multibind((any Hunt20APlugin).self).toInstance(Hunt20APluginValue(id: 1))
            })
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(Hunt20AChildOnly.self).to(Hunt20AChildOnly.init)
                binder.multibind((any Hunt20APlugin).self).toInstance(Hunt20APluginValue(id: 2))
            })
        let single = try parent.get(Hunt20ASingle.self)
        #expect(try child.get(Provider<Lazy<Hunt20ASingle>>.self).get().value === single)
        #expect(try child.get(Lazy<Provider<Hunt20ASingle>>.self).value.get() === single)
        #expect(try child.get(Provider<[any Hunt20APlugin]>.self).get().map(\.id) == [1, 2])
        #expect(try parent.get(Provider<[any Hunt20APlugin]>.self).get().map(\.id) == [1])
        #expect(try child.get(Lazy<Hunt20AChildOnly?>.self).value != nil)
        #expect(try parent.get(Lazy<Hunt20AChildOnly?>.self).value == nil)
        #expect(try child.get(Provider<Lazy<Hunt20AChildOnly?>>.self).get().value != nil)
    }
}
