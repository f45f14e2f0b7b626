import Testing

@testable import Provision

// Hunt 21B, part 3: the Objective-C seeds' behaviours in the shapes the Seeds tests don't cover:
// eager singletons in children, named and property-injected; their module order and failures;
// providers in child injectors and with arguments under a named protocol; property injection into
// an object typed as its superclass and through a delegation; with() and without().

final class Hunt21BEngine: Sendable {
    init(counts: Hunt21BCounts, name: String) { counts.bump(name) }
}

/// A singleton with injected properties, marked eager.
final class Hunt21BDashboard: PropertyInjectable, @unchecked Sendable {
    var engine: Hunt21BEngine?
    var config: Hunt21BConfig?
    let counts: Hunt21BCounts
    init(counts: Hunt21BCounts) {
        self.counts = counts
        counts.bump("dashboard")
    }

    class var injectedProperties: [InjectedProperty] {
        [.inject(\Hunt21BDashboard.engine), .inject(\Hunt21BDashboard.config)]
    }

    func didInjectDependencies() {
        counts.bump(engine != nil && config != nil ? "dashboard.hook.filled" : "dashboard.hook.empty")
    }
}

/// A vehicle hierarchy whose subclass declares one more property.
class Hunt21BVehicle: PropertyInjectable, @unchecked Sendable {
    var engine: Hunt21BEngine?
    private(set) var hooks = 0
    init() {}

    class var injectedProperties: [InjectedProperty] { [.inject(\Hunt21BVehicle.engine)] }
    func didInjectDependencies() { hooks += 1 }
}

final class Hunt21BTruck: Hunt21BVehicle, @unchecked Sendable {
    var config: Hunt21BConfig?

    override class var injectedProperties: [InjectedProperty] {
        super.injectedProperties + [.inject(\Hunt21BTruck.config)]
    }
}

/// A self-declaring singleton a child marks eager.
final class Hunt21BScheduler: Injectable, Sendable {
    static let injection = Injection(Hunt21BScheduler.init(counts:)).in(.singleton)
    init(counts: Hunt21BCounts) { counts.bump("scheduler") }
}

protocol Hunt21BCarrier: Sendable {
    var plate: String { get }
}

final class Hunt21BVan: Hunt21BCarrier {
    let plate: String
    let engine: Hunt21BEngine
    init(plate: String, engine: Hunt21BEngine) {
        self.plate = plate
        self.engine = engine
    }
}

/// Objection's provider class: builds a van from the resolving injector.
struct Hunt21BVanProvider: ServiceProvider {
    let counts: Hunt21BCounts

    func provide(_ resolver: Resolver, arguments: Void) throws -> Hunt21BVan {
        counts.bump("provider")
        return Hunt21BVan(plate: try resolver.get(Hunt21BConfig.self).port.description, engine: try resolver.get())
    }
}

final class Hunt21BGarage: Sendable {
    let carrier: any Hunt21BCarrier
    init(carrier: any Hunt21BCarrier) { self.carrier = carrier }
}

/// A provider with an argument: the plate.
struct Hunt21BPlateProvider: ServiceProvider {
    func provide(_ resolver: Resolver, arguments: String) throws -> any Hunt21BCarrier {
        Hunt21BVan(plate: arguments, engine: try resolver.get())
    }
}

struct Hunt21BStorageModule: Module {
    func configure(_ binder: Binder) {
        binder.bind(Hunt21BConfig.self).toInstance(Hunt21BConfig(port: 5432))
    }
}

struct Hunt21BReportingModule: Module {
    let counts: Hunt21BCounts
    func configure(_ binder: Binder) {
        binder.bind(Hunt21BCounts.self).toInstance(counts)
        binder.bind(Hunt21BPool.self).to(Hunt21BPool.init(config:counts:)).asEagerSingleton()
    }
}

@Suite("Hunt 21B: the seeds' eager singletons, providers and property injection, further", .timeLimit(.minutes(1)))
struct Hunt21BSeedTests {
    @Test("an eager singleton of a child's module is built by makeChild, once; the parent doesn't see it")
    func eagerInChild() throws {
        let counts = Hunt21BCounts()
        let parent = try Injector(ClosureModule { $0.bind(Hunt21BCounts.self).toInstance(counts) })
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(Hunt21BEngine.self).to { resolver in
                    Hunt21BEngine(counts: try resolver.get(), name: "engine")
                }.in(.singleton)
                binder.eager(Hunt21BEngine.self)
            })
        #expect(counts.count("engine") == 1, "built when the child is created")
        let engine = try child.get(Hunt21BEngine.self)
        #expect(try child.get(Hunt21BEngine.self) === engine)
        #expect(counts.count("engine") == 1)
        #expect(try parent.get(Hunt21BEngine?.self) == nil)
    }

    @Test("a named eager singleton is built at creation; the unnamed binding of its type is not")
    func namedEager() throws {
        let counts = Hunt21BCounts()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt21BEngine.self, named: "v8").to { Hunt21BEngine(counts: counts, name: "v8") }
                    .in(.singleton)
                binder.bind(Hunt21BEngine.self).to { Hunt21BEngine(counts: counts, name: "plain") }.in(.singleton)
                binder.eager(Hunt21BEngine.self, named: "v8")
            })
        #expect(counts.count("v8") == 1)
        #expect(counts.count("plain") == 0)
        #expect(try injector.get(Hunt21BEngine.self, named: "v8") !== injector.get(Hunt21BEngine.self))
        #expect(counts.count("v8") == 1)
    }

    @Test("an eager property-injected singleton is filled and woken once, when the injector is created")
    func eagerPropertyInjected() throws {
        let counts = Hunt21BCounts()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt21BConfig.self).toInstance(Hunt21BConfig(port: 1))
                binder.bind(Hunt21BEngine.self).to { Hunt21BEngine(counts: counts, name: "engine") }.in(.singleton)
                binder.bind(Hunt21BDashboard.self).to { Hunt21BDashboard(counts: counts) }.in(.singleton)
                binder.bind(Hunt21BDashboard.self, named: "built").to(Hunt21BDashboard.init(counts:)).in(.singleton)
                binder.bind(Hunt21BCounts.self).toInstance(counts)
                binder.eager(Hunt21BDashboard.self, named: "built")
            })
        #expect(counts.count("dashboard") == 1)
        #expect(counts.count("dashboard.hook.filled") == 1)
        let dashboard = try injector.get(Hunt21BDashboard.self, named: "built")
        #expect(dashboard.engine === (try injector.get(Hunt21BEngine.self)))
        #expect(counts.count("dashboard.hook.filled") == 1)
        #expect(counts.count("dashboard.hook.empty") == 0)
    }

    /// Found by hunt 21B, fixed: the eager keys of `asEagerSingleton()` bindings are built after every module's
    /// `eager(_:)` keys, so an earlier module's eager singleton is built after a later module's.
    @Test("eager keys are built in module order, whichever way each module marks them")
    func eagerModuleOrder() throws {
        let counts = Hunt21BCounts()
        _ = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt21BEngine.self, named: "first").to { Hunt21BEngine(counts: counts, name: "first") }
                    .asEagerSingleton()
            },
            ClosureModule { binder in
                binder.bind(Hunt21BEngine.self, named: "second").to { Hunt21BEngine(counts: counts, name: "second") }
                    .in(.singleton)
                binder.eager(Hunt21BEngine.self, named: "second")
            })
        #expect(counts.sequence == ["first", "second"])
    }

    @Test("an installed plugin's eager singleton is built by install(), over the running injector's bindings")
    func eagerInPlugin() throws {
        let counts = Hunt21BCounts()
        let injector = try Injector(
            Hunt21BStorageModule(), ClosureModule { $0.bind(Hunt21BCounts.self).toInstance(counts) })
        try injector.install(
            ClosureModule { binder in
                binder.bind(Hunt21BPool.self).to(Hunt21BPool.init(config:counts:)).asEagerSingleton()
            })
        #expect(counts.count("pool") == 1)
        #expect(try injector.get(Hunt21BPool.self).config.port == 5432)
        #expect(counts.count("pool") == 1)
    }

    @Test("a child's eager singleton over the parent's unbuilt singleton builds that one in the parent, once")
    func childEagerOverParentSingleton() throws {
        let counts = Hunt21BCounts()
        let parent = try Injector(Hunt21BStormTests.constructorModule(counts))
        #expect(counts.count("pool") == 0)
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(Hunt21BAuditUser.self).to { resolver in
                    _ = try resolver.get(Hunt21BPool.self)
                    return Hunt21BAuditUser(audit: Hunt21BAudit(counts: counts))
                }.asEagerSingleton()
            })
        #expect(counts.count("pool") == 1)
        #expect(counts.count("audit") == 1)
        #expect(try parent.get(Hunt21BService.self).pool === child.get(Hunt21BPool.self))
        #expect(counts.count("pool") == 1)
    }

    @Test("overriding: an eager singleton over the replaced key is rebuilt at creation; an independent one is shared")
    func overridingEager() throws {
        let counts = Hunt21BCounts()
        let injector = try Injector(
            Hunt21BStorageModule(),
            ClosureModule { binder in
                binder.bind(Hunt21BCounts.self).toInstance(counts)
                binder.bind(Hunt21BPool.self).to(Hunt21BPool.init(config:counts:)).asEagerSingleton()
                binder.bind(Hunt21BEngine.self).to { Hunt21BEngine(counts: counts, name: "engine") }.asEagerSingleton()
            })
        #expect(counts.count("pool") == 1)
        #expect(counts.count("engine") == 1)
        let test = try injector.overriding { $0.bind(Hunt21BConfig.self).toInstance(Hunt21BConfig(port: 1)) }
        #expect(counts.count("pool") == 2, "the pool depends on the replaced config: rebuilt, eagerly")
        #expect(counts.count("engine") == 1, "the engine doesn't: shared")
        #expect(try test.get(Hunt21BPool.self).config.port == 1)
        #expect(try test.get(Hunt21BEngine.self) === injector.get(Hunt21BEngine.self))
        #expect(try injector.get(Hunt21BPool.self).config.port == 5432)
    }

    @Test("a provider with an argument and a default: a constructor depending on its type gets the default")
    func providerDefaultsAsDependency() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt21BCounts.self).toInstance(Hunt21BCounts())
                binder.bind(Hunt21BEngine.self).to { resolver in Hunt21BEngine(counts: try resolver.get(), name: "e") }
                binder.bind((any Hunt21BCarrier).self).withArguments(String.self).to(provider: Hunt21BPlateProvider())
                    .defaults("DEFAULT")
                binder.bind(Hunt21BGarage.self).to(Hunt21BGarage.init(carrier:))
            })
        #expect(try injector.get(Hunt21BGarage.self).carrier.plate == "DEFAULT")
        #expect(try injector.get((any Hunt21BCarrier).self).plate == "DEFAULT")
        #expect(try injector.get((any Hunt21BCarrier).self, arguments: "X").plate == "X")
    }

    @Test("an eager singleton with arguments is built from its defaults when the injector is created")
    func eagerWithDefaults() throws {
        let counts = Hunt21BCounts()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt21BSession.self).withArguments(String.self).to { _, user in
                    Hunt21BSession(user: user, counts: counts)
                }.defaults("boot").in(.singleton)
                binder.eager(Hunt21BSession.self)
            })
        #expect(counts.count("session") == 1)
        #expect(try injector.get(Hunt21BSession.self).user == "boot")
        #expect(counts.count("session") == 1)
    }

    @Test("an eager singleton with arguments and no defaults fails creation, naming the type")
    func eagerWithoutDefaults() throws {
        let counts = Hunt21BCounts()
        let error = #expect(throws: ProvisionError.self) {
            try Injector(
                ClosureModule { binder in
                    binder.bind(Hunt21BSession.self).withArguments(String.self).to { _, user in
                        Hunt21BSession(user: user, counts: counts)
                    }.in(.singleton)
                    binder.eager(Hunt21BSession.self)
                })
        }
        let all = [error].compactMap { $0 } + (error?.underlyingErrors ?? [])
        #expect(all.contains { $0.key == BindingKey(Hunt21BSession.self) }, "\(String(describing: error))")
        #expect(error?.description.contains("Hunt21BSession") == true)
        #expect(counts.count("session") == 0)
    }

    @Test("a multibound element marked asEagerSingleton is built at creation and is the list's element")
    func eagerElement() throws {
        let counts = Hunt21BCounts()
        let injector = try Injector(
            ClosureModule { binder in
                binder.multibind((any Hunt21BPlugin).self).to { _ in Hunt21BPluginImpl(id: 1, counts: counts) }
                    .asEagerSingleton()
                binder.multibind((any Hunt21BPlugin).self).to { _ in Hunt21BPluginImpl(id: 2, counts: counts) }
            })
        #expect(counts.count("plugin1") == 1)
        #expect(counts.count("plugin2") == 0)
        let first = try injector.getAll((any Hunt21BPlugin).self)
        let second = try injector.getAll((any Hunt21BPlugin).self)
        #expect(first.map(\.id) == [1, 2])
        let one = first.first as? Hunt21BPluginImpl
        let two = second.first as? Hunt21BPluginImpl
        #expect(one != nil && one === two)
        #expect(counts.count("plugin1") == 1)
    }

    @Test("a child whose eager singleton fails isn't made; the parent keeps what was built for it, once")
    func failingEagerInChild() throws {
        let counts = Hunt21BCounts()
        let parent = try Injector(Hunt21BStormTests.constructorModule(counts))
        let failing = ClosureModule { binder in
            binder.bind(Hunt21BAuditUser.self).to { (resolver: Resolver) throws -> Hunt21BAuditUser in
                _ = try resolver.get(Hunt21BPool.self)
                throw ExpectedFailure(id: 5)
            }.asEagerSingleton()
        }
        let error = #expect(throws: ProvisionError.self) { try parent.makeChild(failing) }
        let all = [error].compactMap { $0 } + (error?.underlyingErrors ?? [])
        #expect(all.contains { $0.code == .factoryFailed && $0.key == BindingKey(Hunt21BAuditUser.self) })
        #expect(counts.count("pool") == 1)
        let child = try parent.makeChild()
        #expect(try child.get(Hunt21BPool.self) === parent.get(Hunt21BPool.self))
        #expect(counts.count("pool") == 1)
        #expect(try parent.get(Hunt21BAuditUser?.self) == nil)
    }

    @Test(
        "a failing eager element of a named collection: the error names the element in Swift syntax, never its hidden name"
    )
    func failingEagerElement() throws {
        let error = #expect(throws: ProvisionError.self) {
            try Injector(
                ClosureModule { binder in
                    binder.multibind((any Hunt21BPlugin).self, named: "audit").to {
                        (_: Resolver) throws -> any Hunt21BPlugin in throw ExpectedFailure(id: 9)
                    }.asEagerSingleton()
                })
        }
        let all = [error].compactMap { $0 } + (error?.underlyingErrors ?? [])
        #expect(all.contains { $0.code == .factoryFailed }, "\(String(describing: error))")
        for shown in all {
            for text in [shown.description, shown.message, shown.hint, shown.pathDescription] {
                #expect(!text.contains("\u{E000}"), "hidden element name shown: \(text)")
                #expect(text.contains("any Hunt21BPlugin") || text.isEmpty || text == shown.hint, "\(text)")
            }
        }
    }

    @Test("a failing element of a list: the error's path reads from the list's user to the element type")
    func failingElementInList() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.multibind((any Hunt21BPlugin).self).to { (_: Resolver) throws -> any Hunt21BPlugin in
                    throw ExpectedFailure(id: 10)
                }
                binder.bind(Hunt21BPluginHost.self).to(Hunt21BPluginHost.init(plugins:))
            })
        let error = #expect(throws: ProvisionError.self) { try injector.get(Hunt21BPluginHost.self) }
        #expect(error?.code == .factoryFailed)
        #expect(error?.cause as? ExpectedFailure == ExpectedFailure(id: 10))
        for text in [error?.description ?? "", error?.message ?? "", error?.hint ?? ""] {
            #expect(!text.contains("\u{E000}"), "hidden element name shown: \(text)")
        }
        #expect(
            error?.pathDescription.hasPrefix("Hunt21BPluginHost -> [any Hunt21BPlugin]") == true,
            "\(String(describing: error?.pathDescription))")
    }

    @Test("a failing eager singleton fails creation naming its key; the injector can be made again")
    func eagerFailure() throws {
        let attempts = Counter()
        let module = ClosureModule { binder in
            binder.bind(Hunt21BConfig.self).to { () throws -> Hunt21BConfig in
                if attempts.increment() == 1 { throw ExpectedFailure(id: 21) }
                return Hunt21BConfig(port: 2)
            }.asEagerSingleton()
        }
        let error = #expect(throws: ProvisionError.self) { try Injector(module) }
        let failure = error?.code == .factoryFailed ? error : error?.underlyingErrors.first
        #expect(failure?.code == .factoryFailed, "\(String(describing: error))")
        #expect(failure?.key == BindingKey(Hunt21BConfig.self))
        #expect(failure?.cause as? ExpectedFailure == ExpectedFailure(id: 21))
        #expect(error?.description.contains("Hunt21BConfig") == true)
        let injector = try Injector(module)
        #expect(try injector.get(Hunt21BConfig.self).port == 2)
        #expect(attempts.value == 2)
    }

    @Test("a child marking a self-declaring singleton eager builds the parent's one instance")
    func eagerJustInTimeInChild() throws {
        let counts = Hunt21BCounts()
        let parent = try Injector(ClosureModule { $0.bind(Hunt21BCounts.self).toInstance(counts) })
        let child = try parent.makeChild(ClosureModule { $0.eager(Hunt21BScheduler.self) })
        #expect(counts.count("scheduler") == 1)
        #expect(try parent.get(Hunt21BScheduler.self) === child.get(Hunt21BScheduler.self))
        #expect(counts.count("scheduler") == 1)
    }

    @Test("a singleton provider in a child: asked once, resolving the child's and the parent's bindings")
    func providerInChild() throws {
        let counts = Hunt21BCounts()
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt21BEngine.self).to { Hunt21BEngine(counts: counts, name: "engine") }.in(.singleton)
            })
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(Hunt21BConfig.self).toInstance(Hunt21BConfig(port: 77))
                binder.bind(Hunt21BVan.self).to(provider: Hunt21BVanProvider(counts: counts)).in(.singleton)
                binder.bind((any Hunt21BCarrier).self).to(binding: Hunt21BVan.self)
            })
        let van = try child.get(Hunt21BVan.self)
        #expect(van.plate == "77")
        #expect(van.engine === (try parent.get(Hunt21BEngine.self)))
        #expect(try child.get((any Hunt21BCarrier).self) as? Hunt21BVan === van)
        #expect(counts.count("provider") == 1)
        #expect(counts.count("engine") == 1)
    }

    @Test("a provider with an argument under a named protocol key: the name is required, no fallback")
    func namedProviderWithArguments() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt21BCounts.self).toInstance(Hunt21BCounts())
                binder.bind(Hunt21BEngine.self).to { resolver in Hunt21BEngine(counts: try resolver.get(), name: "e") }
                binder.bind((any Hunt21BCarrier).self, named: "rental").withArguments(String.self)
                    .to(provider: Hunt21BPlateProvider())
            })
        #expect(try injector.get((any Hunt21BCarrier).self, named: "rental", arguments: "AB-12").plate == "AB-12")
        let factory = try injector.get(ObjectFactory.self)
        #expect(try factory.get((any Hunt21BCarrier).self, named: "rental", arguments: "CD-34").plate == "CD-34")
        let unnamed = #expect(throws: ProvisionError.self) {
            try injector.get((any Hunt21BCarrier).self, arguments: "EF-56")
        }
        #expect(unnamed?.code == .notBound)
        #expect(unnamed?.key == BindingKey((any Hunt21BCarrier).self))
        #expect(unnamed?.message.contains("any Hunt21BCarrier") == true, "\(String(describing: unnamed?.message))")
    }

    @Test("injectDependencies into a subclass instance typed as its superclass fills the subclass's properties")
    func injectIntoSubclassTypedAsSuperclass() throws {
        let counts = Hunt21BCounts()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt21BEngine.self).to { Hunt21BEngine(counts: counts, name: "engine") }
                binder.bind(Hunt21BConfig.self).toInstance(Hunt21BConfig(port: 3))
            })
        let truck = Hunt21BTruck()
        let vehicle: Hunt21BVehicle = truck
        try injector.injectDependencies(into: vehicle)
        #expect(truck.engine != nil)
        #expect(truck.config?.port == 3, "the object's own class declares config")
        #expect(truck.hooks == 1)
    }

    @Test("a singleton delegation from the superclass key to a transient subclass: injected and woken once")
    func delegationInjectsOnce() throws {
        let counts = Hunt21BCounts()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Hunt21BEngine.self).to { Hunt21BEngine(counts: counts, name: "engine") }
                binder.bind(Hunt21BConfig.self).toInstance(Hunt21BConfig(port: 4))
                binder.bind(Hunt21BTruck.self).to(Hunt21BTruck.init)
                binder.bind(Hunt21BVehicle.self).to(binding: Hunt21BTruck.self).in(.singleton)
            })
        let vehicle = try injector.get(Hunt21BVehicle.self)
        #expect(try injector.get(Hunt21BVehicle.self) === vehicle)
        #expect(vehicle.hooks == 1)
        #expect((vehicle as? Hunt21BTruck)?.config?.port == 4)
        #expect(counts.count("engine") == 1)
        #expect(try injector.get(Hunt21BTruck.self) !== vehicle, "the subclass's own binding stays transient")
    }

    @Test("with() of a module binding a key again without override is duplicateBinding, hinting at override")
    func withDuplicate() throws {
        let injector = try Injector(Hunt21BStorageModule())
        let error = #expect(throws: ProvisionError.self) {
            try injector.with(ClosureModule { $0.bind(Hunt21BConfig.self).toInstance(Hunt21BConfig(port: 1)) })
        }
        let duplicate = error?.code == .duplicateBinding ? error : error?.underlyingErrors.first
        #expect(duplicate?.code == .duplicateBinding, "\(String(describing: error))")
        #expect(duplicate?.key == BindingKey(Hunt21BConfig.self))
        #expect(duplicate?.hint.contains("override") == true, "\(String(describing: duplicate?.hint))")
        let replaced = try injector.with(
            ClosureModule { $0.override(Hunt21BConfig.self).toInstance(Hunt21BConfig(port: 1)) })
        #expect(try replaced.get(Hunt21BConfig.self).port == 1)
        #expect(try injector.get(Hunt21BConfig.self).port == 5432)
    }

    @Test("without() of the module an eager singleton needs fails, naming the missing key and the path")
    func withoutBreaksEager() throws {
        let counts = Hunt21BCounts()
        let injector = try Injector(Hunt21BStorageModule(), Hunt21BReportingModule(counts: counts))
        #expect(counts.count("pool") == 1)
        let error = #expect(throws: ProvisionError.self) { try injector.without(Hunt21BStorageModule.self) }
        let all = [error].compactMap { $0 } + (error?.underlyingErrors ?? [])
        let missing = all.first { $0.code == .notBound }
        #expect(missing?.key == BindingKey(Hunt21BConfig.self), "\(String(describing: error))")
        #expect(missing?.path == [BindingKey(Hunt21BPool.self), BindingKey(Hunt21BConfig.self)])
        #expect(counts.count("pool") == 1, "nothing was built for the failed injector")
    }
}
