import CProvisionStack
import Dispatch
import Foundation
import Testing

@testable import Provision

/// A hand-written chain: each level builds the level below with a nested call, the bottom records the
/// stack position. The floor a level of an injector's chain is compared with.
@inline(never)
func hunt26AHandWritten(_ levels: Int, _ probe: Hunt26AProbe) -> Hunt26AValue {
    if levels == 0 {
        probe.record()
        return Hunt26AValue(0)
    }
    let below = hunt26AHandWritten(levels - 1, probe)
    return Hunt26AValue(below.index + 1)
}

@Suite("Hunt 26A: stack used per level of a chain, by binding form and thread", .timeLimit(.minutes(5)))
struct Hunt26AStackTests {
    /// Levels of the measured chains: deep enough that a level's cost dwarfs the request's fixed
    /// frames, shallow enough for ThreadSanitizer's shadow stack.
    static let measuredDepth = 200

    /// Bytes of stack per level of a hand-written chain of nested calls, in this build.
    static func handWrittenBytesPerLevel() -> Int {
        Hunt26A.onThread(stack: 64 << 20) { () -> Int in
            let probe = Hunt26AProbe()
            let top = hunt26AStackAddress()
            _ = hunt26AHandWritten(measuredDepth, probe)
            return (Int(top) - Int(probe.bottomAddress)) / measuredDepth
        } ?? 0
    }

    /// Bytes of stack per level while a chain of `form` runs (its second request: linked, as a server
    /// resolves it), measured at the bottom factory on a thread with a large stack.
    static func runningBytesPerLevel(_ form: Hunt26AForm) -> Result<Int, ProvisionError>? {
        Hunt26A.onThread(stack: 64 << 20) { () -> Result<Int, ProvisionError> in
            let probe = Hunt26AProbe()
            do throws(ProvisionError) {
                let injector = try Injector(Hunt26A.chain(form, depth: measuredDepth, probe: probe))
                try Hunt26A.resolveTop(injector, form)
                let top = hunt26AStackAddress()
                try Hunt26A.resolveTop(injector, form)
                return .success((Int(top) - Int(probe.bottomAddress)) / measuredDepth)
            } catch {
                return .failure(error)
            }
        }
    }

    /// A user expects a level of an injector's chain to cost a small multiple of a hand-written level
    /// (a level is a handful of calls: the plan or program step, the factory, for dynamic forms the
    /// resolver's entry and the lookup), so that a chain that fits on a thread by hand also fits, to
    /// within that factor, through the injector. The bound: 8 times the hand-written level measured in
    /// the same build (in a debug build 112 bytes, so 896 bytes).
    ///
    /// Known issue, kept (found by hunt 26A). Finding (debug build, x86-64 Linux; hand-written 112 B/level): constructor chains run as programs
    /// and pass (1 parameter: 15 B/level, 12 parameters: 18 B/level); every other form fails:
    /// the parameter-pack form (13 parameters) 2,048 B/level — 114 times the same chain with 12 parameters,
    /// since a pack level is not a program step but a nested plan — delegations 1,200, closures 2,230
    /// (2,630 on the second request), singleton closures 3,430, a `Provider` called in the initializer
    /// 2,630, a `Lazy` read in the initializer 3,830, property injection 3,930, arguments through an
    /// `ObjectFactory` 3,690. So on a 512 KiB thread (384 KiB usable above the guard's margin) a chain
    /// stops with depthExceeded at 97 (Lazy) to 188 (pack) levels, where hand-written code would reach
    /// about 3,400.
    ///
    /// Not under a sanitizer: AddressSanitizer keeps locals on a fake stack of its own, so stack
    /// addresses measure nothing (CI's run of b666f8b read 0 bytes per hand-written level).
    @Test(
        "a level of a chain costs at most 8 times the stack of a hand-written level",
        .disabled(if: sanitizerIsLoaded, "locals live on a sanitizer's fake stack"),
        arguments: Hunt26AForm.allCases)
    func runningStackPerLevel(form: Hunt26AForm) throws {
        let hand = Self.handWrittenBytesPerLevel()
        try #require(hand > 0)
        let measured = try #require(Self.runningBytesPerLevel(form))
        let bytes = try measured.get()
        guard form == .initializer || form == .arity12 else {
            // Known issue: a dynamic edge (a closure's resolver, a handle, an injected property, a
            // delegation, a pack plan) is several generic frames deep; the guard stops the chain with
            // depthExceeded, never a crash. Intermittent: a release build, or a build whose frames are
            // smaller, may pass.
            withKnownIssue("dynamic forms use more than 8 hand-written levels of stack", isIntermittent: true) {
                #expect(bytes <= 8 * hand, "\(form): \(bytes) bytes per level, hand-written \(hand)")
            }
            return
        }
        #expect(bytes <= 8 * hand, "\(form): \(bytes) bytes per level, hand-written \(hand)")
    }

    /// The first request links a constructor chain recursively before it runs it, so the deepest chain
    /// a thread can resolve is set by the linker's stack per level, not the plans'. A user expects a
    /// chain of plain initializer bindings that needs 15 bytes per level to run to be linkable on a
    /// 512 KiB thread to the same order of depth as a hand-written chain: the bound is again 8 times the
    /// hand-written level, computed from the depth where depthExceeded stops a 3,000-level chain
    /// (`(stack - 128 KiB margin) / depth`).
    ///
    /// Known issue, kept (found by hunt 26A). Finding (debug): a 1-parameter chain stops at 345 levels (1,140 B/level of linking, 76 times what
    /// running it takes), a 12-parameter chain at 145 levels (2,710 B/level); hand-written nested calls
    /// fit about 3,400 levels. The recursion is `Linker`'s (Resolution/Linker.swift), which links each
    /// binding's dependencies before the binding, one nested call chain per level.
    @Test(
        "the first request of a 3,000-level constructor chain on a 512 KiB thread: linking's stack per level",
        .disabled(if: sanitizerIsLoaded, "locals live on a sanitizer's fake stack"),
        arguments: [Hunt26AForm.initializer, .arity12])
    func linkingStackPerLevel(form: Hunt26AForm) throws {
        let hand = Self.handWrittenBytesPerLevel()
        try #require(hand > 0)
        let stack = 512 << 10
        let outcome = try #require(
            Hunt26A.onThread(stack: stack) { () -> Result<Int, ProvisionError> in
                do throws(ProvisionError) {
                    let injector = try Injector(Hunt26A.chain(form, depth: 3_000, probe: Hunt26AProbe()))
                    try Hunt26A.resolveTop(injector, form)
                    return .success(3_000)
                } catch {
                    return .failure(error)
                }
            })
        switch outcome {
        case .success:
            break
        case .failure(let error):
            #expect(error.code == .depthExceeded, "\(error)")
            let reached = max(error.path.count, 1)
            let bytes = (stack - StackGuard.margin) / reached
            // Known issue: linking recurses once per level through the linker's generic frames; the guard
            // stops it with depthExceeded, never a crash.
            withKnownIssue("linking uses more than 8 hand-written levels of stack", isIntermittent: true) {
                #expect(
                    bytes <= 8 * hand, "\(form): stopped at \(reached) levels, \(bytes) B/level; hand-written \(hand)")
            }
        }
    }

    /// Where a daemon's requests really run: a Dispatch worker, a task of Swift's cooperative pool, and
    /// a `Thread` given 512 KiB. A user expects a 90-level closure chain (a deep but ordinary graph) to
    /// resolve on each, and a 5,000-level one to stop with depthExceeded (never a crash) whose path
    /// starts at the top; the stack each kind of thread has is read by the guard itself.
    @Test("a 90-level closure chain resolves on a Dispatch worker, a task and a 512 KiB thread; 5,000 stops cleanly")
    func smallThreads() async throws {
        @Sendable func attempt(_ depth: Int) -> String {
            do throws(ProvisionError) {
                let injector = try Injector(Hunt26A.chain(.closure, depth: depth, probe: Hunt26AProbe()))
                try Hunt26A.resolveTop(injector, .closure)
                return "resolved"
            } catch {
                guard error.code == .depthExceeded, error.path.first == BindingKey(Hunt26AValue.self, named: "c0")
                else { return "\(error.code) \(error.path.prefix(1))" }
                return "depthExceeded"
            }
        }
        @Sendable func both() -> [String] { [attempt(90), attempt(5_000)] }
        let expected = ["resolved", "depthExceeded"]
        let onThread = Hunt26A.onThread(stack: 512 << 10) { both() }
        #expect(onThread == expected)
        let onWorker = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: both()) }
        }
        #expect(onWorker == expected)
        let onTask = await Task.detached { both() }.value
        #expect(onTask == expected)
    }
}
