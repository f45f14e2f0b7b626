import Testing

@testable import Provision

// OBInjector's property injector and controller (OBPropertyInjectorTest, OBInjectorControllerTest).
// OBInjector registers values under property names; Provision binds them by type and name, and the
// class names the property with a key path (`InjectTarget.injectTest` takes the `String` named
// "injectTest").

extension Seed {
    /// The process-wide injector of OBInjector's controller, the Swift way: a `static let`, created
    /// once on first use however many times it is read.
    enum SharedInjector {
        static let configurations = Counter()
        static let injector = Result { () throws(ProvisionError) -> Injector in
            try Injector(
                ClosureModule { binder in
                    configurations.increment()
                    binder.bind(String.self, named: "injectTest").toInstance("shared")
                }
            )
        }
    }

    @Suite("Seeds: OBInjector")
    struct OBInjectorTests {
        /// OBInjector's `registerProperty:@"injectTest" withInstance:@"testString"`.
        static let testString = ClosureModule { $0.bind(String.self, named: "injectTest").toInstance("testString") }

        @Test("B-OBI-01 (different) a value bound by type and name is injected through a key path, not a name")
        func injectByKeyPath() throws {
            let injector = try Injector(Self.testString)
            let target = InjectTarget()
            try injector.injectDependencies(into: target)
            #expect(target.injectTest == "testString")
            #expect(target.other == nil, "only declared properties are injected")
        }

        @Test("B-OBI-02 (different) a binding of another type doesn't match: the request is notBound, not skipped")
        func wrongType() throws {
            let injector = try Injector(ClosureModule { $0.bind([String].self, named: "injectTest").toInstance([]) })
            let target = InjectTarget()
            let error = #expect(throws: ProvisionError.self) { try injector.injectDependencies(into: target) }
            #expect(error?.code == .notBound)
            #expect(error?.key == BindingKey(String.self, named: "injectTest"))
            #expect(target.injectTest == nil)
            #expect(target.hookCalls == 0)
        }

        @Test("B-OBI-04 creating an injector with a binding injects nothing until injectDependencies is called")
        func registrationDoesNotInject() throws {
            let target = InjectTarget()
            let injector = try Injector(Self.testString)
            #expect(target.injectTest == nil)
            #expect(target.hookCalls == 0)
            try injector.injectDependencies(into: target)
            #expect(target.injectTest == "testString")
        }

        @Test("B-OBI-05 onlyIfNil keeps a property that holds a value, without building a value for it")
        func onlyNil() throws {
            let builds = Counter()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(String.self, named: "injectTest").to { _ in "value \(builds.increment())" }
                }
            )
            let set = InjectTarget()
            set.injectTest = "Test"
            try injector.injectDependencies(into: set, onlyIfNil: true)
            #expect(set.injectTest == "Test")
            #expect(builds.value == 0)

            let empty = InjectTarget()
            try injector.injectDependencies(into: empty, onlyIfNil: true)
            #expect(empty.injectTest == "value 1")
        }

        @Test("B-OBI-06 (different) the hook runs once per injection, even when onlyIfNil changed nothing")
        func hookAlwaysRuns() throws {
            let injector = try Injector(Self.testString)
            let target = InjectTarget()
            target.injectTest = "Test"
            try injector.injectDependencies(into: target, onlyIfNil: true)
            #expect(target.hookCalls == 1)
            #expect(target.injectTest == "Test")
            try injector.injectDependencies(into: target)
            #expect(target.hookCalls == 2)
            #expect(target.injectTest == "testString")
        }

        @Test("B-OBI-07 (different) a name bound twice is duplicateBinding; across modules a later override wins")
        func boundTwice() throws {
            let error = #expect(throws: ProvisionError.self) {
                try Injector(
                    ClosureModule { binder in
                        binder.bind(String.self, named: "injectTest").toInstance("testString")
                        binder.bind(String.self, named: "injectTest").toInstance("secondString")
                    }
                )
            }
            #expect(error?.code == .duplicateBinding)
            #expect(error?.key == BindingKey(String.self, named: "injectTest"))

            let unmarked = #expect(throws: ProvisionError.self) {
                try Injector(
                    Self.testString,
                    ClosureModule { $0.bind(String.self, named: "injectTest").toInstance("secondString") }
                )
            }
            #expect(unmarked?.code == .duplicateBinding)
            let injector = try Injector(
                Self.testString,
                ClosureModule { $0.override(String.self, named: "injectTest").toInstance("secondString") }
            )
            let target = InjectTarget()
            try injector.injectDependencies(into: target)
            #expect(target.injectTest == "secondString")
        }

        @Test("B-OBI-08 a closure binding makes a new value per injection and is not called when registered")
        func closurePerInjection() throws {
            let calls = Counter()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(String.self, named: "injectTest").to { _ in "value \(calls.increment())" }
                }
            )
            #expect(calls.value == 0)
            let first = InjectTarget()
            let second = InjectTarget()
            try injector.injectDependencies(into: first)
            try injector.injectDependencies(into: second)
            #expect(first.injectTest == "value 1")
            #expect(second.injectTest == "value 2")
        }

        @Test("B-OBI-09 a name gives the identical registered instance; an unknown name is notBound")
        func lookUpByName() throws {
            let blinker = Blinker(speed: 3)
            let injector = try Injector(ClosureModule { $0.bind(Blinker.self, named: "hazard").toInstance(blinker) })
            #expect(try injector.get(Blinker.self, named: "hazard") === blinker)
            let error = #expect(throws: ProvisionError.self) { try injector.get(Blinker.self, named: "foobar") }
            #expect(error?.code == .notBound)
        }

        @Test("B-OBI-10 (different) a binding is removed by deriving an injector without its module")
        func removeByDerivation() throws {
            let injector = try Injector(Self.testString, SecondModule())
            let without = try injector.without(ClosureModule.self)
            let error = #expect(throws: ProvisionError.self) { try without.get(String.self, named: "injectTest") }
            #expect(error?.code == .notBound)
            #expect(try injector.get(String.self, named: "injectTest") == "testString", "the original is unchanged")
            #expect(try without.with(Self.testString).get(String.self, named: "injectTest") == "testString")
        }

        @Test("B-OBI-11 a value is looked up by its type, also when bound to a superclass")
        func lookUpByType() throws {
            let blinker = Blinker(speed: 3)
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(Blinker.self).toInstance(blinker)
                    binder.bind(Headlight.self).toInstance(HIDHeadlight())
                }
            )
            #expect(try injector.get(Blinker.self) === blinker)
            #expect(try injector.get(Headlight.self) is HIDHeadlight)
        }

        @Test("B-OBI-12 order matters: later overrides win, collections keep binding order, names share a type")
        func registrationOrder() throws {
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(String.self, named: "first").toInstance("a")
                    binder.bind(String.self, named: "second").toInstance("b")
                    binder.multibind(String.self).toInstance("x")
                    binder.multibind(String.self).toInstance("y")
                },
                ClosureModule { binder in
                    binder.override(String.self, named: "first").toInstance("c")
                    binder.multibind(String.self).toInstance("z")
                }
            )
            #expect(try injector.get(String.self, named: "first") == "c")
            #expect(try injector.get(String.self, named: "second") == "b")
            #expect(try injector.getAll(String.self) == ["x", "y", "z"])
        }

        @Test("B-OBI-13 (different) the shared injector is a static let, configured once however often it is read")
        func configuredOnce() throws {
            let first = try SharedInjector.injector.get()
            let second = try SharedInjector.injector.get()
            let third = try SharedInjector.injector.get()
            #expect(first === second && second === third)
            #expect(SharedInjector.configurations.value == 1)
        }

        @Test("B-OBI-14 the static entry point is Injector.default: a no-op while unset, then it injects")
        func defaultEntryPoint() throws {
            let target = InjectTarget()
            try DefaultInjectorSlot.with(nil) {
                try Injector.default?.injectDependencies(into: target)
            }
            #expect(target.injectTest == nil)
            #expect(target.hookCalls == 0)
            try DefaultInjectorSlot.with(try SharedInjector.injector.get()) {
                try Injector.default?.injectDependencies(into: target)
            }
            #expect(target.injectTest == "shared")
        }

        @Test("B-OBI-15 standalone injectors are independent of each other")
        func standaloneInjectors() throws {
            let first = try Injector(Self.testString)
            let second = try Injector(ClosureModule { $0.bind(String.self, named: "injectTest").toInstance("other") })
            let a = InjectTarget()
            let b = InjectTarget()
            try first.injectDependencies(into: a)
            try second.injectDependencies(into: b)
            #expect(a.injectTest == "testString")
            #expect(b.injectTest == "other")
        }

        @Test("B-OBI-16 (different) injection is thread-safe: 8 threads inject into their own objects at once")
        func concurrentInjection() throws {
            let calls = Counter()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(String.self, named: "injectTest").to { _ in "value \(calls.increment())" }
                }
            )
            let values = Locked<Set<String>>([])
            let failures = Counter()
            let barrier = Barrier(count: 8)
            let finished = runThreads(8) { _ in
                barrier.arriveAndWait()
                for _ in 0..<100 {
                    let target = InjectTarget()
                    do {
                        try injector.injectDependencies(into: target)
                        if let value = target.injectTest, target.hookCalls == 1 {
                            values.withLock { _ = $0.insert(value) }
                        } else {
                            failures.increment()
                        }
                    } catch {
                        failures.increment()
                    }
                }
            }
            #expect(finished)
            #expect(failures.value == 0)
            #expect(calls.value == 800)
            #expect(values.withLock { $0.count } == 800)
        }
    }
}
