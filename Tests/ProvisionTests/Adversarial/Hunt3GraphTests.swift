import Dispatch
import Foundation
import Testing

@testable import Provision

/// Graphs a user can write by mistake, resolved, validated and drawn.
@Suite("Hunt3: broken graphs", .timeLimit(.minutes(1)))
struct Hunt3GraphTests {
    protocol Sink: Sendable {}
    final class A: Sink {}
    final class B: Sendable {}
    final class Missing: Sendable {}
    final class SelfNeeding: Sendable {
        init(other: SelfNeeding) {}
    }
    final class NeedsAll: Sink {
        init(all: [any Sink]) {}
    }

    static func unvalidatedLoops() throws -> Injector {
        try Injector.unvalidated(
            ClosureModule { binder in
                binder.bind(A.self).to(binding: A.self)
                binder.bind((any Sink).self, named: "x").to(binding: (any Sink).self, named: "y")
                binder.bind((any Sink).self, named: "y").to(binding: (any Sink).self, named: "x")
                binder.bind(B.self).to { resolver in
                    _ = try resolver.get(B.self)
                    return B()
                }.in(.singleton)
                binder.bind(SelfNeeding.self).to(SelfNeeding.init(other:))
                binder.bind((any Sink).self, named: "missing").to(binding: A.self, named: "nope")
                binder.multibind((any Sink).self).to(NeedsAll.init(all:))
                binder.multibind((any Sink).self).to { A() }
            }
        )
    }

    @Test("validation, the report and the drawings of a graph full of loops: no crash, every problem")
    func validateLoops() throws {
        let injector = try Self.unvalidatedLoops()
        let report = injector.validationReport()
        #expect(!report.isValid)
        let text = report.description
        #expect(text.contains("SelfNeeding"), "\(text)")
        let error = #expect(throws: ProvisionError.self) { _ = try injector.validate() }
        #expect(error != nil)
        let graph = injector.graph()
        #expect(!graph.dot().isEmpty)
        #expect(!graph.mermaid().isEmpty)
    }

    @Test("requests in a graph full of loops: each a ProvisionError with the right code")
    func resolveLoops() throws {
        let injector = try Self.unvalidatedLoops()
        func code(_ body: () throws -> Void) -> ProvisionError.Code? {
            do {
                try body()
                return nil
            } catch let error as ProvisionError {
                return error.code
            } catch {
                return nil
            }
        }
        #expect(code { _ = try injector.syncGet(A.self) } == .cycle)
        #expect(code { _ = try injector.syncGet((any Sink).self, named: "x") } == .cycle)
        #expect(code { _ = try injector.syncGet(B.self) } == .cycle)
        #expect(code { _ = try injector.syncGet(SelfNeeding.self) } == .cycle)
        #expect(code { _ = try injector.syncGet((any Sink).self, named: "missing") } == .notBound)
        #expect(code { _ = try injector.getAll((any Sink).self) } == .cycle)
        #expect(code { _ = try injector.syncGet(A?.self) } == .cycle)
        #expect(code { _ = try injector.syncGet(Provider<A>.self).get() } == .cycle)
        #expect(code { _ = try injector.syncGet(Lazy<B>.self).value } == .cycle)
        #expect(code { _ = try injector.syncGet(Provider<Lazy<Provider<A>>>.self).get().value.get() } == .cycle)
        #expect(code { _ = try injector.syncGet(Missing?.self) } == nil)
        #expect(code { _ = try injector.syncGet(Missing??.self) } == nil)
        #expect(code { _ = try injector.syncGet(ObjectFactory.self).get(Missing.self) } == .notBound)
    }

    @Test("async requests in a graph full of loops: the same codes")
    func resolveLoopsAsync() async throws {
        let injector = try Self.unvalidatedLoops()
        func code(_ body: () async throws -> Void) async -> ProvisionError.Code? {
            do {
                try await body()
                return nil
            } catch let error as ProvisionError {
                return error.code
            } catch {
                return nil
            }
        }
        #expect(await code { _ = try await injector.get(A.self) } == .cycle)
        #expect(await code { _ = try await injector.get((any Sink).self, named: "x") } == .cycle)
        #expect(await code { _ = try await injector.get(B.self) } == .cycle)
        #expect(await code { _ = try await injector.get(SelfNeeding.self) } == .cycle)
        #expect(await code { _ = try await injector.getAll((any Sink).self) } == .cycle)
        #expect(await code { _ = try await injector.get(A?.self) } == .cycle)
    }

    @Test("an element bound twice under the collection's key and as elements is reported, not crashing")
    func boundAndMultibound() {
        let error = #expect(throws: ProvisionError.self) {
            _ = try Injector(
                ClosureModule { binder in
                    binder.multibind((any Sink).self).to { A() }
                    binder.bind([any Sink].self).toInstance([])
                }
            )
        }
        #expect(error?.code == .duplicateBinding)
        #expect(error?.description.contains("[any Hunt3GraphTests.Sink]") == true, "\(String(describing: error))")
    }

    @Test("toInstance(checking:) with a value of the wrong type is a typeMismatch naming both types")
    func instanceChecking() {
        let error = #expect(throws: ProvisionError.self) {
            let injector = try Injector(
                ClosureModule { binder in binder.bind((any Sink).self).toInstance(checking: B()) })
            _ = try injector.syncGet((any Sink).self)
        }
        #expect(error?.code == .typeMismatch, "\(String(describing: error))")
        #expect(error?.description.contains("B") == true)
    }
}
