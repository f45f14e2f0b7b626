import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Provision

@Suite("Concurrent registration")
struct ConcurrentRegistrationTests {
    @Test("8 threads install distinct keys while 8 others resolve: every registration is visible afterwards")
    func registerWhileResolving() throws {
        let writers = 8
        let readers = 8
        let modulesPerWriter = 40
        let keysPerModule = 5
        let injector = try Injector(
            ClosureModule { binder in
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
                            ClosureModule { binder in
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
                        ClosureModule { binder in
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

    /// Issue 13, defect 9: bindings are now added to a stripe's table in place, so a lock-free reader
    /// can see some of an install's bindings before others. A request that misses looks again under the
    /// stripe's lock before it reports `notBound` or creates a just-in-time binding, so it either sees
    /// the whole install or none of it.
    @Test("readers during in-place installs: installed keys resolve, a visible install is whole, nothing is wrong")
    func installsInPlaceWhileReading() throws {
        let modules = 600
        let readers = 3
        // Module `index` binds `namesPerModule` Ints (one stripe: most installs add to its table in
        // place, some double it), a String (usually another stripe) and, in the middle module, the
        // self-declared type. The Ints are added in declaration order, one slot after the other.
        let namesPerModule = 48
        let declaringModule = modules / 2
        let injector = try Injector(ClosureModule { $0.bind(Engine.self).to(Engine.init).in(.singleton) })
        let engine = try injector.get(Engine.self)
        let barrier = Barrier(count: 1 + readers)
        let installed = Atomic(0)
        let declaringInstall = Locked<String?>(nil)
        let wrong = Locked<[String]>([])
        let reads = Counter()
        let wholeInstalls = Counter()
        let justInTime = Counter()

        let finished = runThreads(1 + readers) { thread in
            barrier.arriveAndWait()
            if thread == 0 {
                for index in 0..<modules {
                    do throws(ProvisionError) {
                        try injector.install(
                            ClosureModule { binder in
                                for name in 0..<namesPerModule {
                                    binder.bind(Int.self, named: "m\(index)-\(name)").toInstance(index * 1_000 + name)
                                }
                                binder.bind(String.self, named: "m\(index)").toInstance("m\(index)")
                                if index == declaringModule {
                                    binder.bind(RaceDeclared.self).toInstance(RaceDeclared(origin: "module"))
                                }
                            }
                        )
                        if index == declaringModule { declaringInstall.withLock { $0 = "installed" } }
                    } catch {
                        // Only the declaring module may fail, when a reader bound its type just in time first.
                        let outcome = "\(error.code)"
                        if index == declaringModule, error.code == .duplicateBinding {
                            declaringInstall.withLock { $0 = outcome }
                        } else {
                            wrong.withLock { $0.append("install of module \(index) threw \(outcome)") }
                        }
                    }
                    installed.store(index + 1, ordering: .releasing)
                }
                return
            }
            var random = SystemRandomNumberGenerator()
            while true {
                let done = installed.load(ordering: .acquiring)
                let finishedWriting = done == modules
                do throws(ProvisionError) {
                    if try injector.get(Engine.self) !== engine { wrong.withLock { $0.append("another Engine") } }
                    // A key whose install returned: it must resolve, to its own value.
                    let declared = declaringInstall.withLock { $0 } == "installed"
                    if done > 0, case let module = Int.random(in: 0..<done, using: &random),
                        module != declaringModule || declared
                    {
                        let name = Int.random(in: 0..<namesPerModule, using: &random)
                        let value = try injector.get(Int.self, named: "m\(module)-\(name)")
                        if value != module * 1_000 + name {
                            wrong.withLock { $0.append("m\(module)-\(name) gave \(value)") }
                        }
                    }
                    // The module being installed (or the next): none of it, or all of it. Its first Int
                    // is added first; once it is visible, the last one (added last) must resolve too.
                    let module = min(done + Int.random(in: 0...1, using: &random), modules - 1)
                    let first: Int
                    do throws(ProvisionError) {
                        first = try injector.get(Int.self, named: "m\(module)-0")
                    } catch  where error.code == .notBound {
                        first = -1 // Not installed yet.
                    }
                    if first >= 0 {
                        if first != module * 1_000 { wrong.withLock { $0.append("m\(module)-0 gave \(first)") } }
                        for name in (1..<namesPerModule).reversed() {
                            let sibling = try injector.get(Int.self, named: "m\(module)-\(name)")
                            if sibling != module * 1_000 + name {
                                wrong.withLock { $0.append("m\(module)-\(name) of a visible install gave \(sibling)") }
                            }
                        }
                        if try injector.get(String.self, named: "m\(module)") != "m\(module)" {
                            wrong.withLock { $0.append("m\(module) of a visible install") }
                        }
                        wholeInstalls.increment()
                    }
                    // Once the declaring module is next: bound just in time, unless the module was first.
                    if done >= declaringModule, try injector.get(RaceDeclared.self).origin == "just in time" {
                        justInTime.increment()
                    }
                    reads.increment()
                } catch {
                    wrong.withLock { $0.append("a read threw \(error.code)") }
                }
                if finishedWriting { break }
            }
        }

        #expect(finished)
        let wrongs = wrong.withLock { $0 }
        #expect(wrongs.count == 0, "\(wrongs.count) wrong results, the first: \(wrongs.prefix(8))")
        #expect(reads.value > 0)
        #expect(wholeInstalls.value > 0)
        // The self-declared type has one binding: the module's (and no reader made one just in time),
        // or one made just in time first (and the module's install threw, adding nothing).
        let outcome = declaringInstall.withLock { $0 }
        let origin = try injector.get(RaceDeclared.self).origin
        if outcome == "installed" {
            #expect(origin == "module")
            #expect(justInTime.value == 0)
        } else {
            #expect(outcome == "\(ProvisionError.Code.duplicateBinding)")
            #expect(origin == "just in time")
        }
        var missing = 0
        for module in 0..<modules where module != declaringModule || outcome == "installed" {
            for name in 0..<namesPerModule
            where (try? injector.get(Int.self, named: "m\(module)-\(name)")) != module * 1_000 + name {
                missing += 1
            }
            if (try? injector.get(String.self, named: "m\(module)")) != "m\(module)" { missing += 1 }
        }
        #expect(missing == 0)
    }

    /// Issue 13, defect 4: an install that passed the injector's closed check just before `shutdown()`
    /// added its bindings after shutdown had emptied the tables, and they resolved after shutdown.
    @Test("install racing shutdown: after shutdown, every request throws shutDown")
    func installRacingShutdown() async throws {
        let rounds = 2_000
        var shutDownAfterwards = 0
        var installed = 0
        var refused = 0
        var unexpected: [String] = []
        for round in 0..<rounds {
            let injector = try Injector()
            let barrier = Barrier(count: 2)
            let outcome = Locked<String?>(nil)
            let thread = DispatchGroup()
            thread.enter()
            let installer = Thread {
                defer { thread.leave() }
                barrier.arriveAndWait()
                do throws(ProvisionError) {
                    // Several types, so several stripes: close() may be half way through them.
                    try injector.install(
                        ClosureModule { binder in
                            binder.bind(Int.self, named: "late").toInstance(round)
                            binder.bind(String.self, named: "late").toInstance("late")
                            binder.bind(Config.self).toInstance(Config(port: round))
                            binder.bind(Engine.self).to(Engine.init)
                        }
                    )
                    outcome.withLock { $0 = "installed" }
                } catch {
                    outcome.withLock { $0 = "\(error.code)" }
                }
            }
            installer.start()
            // A real thread waits at the barrier, so this short block of a pool thread is safe.
            barrier.arriveAndWait()
            try await injector.shutdown()
            let (afterwards, failures) = Self.requestsAfterShutdown(injector)
            unexpected += failures.map { "round \(round): \($0)" }
            if afterwards == 4 { shutDownAfterwards += 1 }
            if !injector.bindingKeys.isEmpty { unexpected.append("round \(round): keys after shutdown") }
            await withCheckedContinuation { continuation in
                thread.notify(queue: .global()) { continuation.resume() }
            }
            switch outcome.withLock({ $0 }) {
            case "installed": installed += 1
            case "\(ProvisionError.Code.shutDown)": refused += 1
            case let other: unexpected.append("round \(round): install ended with \(other ?? "nothing")")
            }
        }
        #expect(unexpected.count == 0, "\(unexpected.count) unexpected outcomes, the first: \(unexpected.prefix(8))")
        #expect(shutDownAfterwards == rounds)
        #expect(installed + refused == rounds)
    }
}

extension ConcurrentRegistrationTests {
    /// Requests each key of `installRacingShutdown`'s module (synchronously): how many threw shutDown,
    /// and what else happened.
    static func requestsAfterShutdown(_ injector: Injector) -> (shutDown: Int, failures: [String]) {
        var shutDown = 0
        var failures: [String] = []
        for request in 0..<4 {
            do throws(ProvisionError) {
                switch request {
                case 0: _ = try injector.get(Int.self, named: "late")
                case 1: _ = try injector.get(String.self, named: "late")
                case 2: _ = try injector.get(Config.self)
                default: _ = try injector.get(Engine.self)
                }
                failures.append("request \(request) succeeded after shutdown")
            } catch  where error.code == .shutDown {
                shutDown += 1
            } catch {
                failures.append("request \(request) threw \(error.code)")
            }
        }
        return (shutDown, failures)
    }
}

/// A self-declared type that a module may also bind: which of the two made the instance.
final class RaceDeclared: Injectable, Sendable {
    static let injection = Injection { RaceDeclared(origin: "just in time") }
    let origin: String
    init(origin: String) { self.origin = origin }
}
