import Foundation
import Testing

@testable import Provision

// Hunt 20 (B): validation and error messages as a daemon's author meets them. Protocol keys, named
// keys, optionals and lists, cycles and captive dependencies in the shapes users write them; messages
// that name the types in Swift syntax, the path, and the fix; no false positives on healthy graphs.

// MARK: - Fixtures

private protocol H20BGateway: Sendable {}

private final class H20BStripeGateway: H20BGateway {}

private final class H20BCheckout: Sendable {
    let gateway: any H20BGateway
    init(gateway: any H20BGateway) { self.gateway = gateway }
}

private final class H20BApp: Sendable {
    let checkout: H20BCheckout
    init(checkout: H20BCheckout) { self.checkout = checkout }
}

/// A second dependent of the gateway.
private final class H20BRefunds: Sendable {
    let gateway: any H20BGateway
    init(gateway: any H20BGateway) { self.gateway = gateway }
}

private final class H20BCache: Sendable {}

/// Takes an optional cache: fine when nothing binds it.
private final class H20BOptionalUser: Sendable {
    let cache: H20BCache?
    init(cache: H20BCache?) { self.cache = cache }
}

private protocol H20BPlugin: Sendable {}

private final class H20BAuditPlugin: H20BPlugin {}

private final class H20BPluginHost: Sendable {
    let plugins: [any H20BPlugin]
    init(plugins: [any H20BPlugin]) { self.plugins = plugins }
}

/// A scoped request context.
private final class H20BRequestContext: Sendable {}

private protocol H20BFormatter: Sendable {}

/// A transient formatter over the request's context.
private final class H20BContextFormatter: H20BFormatter {
    let context: H20BRequestContext
    init(context: H20BRequestContext) { self.context = context }
}

/// A cache holding a formatter: a singleton would capture the request's context through it.
private final class H20BFormatCache: Sendable {
    let formatter: any H20BFormatter
    init(formatter: any H20BFormatter) { self.formatter = formatter }
}

private protocol H20BUsers: Sendable {}

/// Users need sessions, sessions need users: a cycle through a protocol key.
private final class H20BUserStore: H20BUsers {
    let sessions: H20BSessions
    init(sessions: H20BSessions) { self.sessions = sessions }
}

private final class H20BSessions: Sendable {
    let users: any H20BUsers
    init(users: any H20BUsers) { self.users = users }
}

/// The same pair, with the edge back through a provider: not a cycle.
private final class H20BLazySessions: Sendable {
    let users: Provider<any H20BUsers>
    init(users: Provider<any H20BUsers>) { self.users = users }
}

private final class H20BLazyUserStore: H20BUsers {
    let sessions: H20BLazySessions
    init(sessions: H20BLazySessions) { self.sessions = sessions }
}

/// A generic box, for type names in messages.
private struct H20BBox<Value: Sendable>: Sendable {
    let value: Value
}

private final class H20BBoxUser: Sendable {
    let boxes: [String: H20BBox<Int>]
    init(boxes: [String: H20BBox<Int>]) { self.boxes = boxes }
}

/// A singleton over an optional of the scoped context.
private final class H20BOptionalContextCache: Sendable {
    let context: H20BRequestContext?
    init(context: H20BRequestContext?) { self.context = context }
}

/// A plugin made from the request's scoped context.
private final class H20BRequestPlugin: H20BPlugin {
    let context: H20BRequestContext
    init(context: H20BRequestContext) { self.context = context }
}

/// A cycle through an optional: the reporter takes an optional auditor, the auditor needs the reporter.
private final class H20BReporter: Sendable {
    let auditor: H20BAuditor?
    init(auditor: H20BAuditor?) { self.auditor = auditor }
}

private final class H20BAuditor: Sendable {
    let reporter: H20BReporter
    init(reporter: H20BReporter) { self.reporter = reporter }
}

/// A cycle through a multibinding: the registry lists the plugins, one plugin needs the registry.
private final class H20BRegistry: Sendable {
    let plugins: [any H20BPlugin]
    init(plugins: [any H20BPlugin]) { self.plugins = plugins }
}

private final class H20BRegistryPlugin: H20BPlugin {
    let registry: H20BRegistry
    init(registry: H20BRegistry) { self.registry = registry }
}

/// The seed of a job's scope.
private struct H20BJob: Sendable {
    let id: Int
}

/// A scoped job context made from the seeded job.
private final class H20BJobContext: Disposable {
    let job: H20BJob
    let disposals: Counter
    init(job: H20BJob, disposals: Counter) {
        self.job = job
        self.disposals = disposals
    }

    func dispose() { disposals.increment() }
}

/// A scoped transaction over the job's context.
private final class H20BJobTransaction: Sendable {
    let context: H20BJobContext
    init(context: H20BJobContext) { self.context = context }
}

/// The transient job runner at the top.
private final class H20BJobRunner: Sendable {
    let transaction: H20BJobTransaction
    init(transaction: H20BJobTransaction) { self.transaction = transaction }
}

/// A slow singleton and the transient over it.
private final class H20BSlowIndex: Sendable {}

private final class H20BSearch: Sendable {
    let index: H20BSlowIndex
    init(index: H20BSlowIndex) { self.index = index }
}

// MARK: - Tests

@Suite("Hunt 20B: validation and diagnostics", .timeLimit(.minutes(1)))
struct Hunt20BDiagnosticsTests {
    /// A protocol key nothing binds, two levels down: creating the injector fails with one problem whose
    /// message, path and hint use Swift syntax (`any H20BGateway`, `(any H20BGateway).self`).
    @Test func missingProtocolKeyIsReportedInSwiftSyntax() throws {
        let module = ClosureModule { binder in
            binder.bind(H20BApp.self).to(H20BApp.init(checkout:)).in(.singleton)
            binder.bind(H20BCheckout.self).to(H20BCheckout.init(gateway:))
        }
        let report = try Injector.unvalidated(module).validationReport()
        #expect(report.problems.count == 1)
        let problem = try #require(report.problems.first)
        #expect(problem.code == .notBound)
        #expect(problem.key == BindingKey((any H20BGateway).self))
        #expect(
            problem.path == [
                BindingKey(H20BApp.self), BindingKey(H20BCheckout.self), BindingKey((any H20BGateway).self),
            ])
        #expect(problem.message.contains("no binding for any H20BGateway"))
        #expect(problem.hint.contains("binder.bind((any H20BGateway).self).to(...)"))
        #expect(problem.description.contains("H20BApp -> H20BCheckout -> any H20BGateway"))
        #expect(throws: ProvisionError.self) { try Injector(module) }
    }

    /// A dependency two bindings need is reported once, naming both dependents.
    @Test func missingDependencyOfTwoBindingsReportedOnce() throws {
        let report = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(H20BCheckout.self).to(H20BCheckout.init(gateway:))
                binder.bind(H20BRefunds.self).to(H20BRefunds.init(gateway:))
            }
        ).validationReport()
        #expect(report.problems.count == 1)
        let message = try #require(report.problems.first?.message)
        #expect(message.contains("H20BCheckout") && message.contains("H20BRefunds"))
    }

    /// A named key a closure declares, bound only unnamed: reported as missing with its name, and a hint
    /// that binds it under that name (no fallback to the unnamed binding).
    @Test func missingNamedKeyNamesTheName() throws {
        let report = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(Config.self).toInstance(Config(port: 80))
                binder.bind(H20BCache.self).to(dependencies: [BindingKey(Config.self, named: "admin")]) { resolver in
                    _ = try resolver.get(Config.self, named: "admin")
                    return H20BCache()
                }
            }
        ).validationReport()
        let problem = try #require(report.problems.first)
        #expect(report.problems.count == 1)
        #expect(problem.code == .notBound)
        #expect(problem.message.contains("Config named \"admin\""))
        #expect(problem.hint.contains("binder.bind(Config.self, named: \"admin\")"))
    }

    /// An optional of an unbound type is not a problem (no false positive), and resolves to nil.
    @Test func optionalOfUnboundTypeIsNoProblem() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H20BOptionalUser.self).to(H20BOptionalUser.init(cache:)).in(.singleton)
            }
        )
        #expect(injector.validationReport().isValid)
        #expect(try injector.get(H20BOptionalUser.self).cache == nil)
    }

    /// A list nothing is multibound for is `emptyMultibinding`, with a hint that shows both fixes; one
    /// element makes the graph valid.
    @Test func listWithoutElementsAndWithOne() throws {
        let host = ClosureModule { binder in
            binder.bind(H20BPluginHost.self).to(H20BPluginHost.init(plugins:))
        }
        let report = try Injector.unvalidated(host).validationReport()
        let problem = try #require(report.problems.first)
        #expect(report.problems.count == 1)
        #expect(problem.code == .emptyMultibinding)
        #expect(problem.message.contains("[any H20BPlugin]"))
        #expect(problem.hint.contains("binder.multibind((any H20BPlugin).self)"))
        let injector = try Injector(
            host,
            ClosureModule { binder in binder.multibind((any H20BPlugin).self).to(H20BAuditPlugin.init) }
        )
        #expect(injector.validationReport().isValid)
        #expect(try injector.get(H20BPluginHost.self).plugins.count == 1)
    }

    /// A cycle through a protocol key is reported once, with the cycle in Swift syntax.
    @Test func cycleThroughProtocolKeyReportedOnce() throws {
        let report = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind((any H20BUsers).self).to(H20BUserStore.init(sessions:))
                binder.bind(H20BSessions.self).to(H20BSessions.init(users:))
            }
        ).validationReport()
        #expect(report.problems.count == 1)
        let problem = try #require(report.problems.first)
        #expect(problem.code == .cycle)
        #expect(problem.description.contains("any H20BUsers"))
        #expect(problem.description.contains("H20BSessions"))
        #expect(problem.hint.contains("Provider"))
    }

    /// The same pair with a `Provider` on the way back validates, and resolves.
    @Test func providerEdgeClosesLoopWithoutProblem() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind((any H20BUsers).self).to(H20BLazyUserStore.init(sessions:)).in(.singleton)
                binder.bind(H20BLazySessions.self).to(H20BLazySessions.init(users:))
            }
        )
        #expect(injector.validationReport().isValid)
        let users = try injector.get((any H20BUsers).self)
        let store = try #require(users as? H20BLazyUserStore)
        #expect(try store.sessions.users.get() is H20BLazyUserStore)
    }

    /// A singleton cache captures the request's scoped context through a transient protocol key: the
    /// problem is `captiveDependency`, with the path through the protocol key and both lifetimes named.
    @Test func captiveThroughTransientProtocolKey() throws {
        let report = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(H20BRequestContext.self).to(H20BRequestContext.init).in(.scoped)
                binder.bind((any H20BFormatter).self).to(H20BContextFormatter.init(context:))
                binder.bind(H20BFormatCache.self).to(H20BFormatCache.init(formatter:)).in(.singleton)
            }
        ).validationReport()
        #expect(report.problems.count == 1)
        let problem = try #require(report.problems.first)
        #expect(problem.code == .captiveDependency)
        #expect(
            problem.path == [
                BindingKey(H20BFormatCache.self), BindingKey((any H20BFormatter).self),
                BindingKey(H20BRequestContext.self),
            ]
        )
        #expect(problem.message.contains("singleton") && problem.message.contains("scoped"))
        #expect(problem.hint.contains("H20BFormatCache"))
    }

    /// A singleton whose closure declares a named scoped key: captive, with the name in the message.
    @Test func captiveThroughDeclaredNamedKey() throws {
        let report = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(H20BRequestContext.self, named: "current").to(H20BRequestContext.init).in(.scoped)
                binder.bind(H20BCache.self).to(dependencies: [BindingKey(H20BRequestContext.self, named: "current")]) {
                    resolver in
                    _ = try resolver.get(H20BRequestContext.self, named: "current")
                    return H20BCache()
                }.in(.singleton)
            }
        ).validationReport()
        #expect(report.problems.count == 1)
        let problem = try #require(report.problems.first)
        #expect(problem.code == .captiveDependency)
        #expect(problem.message.contains("H20BRequestContext named \"current\""))
    }

    /// A healthy daemon graph of every lifetime pairing that is allowed: scoped over singleton,
    /// transient over scoped, singleton over transient, a multibinding with a singleton element, an
    /// optional of an unbound type. No problem at all.
    @Test func healthyMixedLifetimesHaveNoProblems() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H20BCache.self).to(H20BCache.init).in(.singleton)
                binder.bind(H20BRequestContext.self).to { (_: H20BCache) in H20BRequestContext() }.in(.scoped)
                binder.bind((any H20BFormatter).self).to(H20BContextFormatter.init(context:))
                binder.bind((any H20BGateway).self).to(H20BStripeGateway.init)
                binder.bind(H20BCheckout.self).to(H20BCheckout.init(gateway:)).in(.singleton)
                binder.multibind((any H20BPlugin).self).to(H20BAuditPlugin.init).in(.singleton)
                binder.bind(H20BPluginHost.self).to(H20BPluginHost.init(plugins:)).in(.scoped)
                binder.bind(H20BOptionalUser.self).to(H20BOptionalUser.init(cache:))
            }
        )
        let report = injector.validationReport()
        #expect(report.problems.isEmpty)
        #expect(report.uncheckedBindings.isEmpty)
    }

    /// A generic type and a dictionary of it, missing: named in Swift syntax in the message and the hint.
    @Test func genericTypeNamesInSwiftSyntax() throws {
        let report = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(H20BBoxUser.self).to(H20BBoxUser.init(boxes:))
            }
        ).validationReport()
        let problem = try #require(report.problems.first)
        #expect(problem.message.contains("[String: H20BBox<Int>]"))
        #expect(problem.hint.contains("binder.bind([String: H20BBox<Int>].self).to(...)"))
    }

    /// A closure binding resolves through its resolver a service whose dependency is missing, at run
    /// time (unvalidated injector): the error's path runs from the closure's key through the service
    /// to the missing protocol key.
    @Test func runTimeMissingBindingThroughClosureHasWholePath() throws {
        let injector = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(H20BApp.self).to { resolver in H20BApp(checkout: try resolver.get(H20BCheckout.self)) }
                binder.bind(H20BCheckout.self).to(H20BCheckout.init(gateway:))
            }
        )
        let result = Hunt5.result { () throws(ProvisionError) in try injector.get(H20BApp.self) }
        let error = try #require(result.hunt5Error)
        #expect(error.code == .notBound)
        #expect(
            error.path == [BindingKey(H20BApp.self), BindingKey(H20BCheckout.self), BindingKey((any H20BGateway).self)])
        #expect(error.description.contains("binder.bind((any H20BGateway).self)"))
    }

    /// A plugin installed into a running injector with a missing dependency: `validate()` reports it,
    /// while the injector's other bindings keep resolving.
    @Test func validateAfterInstallingBrokenPlugin() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H20BCache.self).to(H20BCache.init).in(.singleton)
            }
        )
        try injector.install(ClosureModule { binder in binder.bind(H20BCheckout.self).to(H20BCheckout.init(gateway:)) })
        let error = try #require(Hunt5.result { () throws(ProvisionError) in try injector.validate() }.hunt5Error)
        #expect(error.code == .validationFailed)
        #expect(error.underlyingErrors.count == 1)
        #expect(error.underlyingErrors.first?.key == BindingKey((any H20BGateway).self))
        #expect(try injector.get(H20BCache.self) === injector.get(H20BCache.self))
    }

    /// A singleton over an optional of a scoped binding holds the request's context as surely as one
    /// over the context itself: validation reports `captiveDependency` with the path to the context.
    @Test func captiveThroughOptionalOfScoped() throws {
        let report = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(H20BRequestContext.self).to(H20BRequestContext.init).in(.scoped)
                binder.bind(H20BOptionalContextCache.self).to(H20BOptionalContextCache.init(context:)).in(.singleton)
            }
        ).validationReport()
        #expect(report.problems.map(\.code) == [.captiveDependency], "\(report)")
        #expect(report.problems.first?.path.first == BindingKey(H20BOptionalContextCache.self))
        #expect(report.problems.first?.path.last == BindingKey(H20BRequestContext.self))
    }

    /// A singleton over a list whose one element is built from the scoped context: `captiveDependency`,
    /// with a path that reaches the context.
    @Test func captiveThroughListWithScopedElement() throws {
        let report = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(H20BRequestContext.self).to(H20BRequestContext.init).in(.scoped)
                binder.multibind((any H20BPlugin).self).to(H20BAuditPlugin.init)
                binder.multibind((any H20BPlugin).self).to(H20BRequestPlugin.init(context:))
                binder.bind(H20BPluginHost.self).to(H20BPluginHost.init(plugins:)).in(.singleton)
            }
        ).validationReport()
        #expect(report.problems.map(\.code) == [.captiveDependency], "\(report)")
        #expect(report.problems.first?.path.first == BindingKey(H20BPluginHost.self))
        #expect(report.problems.first?.path.last == BindingKey(H20BRequestContext.self))
    }

    /// An optional of a bound type is still built: a loop through it is a cycle, reported by validation
    /// (and a request fails with `cycle`, not a crash).
    @Test func cycleThroughOptionalOfBoundType() throws {
        let injector = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(H20BReporter.self).to(H20BReporter.init(auditor:))
                binder.bind(H20BAuditor.self).to(H20BAuditor.init(reporter:))
            }
        )
        let report = injector.validationReport()
        #expect(report.problems.map(\.code) == [.cycle], "\(report)")
        let result = Hunt5.result { () throws(ProvisionError) in try injector.get(H20BReporter.self) }
        #expect(result.hunt5Error?.code == .cycle)
    }

    /// A loop through a multibinding (the registry lists a plugin that needs the registry): one cycle,
    /// reported with both types in it.
    @Test func cycleThroughMultibindingElement() throws {
        let injector = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(H20BRegistry.self).to(H20BRegistry.init(plugins:)).in(.singleton)
                binder.multibind((any H20BPlugin).self).to(H20BRegistryPlugin.init(registry:))
            }
        )
        let report = injector.validationReport()
        #expect(report.problems.map(\.code) == [.cycle], "\(report)")
        let description = report.problems.first?.description ?? ""
        #expect(description.contains("H20BRegistry") && description.contains("[any H20BPlugin]"))
        let result = Hunt5.result { () throws(ProvisionError) in try injector.get(H20BRegistry.self) }
        #expect(result.hunt5Error?.code == .cycle)
    }

    /// A job's scope opened without its seed: the runner's request fails with `notSeeded`, whose path
    /// runs from the runner through both scoped services to the seed, and whose hint says where to
    /// provide it.
    @Test func missingSeedAtDepthHasWholePath() async throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H20BJob.self).toSeed()
                binder.bind(H20BJobContext.self).to { (job: H20BJob) in H20BJobContext(job: job, disposals: Counter()) }
                    .in(.scoped)
                binder.bind(H20BJobTransaction.self).to(H20BJobTransaction.init(context:)).in(.scoped)
                binder.bind(H20BJobRunner.self).to(H20BJobRunner.init(transaction:))
            }
        )
        let scope = injector.makeScope()
        let error = try #require(
            Hunt5.result { () throws(ProvisionError) in try scope.get(H20BJobRunner.self) }.hunt5Error)
        #expect(error.code == .notSeeded)
        #expect(
            error.path == [
                BindingKey(H20BJobRunner.self), BindingKey(H20BJobTransaction.self), BindingKey(H20BJobContext.self),
                BindingKey(H20BJob.self),
            ]
        )
        #expect(error.message.contains("H20BJob"))
        #expect(error.hint.contains("seed.provide"))
        try await scope.close()
    }

    /// A scoped factory two levels down throws: the error's path names every key, nothing is cached in
    /// the scope (the next request builds again and succeeds), and the close disposes the one context
    /// built, once.
    @Test func scopedFactoryFailingAtDepthRetriesInSameScope() async throws {
        let attempts = Counter()
        let disposals = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(H20BJob.self).toSeed()
                binder.bind(H20BJobContext.self).to { (job: H20BJob) in
                    if attempts.increment() == 1 { throw ExpectedFailure(id: job.id) }
                    return H20BJobContext(job: job, disposals: disposals)
                }.in(.scoped)
                binder.bind(H20BJobTransaction.self).to(H20BJobTransaction.init(context:)).in(.scoped)
                binder.bind(H20BJobRunner.self).to(H20BJobRunner.init(transaction:))
            }
        )
        let scope = try injector.makeScope { seed in seed.provide(H20BJob(id: 4)) }
        let error = try #require(
            Hunt5.result { () throws(ProvisionError) in try scope.get(H20BJobRunner.self) }.hunt5Error)
        #expect(error.code == .factoryFailed)
        #expect(
            error.path == [
                BindingKey(H20BJobRunner.self), BindingKey(H20BJobTransaction.self), BindingKey(H20BJobContext.self),
            ]
        )
        #expect(error.cause as? ExpectedFailure == ExpectedFailure(id: 4))
        let runner = try Hunt5.result { () throws(ProvisionError) in try scope.get(H20BJobRunner.self) }.get()
        #expect(runner.transaction.context.job.id == 4)
        try await scope.close()
        #expect(disposals.value == 1)
    }

    /// A thread gives up waiting for another thread's build of a slow singleton: `timedOut`, naming the
    /// singleton and the wait, with the path from its own request; the build then completes once, and
    /// later requests get its instance.
    @Test func waitTimeoutNamesKeyPathAndDuration() async throws {
        let hold = Hunt5.Hold()
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(H20BSlowIndex.self).to {
                        hold.run()
                        return H20BSlowIndex()
                    }.in(.singleton)
                    binder.bind(H20BSearch.self).to(H20BSearch.init(index:))
                }
            ],
            configuration: Injector.Configuration(singletonWaitTimeout: .milliseconds(200))
        )
        let builder = Hunt5.Request { () throws(ProvisionError) in try injector.get(H20BSearch.self) }
        #expect(await Hunt5.wait(for: hold.entered))
        let waiter = Hunt5.Request { () throws(ProvisionError) in try injector.get(H20BSearch.self) }
        let waited = try #require(await waiter.result())
        let error = try #require(waited.hunt5Error)
        #expect(error.code == .timedOut)
        #expect(error.path == [BindingKey(H20BSearch.self), BindingKey(H20BSlowIndex.self)])
        #expect(error.message.contains("H20BSlowIndex") && error.message.contains("0.2 seconds"))
        hold.release.signal()
        let built = try #require(await builder.result()).get()
        #expect(try await injector.get(H20BSearch.self).index === built.index)
        #expect(hold.builds.value == 1)
    }
}
