import Provision
import Swinject

/// Every single-threaded scenario of the default suite, in report order.
enum Scenarios {
    static var all: [Scenario] {
        resolution + creation + diagnostics
    }

    // MARK: Resolution

    static var resolution: [Scenario] {
        [
            Scenario(
                name: "singleton hit",
                provision: {
                    let injector = try Injector(SmallModule())
                    _ = try injector.get(BenchSingleton.self)
                    return repeating { try injector.get(BenchSingleton.self) }
                },
                handWired: {
                    let holder = SingletonHolder()
                    return repeating { holder.get() }
                },
                swinject: {
                    let resolver = makeSmallContainer().synchronize()
                    return repeating { resolved(resolver, BenchSingleton.self) }
                }
            ),
            Scenario(
                name: "transient leaf",
                provision: {
                    let injector = try Injector(SmallModule())
                    return repeating { try injector.get(BenchLeaf.self) }
                },
                handWired: { repeating { makeLeaf() } },
                swinject: {
                    let resolver = makeSmallContainer().synchronize()
                    return repeating { resolved(resolver, BenchLeaf.self) }
                }
            ),
            deep(10, DeepChain10Module(), makeDeepChain10Container, Deep10x0.self) {
                let hand = DeepChain10HandWired()
                return repeating { hand.makeDeep10x0() }
            },
            deep(100, DeepChain100Module(), makeDeepChain100Container, Deep100x0.self) {
                let hand = DeepChain100HandWired()
                return repeating { hand.makeDeep100x0() }
            },
            // Swinject 2.10 stops any resolution nested deeper than 200 (`maxResolutionDepth`, fixed) with
            // a fatal error, so it can't build this chain at all.
            deep(
                1000,
                swinjectUnsupported: "n/a: depth > 200",
                DeepChain1000Module(),
                makeDeepChain1000Container,
                Deep1000x0.self
            ) {
                let hand = DeepChain1000HandWired()
                return repeating { hand.makeDeep1000x0() }
            },
            wide("wide, 10 leaves", root: "10") { WideRoot(leaves: Wide10.makeLeaves()) },
            wide("wide, 100 leaves", root: "100") { WideRoot(leaves: Wide100.makeLeaves()) },
            wide("wide, 1000 leaves", root: "1000") { WideRoot(leaves: Wide1000.makeLeaves()) },
            Scenario(
                name: "transient root, 100 singleton leaves",
                provision: {
                    let injector = try Injector(SmallModule())
                    return repeating { try injector.get(WideRoot.self, named: "singletons") }
                },
                handWired: {
                    let hand = SingletonLeavesHandWired()
                    return repeating { WideRoot(leaves: hand.makeLeaves()) }
                },
                swinject: {
                    let resolver = makeSmallContainer().synchronize()
                    return repeating { resolved(resolver, WideRoot.self, named: "singletons") }
                }
            ),
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
                swinject: mixedSwinject
            ),
            Scenario(
                name: "named lookup",
                provision: {
                    let injector = try Injector(SmallModule())
                    return repeating { try injector.get(BenchNamed.self, named: "primary") }
                },
                handWired: {
                    let factories: [String: () -> BenchNamed] = [
                        "primary": BenchNamed.init, "secondary": BenchNamed.init,
                    ]
                    return repeating {
                        guard let factory = factories["primary"] else { preconditionFailure("di-bench: no factory") }
                        return factory()
                    }
                },
                swinject: {
                    let resolver = makeSmallContainer().synchronize()
                    return repeating { resolved(resolver, BenchNamed.self, named: "primary") }
                }
            ),
            Scenario(
                name: "resolve with arguments",
                provision: {
                    let injector = try Injector(SmallModule())
                    return repeating { try injector.get(BenchJob.self, arguments: "job", 7) }
                },
                handWired: { repeating { BenchJob(name: "job", priority: 7, leaf: makeLeaf()) } },
                swinject: {
                    let resolver = makeSmallContainer().synchronize()
                    return repeating {
                        guard let job = resolver.resolve(BenchJob.self, arguments: "job", 7) else {
                            preconditionFailure("di-bench: Swinject could not resolve BenchJob")
                        }
                        return job
                    }
                }
            ),
            Scenario(
                name: "Provider<T>.get()",
                provision: {
                    let injector = try Injector(SmallModule())
                    let provider = try injector.get(Provision.Provider<BenchLeaf>.self)
                    // The provider refers to its injector weakly: the workload keeps the injector alive.
                    return repeating { try withExtendedLifetime(injector) { try provider.get() } }
                },
                handWired: {
                    let provider: () -> BenchLeaf = makeLeaf
                    return repeating { provider() }
                },
                swinject: {
                    // Swinject 2.10 has no Provider type: a closure over the resolver is its equivalent.
                    let resolver = makeSmallContainer().synchronize()
                    let provider = { resolved(resolver, BenchLeaf.self) }
                    return repeating { provider() }
                }
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

    private static func deep<Root: AnyObject>(
        _ length: Int,
        swinjectUnsupported: String? = nil,
        _ module: some Module,
        _ container: @escaping () -> Container,
        _ root: Root.Type,
        hand: @escaping () throws -> Sampler.Workload
    ) -> Scenario {
        Scenario(
            name: "deep chain of \(length)",
            provision: {
                let injector = try Injector(module)
                return repeating { try injector.get(root) }
            },
            handWired: hand,
            swinject: {
                let resolver = container().synchronize()
                return repeating { resolved(resolver, root) }
            },
            swinjectUnsupported: swinjectUnsupported
        )
    }

    private static func wide(_ name: String, root: String, hand: @escaping () -> WideRoot) -> Scenario {
        Scenario(
            name: name,
            provision: {
                let injector = try Injector(SmallModule())
                return repeating { try injector.get(WideRoot.self, named: root) }
            },
            handWired: { repeating(hand) },
            swinject: {
                let resolver = makeSmallContainer().synchronize()
                return repeating { resolved(resolver, WideRoot.self, named: root) }
            }
        )
    }

    private static func creationScenario(_ name: String, names: [String?], eager: Bool) -> Scenario {
        Scenario(
            name: name,
            provision: {
                let module = CreationModule(names: names, eager: eager)
                return repeating { try Injector(module) }
            },
            handWired: {
                repeating {
                    var table: [HandKey: () -> AnyObject] = [:]
                    table.reserveCapacity(names.count * 1_000)
                    for name in names {
                        Wide1000.addFactories(to: &table, named: name ?? "")
                    }
                    let box = FactoryTable(table)
                    if eager { box.singletons = SingletonLeavesHandWired() }
                    return box
                }
            },
            swinject: {
                repeating {
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

@inline(never)
func makeLeaf() -> BenchLeaf {
    BenchLeaf()
}

/// Resolves a named Swinject registration that the benchmark made itself.
func resolved<T>(_ resolver: any Swinject.Resolver, _ type: T.Type, named name: String) -> T {
    guard let value = resolver.resolve(type, name: name) else {
        preconditionFailure("di-bench: Swinject could not resolve \(T.self) named \(name)")
    }
    return value
}
