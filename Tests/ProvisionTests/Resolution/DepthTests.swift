import Foundation
import Provision
import Testing

// Issue 13, defect 10 (b): a chain of bindings deeper than the thread's stack crashed the process with
// SIGSEGV (closures and delegations from about 3,000 links in a debug build, 10,000 in a release build).
// Each case runs in a child process (an exit test), so that a regression fails one test instead of
// killing the test run; the child exits successfully only when the resolution ended the expected way.

@Suite("Defect 10: deep chains fail with depthExceeded instead of crashing")
struct DepthTests {
    /// A chain of `length` links of `kind` resolved on `thread` either failed with `depthExceeded` or,
    /// when `mayFit`, resolved whole; anything else (another error, a partial chain) exits nonzero.
    static func expectDepthExceeded(
        _ kind: DeepChain.Kind,
        length: Int,
        on thread: DeepChain.Thread,
        mayFit: Bool
    ) throws {
        switch try DeepChain.resolve(kind, length: length, on: thread) {
        case .failure(let error):
            guard error.code == .depthExceeded else {
                FileHandle.standardError.write(Data("expected depthExceeded, got \(error)\n".utf8))
                exit(1)
            }
        case .success(let first):
            guard mayFit, kind == .delegations || DeepChain.length(of: first) == length else {
                FileHandle.standardError.write(Data("a chain of \(length) resolved on \(thread)\n".utf8))
                exit(2)
            }
        }
    }

    /// Whether a chain of 5,000 links of `kind` may fit an 8 MiB stack. In a debug build a closure link
    /// takes about 2 KiB (so 5,000 don't fit) and a delegation about 1.4 KiB (they do, just); in a
    /// release build both fit.
    static func fiveThousandMayFit(_ kind: DeepChain.Kind) -> Bool {
        #if DEBUG
            kind == .delegations
        #else
            true
        #endif
    }

    @Test(
        "defect 10: a chain of 5,000 closure bindings or delegations fails with depthExceeded unless it fits, never crashes",
        arguments: DeepChain.Kind.allCases,
        [DeepChain.Thread.large, .small]
    )
    func fiveThousand(kind: DeepChain.Kind, thread: DeepChain.Thread) async {
        // A 512 KiB stack never holds 5,000 links.
        let mayFit = Self.fiveThousandMayFit(kind) && thread != .small
        await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            [kind, thread, mayFit = mayFit as Bool] in
            try Self.expectDepthExceeded(kind, length: 5_000, on: thread, mayFit: mayFit)
        }
    }

    @Test(
        "defect 10: a chain of 50,000 closure bindings or delegations fails with depthExceeded, never a crash",
        arguments: DeepChain.Kind.allCases,
        [DeepChain.Thread.large, .small]
    )
    func fiftyThousand(kind: DeepChain.Kind, thread: DeepChain.Thread) async {
        await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) { [kind, thread] in
            try Self.expectDepthExceeded(kind, length: 50_000, on: thread, mayFit: false)
        }
    }

    @Test(
        "defect 10: on the main thread, chains of 50,000 fail with depthExceeded, 1,000 resolve, 5,000 never crash",
        arguments: DeepChain.Kind.allCases,
        [1_000, 5_000, 50_000]
    )
    func mainThread(kind: DeepChain.Kind, length: Int) throws {
        // The test's own main thread is not available: DepthProbe resolves the chain on its main thread.
        let (status, crashed, output) = try DeepChain.probe(kind, length: length)
        #expect(!crashed && status == 0, "DepthProbe \(kind) \(length): \(output)")
        if length == 1_000 || (length == 5_000 && Self.fiveThousandMayFit(kind) && output.hasPrefix("resolved")) {
            #expect(output == "resolved \(length)\n")
        } else {
            #expect(output.hasPrefix("failed depth exceeded "), "\(output)")
        }
    }

    @Test(
        "defect 10: a chain of 1,000 closure bindings or delegations that fits the stack resolves whole",
        arguments: DeepChain.Kind.allCases
    )
    func fits(kind: DeepChain.Kind) async {
        await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) { [kind] in
            let first = try DeepChain.resolve(kind, length: 1_000, on: .large).get()
            if kind == .closures, DeepChain.length(of: first) != 1_000 { exit(1) }
        }
    }

    @Test("defect 10: a chain of 5,000 async closure bindings resolves: async frames live on the task's heap")
    func asyncChain() async {
        await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let length = 5_000
            let injector = try Injector(
                ClosureModule { binder in
                    for index in 0..<length - 1 {
                        let next = DeepChain.name(index + 1)
                        binder.bind(ChainLink.self, named: DeepChain.name(index)).to { resolver async throws in
                            ChainLink(next: try await resolver.get(ChainLink.self, named: next))
                        }
                    }
                    binder.bind(ChainLink.self, named: DeepChain.name(length - 1)).to { ChainLink(next: nil) }
                }
            )
            let first = try await injector.get(ChainLink.self, named: DeepChain.name(0))
            // Exits with the chain alive: freeing 5,000 nested links is a recursion of its own.
            withExtendedLifetime(first) { exit(DeepChain.length(of: first) == length ? 0 : 1) }
        }
    }

    @Test("defect 10: a chain of 100 fits a 512 KiB stack", arguments: DeepChain.Kind.allCases)
    func fitsSmallStack(kind: DeepChain.Kind) async {
        await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) { [kind] in
            let first = try DeepChain.resolve(kind, length: 100, on: .small).get()
            if kind == .closures, DeepChain.length(of: first) != 100 { exit(1) }
        }
    }

    @Test("defect 10: the depthExceeded error names the depth, the start of the path and the fix")
    func message() async {
        await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            guard case .failure(let error) = try DeepChain.resolve(.closures, length: 5_000, on: .small) else {
                exit(1)
            }
            let text = error.description
            let expected = [
                "ProvisionError (depth exceeded): the resolution nested too deep for this thread",
                "\n  depth: \(error.path.count) nested requests",
                "\n  path: ChainLink named \"link 0\" -> ChainLink named \"link 1\" -> ChainLink named \"link 2\"",
                "ChainLink named \"link 5\" -> ...\n",
                "of its 512 KiB stack left",
                "hint: resolve on a thread with a larger stack",
            ]
            for part in expected where !text.contains(part) {
                FileHandle.standardError.write(Data("missing \(part) in:\n\(text)\n".utf8))
                exit(1)
            }
            // The path is the chain from its first link, as deep as it went.
            guard error.path.count > 10, error.path.count < 5_000,
                error.path.first == BindingKey(ChainLink.self, named: DeepChain.name(0)),
                error.path.last == BindingKey(ChainLink.self, named: DeepChain.name(error.path.count - 1))
            else {
                FileHandle.standardError.write(Data("unexpected path of \(error.path.count) keys\n".utf8))
                exit(2)
            }
        }
    }
}
