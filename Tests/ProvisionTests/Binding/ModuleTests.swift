import Provision
import Testing

@Suite("Modules")
struct ModuleTests {
    @Test("a later module replaces an earlier one's binding when it declares an override")
    func laterModuleOverrides() throws {
        let injector = try Injector(
            ClosureModule { $0.bind(Config.self).toInstance(Config(port: 1)) },
            ClosureModule { $0.override(Config.self).toInstance(Config(port: 2)) }
        )
        #expect(try injector.get(Config.self).port == 2)
        #expect(injector.modules.count == 2)
        // An override that replaces nothing is simply a binding.
        let alone = try Injector(ClosureModule { $0.override(Config.self).toInstance(Config(port: 3)) })
        #expect(try alone.get(Config.self).port == 3)
    }

    @Test("two modules binding one key without an override is an error naming both declarations and the fix")
    func accidentalDuplicateAcrossModules() throws {
        // Declared outside `#expect`, whose expansion would give every line inside it its own line.
        let first = ClosureModule { $0.bind(Config.self, named: "admin").toInstance(Config(port: 1)) }
        let firstLine = #line - 1
        let other = ClosureModule { $0.bind(Config.self).toInstance(Config(port: 2)) }
        let second = ClosureModule { $0.bind(Config.self, named: "admin").toInstance(Config(port: 3)) }
        let secondLine = #line - 1
        let error = #expect(throws: ProvisionError.self) { try Injector(first, other, second) }
        #expect(error?.code == .duplicateBinding)
        #expect(error?.key == BindingKey(Config.self, named: "admin"))
        let description = error?.description ?? ""
        #expect(description.contains("ModuleTests.swift:\(firstLine)"), "the first declaration")
        #expect(description.contains("ModuleTests.swift:\(secondLine)"), "the second declaration")
        #expect(error?.location?.line == secondLine)
        #expect(error?.hint.contains("binder.override(Config.self, named: \"admin\")") == true)

        // An override in the earlier module doesn't excuse the later one.
        let reversed = #expect(throws: ProvisionError.self) {
            try Injector(
                ClosureModule { $0.override(Config.self).toInstance(Config(port: 1)) },
                ClosureModule { $0.bind(Config.self).toInstance(Config(port: 2)) }
            )
        }
        #expect(reversed?.code == .duplicateBinding)
    }

    @Test("with(_:) adds modules under the same rule; overriding(_:) replaces without a marker")
    func derivedInjectorsAndOverrides() throws {
        let base = try Injector(ClosureModule { $0.bind(Config.self).toInstance(Config(port: 1)) })
        let error = #expect(throws: ProvisionError.self) {
            try base.with(ClosureModule { $0.bind(Config.self).toInstance(Config(port: 2)) })
        }
        #expect(error?.code == .duplicateBinding)
        let marked = try base.with(ClosureModule { $0.override(Config.self).toInstance(Config(port: 2)) })
        #expect(try marked.get(Config.self).port == 2)
        // Derived again, the override is configured as an override again.
        #expect(try marked.with().get(Config.self).port == 2)
        let overridden = try base.overriding { $0.bind(Config.self).toInstance(Config(port: 3)) }
        #expect(try overridden.get(Config.self).port == 3)
        #expect(try overridden.with().get(Config.self).port == 3)
        #expect(try base.get(Config.self).port == 1)
    }

    @Test("binding one key twice in one module is an error naming the key and both places")
    func duplicateInOneModule() throws {
        let error = #expect(throws: ProvisionError.self) {
            try Injector(
                ClosureModule { binder in
                    binder.bind(Config.self).toInstance(Config(port: 1))
                    binder.bind(Config.self).toInstance(Config(port: 2))
                }
            )
        }
        #expect(error?.code == .duplicateBinding)
        #expect(error?.key == BindingKey(Config.self))
        #expect(error?.description.contains("ModuleTests.swift") == true)
        #expect(error?.location != nil)
    }

    @Test("a bind without a target is an error")
    func incompleteBinding() throws {
        let error = #expect(throws: ProvisionError.self) {
            try Injector(ClosureModule { binder in _ = binder.bind(Engine.self) })
        }
        #expect(error?.code == .incompleteBinding)
        #expect(error?.description.contains("bind(Engine.self)") == true)
        #expect(error?.hint.contains(".to(") == true)
    }

    @Test("a module whose configure throws fails the injector with the cause")
    func configureThrows() throws {
        let error = #expect(throws: ProvisionError.self) {
            try Injector(ClosureModule { _ in throw ExpectedFailure(id: 3) })
        }
        #expect(error?.code == .configurationFailed)
        #expect(error?.cause as? ExpectedFailure == ExpectedFailure(id: 3))
        #expect(error?.description.contains("ClosureModule.configure(_:)") == true)
    }

    @Test("a module installed at run time adds its bindings")
    func installAtRunTime() throws {
        let injector = try Injector(ClosureModule { $0.bind(Engine.self).to(Engine.init) })
        #expect(!injector.hasBinding(for: Brakes.self))
        #expect(throws: ProvisionError.self) { try injector.get(Car.self) }
        try injector.install(
            ClosureModule { binder in
                binder.bind(Brakes.self).to(Brakes.init)
                binder.bind(Car.self).to(Car.init(engine:brakes:))
            }
        )
        #expect(injector.hasBinding(for: Brakes.self))
        _ = try injector.get(Car.self)
    }

    @Test("installing a key the injector already has throws and adds nothing")
    func installDuplicate() throws {
        let injector = try Injector(ClosureModule { $0.bind(Engine.self).to(Engine.init) })
        let error = #expect(throws: ProvisionError.self) {
            try injector.install(
                ClosureModule { binder in
                    binder.bind(Brakes.self).to(Brakes.init)
                    binder.bind(Engine.self).to(Engine.init)
                }
            )
        }
        #expect(error?.code == .duplicateBinding)
        #expect(error?.key == BindingKey(Engine.self))
        #expect(!injector.hasBinding(for: Brakes.self))
    }

    @Test("an empty injector resolves nothing")
    func emptyInjector() throws {
        let injector = try Injector()
        #expect(injector.bindingKeys.isEmpty)
        let error = #expect(throws: ProvisionError.self) { try injector.get(Engine.self) }
        #expect(error?.code == .notBound)
    }

    @Test("any stripe count works, rounded to a power of two")
    func stripeCounts() throws {
        for count in [0, 1, 3, 64, 5000] {
            let injector = try Injector(
                modules: [
                    ClosureModule { binder in
                        for index in 0..<50 {
                            binder.bind(Int.self, named: "\(index)").toInstance(index)
                        }
                    }
                ],
                configuration: Injector.Configuration(stripeCount: count)
            )
            for index in 0..<50 {
                #expect(try injector.get(Int.self, named: "\(index)") == index)
            }
        }
    }
}
