import Foundation
import Provision
import Testing

/// Deep chains with singletons interleaved, through the async API: settling recurses once per level.
@Suite("Hunt2: deep mixed chains through the async API", .timeLimit(.minutes(5)))
struct Hunt2DepthTests {
    /// Links 0..<depth; link i is a singleton when i is a multiple of `every`, otherwise transient.
    static func mixedModule(depth: Int, every: Int) -> ClosureModule {
        let ids = (0..<depth).map { HuntFlatChain.id($0) }
        return ClosureModule { binder in
            for index in 0..<depth - 1 {
                ids[index].bindLink(binder, to: ids[index + 1], scope: index % every == 0 ? .singleton : .transient)
            }
            ids[depth - 1].bindLeaf(binder, scope: .singleton)
        }
    }

    @Test(
        "a mixed chain resolved with the async API twice never crashes",
        arguments: [1_000, 5_000, 20_000], [2, 3, 50]
    )
    func asyncMixedChain(depth: Int, every: Int) async {
        await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) { [depth, every] in
            let injector = try Injector(Self.mixedModule(depth: depth, every: every))
            for _ in 0..<2 {
                do {
                    let value = try await HuntFlatChain.topAsync(injector)
                    _ = Unmanaged.passRetained(value)
                } catch let error as ProvisionError where error.code == .depthExceeded {
                } catch {
                    FileHandle.standardError.write(Data("\(error)\n".utf8))
                    exit(3)
                }
            }
            exit(0)
        }
    }

    @Test(
        "a mixed chain whose lower half a thread built: the async request of the top never crashes",
        arguments: [5_000, 20_000]
    )
    func asyncAfterSyncHalf(depth: Int) async {
        await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) { [depth] in
            let injector = try Injector(Self.mixedModule(depth: depth, every: 2))
            let half = HuntFlatChain.id(depth - 1_000)
            _ = HuntChain.run(stackSize: 64 << 20) { () -> Bool in (try? half.resolve(injector)) != nil }
            do {
                let value = try await HuntFlatChain.topAsync(injector)
                _ = Unmanaged.passRetained(value)
            } catch let error as ProvisionError where error.code == .depthExceeded {
            } catch {
                FileHandle.standardError.write(Data("\(error)\n".utf8))
                exit(3)
            }
            exit(0)
        }
    }
}
