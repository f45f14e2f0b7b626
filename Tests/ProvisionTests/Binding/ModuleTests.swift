import Provision
import Testing

@Suite("Modules")
struct ModuleTests {
    @Test("a later module overrides an earlier one on the same key")
    func laterModuleWins() throws {
        let injector = try Injector(
            TestModule { $0.bind(Config.self).toInstance(Config(port: 1)) },
            TestModule { $0.bind(Config.self).toInstance(Config(port: 2)) }
        )
        #expect(try injector.get(Config.self).port == 2)
        #expect(injector.modules.count == 2)
    }

    @Test("binding one key twice in one module is an error naming the key and both places")
    func duplicateInOneModule() throws {
        let error = #expect(throws: ProvisionError.self) {
            try Injector(
                TestModule { binder in
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
            try Injector(TestModule { binder in _ = binder.bind(Engine.self) })
        }
        #expect(error?.code == .incompleteBinding)
        #expect(error?.description.contains("bind(Engine.self)") == true)
        #expect(error?.hint.contains(".to(") == true)
    }

    @Test("a module whose configure throws fails the injector with the cause")
    func configureThrows() throws {
        let error = #expect(throws: ProvisionError.self) {
            try Injector(TestModule { _ in throw ExpectedFailure(id: 3) })
        }
        #expect(error?.code == .configurationFailed)
        #expect(error?.cause as? ExpectedFailure == ExpectedFailure(id: 3))
        #expect(error?.description.contains("TestModule.configure(_:)") == true)
    }

    @Test("a module installed at run time adds its bindings")
    func installAtRunTime() throws {
        let injector = try Injector(TestModule { $0.bind(Engine.self).to(Engine.init) })
        #expect(!injector.hasBinding(for: Brakes.self))
        #expect(throws: ProvisionError.self) { try injector.get(Car.self) }
        try injector.install(
            TestModule { binder in
                binder.bind(Brakes.self).to(Brakes.init)
                binder.bind(Car.self).to(Car.init(engine:brakes:))
            }
        )
        #expect(injector.hasBinding(for: Brakes.self))
        _ = try injector.get(Car.self)
    }

    @Test("installing a key the injector already has throws and adds nothing")
    func installDuplicate() throws {
        let injector = try Injector(TestModule { $0.bind(Engine.self).to(Engine.init) })
        let error = #expect(throws: ProvisionError.self) {
            try injector.install(
                TestModule { binder in
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
                    TestModule { binder in
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
