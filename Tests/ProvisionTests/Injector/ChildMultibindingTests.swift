import Provision
import Synchronization
import Testing

// A child injector's multibinding elements add to its parent's collection (see `Binder.multibind`).

private protocol ChildPlugin: AnyObject, Sendable {
    var id: String { get }
}

private final class NamedChildPlugin: ChildPlugin {
    let id: String

    init(id: String) {
        self.id = id
    }
}

/// Counts its instances: a singleton element shared by parent and child is made once.
private final class CountedChildPlugin: ChildPlugin {
    static let made = Atomic<Int>(0)
    let id = "counted"

    init() {
        CountedChildPlugin.made.add(1, ordering: .relaxed)
    }
}

private final class ChildPluginHost: Sendable {
    let plugins: [any ChildPlugin]

    init(plugins: [any ChildPlugin]) {
        self.plugins = plugins
    }
}

private func ids(_ plugins: [any ChildPlugin]) -> [String] {
    plugins.map(\.id)
}

@Suite("A child's multibinding adds to its parent's collection")
struct ChildMultibindingTests {
    private func parent() throws -> Injector {
        try Injector(
            ClosureModule { binder in
                binder.multibind((any ChildPlugin).self).to { NamedChildPlugin(id: "p1") }
                binder.multibind((any ChildPlugin).self).to { NamedChildPlugin(id: "p2") }
            })
    }

    @Test("parent's elements first, then the child's, then a grandchild's; each collection unchanged above")
    func accumulatesDownTheChain() throws {
        let parent = try parent()
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.multibind((any ChildPlugin).self).to { NamedChildPlugin(id: "c1") }
                binder.bind(ChildPluginHost.self).to(ChildPluginHost.init(plugins:))
            })
        let grandchild = try child.makeChild(
            ClosureModule { binder in
                binder.multibind((any ChildPlugin).self).to { NamedChildPlugin(id: "g1") }
            })
        #expect(ids(try parent.getAll((any ChildPlugin).self)) == ["p1", "p2"])
        #expect(ids(try child.getAll((any ChildPlugin).self)) == ["p1", "p2", "c1"])
        #expect(ids(try child.get(ChildPluginHost.self).plugins) == ["p1", "p2", "c1"])
        #expect(ids(try grandchild.getAll((any ChildPlugin).self)) == ["p1", "p2", "c1", "g1"])
        // The host is the child's: it injects the child's collection even when the grandchild asks.
        #expect(ids(try grandchild.get(ChildPluginHost.self).plugins) == ["p1", "p2", "c1"])
        // A child that multibinds nothing sees its parent's collection as it is.
        #expect(ids(try parent.makeChild().getAll((any ChildPlugin).self)) == ["p1", "p2"])
    }

    @Test("a parent's singleton element is one instance in the parent's and the child's collections")
    func sharesSingletonElements() throws {
        CountedChildPlugin.made.store(0, ordering: .relaxed)
        let parent = try Injector(
            ClosureModule { binder in
                binder.multibind((any ChildPlugin).self).to { CountedChildPlugin() }.in(.singleton)
            })
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.multibind((any ChildPlugin).self).to { NamedChildPlugin(id: "c1") }
            })
        let fromChild = try child.getAll((any ChildPlugin).self)
        let fromParent = try parent.getAll((any ChildPlugin).self)
        #expect(ids(fromChild) == ["counted", "c1"])
        #expect(fromChild[0] === fromParent[0])
        #expect(CountedChildPlugin.made.load(ordering: .relaxed) == 1)
        #expect(child.validationReport().isValid)
    }

    @Test("a child's ordinary [T] binding still hides the parent's collection; named collections are apart")
    func ordinaryBindingHides() throws {
        let parent = try Injector(
            ClosureModule { binder in
                binder.multibind((any ChildPlugin).self).to { NamedChildPlugin(id: "p1") }
                binder.multibind((any ChildPlugin).self, named: "extra").to { NamedChildPlugin(id: "x1") }
            })
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.bind([any ChildPlugin].self).to { [NamedChildPlugin(id: "own")] }
                binder.multibind((any ChildPlugin).self, named: "extra").to { NamedChildPlugin(id: "x2") }
            })
        #expect(ids(try child.get([any ChildPlugin].self)) == ["own"])
        #expect(ids(try child.getAll((any ChildPlugin).self, named: "extra")) == ["x1", "x2"])
        #expect(ids(try parent.getAll((any ChildPlugin).self, named: "extra")) == ["x1"])
    }

    @Test("a child's element over a parent's ordinary [T] binding: the child's elements only")
    func overParentsOrdinaryBinding() throws {
        let parent = try Injector(
            ClosureModule { binder in
                binder.bind([any ChildPlugin].self).to { [NamedChildPlugin(id: "bound")] }
            })
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.multibind((any ChildPlugin).self).to { NamedChildPlugin(id: "c1") }
            })
        #expect(ids(try child.getAll((any ChildPlugin).self)) == ["c1"])
        #expect(ids(try parent.get([any ChildPlugin].self)) == ["bound"])
    }

    @Test("overriding a child, and with(_:) of a child, keep the parent's elements once")
    func derivedChildren() throws {
        let parent = try parent()
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.multibind((any ChildPlugin).self).to { NamedChildPlugin(id: "c1") }
                binder.bind(String.self).toInstance("original")
            })
        let overridden = try child.overriding(ClosureModule { binder in binder.bind(String.self).toInstance("new") })
        #expect(ids(try overridden.getAll((any ChildPlugin).self)) == ["p1", "p2", "c1"])
        #expect(try overridden.get(String.self) == "new")
        let widened = try child.with(
            ClosureModule { binder in
                binder.multibind((any ChildPlugin).self).to { NamedChildPlugin(id: "c2") }
            })
        #expect(ids(try widened.getAll((any ChildPlugin).self)) == ["p1", "p2", "c1", "c2"])
        #expect(ids(try child.getAll((any ChildPlugin).self)) == ["p1", "p2", "c1"])
    }

    @Test("a failing parent element fails the child's collection, with the path")
    func failingParentElement() throws {
        struct Broken: Error {}
        let parent = try Injector(
            modules: [
                ClosureModule { binder in
                    binder.multibind((any ChildPlugin).self).to { () throws -> any ChildPlugin in throw Broken() }
                }
            ],
            configuration: Injector.Configuration(validatesOnCreation: false))
        let child = try parent.makeChild(
            ClosureModule { binder in
                binder.multibind((any ChildPlugin).self).to { NamedChildPlugin(id: "c1") }
            })
        #expect(throws: ProvisionError.self) { try child.getAll((any ChildPlugin).self) }
        do {
            _ = try child.getAll((any ChildPlugin).self)
        } catch {
            #expect(error.code == .factoryFailed)
            #expect(error.path.first == BindingKey([any ChildPlugin].self))
        }
    }
}
