import Dispatch
import Synchronization
import Testing

@testable import Provision

// A top-level request for a constructor binding whose dependencies are constructors runs a Program: the
// subgraph's instructions in a loop, values passed on a value stack, instead of one nested plan call
// per binding. These tests pin down that a program builds, orders, fails and cleans up exactly as the
// plans do, for the shapes users bind: chains, mixed dependencies, values that are not classes,
// failures at every depth, many threads at once.

/// What the program fixtures record: the order of their initializers, and how many are alive.
enum ProgramLog {
    static let events = EventLog()
    static let alive = Atomic<Int>(0)
    /// The depth of the chain link whose initializer throws, or -1.
    static let failingDepth = Atomic<Int>(-1)

    static func built(_ name: String) {
        events.append(name)
        alive.add(1, ordering: .relaxed)
    }

    static func freed() {
        alive.subtract(1, ordering: .relaxed)
    }

    static func failIfAsked(_ depth: Int) throws {
        if failingDepth.load(ordering: .relaxed) == depth { throw ExpectedFailure(id: depth) }
    }
}

final class Link4: Sendable {
    // Assigned after the initializer may throw, so that a failed instance never existed (its deinit, which
    // counts it freed, doesn't run).
    let serial: Int
    init() throws {
        try ProgramLog.failIfAsked(4)
        serial = ProgramLog.alive.load(ordering: .relaxed)
        ProgramLog.built("Link4")
    }
    deinit { ProgramLog.freed() }
}

final class Link3: Sendable {
    let next: Link4
    init(next: Link4) throws {
        try ProgramLog.failIfAsked(3)
        self.next = next
        ProgramLog.built("Link3")
    }
    deinit { ProgramLog.freed() }
}

final class Link2: Sendable {
    let next: Link3
    init(next: Link3) throws {
        try ProgramLog.failIfAsked(2)
        self.next = next
        ProgramLog.built("Link2")
    }
    deinit { ProgramLog.freed() }
}

final class Link1: Sendable {
    let next: Link2
    init(next: Link2) throws {
        try ProgramLog.failIfAsked(1)
        self.next = next
        ProgramLog.built("Link1")
    }
    deinit { ProgramLog.freed() }
}

final class Link0: Sendable {
    let next: Link1
    init(next: Link1) throws {
        try ProgramLog.failIfAsked(0)
        self.next = next
        ProgramLog.built("Link0")
    }
    deinit { ProgramLog.freed() }
}

/// A value that is not a class, wider than a word and with a reference inside, built by a constructor.
struct Measure: Sendable {
    let flag: UInt8
    let amount: Double
    let label: String
    let link: Link4
    init(link: Link4) throws {
        try ProgramLog.failIfAsked(10)
        self.flag = 7
        self.amount = 2.5
        self.label = "measure"
        self.link = link
    }
}

protocol Gauge: Sendable {
    var reading: Int { get }
}

final class Needle: Gauge {
    let reading = 42
    init() { ProgramLog.built("Needle") }
    deinit { ProgramLog.freed() }
}

/// A singleton among constructors.
final class Registry0: Sendable {
    init() throws {
        try ProgramLog.failIfAsked(20)
        ProgramLog.built("Registry0")
    }
}

/// Depends on a mix: a plain leaf before a constructor (pushed), a singleton, an existential, a struct
/// built by a constructor, and a leaf after the last constructor (inline).
final class Mixed: Sendable {
    let gauge: any Gauge
    let first: Link3
    let registry: Registry0
    let measure: Measure
    let last: Needle
    init(gauge: any Gauge, first: Link3, registry: Registry0, measure: Measure, last: Needle) throws {
        try ProgramLog.failIfAsked(30)
        self.gauge = gauge
        self.first = first
        self.registry = registry
        self.measure = measure
        self.last = last
        ProgramLog.built("Mixed")
    }
    deinit { ProgramLog.freed() }
}

struct ProgramModule: Module {
    func configure(_ binder: Binder) {
        binder.bind(Link4.self).to(Link4.init)
        binder.bind(Link3.self).to(Link3.init(next:))
        binder.bind(Link2.self).to(Link2.init(next:))
        binder.bind(Link1.self).to(Link1.init(next:))
        binder.bind(Link0.self).to(Link0.init(next:))
        binder.bind(Measure.self).to(Measure.init(link:))
        binder.bind((any Gauge).self).to(Needle.init)
        binder.bind(Needle.self).to(Needle.init)
        binder.bind(Registry0.self).to(Registry0.init).in(.singleton)
        binder.bind(Mixed.self).to(Mixed.init(gauge:first:registry:measure:last:))
    }
}

@Suite("Programs: constructor subgraphs built without nesting", .serialized)
struct ProgramTests {
    init() {
        ProgramLog.failingDepth.store(-1, ordering: .relaxed)
        // These graphs are a few levels deep: let them have programs (see ProgramBuilder.minimumHeight).
        ProgramBuilder.minimumHeight.store(0, ordering: .relaxed)
    }

    @Test("only a subgraph deeper than the minimum height gets a program")
    func minimumHeight() throws {
        ProgramBuilder.minimumHeight.store(5, ordering: .relaxed)
        defer { ProgramBuilder.minimumHeight.store(0, ordering: .relaxed) }
        let injector = try Injector(ProgramModule())
        _ = try injector.get(Link0.self)
        _ = try injector.get(Link0.self)
        #expect(try program(of: Link0.self, in: injector) == ProgramState.none)
    }

    private func program<T>(of type: T.Type, in injector: Injector) throws -> UInt {
        let node = try #require(injector.lookup(BindingKey(type), as: type))
        return node.linkedProgram.load(ordering: .acquiring)
    }

    @Test("a chain of constructors is built by a program from its first request, a new chain each time")
    func chain() throws {
        let injector = try Injector(ProgramModule())
        let aliveBefore = ProgramLog.alive.load(ordering: .relaxed)
        var roots: [Link0] = []
        for _ in 0..<3 {
            roots.append(try injector.get(Link0.self))
        }
        #expect(try program(of: Link0.self, in: injector) > ProgramState.none)
        #expect(ProgramLog.alive.load(ordering: .relaxed) - aliveBefore == 15)
        #expect(Set(roots.map { ObjectIdentifier($0.next.next.next.next) }).count == 3)
        roots.removeAll()
        #expect(ProgramLog.alive.load(ordering: .relaxed) == aliveBefore)
    }

    @Test("a program builds in the plan's order: parameter order, depth first")
    func order() throws {
        let injector = try Injector(ProgramModule())
        ProgramLog.events.clear()
        _ = try injector.get(Mixed.self)
        let expected = [
            "Needle", "Link4", "Link3", "Registry0", "Link4", "Needle", "Mixed",
        ]
        #expect(ProgramLog.events.all == expected)
        #expect(try program(of: Mixed.self, in: injector) > ProgramState.none)
        ProgramLog.events.clear()
        _ = try injector.get(Mixed.self)
        // The singleton is built once.
        #expect(ProgramLog.events.all == expected.filter { $0 != "Registry0" })
    }

    @Test("values that are not classes pass through the program intact")
    func values() throws {
        let injector = try Injector(ProgramModule())
        for _ in 0..<3 {
            let mixed = try injector.get(Mixed.self)
            #expect(mixed.measure.flag == 7)
            #expect(mixed.measure.amount == 2.5)
            #expect(mixed.measure.label == "measure")
            #expect(mixed.gauge.reading == 42)
            #expect(mixed.first.next !== mixed.measure.link)
        }
    }

    @Test(
        "a failure at any depth reports the whole path and frees every value built before it",
        arguments: [0, 1, 2, 3, 4]
    )
    func chainFailure(depth: Int) throws {
        let injector = try Injector(ProgramModule())
        _ = try injector.get(Link0.self)
        #expect(try program(of: Link0.self, in: injector) > ProgramState.none)
        let aliveBefore = ProgramLog.alive.load(ordering: .relaxed)
        ProgramLog.failingDepth.store(depth, ordering: .relaxed)
        defer { ProgramLog.failingDepth.store(-1, ordering: .relaxed) }
        let error = #expect(throws: ProvisionError.self) { try injector.get(Link0.self) }
        let keys = [
            BindingKey(Link0.self), BindingKey(Link1.self), BindingKey(Link2.self), BindingKey(Link3.self),
            BindingKey(Link4.self),
        ]
        #expect(error?.code == .factoryFailed)
        #expect(error?.key == keys[depth])
        #expect(error?.path == Array(keys[0...depth]))
        #expect((error?.cause as? ExpectedFailure)?.id == depth)
        #expect(ProgramLog.alive.load(ordering: .relaxed) == aliveBefore)
    }

    /// The path of a failure at `depth` in the mixed subgraph.
    static func mixedPath(_ depth: Int) -> [BindingKey] {
        switch depth {
        case 3: [BindingKey(Mixed.self), BindingKey(Link3.self)]
        case 4: [BindingKey(Mixed.self), BindingKey(Link3.self), BindingKey(Link4.self)]
        case 10: [BindingKey(Mixed.self), BindingKey(Measure.self)]
        case 20: [BindingKey(Mixed.self), BindingKey(Registry0.self)]
        default: [BindingKey(Mixed.self)]
        }
    }

    @Test(
        "a failure anywhere in a mixed subgraph (constructor, struct, singleton, root) frees what was built",
        arguments: [3, 4, 10, 20, 30]
    )
    func mixedFailure(depth: Int) throws {
        let path = Self.mixedPath(depth)
        let injector = try Injector(ProgramModule())
        ProgramLog.failingDepth.store(depth == 20 ? -1 : depth, ordering: .relaxed)
        if depth == 20 {
            // The singleton fails on its first build: make the program first, with a fresh injector whose
            // singleton is not built yet.
            ProgramLog.failingDepth.store(20, ordering: .relaxed)
        } else {
            ProgramLog.failingDepth.store(-1, ordering: .relaxed)
            _ = try injector.get(Mixed.self)
            ProgramLog.failingDepth.store(depth, ordering: .relaxed)
        }
        defer { ProgramLog.failingDepth.store(-1, ordering: .relaxed) }
        let aliveBefore = ProgramLog.alive.load(ordering: .relaxed)
        let error = #expect(throws: ProvisionError.self) { try injector.get(Mixed.self) }
        #expect(error?.code == .factoryFailed)
        #expect(error?.path == path)
        #expect(ProgramLog.alive.load(ordering: .relaxed) == aliveBefore)
        // The next request succeeds and builds everything again.
        ProgramLog.failingDepth.store(-1, ordering: .relaxed)
        let mixed = try injector.get(Mixed.self)
        #expect(mixed.measure.label == "measure")
    }

    @Test("threads racing for a root's first requests get the same program and exact instance counts")
    func race() throws {
        let injector = try Injector(ProgramModule())
        let threads = 8
        let requests = 200
        let barrier = Barrier(count: threads)
        let failures = Atomic<Int>(0)
        let successes = Atomic<Int>(0)
        let aliveBefore = ProgramLog.alive.load(ordering: .relaxed)
        let finished = runThreads(threads) { _ in
            barrier.arriveAndWait()
            for _ in 0..<requests {
                do {
                    _ = try injector.get(Link0.self)
                    successes.add(1, ordering: .relaxed)
                } catch {
                    failures.add(1, ordering: .relaxed)
                }
            }
        }
        #expect(finished)
        #expect(failures.load(ordering: .relaxed) == 0)
        #expect(successes.load(ordering: .relaxed) == threads * requests)
        #expect(ProgramLog.alive.load(ordering: .relaxed) == aliveBefore)
        let word = try program(of: Link0.self, in: injector)
        #expect(word > ProgramState.none)
        _ = try injector.get(Link0.self)
        #expect(try program(of: Link0.self, in: injector) == word)
    }

    @Test("a program smaller than its subgraph reaches the rest through the dependencies' own programs")
    func limit() throws {
        let injector = try Injector(ProgramModule())
        let root = try #require(injector.lookup(BindingKey(Link0.self), as: Link0.self))
        _ = try injector.get(Link0.self)
        // Link1 and Link2 become instructions; Link3 is reached through its own program (it has none:
        // its only dependency is a plain leaf, so it runs its plan).
        let small = try #require(ProgramBuilder.program(for: root, limit: 2))
        #expect(small.instructions.count == 3)
        let aliveBefore = ProgramLog.alive.load(ordering: .relaxed)
        var value: Link0? = try Program<Link0>.run(
            UnsafeRawPointer(Unmanaged.passUnretained(small).toOpaque()), .root)
        #expect(ProgramLog.alive.load(ordering: .relaxed) - aliveBefore == 5)
        #expect(value?.next.next.next.next != nil)
        value = nil
        #expect(ProgramLog.alive.load(ordering: .relaxed) == aliveBefore)
    }

    @Test("a binding with an observer keeps its plan, so the observer sees every build")
    func observer() throws {
        final class Builds: ResolutionObserver {
            let count = Atomic<Int>(0)
            func observeBuild<T>(of key: BindingKey, scope: Scope, _ build: () throws(ProvisionError) -> T)
                throws(ProvisionError) -> T
            {
                count.add(1, ordering: .relaxed)
                return try build()
            }
        }
        let observer = Builds()
        let injector = try Injector(modules: [ProgramModule()], configuration: .init(observer: observer))
        _ = try injector.get(Link0.self)
        _ = try injector.get(Link0.self)
        #expect(observer.count.load(ordering: .relaxed) == 10)
        #expect(try program(of: Link0.self, in: injector) == 0)
    }
}
