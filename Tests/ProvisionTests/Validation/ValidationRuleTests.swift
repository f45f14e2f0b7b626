import Provision
import Testing

@Suite("Validation rules")
struct ValidationRuleTests {
    private func report(_ modules: any Module...) throws -> ValidationReport {
        try Injector(modules: modules, configuration: .unvalidated).validationReport()
    }

    @Test("a graph whose dependencies are all bound is valid, and validating it constructs nothing")
    func validGraph() throws {
        let built = Counter()
        let injector = try Injector.unvalidated(
            GraphDaemonModule(),
            ClosureModule { binder in
                binder.override(GraphStore.self).to { _ in
                    built.increment()
                    return GraphStore(logger: GraphLogger())
                }
            }
        )
        let report = try injector.validate()
        #expect(report.isValid)
        #expect(report.problems.isEmpty)
        #expect(report.bindingCount == 5)
        #expect(built.value == 0)
        #expect(report.description.hasPrefix("valid: 5 bindings"))
    }

    @Test("a missing dependency is reported with its path from a root and a fix hint")
    func missingDependency() throws {
        let injector = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(GraphStore.self).to(GraphStore.init(logger:))
                binder.bind(GraphService.self).to(GraphService.init(store:))
                binder.bind(GraphClock.self).to(GraphClock.init)
                binder.bind(GraphApp.self).to(GraphApp.init(service:clock:))
            }
        )
        let error = #expect(throws: ProvisionError.self) { try injector.validate() }
        #expect(error?.code == .validationFailed)
        let problems = error?.underlyingErrors ?? []
        #expect(problems.map(\.code) == [.notBound])
        #expect(problems.first?.key == BindingKey(GraphLogger.self))
        #expect(problems.first?.pathDescription == "GraphApp -> GraphService -> GraphStore -> GraphLogger")
        #expect(problems.first?.hint == "bind it in a module: binder.bind(GraphLogger.self).to(...)")
        #expect(problems.first?.message == "no binding for GraphLogger, needed by GraphStore")
    }

    @Test("a dependency missing for several bindings is reported once, naming every dependent")
    func missingForSeveral() throws {
        let report = try report(
            ClosureModule { binder in
                binder.bind(GraphStore.self).to(GraphStore.init(logger:))
                binder.bind(GraphSelfDeclared.self).to(GraphSelfDeclared.init(logger:))
            }
        )
        #expect(report.problems.count == 1)
        #expect(
            report.problems.first?.message == "no binding for GraphLogger, needed by GraphStore and GraphSelfDeclared")
    }

    @Test("a construction cycle is reported with its path, found without building anything")
    func cycle() throws {
        let report = try report(
            ClosureModule { binder in
                binder.bind(GraphLoopRoot.self).to(GraphLoopRoot.init(a:))
                binder.bind(GraphLoopA.self).to(GraphLoopA.init(b:))
                binder.bind(GraphLoopB.self).to(GraphLoopB.init(a:))
            }
        )
        #expect(report.problems.map(\.code) == [.cycle])
        #expect(report.problems.first?.pathDescription == "GraphLoopRoot -> GraphLoopA -> GraphLoopB -> GraphLoopA")
        #expect(report.problems.first?.description.contains("cycle: GraphLoopA -> GraphLoopB -> GraphLoopA") == true)
    }

    @Test("a cycle closed through a Provider is allowed")
    func cycleThroughProvider() throws {
        let injector = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(GraphDeferredA.self).to(GraphDeferredA.init(b:))
                binder.bind(GraphDeferredB.self).to(GraphDeferredB.init(a:))
            }
        )
        let report = try injector.validate()
        // A, B, and the just-in-time Provider<GraphDeferredA>.
        #expect(report.bindingCount == 3)
        _ = try injector.get(GraphDeferredA.self)
    }

    @Test("a closure that declares its dependencies can close a cycle, and validation finds it")
    func declaredCycle() throws {
        let report = try report(
            ClosureModule { binder in
                binder.bind(GraphLoopA.self).to(dependencies: [BindingKey(GraphLoopB.self)]) { resolver in
                    GraphLoopA(b: try resolver.get())
                }
                binder.bind(GraphLoopB.self).to(GraphLoopB.init(a:))
            }
        )
        #expect(report.problems.map(\.code) == [.cycle])
        #expect(report.problems.first?.pathDescription == "GraphLoopA -> GraphLoopB -> GraphLoopA")
    }

    @Test("the target of a Provider or Lazy handle must be bound")
    func handleTargetMissing() throws {
        let report = try report(ClosureModule { $0.bind(GraphLazyHolder.self).to(GraphLazyHolder.init(clock:)) })
        #expect(report.problems.map(\.code) == [.notBound])
        #expect(report.problems.first?.pathDescription == "GraphLazyHolder -> Lazy<GraphClock> -> GraphClock")
        let bound = try self.report(
            ClosureModule { binder in
                binder.bind(GraphLazyHolder.self).to(GraphLazyHolder.init(clock:))
                binder.bind(GraphClock.self).to(GraphClock.init)
            }
        )
        #expect(bound.isValid)
    }

    @Test("a [T] dependency with nothing multibound for T is an empty multibinding")
    func emptyMultibinding() throws {
        let empty = try report(ClosureModule { $0.bind(GraphPluginHost.self).to(GraphPluginHost.init(plugins:)) })
        #expect(empty.problems.map(\.code) == [.emptyMultibinding])
        let problem = empty.problems.first
        #expect(
            problem?.message == "nothing is multibound for any GraphPlugin, but GraphPluginHost needs [any GraphPlugin]"
        )
        #expect(problem?.hint.contains("binder.multibind((any GraphPlugin).self).to(...)") == true)
        #expect(problem?.pathDescription == "GraphPluginHost -> [any GraphPlugin]")

        let filled = try report(
            ClosureModule { binder in
                binder.bind(GraphPluginHost.self).to(GraphPluginHost.init(plugins:))
                binder.multibind((any GraphPlugin).self).to(GraphPluginA.init)
            }
        )
        #expect(filled.isValid)
    }

    @Test("a single T where T only has multibinding elements is ambiguous")
    func ambiguousMultibinding() throws {
        let plugins = ClosureModule { binder in
            binder.multibind((any GraphPlugin).self).to(GraphPluginA.init)
            binder.multibind((any GraphPlugin).self).to(GraphPluginB.init)
        }
        let ambiguous = try report(
            plugins,
            ClosureModule { $0.bind(GraphSinglePluginUser.self).to(GraphSinglePluginUser.init(plugin:)) }
        )
        #expect(ambiguous.problems.map(\.code) == [.ambiguousMultibinding])
        #expect(
            ambiguous.problems.first?.message
                == "GraphSinglePluginUser needs one any GraphPlugin, but it only has 2 multibinding elements"
        )
        #expect(ambiguous.problems.first?.hint.contains("inject [any GraphPlugin]") == true)

        let chosen = try report(
            plugins,
            ClosureModule { binder in
                binder.bind(GraphSinglePluginUser.self).to(GraphSinglePluginUser.init(plugin:))
                binder.bind((any GraphPlugin).self).to(GraphPluginB.init)
            }
        )
        #expect(chosen.isValid)
    }

    @Test("an eager binding that is not a singleton is reported when validating on creation")
    func eagerNotSingleton() throws {
        let configuration = Injector.Configuration(validatesOnCreation: true)
        let error = #expect(throws: ProvisionError.self) {
            try Injector(
                modules: [
                    GraphDaemonModule(),
                    ClosureModule { $0.eager(GraphStore.self) },
                ],
                configuration: configuration
            )
        }
        #expect(error?.code == .validationFailed)
        #expect(error?.underlyingErrors.map(\.code) == [.eagerNotSingleton])
        #expect(error?.underlyingErrors.first?.location?.fileID.hasSuffix("ValidationRuleTests.swift") == true)

        let injector = try Injector(
            modules: [GraphDaemonModule(), ClosureModule { $0.eager(GraphApp.self) }],
            configuration: configuration
        )
        #expect(try injector.validate().isValid)
    }

    @Test(
        "an eager key resolved like a request (a parent's binding, an Injectable singleton) passes validation on creation"
    )
    func eagerKeysResolvedLikeRequests() throws {
        let configuration = Injector.Configuration(validatesOnCreation: true)
        let fromDeclaration = try Injector(
            modules: [ClosureModule { $0.eager(SelfDeclaredEngine.self) }],
            configuration: configuration
        )
        #expect(fromDeclaration.hasBinding(for: SelfDeclaredEngine.self))
        let parent = try Injector(modules: [GraphDaemonModule()], configuration: configuration)
        let child = try parent.makeChild(ClosureModule { $0.eager(GraphApp.self) })
        #expect(try child.validate().isValid)
    }

    @Test("closures that don't declare their dependencies are listed as unchecked, which is not a failure")
    func uncheckedClosures() throws {
        let injector = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(GraphLogger.self).to(GraphLogger.init)
                binder.bind(GraphStore.self).to { resolver in GraphStore(logger: try resolver.get()) }
                binder.bind(GraphService.self).to(dependencies: [BindingKey(GraphStore.self)]) { resolver in
                    GraphService(store: try resolver.get())
                }
            }
        )
        let report = try injector.validate()
        #expect(report.uncheckedBindings == [BindingKey(GraphStore.self)])
        #expect(report.description == "valid: 3 bindings (not statically checked: GraphStore)")
    }

    @Test("declared dependencies are checked like a constructor's parameters")
    func declaredDependencies() throws {
        let report = try report(
            ClosureModule { binder in
                binder.bind(GraphStore.self).to(dependencies: [BindingKey(GraphLogger.self, named: "audit")]) {
                    resolver in GraphStore(logger: try resolver.get(named: "audit"))
                }
                binder.bind(GraphService.self).withArguments(String.self)
                    .to(dependencies: [BindingKey(GraphStore.self), BindingKey(GraphClock.self)]) { resolver, _ in
                        GraphService(store: try resolver.get())
                    }
                    .defaults("x")
            }
        )
        #expect(report.problems.map(\.code) == [.notBound, .notBound])
        #expect(
            report.problems.map(\.pathDescription) == [
                "GraphService -> GraphStore -> GraphLogger named \"audit\"", "GraphService -> GraphClock",
            ])
        #expect(report.uncheckedBindings.isEmpty)
    }

    @Test("an Injectable dependency is checked just in time, without being created")
    func justInTime() throws {
        let injector = try Injector.unvalidated(
            ClosureModule { $0.bind(GraphUsesSelfDeclared.self).to(GraphUsesSelfDeclared.init(declared:)) }
        )
        let report = injector.validationReport()
        #expect(report.problems.map(\.pathDescription) == ["GraphUsesSelfDeclared -> GraphSelfDeclared -> GraphLogger"])
        #expect(!injector.hasBinding(for: GraphSelfDeclared.self))

        let complete = try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(GraphUsesSelfDeclared.self).to(GraphUsesSelfDeclared.init(declared:))
                binder.bind(GraphLogger.self).to(GraphLogger.init)
            }
        )
        #expect(try complete.validate().bindingCount == 3)
    }

    @Test("a child injector's bindings may depend on its parent's, and the parent's problems are its own")
    func childInjectors() throws {
        let parent = try Injector.unvalidated(
            ClosureModule { $0.bind(GraphLogger.self).to(GraphLogger.init).in(.singleton) })
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind(GraphStore.self).to(GraphStore.init(logger:))
                binder.bind(GraphService.self).to(GraphService.init(store:))
            }
        )
        #expect(try child.validate().bindingCount == 3)
        #expect(try parent.validate().bindingCount == 1)

        let brokenParent = try Injector.unvalidated(
            ClosureModule { $0.bind(GraphService.self).to(GraphService.init(store:)) })
        let sibling = try brokenParent.makeChild(
            ClosureModule { $0.bind(GraphStore.self).to(GraphStore.init(logger:)) })
        // The parent's GraphService resolves its store in the parent, where there is none; the child's own
        // store misses its logger.
        #expect(
            sibling.validationReport().problems.map(\.pathDescription).sorted() == [
                "GraphService -> GraphStore", "GraphStore -> GraphLogger",
            ]
        )
    }

    @Test("a child injector created with validation on is validated against its parent")
    func childValidatedOnCreation() throws {
        let parent = try Injector(
            modules: [ClosureModule { $0.bind(GraphLogger.self).to(GraphLogger.init) }],
            configuration: Injector.Configuration(validatesOnCreation: true)
        )
        _ = try parent.makeChild(ClosureModule { $0.bind(GraphStore.self).to(GraphStore.init(logger:)) })
        let error = #expect(throws: ProvisionError.self) {
            try parent.makeChild(ClosureModule { $0.bind(GraphService.self).to(GraphService.init(store:)) })
        }
        #expect(error?.underlyingErrors.map(\.code) == [.notBound])
    }
}
