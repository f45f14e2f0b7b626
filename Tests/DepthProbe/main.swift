// Resolves a long chain of bindings on this process's main thread, for the depth tests of
// ProvisionTests (issue 13, defect 10): a test's own main thread is not available to it, so the tests
// run this program as a child process.
//
// Usage: DepthProbe closures|delegations LENGTH [main|large|small]
// Prints `resolved LENGTH` or `failed CODE DEPTH`, and exits 0 when the chain resolved whole or failed
// with depthExceeded, 1 on any other failure, 64 on a usage error.

import Dispatch
import Foundation
import Provision

final class ChainLink: Sendable {
    let next: ChainLink?

    init(next: ChainLink?) {
        self.next = next
    }
}

struct ChainModule: Module {
    let delegations: Bool
    let length: Int

    func configure(_ binder: Binder) {
        for index in 0..<length - 1 {
            let next = "link \(index + 1)"
            if delegations {
                binder.bind(ChainLink.self, named: "link \(index)").to(binding: ChainLink.self, named: next)
            } else {
                binder.bind(ChainLink.self, named: "link \(index)").to { resolver in
                    ChainLink(next: try resolver.get(ChainLink.self, named: next))
                }
            }
        }
        binder.bind(ChainLink.self, named: "link \(length - 1)").to { ChainLink(next: nil) }
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 3, ["closures", "delegations"].contains(arguments[1]), let length = Int(arguments[2]),
    length > 0
else {
    FileHandle.standardError.write(Data("usage: DepthProbe closures|delegations LENGTH [main|large|small]\n".utf8))
    exit(64)
}
let stackSize: Int? =
    switch arguments.count > 3 ? arguments[3] : "main" {
    case "large": 8 << 20
    case "small": 512 << 10
    default: nil
    }

@Sendable func probe(delegations: Bool, length: Int) -> Int32 {
    do {
        let injector = try Injector(ChainModule(delegations: delegations, length: length))
        let first = try injector.get(ChainLink.self, named: "link 0")
        var count = 1
        var link = first
        while let next = link.next {
            count += 1
            link = next
        }
        print("resolved \(delegations ? length : count)")
        return 0
    } catch {
        print("failed \(error.code) \(error.path.count)")
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        return error.code == .depthExceeded ? 0 : 1
    }
}

let delegations = arguments[1] == "delegations"
if let stackSize {
    nonisolated(unsafe) var status: Int32 = 1
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        status = probe(delegations: delegations, length: length)
        done.signal()
    }
    thread.stackSize = stackSize
    thread.start()
    done.wait()
    exit(status)
}
exit(probe(delegations: delegations, length: length))
