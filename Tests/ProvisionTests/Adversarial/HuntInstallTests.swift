import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Provision

final class HIPlugin: Sendable {}
final class HIRoot: Sendable {
    let plugin: HIPlugin
    init(plugin: HIPlugin) { self.plugin = plugin }
}
final class HIOptionalRoot: Sendable {
    let plugin: HIPlugin?
    init(plugin: HIPlugin?) { self.plugin = plugin }
}

@Suite("Hunt: plugins installed while requests run", .timeLimit(.minutes(1)))
struct HuntInstallTests {
    @Test("a root that failed with notBound resolves once its missing dependency is installed, from every thread")
    func failedRootHealsAfterInstall() async throws {
        for _ in 0..<50 {
            let injector = try Injector(
                modules: [
                    ClosureModule { binder in
                        binder.bind(HIRoot.self).to(HIRoot.init(plugin:)).in(.singleton)
                        binder.bind(HIOptionalRoot.self).to(HIOptionalRoot.init(plugin:))
                    }
                ],
                configuration: Injector.Configuration(validatesOnCreation: false)
            )
            let before = #expect(throws: ProvisionError.self) { try injector.get(HIRoot.self) }
            #expect(before?.code == .notBound)
            #expect(try injector.syncGet(HIOptionalRoot.self).plugin == nil)
            let installed = HuntFlag(false)
            let wrong = Locked<[String]>([])
            let barrier = Barrier(count: 5)
            let finished = try await offPool {
                runThreads(5) { index in
                    barrier.arriveAndWait()
                    if index == 0 {
                        do {
                            try injector.install(
                                ClosureModule { $0.bind(HIPlugin.self).to(HIPlugin.init).in(.singleton) })
                        } catch {
                            wrong.withLock { $0.append("install: \(error)") }
                        }
                        installed.isSet = true
                        return
                    }
                    for _ in 0..<200 {
                        let done = installed.isSet
                        do {
                            _ = try injector.get(HIRoot.self)
                        } catch let error as ProvisionError where error.code == .notBound && !done {
                            // before the install finished: fine
                        } catch {
                            wrong.withLock { $0.append("\(error)") }
                        }
                    }
                }
            }
            #expect(finished)
            #expect(wrong.withLock { $0 }.isEmpty, "\(wrong.withLock { $0.prefix(2) })")
            let root = try injector.syncGet(HIRoot.self)
            #expect(try injector.syncGet(HIPlugin.self) === root.plugin)
            #expect(try injector.syncGet(HIOptionalRoot.self).plugin === root.plugin)
        }
    }
}
