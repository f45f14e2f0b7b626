import Dependencies
import Provision
import Swinject

/// Every single-threaded scenario of the default suite, in report order.
enum Scenarios {
    static var all: [Scenario] {
        resolution + scopes + creation + diagnostics
    }

    // MARK: Resolution

    // Every column's operation runs in the measuring loop itself (`inlinedLoop`), where the optimizer
    // may inline it, as it would in a user's own function. The hand-wired column is the floor each
    // scenario is measured against: the fastest natural code for the same objects. What each floor is:
    // - singleton hit: a `let` read (the instance was built once at start-up);
    // - transients: one nested initializer call per operation, every object allocated;
    // - roots whose leaves are singletons: the root's initializer given the stored leaves.

    static var resolution: [Scenario] {
        [
            Scenario(
                name: "singleton hit",
                provision: {
                    let injector = try Injector(SmallModule())
                    _ = try injector.get(BenchSingleton.self)
                    return { count in try inlinedLoop(count) { try injector.get(BenchSingleton.self) } }
                },
                // Floor: the stored `let` handed to the checksum at every operation (the optimizer may
                // hoist the load itself out of the loop: a `let` can't change).
                handWired: {
                    let holder = SingletonHolder()
                    return { count in inlinedLoop(count) { holder.singleton } }
                },
                swinject: .setup {
                    let resolver = makeSmallContainer().synchronize()
                    return { count in inlinedLoop(count) { resolved(resolver, BenchSingleton.self) } }
                },
                swiftDependencies: .setup { readingDependency(\.benchSingleton) { $0 } }
            ),
            Scenario(
                name: "transient leaf",
                provision: {
                    let injector = try Injector(SmallModule())
                    return { count in try inlinedLoop(count) { try injector.get(BenchLeaf.self) } }
                },
                // Floor: one allocation and its release per operation.
                handWired: { { count in inlinedLoop(count) { BenchLeaf() } } },
                swinject: .setup {
                    let resolver = makeSmallContainer().synchronize()
                    return { count in inlinedLoop(count) { resolved(resolver, BenchLeaf.self) } }
                },
                swiftDependencies: .setup { readingDependency(\.benchLeaf) { $0() } }
            ),
            // Floor of the chains: the chain as one nested initializer call (the chain of 1,000 is cut
            // every 50 links into functions that aren't inlined: 20 calls in 1,000 allocations).
            deep(10, DeepChain10Module(), makeDeepChain10Container, \.deep10x0) {
                { count in inlinedLoop(count) { DeepChain10HandWired.make() } }
            },
            deep(100, DeepChain100Module(), makeDeepChain100Container, \.deep100x0) {
                { count in inlinedLoop(count) { DeepChain100HandWired.make() } }
            },
            // Swinject 2.10 stops any resolution nested deeper than 200 (`maxResolutionDepth`, fixed) with
            // a fatal error, so it can't build this chain at all.
            deep(1000, DeepChain1000Module(), nil, \.deep1000x0) {
                { count in inlinedLoop(count) { DeepChain1000HandWired.make() } }
            },
            // The wide roots come in two forms. "(array)": a closure binding that resolves each leaf into
            // an array; its floor is one array literal of initializer calls. "(initializer)": a root
            // whose initializer takes each leaf, bound to that initializer; its floor is one nested
            // initializer call.
            wideArray("wide, 10 leaves (array)", root: "10", \.wide10ArrayRoot) {
                { count in inlinedLoop(count) { Wide10.makeArrayRoot() } }
            },
            wideInitializer("wide, 10 leaves (initializer)", Wide10Root.self, \.wide10Root) {
                { count in inlinedLoop(count) { Wide10.makeRoot() } }
            },
            wideArray("wide, 100 leaves (array)", root: "100", \.wide100ArrayRoot) {
                { count in inlinedLoop(count) { Wide100.makeArrayRoot() } }
            },
            wideInitializer("wide, 100 leaves (initializer)", Wide100Root.self, \.wide100Root) {
                { count in inlinedLoop(count) { Wide100.makeRoot() } }
            },
            // The 1,000 leaves are appended in chunks of 50 (compile time), as in the other columns.
            wideArray("wide, 1000 leaves (array)", root: "1000", \.wide1000ArrayRoot) {
                { count in inlinedLoop(count) { Wide1000.makeArrayRoot() } }
            },
            // Floor: a new root per operation given the 100 stored singletons.
            wideArray("transient root, 100 singleton leaves (array)", root: "singletons", \.singletonLeavesArrayRoot) {
                let hand = SingletonLeavesHandWired()
                return { count in inlinedLoop(count) { hand.makeArrayRoot() } }
            },
            wideInitializer(
                "transient root, 100 singleton leaves (initializer)",
                SingletonLeavesRoot.self,
                \.singletonLeavesRoot
            ) {
                let hand = SingletonLeavesHandWired()
                return { count in inlinedLoop(count) { hand.makeRoot() } }
            },
            Scenario(
                name: "mixed daemon graph (\(MixedGraph.serviceCount) services)",
                provision: {
                    let injector = try Injector(MixedGraphModule())
                    return { count in
                        var sink: UInt = 0
                        for _ in 0..<count { sink ^= try MixedGraph.resolveRoots(injector) }
                        return sink
                    }
                },
                handWired: mixedHandWired,
                swinject: .setup(mixedSwinject),
                swiftDependencies: .setup(mixedSwiftDependencies)
            ),
            Scenario(
                name: "named lookup",
                provision: {
                    let injector = try Injector(SmallModule())
                    return { count in try inlinedLoop(count) { try injector.get(BenchNamed.self, named: "primary") } }
                },
                handWired: {
                    let factories: [String: () -> BenchNamed] = [
                        "primary": BenchNamed.init, "secondary": BenchNamed.init,
                    ]
                    return { count in
                        inlinedLoop(count) {
                            guard let factory = factories["primary"] else {
                                preconditionFailure("di-bench: no factory")
                            }
                            return factory()
                        }
                    }
                },
                swinject: .setup {
                    let resolver = makeSmallContainer().synchronize()
                    return { count in inlinedLoop(count) { resolved(resolver, BenchNamed.self, named: "primary") } }
                },
                // Keys are types: a second implementation of a service is a second key type, which is the
                // "transient leaf" scenario again.
                swiftDependencies: .unsupported("n/a: no named keys")
            ),
            Scenario(
                name: "resolve with arguments",
                provision: {
                    let injector = try Injector(SmallModule())
                    return { count in try inlinedLoop(count) { try injector.get(BenchJob.self, arguments: "job", 7) } }
                },
                handWired: {
                    { count in inlinedLoop(count) { BenchJob(name: "job", priority: 7, leaf: BenchLeaf()) } }
                },
                swinject: .setup {
                    let resolver = makeSmallContainer().synchronize()
                    return { count in
                        inlinedLoop(count) {
                            guard let job = resolver.resolve(BenchJob.self, arguments: "job", 7) else {
                                preconditionFailure("di-bench: Swinject could not resolve BenchJob")
                            }
                            return job
                        }
                    }
                },
                // A client endpoint that takes the arguments and reads the leaf with @Dependency.
                swiftDependencies: .setup { readingDependency(\.benchJob) { $0.make("job", 7) } }
            ),
            Scenario(
                name: "Provider<T>.get()",
                provision: {
                    let injector = try Injector(SmallModule())
                    let provider = try injector.get(Provision.Provider<BenchLeaf>.self)
                    // The provider refers to its injector weakly: the workload keeps the injector alive.
                    return { count in
                        try inlinedLoop(count) { try withExtendedLifetime(injector) { try provider.get() } }
                    }
                },
                // Floor: a stored closure called (the optimizer may see through it).
                handWired: {
                    let provider: () -> BenchLeaf = { BenchLeaf() }
                    return { count in inlinedLoop(count) { provider() } }
                },
                swinject: .setup {
                    let resolver = makeSmallContainer().synchronize()
                    let provider = resolved(resolver, Swinject.Provider<BenchLeaf>.self)
                    return { count in inlinedLoop(count) { provider.instance } }
                },
                // A feature holding `@Dependency` across calls, read at each call.
                swiftDependencies: .setup {
                    let feature = LeafFeature()
                    return { count in inlinedLoop(count) { feature.makeLeaf() } }
                }
            ),
            Scenario(
                name: "Lazy<T>.value (built)",
                provision: {
                    let injector = try Injector(SmallModule())
                    let lazy = try injector.get(Provision.Lazy<BenchLeaf>.self)
                    _ = try lazy.value
                    return { count in try inlinedLoop(count) { try withExtendedLifetime(injector) { try lazy.value } } }
                },
                // Floor: a thread-safe lazy reference that is set already (Synchronization's
                // `AtomicLazyReference`), read.
                handWired: {
                    let lazy = HandLazy()
                    _ = lazy.value
                    return { count in inlinedLoop(count) { lazy.value } }
                },
                // Swinject's `Lazy` (which doesn't lock: it is not for sharing across threads).
                swinject: .setup {
                    let resolver = makeSmallContainer().synchronize()
                    let lazy = resolved(resolver, Swinject.Lazy<BenchLeaf>.self)
                    _ = lazy.instance
                    return { count in inlinedLoop(count) { lazy.instance } }
                },
                swiftDependencies: .unsupported("n/a: no lazy handle")
            ),
        ]
    }

    // MARK: Injector creation

    static var creation: [Scenario] {
        [
            creationScenario("injector creation, 1k bindings", names: [nil], eager: false),
            creationScenario(
                "injector creation, 10k bindings",
                names: (0..<10).map { "copy \($0)" },
                eager: false
            ),
            creationScenario("injector creation, 1k bindings + 100 eager singletons", names: [nil], eager: true),
        ]
    }

    // MARK: Builders

    /// The hand-wired workload of the mixed daemon graph: every root built once per operation.
    static func mixedHandWired() -> Sampler.Workload {
        let hand = MixedGraphHandWired()
        return { count in
            var sink: UInt = 0
            for _ in 0..<count { sink ^= MixedGraph.makeRoots(hand) }
            return sink
        }
    }

    /// The Swinject workload of the mixed daemon graph: every root resolved once per operation.
    static func mixedSwinject() -> Sampler.Workload {
        let resolver = makeMixedGraphContainer().synchronize()
        return { count in
            var sink: UInt = 0
            for _ in 0..<count { sink ^= MixedGraph.resolveRoots(resolver) }
            return sink
        }
    }

    /// The swift-dependencies workload of the mixed daemon graph: every root read and built once per
    /// operation.
    static func mixedSwiftDependencies() -> Sampler.Workload {
        { count in
            var sink: UInt = 0
            for _ in 0..<count { sink ^= MixedGraph.dependencyRoots() }
            return sink
        }
    }

    private static func deep<Root: AnyObject>(
        _ length: Int,
        _ module: some Module,
        _ container: (() -> Container)?,
        _ keyPath: any KeyPath<DependencyValues, TransientFactory<Root>> & Sendable,
        hand: @escaping () throws -> Sampler.Workload
    ) -> Scenario {
        Scenario(
            name: "deep chain of \(length)",
            provision: {
                let injector = try Injector(module)
                return { count in try inlinedLoop(count) { try injector.get(Root.self) } }
            },
            handWired: hand,
            swinject: container.map { container in
                .setup {
                    let resolver = container().synchronize()
                    return { count in inlinedLoop(count) { resolved(resolver, Root.self) } }
                }
            } ?? .unsupported("n/a: depth > 200"),
            swiftDependencies: .setup { readingDependency(keyPath) { $0() } }
        )
    }

    /// A root bound by name to a closure that resolves each leaf into an array.
    private static func wideArray(
        _ name: String,
        root: String,
        _ keyPath: any KeyPath<DependencyValues, TransientFactory<WideRoot>> & Sendable,
        hand: @escaping () throws -> Sampler.Workload
    ) -> Scenario {
        Scenario(
            name: name,
            provision: {
                let injector = try Injector(SmallModule())
                return { count in try inlinedLoop(count) { try injector.get(WideRoot.self, named: root) } }
            },
            handWired: hand,
            swinject: .setup {
                let resolver = makeSmallContainer().synchronize()
                return { count in inlinedLoop(count) { resolved(resolver, WideRoot.self, named: root) } }
            },
            swiftDependencies: .setup { readingDependency(keyPath) { $0() } }
        )
    }

    /// A root whose initializer takes each leaf, bound to that initializer.
    private static func wideInitializer<Root: AnyObject>(
        _ name: String,
        _ root: Root.Type,
        _ keyPath: any KeyPath<DependencyValues, TransientFactory<Root>> & Sendable,
        hand: @escaping () throws -> Sampler.Workload
    ) -> Scenario {
        Scenario(
            name: name,
            provision: {
                let injector = try Injector(SmallModule())
                return { count in try inlinedLoop(count) { try injector.get(root) } }
            },
            handWired: hand,
            swinject: .setup {
                let resolver = makeSmallContainer().synchronize()
                return { count in inlinedLoop(count) { resolved(resolver, root) } }
            },
            swiftDependencies: .setup { readingDependency(keyPath) { $0() } }
        )
    }

    private static func creationScenario(_ name: String, names: [String?], eager: Bool) -> Scenario {
        Scenario(
            name: name,
            provision: {
                let module = CreationModule(names: names, eager: eager)
                // Creation alone, without the validation an injector runs by default: these scenarios
                // measure creating the injector, as the other columns create theirs (none validates),
                // and "validate, 10k bindings" measures validation on its own.
                let unvalidated = Injector.Configuration(validatesOnCreation: false)
                return { count in
                    try inlinedLoop(count) { try Injector(modules: [module], configuration: unvalidated) }
                }
            },
            handWired: {
                { count in
                    inlinedLoop(count) {
                        var table: [HandKey: () -> AnyObject] = [:]
                        table.reserveCapacity(names.count * 1_000)
                        for name in names {
                            Wide1000.addFactories(to: &table, named: name ?? "")
                        }
                        let box = FactoryTable(table)
                        if eager { box.singletons = SingletonLeavesHandWired() }
                        return box
                    }
                }
            },
            swinject: .setup {
                { count in
                    inlinedLoop(count) {
                        let container = Container()
                        for name in names {
                            Wide1000.registerLeaves(container, named: name)
                        }
                        if eager {
                            SingletonLeaves.registerLeaves(container)
                            _ = SingletonLeaves.resolveLeaves(container)
                        }
                        return container
                    }
                }
            },
            // swift-dependencies has no container to create: its keys are types, registered when the
            // program is compiled, and each live value is built on first use.
            swiftDependencies: .unsupported("n/a: no container")
        )
    }
}

/// The hand-wired registry of the creation scenarios.
final class FactoryTable {
    let table: [HandKey: () -> AnyObject]
    var singletons: SingletonLeavesHandWired?

    init(_ table: [HandKey: () -> AnyObject]) {
        self.table = table
    }
}

/// A module of 1,000 bindings per name (and optionally 100 eager singletons).
struct CreationModule: Module {
    let names: [String?]
    let eager: Bool

    func configure(_ binder: Binder) {
        for name in names {
            Wide1000.bindLeaves(binder, named: name)
        }
        if eager {
            SingletonLeaves.bindEagerLeaves(binder)
        }
    }
}

/// Resolves a named Swinject registration that the benchmark made itself.
func resolved<T>(_ resolver: any Swinject.Resolver, _ type: T.Type, named name: String) -> T {
    guard let value = resolver.resolve(type, name: name) else {
        preconditionFailure("di-bench: Swinject could not resolve \(T.self) named \(name)")
    }
    return value
}
