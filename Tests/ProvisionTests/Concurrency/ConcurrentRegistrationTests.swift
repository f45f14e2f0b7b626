import Provision
import Synchronization
import Testing

@Suite("Concurrent registration")
struct ConcurrentRegistrationTests {
    @Test("8 threads install distinct keys while 8 others resolve: every registration is visible afterwards")
    func registerWhileResolving() throws {
        let writers = 8
        let readers = 8
        let modulesPerWriter = 40
        let keysPerModule = 5
        let injector = try Injector(
            TestModule { binder in
                binder.bind(Engine.self).to(Engine.init).in(.singleton)
                binder.bind(Brakes.self).to(Brakes.init)
                binder.bind(Car.self).to(Car.init(engine:brakes:))
            }
        )
        let barrier = Barrier(count: writers + readers)
        let writersDone = Atomic(0)
        let installFailures = Counter()
        let readFailures = Counter()
        let reads = Counter()

        let finished = runThreads(writers + readers) { index in
            barrier.arriveAndWait()
            if index < writers {
                for module in 0..<modulesPerWriter {
                    do {
                        try injector.install(
                            TestModule { binder in
                                for key in 0..<keysPerModule {
                                    let value = (index * 1_000 + module) * 10 + key
                                    binder.bind(Int.self, named: "w\(index)-m\(module)-k\(key)").toInstance(value)
                                }
                            }
                        )
                    } catch {
                        installFailures.increment()
                    }
                }
                writersDone.add(1, ordering: .sequentiallyConsistent)
            } else {
                // Resolve the fixed graph and whatever the writers have published so far, until
                // every writer is done.
                var probe = 0
                while writersDone.load(ordering: .sequentiallyConsistent) < writers {
                    do {
                        _ = try injector.get(Car.self)
                        let writer = probe % writers
                        let module = (probe / writers) % modulesPerWriter
                        let name = "w\(writer)-m\(module)-k0"
                        if injector.hasBinding(for: Int.self, named: name) {
                            let value = try injector.get(Int.self, named: name)
                            if value != (writer * 1_000 + module) * 10 { readFailures.increment() }
                        }
                        reads.increment()
                    } catch {
                        readFailures.increment()
                    }
                    probe += 1
                }
            }
        }

        #expect(finished)
        #expect(installFailures.value == 0)
        #expect(readFailures.value == 0)
        #expect(reads.value > 0)
        var missing = 0
        for writer in 0..<writers {
            for module in 0..<modulesPerWriter {
                for key in 0..<keysPerModule {
                    let expected = (writer * 1_000 + module) * 10 + key
                    let value = try? injector.get(Int.self, named: "w\(writer)-m\(module)-k\(key)")
                    if value != expected { missing += 1 }
                }
            }
        }
        #expect(missing == 0)
        #expect(injector.bindingKeys.count == 3 + writers * modulesPerWriter * keysPerModule)
    }

    @Test("two threads installing the same key: exactly one succeeds")
    func racingDuplicateInstalls() throws {
        for _ in 0..<200 {
            let injector = try Injector()
            let barrier = Barrier(count: 2)
            let successes = Counter()
            let duplicates = Counter()
            let finished = runThreads(2) { index in
                barrier.arriveAndWait()
                do throws(ProvisionError) {
                    try injector.install(
                        TestModule { binder in
                            binder.bind(Config.self).toInstance(Config(port: index))
                            binder.bind(Int.self, named: "\(index)").toInstance(index)
                        }
                    )
                    successes.increment()
                } catch  where error.code == .duplicateBinding {
                    duplicates.increment()
                } catch {}
            }
            #expect(finished)
            #expect(successes.value == 1)
            #expect(duplicates.value == 1)
            // All or nothing: the loser's other binding was not added either.
            #expect(injector.bindingKeys.count == 2)
        }
    }
}
