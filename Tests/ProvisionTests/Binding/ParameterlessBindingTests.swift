import Testing

@testable import Provision

// A function without parameters binds through the pack form of `to(_:)` with an empty pack (there is no
// parameterless overload: being non-generic, it outranked the generic fixed arities, and `to(Car.init)`
// silently took `init()` over `init(engine:)`; found by hunt 27B). These tests pin down the shapes users
// write: each is a leaf, built by a request directly once linked, and an initializer overloaded with
// `init()` binds the form that has parameters.

private final class PlainLeaf: Sendable {
    init() {}
}

private struct ThrowingLeaf: Sendable {
    struct Refused: Error {}
    let made: Bool
    init() throws { made = true }
    static func refused() throws -> ThrowingLeaf { throw Refused() }
}

private final class FactoryLeaf: Sendable {
    let origin: String
    private init(origin: String) { self.origin = origin }
    static func make() -> FactoryLeaf { FactoryLeaf(origin: "make") }
}

private func makePlainLeaf() -> PlainLeaf { PlainLeaf() }

private final class Pedal: Sendable {
    let label: String
    init(label: String = "default") { self.label = label }
}

/// `init()` for previews beside the initializer the injector fills.
private final class Bicycle: Sendable {
    let pedal: Pedal
    init() { pedal = Pedal(label: "preview") }
    init(pedal: Pedal) { self.pedal = pedal }
}

/// `init()` beside a two-parameter memberwise initializer.
private struct Route: Sendable {
    var from: Pedal
    var to: String
}

extension Route {
    init() {
        from = Pedal(label: "preview")
        to = "nowhere"
    }
}

@Suite("Bindings to functions without parameters")
struct ParameterlessBindingTests {
    /// The keys `key` depends on, in `injector`'s graph.
    private func dependencies(of key: BindingKey, in injector: Injector) -> [BindingKey] {
        let graph = injector.graph()
        return graph.edges.filter { graph.vertices[$0.from].key == key }.map { graph.vertices[$0.to].key }
    }

    /// The key's node in `injector`, linked by one request.
    private func linkedNode<T>(_ type: T.Type, in injector: Injector) throws -> Node<T> {
        _ = try injector.get(type)
        return try #require(injector.lookup(BindingKey(type), as: type))
    }

    @Test("init(), a closure, an explicit () closure, a static and a global function: leaves built directly")
    func shapes() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(PlainLeaf.self).to(PlainLeaf.init)
                binder.bind(PlainLeaf.self, named: "closure").to { PlainLeaf() }
                binder.bind(PlainLeaf.self, named: "explicit").to { () throws -> PlainLeaf in
                    let leaf = PlainLeaf()
                    return leaf
                }
                binder.bind(PlainLeaf.self, named: "global").to(makePlainLeaf)
                binder.bind(FactoryLeaf.self).to(FactoryLeaf.make)
                binder.bind(ThrowingLeaf.self).to(ThrowingLeaf.init)
            })
        let report = injector.validationReport()
        #expect(report.isValid)
        #expect(try linkedNode(PlainLeaf.self, in: injector).isDirect)
        #expect(try linkedNode(FactoryLeaf.self, in: injector).isDirect)
        #expect(try linkedNode(ThrowingLeaf.self, in: injector).isDirect)
        for name in ["closure", "explicit", "global"] {
            let first = try injector.get(PlainLeaf.self, named: name)
            #expect(try injector.get(PlainLeaf.self, named: name) !== first, "\(name): transient")
        }
        #expect(try injector.get(FactoryLeaf.self).origin == "make")
        #expect(try injector.get(ThrowingLeaf.self).made)
        for key in [BindingKey(PlainLeaf.self), BindingKey(FactoryLeaf.self), BindingKey(ThrowingLeaf.self)] {
            #expect(dependencies(of: key, in: injector).isEmpty, "\(key) depends on nothing")
        }
    }

    @Test("a parameterless singleton is built once; its errors are factoryFailed with the key")
    func singletonAndErrors() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(PlainLeaf.self).to(PlainLeaf.init).in(.singleton)
                binder.bind(ThrowingLeaf.self).to { () throws -> ThrowingLeaf in try ThrowingLeaf.refused() }
            })
        #expect(try injector.get(PlainLeaf.self) === injector.get(PlainLeaf.self))
        let error = #expect(throws: ProvisionError.self) { try injector.get(ThrowingLeaf.self) }
        #expect(error?.code == .factoryFailed)
        #expect(error?.key == BindingKey(ThrowingLeaf.self))
        #expect(error?.cause is ThrowingLeaf.Refused)
    }

    @Test("to(Type.init) with init() and init(pedal:) binds init(pedal:), and depends on Pedal")
    func overloadedWithParameterless() throws {
        let injector = try Injector(
            ClosureModule { binder in
                binder.bind(Pedal.self).toInstance(Pedal(label: "bound"))
                binder.bind(Bicycle.self).to(Bicycle.init)
                binder.bind(Route.self).to(Route.init)
                binder.bind(String.self).toInstance("home")
            })
        #expect(try injector.get(Bicycle.self).pedal.label == "bound")
        let route = try injector.get(Route.self)
        #expect(route.from.label == "bound")
        #expect(route.to == "home")
        #expect(dependencies(of: BindingKey(Bicycle.self), in: injector) == [BindingKey(Pedal.self)])
    }

    @Test("the same, unbound: the dependency init() would have hidden is reported, not skipped")
    func overloadedUnbound() throws {
        let module = ClosureModule { $0.bind(Bicycle.self).to(Bicycle.init) }
        let invalid = #expect(throws: ProvisionError.self) { try Injector(module) }
        #expect(invalid?.code == .validationFailed)
        #expect(invalid?.description.contains("path: Bicycle -> Pedal") == true)
        let injector = try Injector(modules: [module], configuration: .init(validatesOnCreation: false))
        let error = #expect(throws: ProvisionError.self) { try injector.get(Bicycle.self) }
        #expect(error?.code == .notBound)
        #expect(error?.key == BindingKey(Pedal.self))
    }
}
