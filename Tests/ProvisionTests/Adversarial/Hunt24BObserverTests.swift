import Dispatch
import Foundation
import Testing

@testable import Provision

// Hunt 24B, part 3: what a resolution observer sees (count, order, keys, nesting) for a chain deeper
// than the 32 levels past which top-level requests may run a program instead of the plans, for
// argument bindings resolved with their defaults, for a Lazy read by many threads, and for requests
// whose linking fails, from many threads.

final class Hunt24BBottom: Sendable {}

final class Hunt24BLevel<Inner: Sendable>: Sendable {
    let inner: Inner
    init(inner: Inner) { self.inner = inner }
}

typealias Hunt24BL1 = Hunt24BLevel<Hunt24BBottom>
typealias Hunt24BL2 = Hunt24BLevel<Hunt24BL1>
typealias Hunt24BL3 = Hunt24BLevel<Hunt24BL2>
typealias Hunt24BL4 = Hunt24BLevel<Hunt24BL3>
typealias Hunt24BL5 = Hunt24BLevel<Hunt24BL4>
typealias Hunt24BL6 = Hunt24BLevel<Hunt24BL5>
typealias Hunt24BL7 = Hunt24BLevel<Hunt24BL6>
typealias Hunt24BL8 = Hunt24BLevel<Hunt24BL7>
typealias Hunt24BL9 = Hunt24BLevel<Hunt24BL8>
typealias Hunt24BL10 = Hunt24BLevel<Hunt24BL9>
typealias Hunt24BL11 = Hunt24BLevel<Hunt24BL10>
typealias Hunt24BL12 = Hunt24BLevel<Hunt24BL11>
typealias Hunt24BL13 = Hunt24BLevel<Hunt24BL12>
typealias Hunt24BL14 = Hunt24BLevel<Hunt24BL13>
typealias Hunt24BL15 = Hunt24BLevel<Hunt24BL14>
typealias Hunt24BL16 = Hunt24BLevel<Hunt24BL15>
typealias Hunt24BL17 = Hunt24BLevel<Hunt24BL16>
typealias Hunt24BL18 = Hunt24BLevel<Hunt24BL17>
typealias Hunt24BL19 = Hunt24BLevel<Hunt24BL18>
typealias Hunt24BL20 = Hunt24BLevel<Hunt24BL19>
typealias Hunt24BL21 = Hunt24BLevel<Hunt24BL20>
typealias Hunt24BL22 = Hunt24BLevel<Hunt24BL21>
typealias Hunt24BL23 = Hunt24BLevel<Hunt24BL22>
typealias Hunt24BL24 = Hunt24BLevel<Hunt24BL23>
typealias Hunt24BL25 = Hunt24BLevel<Hunt24BL24>
typealias Hunt24BL26 = Hunt24BLevel<Hunt24BL25>
typealias Hunt24BL27 = Hunt24BLevel<Hunt24BL26>
typealias Hunt24BL28 = Hunt24BLevel<Hunt24BL27>
typealias Hunt24BL29 = Hunt24BLevel<Hunt24BL28>
typealias Hunt24BL30 = Hunt24BLevel<Hunt24BL29>
typealias Hunt24BL31 = Hunt24BLevel<Hunt24BL30>
typealias Hunt24BL32 = Hunt24BLevel<Hunt24BL31>
typealias Hunt24BL33 = Hunt24BLevel<Hunt24BL32>
typealias Hunt24BL34 = Hunt24BLevel<Hunt24BL33>
typealias Hunt24BL35 = Hunt24BLevel<Hunt24BL34>
typealias Hunt24BL36 = Hunt24BLevel<Hunt24BL35>
typealias Hunt24BL37 = Hunt24BLevel<Hunt24BL36>
typealias Hunt24BL38 = Hunt24BLevel<Hunt24BL37>
typealias Hunt24BL39 = Hunt24BLevel<Hunt24BL38>
typealias Hunt24BL40 = Hunt24BLevel<Hunt24BL39>

/// An observer that records each build hook's entry with its nesting depth on the calling thread.
final class Hunt24BDepthObserver: ResolutionObserver {
    private let depths = Locked<[UInt: Int]>([:])
    private let entries = Locked<[UInt: [(key: BindingKey, depth: Int)]]>([:])

    func observeBuild<T>(
        of key: BindingKey,
        scope: Scope,
        _ build: () throws(ProvisionError) -> T
    ) throws(ProvisionError) -> T {
        let thread = ExecutionIdentity.current
        let depth = depths.withLock { depths -> Int in
            let depth = depths[thread, default: 0]
            depths[thread] = depth + 1
            return depth
        }
        entries.withLock { $0[thread, default: []].append((key, depth)) }
        defer { depths.withLock { $0[thread, default: 1] -= 1 } }
        return try build()
    }

    /// The entries of each thread, in order.
    var byThread: [[(key: BindingKey, depth: Int)]] {
        entries.withLock { Array($0.values) }
    }

    func reset() {
        entries.withLock { $0 = [:] }
    }
}

final class Hunt24BFlag: Sendable {
    private let value = Locked(false)
    var isSet: Bool { value.withLock { $0 } }
    func set(_ new: Bool) { value.withLock { $0 = new } }
}

struct Hunt24BDeepModule: Module {
    let failing: Hunt24BFlag
    let scope: Scope

    func configure(_ binder: Binder) {
        let failing = self.failing
        binder.bind(Hunt24BBottom.self).to { () throws -> Hunt24BBottom in
            if failing.isSet { throw ExpectedFailure(id: 24) }
            return Hunt24BBottom()
        }
        binder.bind(Hunt24BL1.self).to(Hunt24BL1.init(inner:))
        binder.bind(Hunt24BL2.self).to(Hunt24BL2.init(inner:))
        binder.bind(Hunt24BL3.self).to(Hunt24BL3.init(inner:))
        binder.bind(Hunt24BL4.self).to(Hunt24BL4.init(inner:))
        binder.bind(Hunt24BL5.self).to(Hunt24BL5.init(inner:))
        binder.bind(Hunt24BL6.self).to(Hunt24BL6.init(inner:))
        binder.bind(Hunt24BL7.self).to(Hunt24BL7.init(inner:))
        binder.bind(Hunt24BL8.self).to(Hunt24BL8.init(inner:))
        binder.bind(Hunt24BL9.self).to(Hunt24BL9.init(inner:))
        binder.bind(Hunt24BL10.self).to(Hunt24BL10.init(inner:))
        binder.bind(Hunt24BL11.self).to(Hunt24BL11.init(inner:))
        binder.bind(Hunt24BL12.self).to(Hunt24BL12.init(inner:))
        binder.bind(Hunt24BL13.self).to(Hunt24BL13.init(inner:))
        binder.bind(Hunt24BL14.self).to(Hunt24BL14.init(inner:))
        binder.bind(Hunt24BL15.self).to(Hunt24BL15.init(inner:))
        binder.bind(Hunt24BL16.self).to(Hunt24BL16.init(inner:))
        binder.bind(Hunt24BL17.self).to(Hunt24BL17.init(inner:))
        binder.bind(Hunt24BL18.self).to(Hunt24BL18.init(inner:))
        binder.bind(Hunt24BL19.self).to(Hunt24BL19.init(inner:))
        binder.bind(Hunt24BL20.self).to(Hunt24BL20.init(inner:)).in(scope)
        binder.bind(Hunt24BL21.self).to(Hunt24BL21.init(inner:))
        binder.bind(Hunt24BL22.self).to(Hunt24BL22.init(inner:))
        binder.bind(Hunt24BL23.self).to(Hunt24BL23.init(inner:))
        binder.bind(Hunt24BL24.self).to(Hunt24BL24.init(inner:))
        binder.bind(Hunt24BL25.self).to(Hunt24BL25.init(inner:))
        binder.bind(Hunt24BL26.self).to(Hunt24BL26.init(inner:))
        binder.bind(Hunt24BL27.self).to(Hunt24BL27.init(inner:))
        binder.bind(Hunt24BL28.self).to(Hunt24BL28.init(inner:))
        binder.bind(Hunt24BL29.self).to(Hunt24BL29.init(inner:))
        binder.bind(Hunt24BL30.self).to(Hunt24BL30.init(inner:))
        binder.bind(Hunt24BL31.self).to(Hunt24BL31.init(inner:))
        binder.bind(Hunt24BL32.self).to(Hunt24BL32.init(inner:))
        binder.bind(Hunt24BL33.self).to(Hunt24BL33.init(inner:))
        binder.bind(Hunt24BL34.self).to(Hunt24BL34.init(inner:))
        binder.bind(Hunt24BL35.self).to(Hunt24BL35.init(inner:))
        binder.bind(Hunt24BL36.self).to(Hunt24BL36.init(inner:))
        binder.bind(Hunt24BL37.self).to(Hunt24BL37.init(inner:))
        binder.bind(Hunt24BL38.self).to(Hunt24BL38.init(inner:))
        binder.bind(Hunt24BL39.self).to(Hunt24BL39.init(inner:))
        binder.bind(Hunt24BL40.self).to(Hunt24BL40.init(inner:))
    }
}

enum Hunt24BDeep {
    /// The chain's keys, the bottom first.
    static let keys: [BindingKey] = [
        BindingKey(Hunt24BBottom.self),
        BindingKey(Hunt24BL1.self),
        BindingKey(Hunt24BL2.self),
        BindingKey(Hunt24BL3.self),
        BindingKey(Hunt24BL4.self),
        BindingKey(Hunt24BL5.self),
        BindingKey(Hunt24BL6.self),
        BindingKey(Hunt24BL7.self),
        BindingKey(Hunt24BL8.self),
        BindingKey(Hunt24BL9.self),
        BindingKey(Hunt24BL10.self),
        BindingKey(Hunt24BL11.self),
        BindingKey(Hunt24BL12.self),
        BindingKey(Hunt24BL13.self),
        BindingKey(Hunt24BL14.self),
        BindingKey(Hunt24BL15.self),
        BindingKey(Hunt24BL16.self),
        BindingKey(Hunt24BL17.self),
        BindingKey(Hunt24BL18.self),
        BindingKey(Hunt24BL19.self),
        BindingKey(Hunt24BL20.self),
        BindingKey(Hunt24BL21.self),
        BindingKey(Hunt24BL22.self),
        BindingKey(Hunt24BL23.self),
        BindingKey(Hunt24BL24.self),
        BindingKey(Hunt24BL25.self),
        BindingKey(Hunt24BL26.self),
        BindingKey(Hunt24BL27.self),
        BindingKey(Hunt24BL28.self),
        BindingKey(Hunt24BL29.self),
        BindingKey(Hunt24BL30.self),
        BindingKey(Hunt24BL31.self),
        BindingKey(Hunt24BL32.self),
        BindingKey(Hunt24BL33.self),
        BindingKey(Hunt24BL34.self),
        BindingKey(Hunt24BL35.self),
        BindingKey(Hunt24BL36.self),
        BindingKey(Hunt24BL37.self),
        BindingKey(Hunt24BL38.self),
        BindingKey(Hunt24BL39.self),
        BindingKey(Hunt24BL40.self),
    ]
}

final class Hunt24BGadget: Sendable {
    let label: Hunt24BLabel
    init(label: Hunt24BLabel) { self.label = label }
}

final class Hunt24BNeedsMissing: Sendable {
    init(engine: Hunt24BEngine) {}
}

/// A transient whose factory waits until the other readers of the lazy under test wait for it.
final class Hunt24BSlow: Sendable {}

@Suite("Hunt 24B: resolution observers")
struct Hunt24BObserverTests {
    @Test("a 41-deep transient chain: 41 builds per request, each nested one level below its dependent, from 8 threads")
    func deepChainNesting() throws {
        let observer = Hunt24BDepthObserver()
        let injector = try Injector(
            modules: [Hunt24BDeepModule(failing: Hunt24BFlag(), scope: .transient)],
            configuration: Injector.Configuration(observer: observer))
        let expected = Array(Hunt24BDeep.keys.reversed())
        // The first request links; the next ones may run a program: each must report the same builds.
        for request in 0..<3 {
            observer.reset()
            _ = try injector.get(Hunt24BL40.self)
            let threads = observer.byThread
            #expect(threads.count == 1)
            let entries = threads.first ?? []
            #expect(entries.map(\.key) == expected, "request \(request): \(entries.count) builds")
            #expect(entries.map(\.depth) == Array(0..<expected.count), "request \(request)")
        }
        observer.reset()
        let barrier = Barrier(count: 8)
        let failures = Locked<[ProvisionError]>([])
        let finished = runThreads(8, timeout: 60) { _ in
            barrier.arriveAndWait()
            for _ in 0..<5 {
                do throws(ProvisionError) {
                    _ = try injector.get(Hunt24BL40.self)
                } catch {
                    failures.withLock { $0.append(error) }
                }
            }
        }
        #expect(finished)
        #expect(failures.withLock { $0 }.isEmpty)
        let threads = observer.byThread
        #expect(threads.count == 8)
        for entries in threads {
            let repeated = Array(Array(repeating: expected, count: 5).joined())
            #expect(entries.map(\.key) == repeated, "\(entries.count) builds on one thread")
            let depths = Array(Array(repeating: Array(0..<expected.count), count: 5).joined())
            #expect(entries.map(\.depth) == depths)
        }
    }

    @Test(
        "a 41-deep chain with a singleton at level 20 and a failing bottom: failed events innermost first, then built once"
    )
    func deepChainFailureThenSingleton() throws {
        let observer = RecordingObserver()
        let failing = Hunt24BFlag()
        failing.set(true)
        let injector = try Injector(
            modules: [Hunt24BDeepModule(failing: failing, scope: .singleton)],
            configuration: Injector.Configuration(observer: observer))
        for attempt in 0..<3 {
            let error = Hunt24BCatch.error { () throws(ProvisionError) in try injector.get(Hunt24BL40.self) }
            #expect(error?.code == .factoryFailed, "attempt \(attempt)")
            #expect(
                error?.path == Array(Hunt24BDeep.keys.reversed()), "attempt \(attempt): \(error?.pathDescription ?? "")"
            )
        }
        let failed = observer.recorded.filter { $0.kind == .failed }
        #expect(failed.count == 3 * Hunt24BDeep.keys.count, "\(failed.count) failed events")
        #expect(observer.recorded.count == failed.count, "\(observer.lines().filter { !$0.hasPrefix("failed") })")
        #expect(Array(failed.prefix(Hunt24BDeep.keys.count).map(\.key)) == Hunt24BDeep.keys)
        #expect(failed.allSatisfy { $0.error?.code == .factoryFailed })
        // Fixed: the next request builds all 41, the singleton once, and later requests build the 20
        // above it only.
        failing.set(false)
        let before = observer.recorded.count
        let first = try injector.get(Hunt24BL40.self)
        let second = try injector.get(Hunt24BL40.self)
        let built = Array(observer.recorded.dropFirst(before))
        #expect(built.allSatisfy { $0.kind == .built })
        #expect(built.count == Hunt24BDeep.keys.count + 20, "\(built.count) builds for two requests")
        #expect(Array(built.prefix(Hunt24BDeep.keys.count).map(\.key)) == Hunt24BDeep.keys)
        #expect(Array(built.dropFirst(Hunt24BDeep.keys.count).map(\.key)) == Array(Hunt24BDeep.keys.suffix(20)))
        #expect(Self.level20(of: first) === Self.level20(of: second))
    }

    /// The level-20 instance under `top`.
    private static func level20(of top: Hunt24BL40) -> Hunt24BL20 {
        top.inner.inner.inner.inner.inner.inner.inner.inner.inner.inner.inner.inner.inner.inner.inner.inner.inner
            .inner.inner.inner
    }

    @Test(
        "an argument binding's defaults, as a dependency and as a plain request, are reported; a request with arguments isn't"
    )
    func argumentDefaults() throws {
        let observer = RecordingObserver()
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt24BLabel.self).withArguments(String.self).to { _, text in
                        Hunt24BLabel(text: text)
                    }
                    .defaults("default")
                    binder.bind(Hunt24BGadget.self).to(Hunt24BGadget.init(label:))
                }
            ],
            configuration: Injector.Configuration(observer: observer))
        let gadget = try injector.get(Hunt24BGadget.self)
        #expect(gadget.label.text == "default")
        #expect(observer.lines() == ["built Hunt24BLabel", "built Hunt24BGadget"])
        _ = try injector.get(Hunt24BLabel.self)
        #expect(observer.lines().count == 3)
        #expect(observer.lines().last == "built Hunt24BLabel")
        _ = try injector.get(Hunt24BLabel.self, arguments: "given")
        let provider = try injector.get(Provider<Hunt24BLabel>.self)
        _ = try provider.get(arguments: "given")
        #expect(observer.lines().count == 3, "\(observer.lines())")
        _ = try provider.get()
        #expect(observer.lines().count == 4, "\(observer.lines())")
    }

    @Test("one Lazy of a transient read by 8 threads at once: one build reported, one value")
    func lazyReadByThreads() throws {
        let observer = RecordingObserver()
        let holder = Locked<Lazy<Hunt24BSlow>?>(nil)
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt24BSlow.self).to { () -> Hunt24BSlow in
                        // Wait (bounded) until the 7 other readers wait for this read.
                        let lazy = holder.withLock { $0 }
                        _ = waitUntil(timeout: 20) { (lazy?.waitingReaders ?? 0) == 7 }
                        return Hunt24BSlow()
                    }
                }
            ],
            configuration: Injector.Configuration(observer: observer))
        for round in 0..<stressRounds(50) {
            let lazy = try injector.get(Lazy<Hunt24BSlow>.self)
            holder.withLock { $0 = lazy }
            let before = observer.recorded.count
            let barrier = Barrier(count: 8)
            let values = Locked<[Hunt24BOutcome]>([])
            let finished = runThreads(8, timeout: 60) { _ in
                barrier.arriveAndWait()
                let outcome = Hunt24BOutcome { () throws(ProvisionError) in try lazy.value }
                values.withLock { $0.append(outcome) }
            }
            #expect(finished, "round \(round) hung")
            let outcomes = values.withLock { $0 }
            #expect(outcomes.count == 8 && Set(outcomes.map(\.description)).count == 1, "round \(round): \(outcomes)")
            #expect(outcomes.allSatisfy { if case .instance = $0 { true } else { false } })
            let events = Array(observer.recorded.dropFirst(before))
            #expect(events.map { "\($0.kind) \($0.key)" } == ["built Hunt24BSlow"], "round \(round)")
        }
    }

    @Test(
        "a request whose link fails reports one linkFailed, by the requested binding, from 8 threads and through a Provider"
    )
    func linkFailedPerRequest() throws {
        let observer = RecordingObserver()
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt24BNeedsMissing.self).to(Hunt24BNeedsMissing.init(engine:))
                }
            ],
            configuration: Injector.Configuration(validatesOnCreation: false, observer: observer))
        let provider = try injector.get(Provider<Hunt24BNeedsMissing>.self)
        #expect(observer.recorded.isEmpty)
        let barrier = Barrier(count: 8)
        let wrong = Locked<[String]>([])
        let finished = runThreads(8, timeout: 60) { index in
            barrier.arriveAndWait()
            for request in 0..<10 {
                let error = Hunt24BCatch.error { () throws(ProvisionError) in
                    request.isMultiple(of: 2) ? try provider.get() : try injector.get(Hunt24BNeedsMissing.self)
                }
                if error?.code != .notBound
                    || error?.path != [BindingKey(Hunt24BNeedsMissing.self), BindingKey(Hunt24BEngine.self)]
                {
                    wrong.withLock { $0.append("\(index)/\(request): \(String(describing: error))") }
                }
            }
        }
        #expect(finished)
        #expect(wrong.withLock { $0 }.isEmpty, "\(wrong.withLock { $0.prefix(3) })")
        let events = observer.recorded
        #expect(events.count == 80, "\(events.count) events for 80 failing requests")
        #expect(events.allSatisfy { $0.kind == .linkFailed && $0.key == BindingKey(Hunt24BNeedsMissing.self) })
        #expect(events.allSatisfy { $0.error?.code == .notBound && $0.duration == .zero })
    }

    /// Found by hunt 24B, fixed: a request with arguments reports no wait either
    /// (`InstanceCell.build(_:reportsWaits:using:)`).
    ///
    /// ResolutionObserver.swift: "a request that passes resolve-time arguments
    /// (``Injector/get(_:named:arguments:)``) is not reported either." The singleton's build from
    /// arguments is indeed not reported (no `built` event).
    ///
    /// What happens: the 7 other requests with arguments, which wait for that build at the singleton's
    /// gate, each report `waited for singleton Hunt24BLabel`: the observer sees 7 waits for a build it
    /// never saw. Cause: `Injector.build(_:_:_:in:_:)` (Injector+Arguments.swift) runs the factory
    /// unobserved through `cell.build(.root)`, whose gate reports every wait to the observer regardless.
    @Test("8 threads race a singleton with arguments: the requests with arguments report nothing, waits included")
    func argumentSingletonWaits() throws {
        let observer = RecordingObserver()
        let holder = Locked<Injector?>(nil)
        let injector = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.bind(Hunt24BLabel.self).withArguments(String.self).to { _, text in
                        // Wait (bounded) until the 7 other requests wait at the gate.
                        let injector = holder.withLock { $0 }
                        _ = waitUntil(timeout: 20) { injector?.gateWaiters(of: Hunt24BLabel.self)?.threads == 7 }
                        return Hunt24BLabel(text: text)
                    }
                    .in(.singleton)
                }
            ],
            configuration: Injector.Configuration(observer: observer))
        holder.withLock { $0 = injector }
        defer { holder.withLock { $0 = nil } }
        let barrier = Barrier(count: 8)
        let labels = Locked<[ObjectIdentifier]>([])
        let finished = runThreads(8, timeout: 60) { index in
            barrier.arriveAndWait()
            if let label = try? injector.get(Hunt24BLabel.self, arguments: "thread \(index)") {
                labels.withLock { $0.append(ObjectIdentifier(label)) }
            }
        }
        #expect(finished)
        let identities = labels.withLock { $0 }
        #expect(identities.count == 8 && Set(identities).count == 1)
        #expect(observer.lines().filter { $0.hasPrefix("built") }.isEmpty)
        #expect(observer.lines().isEmpty, "\(observer.lines())")
    }
}
