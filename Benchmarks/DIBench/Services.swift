import Provision
import Swinject
import Synchronization

// Hand-written services of the small scenarios. The large graphs are generated (Generated/).

final class BenchSingleton: Sendable {}
final class BenchLeaf: Sendable {}
final class BenchNamed: Sendable {}

final class BenchJob: Sendable {
    let name: String
    let priority: Int
    let leaf: BenchLeaf

    init(name: String, priority: Int, leaf: BenchLeaf) {
        self.name = name
        self.priority = priority
        self.leaf = leaf
    }
}

/// The roots of the wide graphs' "(array)" scenarios: each holds all its leaves in an array. The roots of
/// the "(initializer)" scenarios, whose initializers take each leaf, are generated.
final class WideRoot {
    let leaves: [AnyObject]
    init(leaves: [AnyObject]) { self.leaves = leaves }
}

/// The hand-wired singleton of the singleton-hit scenario, built once at start-up and stored in a `let`
/// that the measuring loop reads directly.
final class SingletonHolder: Sendable {
    let singleton = BenchSingleton()
}

/// The floor of the lazy handle: a thread-safe lazy reference, set on first read, as an expert writes
/// it: the object's address published in one atomic word (Synchronization's `AtomicLazyReference` would
/// be slower: its `load()` is not specialized on Linux, and instantiates generic metadata per read).
final class HandLazy: Sendable {
    private let word = Atomic<UInt>(0)

    deinit {
        if let address = UnsafeRawPointer(bitPattern: word.load(ordering: .acquiring)) {
            Unmanaged<BenchLeaf>.fromOpaque(address).release()
        }
    }

    /// The leaf, made on first read; later reads are one acquiring load.
    var value: BenchLeaf {
        if let address = UnsafeRawPointer(bitPattern: word.load(ordering: .acquiring)) {
            return Unmanaged<BenchLeaf>.fromOpaque(address).takeUnretainedValue()
        }
        let made = Unmanaged.passRetained(BenchLeaf())
        let (exchanged, current) = word.compareExchange(
            expected: 0, desired: UInt(bitPattern: made.toOpaque()), ordering: .acquiringAndReleasing)
        if exchanged { return made.takeUnretainedValue() }
        made.release()
        return Unmanaged<BenchLeaf>.fromOpaque(UnsafeRawPointer(bitPattern: current).unsafelyUnwrapped)
            .takeUnretainedValue()
    }
}

struct SmallModule: Module {
    func configure(_ binder: Binder) {
        binder.bind(BenchSingleton.self).to(BenchSingleton.init).in(.singleton)
        binder.bind(BenchLeaf.self).to(BenchLeaf.init)
        binder.bind(BenchNamed.self, named: "primary").to(BenchNamed.init)
        binder.bind(BenchNamed.self, named: "secondary").to(BenchNamed.init)
        binder.bind(BenchJob.self).withArguments(String.self, Int.self)
            .to { resolver, name, priority in BenchJob(name: name, priority: priority, leaf: try resolver.get()) }
        binder.bind(WideRoot.self, named: "10").to { WideRoot(leaves: try Wide10.resolveLeaves($0)) }
        binder.bind(WideRoot.self, named: "100").to { WideRoot(leaves: try Wide100.resolveLeaves($0)) }
        binder.bind(WideRoot.self, named: "1000").to { WideRoot(leaves: try Wide1000.resolveLeaves($0)) }
        binder.bind(WideRoot.self, named: "singletons").to { WideRoot(leaves: try SingletonLeaves.resolveLeaves($0)) }
        Wide10.bindLeaves(binder)
        Wide100.bindLeaves(binder)
        Wide1000.bindLeaves(binder)
        SingletonLeaves.bindLeaves(binder)
        Wide10.bindRoot(binder)
        Wide100.bindRoot(binder)
        SingletonLeaves.bindRoot(binder)
    }
}

/// The Swinject container of the small scenarios, with the same registrations as `SmallModule`.
func makeSmallContainer() -> Container {
    let container = Container()
    container.register(BenchSingleton.self) { _ in BenchSingleton() }.inObjectScope(.container)
    container.register(BenchLeaf.self) { _ in BenchLeaf() }.inObjectScope(.transient)
    container.register(BenchNamed.self, name: "primary") { _ in BenchNamed() }.inObjectScope(.transient)
    container.register(BenchNamed.self, name: "secondary") { _ in BenchNamed() }.inObjectScope(.transient)
    container.register(BenchJob.self) { (r: Swinject.Resolver, name: String, priority: Int) in
        BenchJob(name: name, priority: priority, leaf: resolved(r, BenchLeaf.self))
    }.inObjectScope(.transient)
    container.register(WideRoot.self, name: "10") { WideRoot(leaves: Wide10.resolveLeaves($0)) }
        .inObjectScope(.transient)
    container.register(WideRoot.self, name: "100") { WideRoot(leaves: Wide100.resolveLeaves($0)) }
        .inObjectScope(.transient)
    container.register(WideRoot.self, name: "1000") { WideRoot(leaves: Wide1000.resolveLeaves($0)) }
        .inObjectScope(.transient)
    container.register(WideRoot.self, name: "singletons") { WideRoot(leaves: SingletonLeaves.resolveLeaves($0)) }
        .inObjectScope(.transient)
    Wide10.registerLeaves(container)
    Wide100.registerLeaves(container)
    Wide1000.registerLeaves(container)
    SingletonLeaves.registerLeaves(container)
    Wide10.registerRoot(container)
    Wide100.registerRoot(container)
    SingletonLeaves.registerRoot(container)
    return container
}
