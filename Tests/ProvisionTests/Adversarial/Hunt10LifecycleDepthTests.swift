import Dispatch
import Foundation
import Testing

@testable import Provision

// MARK: - Fixtures

/// A service of a chain, named by its position.
private final class H10LService: Disposable {
    let index: Int
    let disposals = Counter()
    init(index: Int) { self.index = index }
    func dispose() { disposals.increment() }
}

private struct H10LBoom: Error {}

/// One link of a chain of child injectors: each child binds its level over its parent's level.
private final class H10LLink: Sendable {
    let level: Int
    let next: H10LLink?
    init(level: Int, next: H10LLink?) {
        self.level = level
        self.next = next
    }
}

/// Four services, each declared after (and depending on) the previous one; the start or stop hook of
/// `failing` throws.
private func h10LModule(log: Locked<[String]>, failingStart: Int?, failingStop: Int?) -> ClosureModule {
    ClosureModule { binder in
        for index in 0..<4 {
            binder.bind(H10LService.self, named: "\(index)").to { resolver in
                if index > 0 { _ = try resolver.get(H10LService.self, named: "\(index - 1)") }
                return H10LService(index: index)
            }.in(.singleton)
                .onStart { service in
                    log.withLock { $0.append("start \(service.index)") }
                    if service.index == failingStart { throw H10LBoom() }
                }
                .onStop { service in
                    log.withLock { $0.append("stop \(service.index)") }
                    if service.index == failingStop { throw H10LBoom() }
                }
        }
    }
}

// MARK: - Tests

@Suite("Hunt10: lifecycle hooks failing at every position, and deep chains of child injectors")
struct Hunt10LifecycleDepthTests {
    // A start hook failing at each position: the services before it are stopped in reverse, the ones
    // after it never start, start() throws startFailed naming the failing one; shutdown stops nothing
    // again and disposes each of the four singletons exactly once.
    @Test("a start hook failing at every position of a chain of four services", arguments: 0..<4)
    func failingStartHook(position: Int) async throws {
        let log = Locked<[String]>([])
        let injector = try Injector(h10LModule(log: log, failingStart: position, failingStop: nil))
        let error = await Hunt5.error { () async throws(ProvisionError) in try await injector.start() }
        #expect(error?.code == .startFailed, "\(String(describing: error))")
        let expected =
            (0...position).map { "start \($0)" } + (0..<position).reversed().map { "stop \($0)" }
        #expect(log.withLock { $0 } == expected)
        let services = try (0..<4).map { index in
            try Hunt5.result { () throws(ProvisionError) in try injector.syncGet(H10LService.self, named: "\(index)") }
                .get()
        }
        let stopped = await Hunt5.error { () async throws(ProvisionError) in try await injector.shutdown() }
        #expect(stopped == nil, "\(String(describing: stopped))")
        #expect(log.withLock { $0 } == expected, "shutdown stopped a service again")
        #expect(services.map(\.disposals.value) == [1, 1, 1, 1])
    }

    // A stop hook failing at each position: every other stop hook still runs, in reverse start order;
    // shutdown throws stopFailed with exactly one failure; every singleton is disposed once; a second
    // shutdown does nothing and throws nothing.
    @Test("a stop hook failing at every position of a chain of four services", arguments: 0..<4)
    func failingStopHook(position: Int) async throws {
        let log = Locked<[String]>([])
        let injector = try Injector(h10LModule(log: log, failingStart: nil, failingStop: position))
        try await injector.start()
        let services = try (0..<4).map { index in
            try Hunt5.result { () throws(ProvisionError) in try injector.syncGet(H10LService.self, named: "\(index)") }
                .get()
        }
        let error = await Hunt5.error { () async throws(ProvisionError) in try await injector.shutdown() }
        #expect(error?.code == .stopFailed)
        #expect(error?.underlyingErrors.count == 1, "\(String(describing: error))")
        #expect(log.withLock { $0 } == (0..<4).map { "start \($0)" } + (0..<4).reversed().map { "stop \($0)" })
        #expect(services.map(\.disposals.value) == [1, 1, 1, 1])
        let again = await Hunt5.error { () async throws(ProvisionError) in try await injector.shutdown() }
        #expect(again == nil)
        #expect(services.map(\.disposals.value) == [1, 1, 1, 1])
    }

    // 1,000 nested child injectors, each binding its level over its parent's: created (each validated on
    // creation), validated and resolved from the deepest one, then the chain cut in the middle by a
    // shutdown. Every step either works or reports an error (depthExceeded, shutDown): never a crash.
    @Test("a chain of 1,000 nested child injectors: create, validate, resolve, cut in the middle")
    func deepChildChain() async {
        await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let depth = 1_000
            var injectors: [Injector] = []
            do {
                var current = try Injector(
                    ClosureModule { binder in
                        binder.bind(H10LLink.self, named: "0").to { H10LLink(level: 0, next: nil) }.in(.singleton)
                    })
                injectors.append(current)
                for level in 1..<depth {
                    current = try current.makeChild(
                        ClosureModule { binder in
                            binder.bind(H10LLink.self, named: "\(level)").to(
                                dependencies: [BindingKey(H10LLink.self, named: "\(level - 1)")]
                            ) { resolver in
                                H10LLink(level: level, next: try resolver.get(H10LLink.self, named: "\(level - 1)"))
                            }
                        })
                    injectors.append(current)
                }
            } catch {
                FileHandle.standardError.write(Data("creation: \(error)\n".utf8))
                exit(3)
            }
            let leaf = injectors[depth - 1]
            let code: Int32 = HuntChain.run(stackSize: 16 << 20) {
                guard leaf.validationReport().isValid else { return 4 }
                do {
                    let top = try leaf.get(H10LLink.self, named: "\(depth - 1)")
                    var count = 0
                    var link: H10LLink? = top
                    while let next = link {
                        count += 1
                        link = next.next
                    }
                    guard count == depth else { return 5 }
                } catch let error as ProvisionError where error.code == .depthExceeded {
                } catch {
                    FileHandle.standardError.write(Data("resolve: \(error)\n".utf8))
                    return 6
                }
                return 0
            }
            guard code == 0 else { exit(code) }
            try await injectors[depth / 2].shutdown()
            let after = HuntChain.run(stackSize: 16 << 20) { () -> Int32 in
                do {
                    _ = try leaf.get(H10LLink.self, named: "\(depth - 1)")
                    return 7
                } catch {
                    return (error as? ProvisionError)?.code == .shutDown ? 0 : 8
                }
            }
            exit(after)
        }
    }
}
