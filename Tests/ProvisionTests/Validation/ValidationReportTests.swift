import Provision
import Testing

/// A module with one problem of each kind a running injector can have (an eager transient is added
/// where creation validates).
struct BrokenGraphModule: Module {
    let built: Counter

    func configure(_ binder: Binder) {
        let built = self.built
        // Missing: nothing binds GraphLogger.
        binder.bind(GraphStore.self).to { _ in
            built.increment()
            return GraphStore(logger: GraphLogger())
        }
        binder.bind(GraphService.self).to(GraphService.init(store:))
        binder.bind(GraphApp.self).to(GraphApp.init(service:clock:))
        binder.bind(GraphClock.self).to(dependencies: [BindingKey(GraphLogger.self)]) { _ in GraphClock() }
        // A cycle.
        binder.bind(GraphLoopA.self).to(GraphLoopA.init(b:))
        binder.bind(GraphLoopB.self).to(GraphLoopB.init(a:))
        // An empty and an ambiguous multibinding.
        binder.bind(GraphPluginHost.self).to(GraphPluginHost.init(plugins:))
        binder.bind(GraphSinglePluginUser.self).to(GraphSinglePluginUser.init(plugin:))
        binder.multibind((any GraphPlugin).self, named: "extra").to(GraphPluginA.init)
        binder.bind(GraphSinglePluginUser.self, named: "extra").to(dependencies: [
            BindingKey((any GraphPlugin).self, named: "extra")
        ]) { _ in GraphSinglePluginUser(plugin: GraphPluginA()) }
        // Eager, and built when the injector is created: validation must stop that.
        binder.bind(GraphLogger.self, named: "eager").to {
            built.increment()
            return GraphLogger()
        }
        .asEagerSingleton()
    }
}

@Suite("Validation reports")
struct ValidationReportTests {
    @Test("a graph with several problems reports all of them in one error, each with its own code")
    func everyProblemAtOnce() throws {
        let built = Counter()
        let error = #expect(throws: ProvisionError.self) {
            try Injector(
                modules: [BrokenGraphModule(built: built), ClosureModule { $0.eager(GraphService.self) }],
                configuration: Injector.Configuration(validatesOnCreation: true)
            )
        }
        #expect(error?.code == .validationFailed)
        let problems = error?.underlyingErrors ?? []
        #expect(
            problems.map(\.code) == [
                .notBound, .emptyMultibinding, .notBound, .ambiguousMultibinding, .cycle, .eagerNotSingleton,
            ]
        )
        #expect(problems.first?.pathDescription == "GraphApp -> GraphClock -> GraphLogger")
        #expect(problems.first?.message == "no binding for GraphLogger, needed by GraphClock")
        #expect(built.value == 0, "validation failed before anything was built, eager singletons included")
        let text = error?.description ?? ""
        #expect(text.hasPrefix("ProvisionError (validation failed): 6 problems in a graph of 12 bindings"))
        #expect(text.contains("(not statically checked: GraphStore)"))
        #expect(text.contains("hint: inject [any GraphPlugin] to get every element"))
        #expect(text.contains("cycle: GraphLoopA -> GraphLoopB -> GraphLoopA"))
    }

    @Test("the report of a running injector lists the same problems without throwing")
    func reportWithoutThrowing() throws {
        let injector = try Injector.unvalidated(BrokenGraphModule(built: Counter()))
        let report = injector.validationReport()
        #expect(!report.isValid)
        #expect(report.problems.count == 5)
        #expect(report.error?.underlyingErrors.count == 5)
        #expect(report.uncheckedBindings == [BindingKey(GraphStore.self)])
        #expect(report.bindingCount == 12)
        let error = #expect(throws: ProvisionError.self) { try injector.validate() }
        #expect(error?.underlyingErrors.map(\.code) == report.problems.map(\.code))
    }

    @Test("each problem's hint names the fix")
    func hints() throws {
        let report = try Injector.unvalidated(BrokenGraphModule(built: Counter())).validationReport()
        let hints = Dictionary(report.problems.map { ($0.code.description, $0.hint) }, uniquingKeysWith: { a, _ in a })
        #expect(hints["not bound"] == "bind it in a module: binder.bind(GraphLogger.self).to(...)")
        #expect(hints["cycle"]?.contains("Provider or Lazy") == true)
        #expect(hints["empty multibinding"]?.contains("binder.bind([any GraphPlugin].self).toInstance([])") == true)
        #expect(hints["ambiguous multibinding"]?.contains("named: \"extra\"") == true)
    }

    @Test("validating the benchmark-sized graph of 10,000 bindings reports it valid, with every binding counted")
    func largeGraph() throws {
        let injector = try Injector.unvalidated(
            ClosureModule { binder in
                for index in 0..<10_000 {
                    let dependencies =
                        index < 3 ? [] : (1...3).map { BindingKey(GraphLogger.self, named: "\(index - $0)") }
                    binder.bind(GraphLogger.self, named: "\(index)").to(dependencies: dependencies) { _ in GraphLogger()
                    }
                }
            }
        )
        let report = injector.validationReport()
        #expect(report.isValid)
        #expect(report.bindingCount == 10_000)
        // Its speed is measured in di-bench ("validate, 10k bindings"), not here: a time limit in a unit
        // test fails on a busy machine or under a sanitizer without telling anything about the code.
    }
}
