import Foundation
import Provision
import Synchronization
import Testing

final class HuntLink: Sendable {
    let next: HuntLink?
    init(next: HuntLink?) { self.next = next }
}

final class HuntFlag: Sendable {
    private let value: Atomic<Bool>
    init(_ value: Bool) { self.value = Atomic(value) }
    var isSet: Bool {
        get { value.load(ordering: .sequentiallyConsistent) }
        set { value.store(newValue, ordering: .sequentiallyConsistent) }
    }
}

struct HuntBoom: Error, Equatable {
    var id = 0
}

/// Holds an injector for factories that resolve through the injector itself (not their resolver).
final class HuntInjectorSlot: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Injector?
    var injector: Injector {
        get {
            lock.lock()
            defer { lock.unlock() }
            return stored!
        }
        set {
            lock.lock()
            stored = newValue
            lock.unlock()
        }
    }
}

@Suite("Hunt: errors at every depth", .timeLimit(.minutes(2)))
struct HuntErrorDepthTests {
    static func name(_ index: Int) -> String { "e\(index)" }

    /// Links e0 ... e(depth-1), the last one throws while `failing` is set.
    static func closureChain(depth: Int, scope: Scope, failing: HuntFlag?, runs: Counter) -> ClosureModule {
        ClosureModule { binder in
            for index in 0..<depth - 1 {
                let next = name(index + 1)
                binder.bind(HuntLink.self, named: name(index)).to { resolver in
                    runs.increment()
                    return HuntLink(next: try resolver.get(HuntLink.self, named: next))
                }.in(scope)
            }
            binder.bind(HuntLink.self, named: name(depth - 1)).to { _ in
                runs.increment()
                if failing?.isSet ?? true { throw HuntBoom(id: depth) }
                return HuntLink(next: nil)
            }.in(scope)
        }
    }

    static func expectedPath(_ depth: Int) -> [BindingKey] {
        (0..<depth).map { BindingKey(HuntLink.self, named: name($0)) }
    }

    @Test(
        "a throwing closure N levels deep: factoryFailed, its cause, and the whole path, on every request",
        arguments: [1, 2, 50, 500], [Scope.transient, .singleton]
    )
    func closureChainFailure(depth: Int, scope: Scope) throws {
        let runs = Counter()
        let injector = try Injector(Self.closureChain(depth: depth, scope: scope, failing: nil, runs: runs))
        let results: [ProvisionError?] = HuntChain.run(stackSize: 8 << 20) {
            (0..<2).map { _ in
                do {
                    _ = try injector.get(HuntLink.self, named: Self.name(0))
                    return nil
                } catch {
                    return error as? ProvisionError
                }
            }
        }
        for error in results {
            #expect(error?.code == .factoryFailed)
            #expect(error?.cause as? HuntBoom == HuntBoom(id: depth))
            #expect(error?.key == BindingKey(HuntLink.self, named: Self.name(depth - 1)))
            #expect(error?.path == Self.expectedPath(depth))
        }
        // Both requests ran every factory of the chain: nothing above the failure was cached.
        #expect(runs.value == 2 * depth)
    }

    @Test(
        "a singleton chain whose leaf fails once builds again, each level once more, then is cached",
        arguments: [2, 50, 500])
    func singletonChainRecovers(depth: Int) throws {
        let runs = Counter()
        let failing = HuntFlag(true)
        let injector = try Injector(Self.closureChain(depth: depth, scope: .singleton, failing: failing, runs: runs))
        let outcome: String = HuntChain.run(stackSize: 8 << 20) {
            do {
                _ = try injector.get(HuntLink.self, named: Self.name(0))
                return "first request succeeded"
            } catch {
                guard (error as? ProvisionError)?.code == .factoryFailed else { return "first: \(error)" }
            }
            failing.isSet = false
            do {
                let first = try injector.get(HuntLink.self, named: Self.name(0))
                let again = try injector.get(HuntLink.self, named: Self.name(0))
                let middle = try injector.get(HuntLink.self, named: Self.name(depth / 2))
                guard first === again else { return "not cached" }
                var link: HuntLink? = first
                for _ in 0..<(depth / 2) { link = link?.next }
                guard link === middle else { return "middle not shared" }
                return "ok"
            } catch {
                return "second: \(error)"
            }
        }
        #expect(outcome == "ok")
        #expect(runs.value == 2 * depth)
    }

    @Test(
        "a throwing constructor N levels deep in a chain of constructor bindings: path from root to the leaf",
        arguments: [1, 2, 50, 500]
    )
    func constructorChainFailure(depth: Int) throws {
        let (module, top) = HuntChain.module(depth: depth, scope: .transient, failingLeaf: true)
        let injector = try Injector(module)
        let errors: [ProvisionError?] = HuntChain.run(stackSize: 8 << 20) {
            (0..<2).map { _ in
                do {
                    _ = try HuntChain.get(injector, top)
                    return nil
                } catch {
                    return error as? ProvisionError
                }
            }
        }
        for error in errors {
            #expect(error?.code == .factoryFailed)
            #expect(error?.cause is HuntFailingLeaf.Failure)
            #expect(error?.key == BindingKey(HuntFailingLeaf.self))
            #expect(error?.path.count == depth + 1)
            #expect(error?.path.first == HuntChain.key(top))
            #expect(error?.path.last == BindingKey(HuntFailingLeaf.self))
        }
    }

    @Test("a closure resolving through the captured injector (not its resolver) keeps the path of the failure")
    func pathThroughInjector() throws {
        let slot = HuntInjectorSlot()
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(HuntLink.self, named: "top").to { _ in
                    HuntLink(next: try slot.injector.get(HuntLink.self, named: "middle"))
                }
                binder.bind(HuntLink.self, named: "middle").to { _ in
                    HuntLink(next: try slot.injector.get(HuntLink.self, named: "bottom"))
                }.in(.singleton)
                binder.bind(HuntLink.self, named: "bottom").to { _ -> HuntLink in throw HuntBoom(id: 7) }
            }
        )
        slot.injector = injector
        let error = #expect(throws: ProvisionError.self) { try injector.get(HuntLink.self, named: "top") }
        #expect(error?.code == .factoryFailed)
        #expect(error?.cause as? HuntBoom == HuntBoom(id: 7))
        #expect(error?.key == BindingKey(HuntLink.self, named: "bottom"))
        // The documented promise is for builds (the singleton "middle"): at least middle -> bottom.
        let path = error?.path ?? []
        #expect(
            path.suffix(2) == [BindingKey(HuntLink.self, named: "middle"), BindingKey(HuntLink.self, named: "bottom")],
            "\(error?.pathDescription ?? "")")
    }

    @Test("a cycle 500 levels deep through closures is reported with its whole path, never a crash")
    func deepCycle() throws {
        let depth = 500
        let injector = try Injector(
            ClosureModule { binder in
                for index in 0..<depth {
                    let next = Self.name((index + 1) % depth)
                    binder.bind(HuntLink.self, named: Self.name(index)).to { resolver in
                        HuntLink(next: try resolver.get(HuntLink.self, named: next))
                    }
                }
            }
        )
        let error: ProvisionError? = HuntChain.run(stackSize: 8 << 20) {
            do {
                _ = try injector.get(HuntLink.self, named: Self.name(0))
                return nil
            } catch {
                return error as? ProvisionError
            }
        }
        #expect(error?.code == .cycle)
        #expect(error?.path.count == depth + 1)
        #expect(error?.path.first == BindingKey(HuntLink.self, named: Self.name(0)))
        #expect(error?.path.last == BindingKey(HuntLink.self, named: Self.name(0)))
    }

    @Test("a missing binding 500 levels down a constructor chain is notBound with the whole path, found at creation")
    func deepMissing() throws {
        // Bind every wrap but not the leaf.
        let depth = 500
        let module = ClosureModule { binder in
            var current: any Sendable.Type = HuntLeaf.self
            for _ in 0..<depth { current = HuntChain.bindWrap(binder, over: current, scope: .transient) }
        }
        let error: ProvisionError? = HuntChain.run(stackSize: 8 << 20) {
            do {
                _ = try Injector(module)
                return nil
            } catch {
                return error as? ProvisionError
            }
        }
        #expect(error?.code == .validationFailed)
        let problem = error?.underlyingErrors.first
        #expect(error?.underlyingErrors.count == 1)
        #expect(problem?.code == .notBound)
        #expect(problem?.key == BindingKey(HuntLeaf.self))
        #expect(problem?.path.count == depth + 1)
    }

    @Test(
        "a throwing async closure N levels deep: factoryFailed with the whole path, twice", arguments: [1, 2, 50, 500],
        [Scope.transient, .singleton])
    func asyncClosureChainFailure(depth: Int, scope: Scope) async throws {
        let runs = Counter()
        let injector = try Injector(
            ClosureModule { binder in
                for index in 0..<depth - 1 {
                    let next = Self.name(index + 1)
                    binder.bind(HuntLink.self, named: Self.name(index)).to { resolver async throws in
                        runs.increment()
                        return HuntLink(next: try await resolver.get(HuntLink.self, named: next))
                    }.in(scope)
                }
                binder.bind(HuntLink.self, named: Self.name(depth - 1)).to { _ async throws -> HuntLink in
                    runs.increment()
                    throw HuntBoom(id: depth)
                }.in(scope)
            }
        )
        for _ in 0..<2 {
            do {
                _ = try await injector.get(HuntLink.self, named: Self.name(0))
                Issue.record("resolved")
            } catch {
                #expect(error.code == .factoryFailed)
                #expect(error.cause as? HuntBoom == HuntBoom(id: depth))
                #expect(error.path == Self.expectedPath(depth), "\(error.pathDescription.prefix(300))")
            }
        }
        #expect(runs.value == 2 * depth)
    }
}
