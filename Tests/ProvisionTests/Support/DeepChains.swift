import Dispatch
import Foundation
import Provision

/// One link of a long chain of bindings: every binding of the chain is a named binding of this type.
final class ChainLink: Sendable {
    let next: ChainLink?

    init(next: ChainLink?) {
        self.next = next
    }
}

/// Long chains of bindings, each needing the next, for the depth tests (issue 13, defect 10).
enum DeepChain {
    /// How the links of a chain are bound.
    enum Kind: String, Sendable, Codable, CaseIterable {
        /// `bind(ChainLink.self, named: "n").to { resolver in ChainLink(next: try resolver.get(...)) }`
        case closures
        /// `bind(ChainLink.self, named: "n").to(binding: ChainLink.self, named: "n+1")`
        case delegations
    }

    /// Where a chain is resolved.
    enum Thread: String, Sendable, Codable, CaseIterable {
        /// A process's main thread (8 MiB of stack on Linux by default), in a child process running
        /// `DepthProbe` (see ``probe(_:length:)``).
        case main
        /// A thread with an 8 MiB stack.
        case large
        /// A thread with a 512 KiB stack (the size of a secondary thread on Darwin).
        case small

        var stackSize: Int {
            switch self {
            case .main, .large: 8 << 20
            case .small: 512 << 10
            }
        }
    }

    /// The name of link `index`.
    static func name(_ index: Int) -> String {
        "link \(index)"
    }

    /// A module binding links `0..<length`: each link needs the next, the last one is built by an
    /// initializer.
    static func module(_ kind: Kind, length: Int) -> ClosureModule {
        ClosureModule { binder in
            for index in 0..<length - 1 {
                let next = name(index + 1)
                switch kind {
                case .closures:
                    binder.bind(ChainLink.self, named: name(index)).to { resolver in
                        ChainLink(next: try resolver.get(ChainLink.self, named: next))
                    }
                case .delegations:
                    binder.bind(ChainLink.self, named: name(index)).to(binding: ChainLink.self, named: next)
                }
            }
            binder.bind(ChainLink.self, named: name(length - 1)).to { ChainLink(next: nil) }
        }
    }

    /// Resolves the first link of a chain of `length` on `thread`.
    static func resolve(_ kind: Kind, length: Int, on thread: Thread) throws -> Result<ChainLink, ProvisionError> {
        let injector = try Injector(module(kind, length: length))
        return try run(on: thread) {
            Result { () throws(ProvisionError) in try injector.get(ChainLink.self, named: name(0)) }
        }
    }

    /// Runs `body` on a new thread with `thread`'s stack size and returns its result.
    static func run<R: Sendable>(on thread: Thread, _ body: @escaping @Sendable () -> R) throws -> R {
        let result = ResultBox<R>()
        let done = DispatchSemaphore(value: 0)
        let worker = Foundation.Thread {
            result.value = body()
            done.signal()
        }
        worker.stackSize = thread.stackSize
        worker.start()
        done.wait()
        guard let value = result.value else { throw NoResult() }
        return value
    }

    /// Runs `DepthProbe` (built beside the test bundle), which resolves a chain of `length` links of
    /// `kind` on its main thread.
    ///
    /// - Returns: How the process ended, and what it printed (`resolved N` or `failed CODE DEPTH`).
    static func probe(_ kind: Kind, length: Int) throws -> (status: Int32, crashed: Bool, output: String) {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let process = Process()
        process.executableURL = directory.appendingPathComponent("DepthProbe")
        process.arguments = [kind.rawValue, String(length)]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus, process.terminationReason == .uncaughtSignal,
            String(decoding: data, as: UTF8.self)
        )
    }

    /// The number of links of a chain that was resolved.
    static func length(of first: ChainLink) -> Int {
        var count = 1
        var link = first
        while let next = link.next {
            count += 1
            link = next
        }
        return count
    }

    struct NoResult: Error {}
}

/// Hands a thread's result to the thread that waited for it (the semaphore orders the accesses).
private final class ResultBox<Value>: @unchecked Sendable {
    var value: Value?
}
