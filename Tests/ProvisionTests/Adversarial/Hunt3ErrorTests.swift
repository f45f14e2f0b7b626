import Dispatch
import Foundation
import Testing

@testable import Provision

/// Misuse a user can write: every one a thrown ProvisionError, never a crash or a hang.
@Suite("Hunt3: misuse reported as errors", .timeLimit(.minutes(1)))
struct Hunt3ErrorTests {
    protocol Store: Sendable {}
    final class SQLStore: Store {}
    final class Unrelated: Sendable {}
    final class Loop: Sendable {}
    final class Other: Sendable {}
    final class Failing: Sendable {}
    final class Holder: Sendable {
        let provider: Provider<Holder>
        init(provider: Provider<Holder>) { self.provider = provider }
    }

    @Test("delegating a protocol to an unrelated type is an error at creation or request, not a crash")
    func delegationToUnrelatedType() async {
        await #expect(processExitsWith: .success) {
            do {
                let injector = try Injector(
                    ClosureModule { binder in
                        binder.bind(Unrelated.self).to(Unrelated.init)
                        binder.bind((any Store).self).to(binding: Unrelated.self)
                    }
                )
                _ = try injector.get((any Store).self)
                exit(3) // resolved an Unrelated as `any Store`
            } catch let error as ProvisionError {
                exit(error.code == .typeMismatch ? 0 : 2)
            } catch {
                exit(4)
            }
        }
    }

    @Test("a two-binding delegation loop is a cycle error with its path")
    func delegationLoop() async {
        await #expect(processExitsWith: .success) {
            do {
                _ = try Injector(
                    ClosureModule { binder in
                        binder.bind(Loop.self).to(binding: Other.self)
                        binder.bind(Other.self).to(binding: Loop.self)
                    }
                )
                exit(3)
            } catch let error as ProvisionError {
                exit(error.description.contains("cycle") ? 0 : 2)
            } catch {
                exit(4)
            }
        }
    }

    @Test("a delegation to itself is a cycle error")
    func delegationToItself() async {
        await #expect(processExitsWith: .success) {
            do {
                let injector = try Injector.unvalidated(
                    ClosureModule { binder in binder.bind(Loop.self).to(binding: Loop.self) }
                )
                _ = try injector.get(Loop.self)
                exit(3)
            } catch let error as ProvisionError {
                exit(error.code == .cycle ? 0 : 2)
            } catch {
                exit(4)
            }
        }
    }

    @Test("binding one key twice in one module is a duplicateBinding error naming the key")
    func duplicateInOneModule() throws {
        let error = #expect(throws: ProvisionError.self) {
            _ = try Injector(
                ClosureModule { binder in
                    binder.bind(Loop.self).to(Loop.init)
                    binder.bind(Loop.self).to(Loop.init).in(.singleton)
                }
            )
        }
        #expect(error?.description.contains("Loop") == true, "\(String(describing: error))")
    }

    @Test("an optional of a failing binding throws the failure, it is not nil")
    func optionalOfFailing() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Failing.self).to { () throws -> Failing in throw ExpectedFailure() }
            }
        )
        let error = #expect(throws: ProvisionError.self) { _ = try injector.syncGet(Failing?.self) }
        #expect(error?.code == .factoryFailed)
    }

    @Test("a Provider of itself called in a singleton's closure is a cycle error, not a deadlock")
    func providerOfItselfInFactory() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Loop.self).to { resolver in
                    _ = try resolver.get(Provider<Loop>.self).get()
                    return Loop()
                }.in(.singleton)
            }
        )
        let result = Locked<ProvisionError?>(nil)
        #expect(
            runThreads(1, timeout: 20) { _ in
                do { _ = try injector.syncGet(Loop.self) } catch let error as ProvisionError {
                    result.withLock { $0 = error }
                } catch {}
            })
        #expect(result.withLock { $0 }?.code == .cycle, "\(String(describing: result.withLock { $0 }))")
    }

    @Test("a Provider of itself called from a singleton's initializer is an error, not a deadlock")
    func providerOfItselfInInitializer() throws {
        final class SelfCalling: Sendable {
            init(provider: Provider<SelfCalling>) throws { _ = try provider.get() }
        }
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(SelfCalling.self).to { (provider: Provider<SelfCalling>) in
                    try SelfCalling(provider: provider)
                }.in(.singleton)
            }
        )
        let result = Locked<ProvisionError?>(nil)
        #expect(
            runThreads(1, timeout: 20) { _ in
                do { _ = try injector.syncGet(SelfCalling.self) } catch let error as ProvisionError {
                    result.withLock { $0 = error }
                } catch {}
            })
        let code = result.withLock { $0 }?.code
        #expect(code == .cycle || code == .depthExceeded || code == .factoryFailed, "\(String(describing: code))")
    }

    @Test("getAll of a type never multibound is an error naming the type, or empty")
    func getAllUnbound() throws {
        let injector = try Injector()
        do {
            let all = try injector.getAll((any Store).self)
            #expect(all.isEmpty)
        } catch {
            #expect(error.description.contains("any Hunt3ErrorTests.Store") || error.description.contains("any Store"))
        }
    }

    @Test("a multibinding element whose dependency is missing is reported at creation with its path")
    func multibindingMissingDependency() throws {
        final class NeedsOther: Store {
            init(other: Unrelated) {}
        }
        let error = #expect(throws: ProvisionError.self) {
            _ = try Injector(
                ClosureModule { binder in
                    binder.multibind((any Store).self).to(NeedsOther.init(other:))
                }
            )
        }
        #expect(error?.description.contains("Unrelated") == true, "\(String(describing: error))")
    }

    @Test("an argument of the wrong type is argumentMismatch naming both types")
    func wrongArgumentType() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Loop.self).withArguments(String.self).to { _, _ in Loop() }
            }
        )
        let error = #expect(throws: ProvisionError.self) { _ = try injector.get(Loop.self, arguments: 42) }
        #expect(error?.code == .argumentMismatch)
        #expect(
            error?.description.contains("String") == true && error?.description.contains("Int") == true,
            "\(String(describing: error))")
        let count = #expect(throws: ProvisionError.self) { _ = try injector.get(Loop.self, arguments: "a", "b") }
        #expect(count?.code == .argumentMismatch)
        let none = #expect(throws: ProvisionError.self) { _ = try injector.syncGet(Loop.self) }
        #expect(none?.code == .argumentMismatch, "\(String(describing: none))")
        let viaProvider = #expect(throws: ProvisionError.self) {
            _ = try injector.syncGet(Provider<Loop>.self).get(arguments: 1, 2)
        }
        #expect(viaProvider?.code == .argumentMismatch, "\(String(describing: viaProvider))")
    }
}
