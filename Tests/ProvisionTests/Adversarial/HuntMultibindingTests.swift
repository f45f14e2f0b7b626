import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Provision

protocol HMPlugin: Sendable {
    var id: Int { get }
}

final class HMPluginImpl: HMPlugin {
    let id: Int
    let bottom: HDBottom
    init(id: Int, bottom: HDBottom) {
        self.id = id
        self.bottom = bottom
    }
}

final class HMHost: Sendable {
    let plugins: [any HMPlugin]
    init(plugins: [any HMPlugin]) { self.plugins = plugins }
}

@Suite("Hunt: multibindings under contention", .timeLimit(.minutes(1)))
struct HuntMultibindingTests {
    @Test("16 threads getAll / inject [any P] of singleton elements over a shared singleton: each built once, in order")
    func multibindingRace() async throws {
        for round in 0..<100 {
            let runs = (0..<4).map { _ in Counter() }
            let bottoms = Counter()
            let injector = try Injector(
                ClosureModule { binder in
                    binder.bind(HDBottom.self).to { _ in
                        bottoms.increment()
                        return HDBottom()
                    }.in(.singleton)
                    for index in 0..<4 {
                        binder.multibind((any HMPlugin).self).to { resolver in
                            runs[index].increment()
                            return HMPluginImpl(id: index, bottom: try resolver.get())
                        }.in(.singleton)
                    }
                    binder.bind(HMHost.self).to(HMHost.init(plugins:))
                }
            )
            let barrier = Barrier(count: 16)
            let failures = Locked<[String]>([])
            let orders = Locked<Set<[Int]>>([])
            let finished = try await offPool {
                runThreads(16) { index in
                    barrier.arriveAndWait()
                    do {
                        let plugins: [any HMPlugin]
                        if (index + round) % 2 == 0 {
                            plugins = try injector.getAll((any HMPlugin).self)
                        } else {
                            plugins = try injector.get(HMHost.self).plugins
                        }
                        orders.withLock { _ = $0.insert(plugins.map(\.id)) }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
            #expect(finished)
            #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(2) })")
            #expect(orders.withLock { $0 } == [[0, 1, 2, 3]])
            #expect(runs.allSatisfy { $0.value == 1 })
            #expect(bottoms.value == 1)
        }
    }
}
